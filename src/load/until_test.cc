#include "load/until.h"

#include <cmath>
#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "load/percentile_ci.h"

namespace ream {
namespace {

// Windows of kUntilWindowNs, `per_window` answers each, latencies from `next(window)`.
UntilVerdict Feed(UntilJudge& judge, int per_window, int max_windows,
                  const std::function<int64_t(int)>& next, int* stopped_at = nullptr) {
  for (int w = 0; w < max_windows; ++w) {
    UntilWindow win;
    win.seconds = static_cast<double>(kUntilWindowNs) / 1e9;
    for (int i = 0; i < per_window; ++i) win.latencies_ns.push_back(next(w));
    if (judge.Add(win).stop) {
      if (stopped_at) *stopped_at = w + 1;
      return judge.verdict();
    }
  }
  if (stopped_at) *stopped_at = -1;
  return judge.verdict();
}

UntilRule Rule(const char* text) {
  auto r = ParseUntil(text, "--until");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : UntilRule{};
}

TEST(ParseUntil, ReadsThePercentileTheHalfWidthAndTheMax) {
  UntilRule r = Rule("p95 ±5%");
  EXPECT_DOUBLE_EQ(r.percentile, 95);
  EXPECT_DOUBLE_EQ(r.half_width, 0.05);
  EXPECT_EQ(r.max_ns, kUntilDefaultMaxNs);
  r = Rule("p99.9 +-2% max 20s");
  EXPECT_DOUBLE_EQ(r.percentile, 99.9);
  EXPECT_DOUBLE_EQ(r.half_width, 0.02);
  EXPECT_EQ(r.max_ns, 20'000'000'000);
  r = Rule("p99 ± 2.5 % max 1500ms");
  EXPECT_DOUBLE_EQ(r.half_width, 0.025);
  EXPECT_EQ(r.max_ns, 1'500'000'000);
  EXPECT_EQ(Rule("p95 +/-5% max 20s").Text(), "p95 ±5% max 20s");
}

TEST(ParseUntil, NamesTheFieldAndWhatIsWrong) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"", "empty"},
      {"95 ±5%", "'95' is not a percentile"},
      {"p100 ±5%", "'p100' is not a percentile"},
      {"p95", "'' is not a half-width"},
      {"p95 5%", "'5%' is not a half-width"},
      {"p95 ±5", "'±5' is not a half-width"},
      {"p95 ±0%", "'±0%' is not a half-width"},
      {"p95 ±5% max", "'max' takes one duration"},
      {"p95 ±5% max 20", "needs a unit"},
      {"p95 ±5% max 100ms", "shorter than the 16 windows"},
  };
  for (const auto& c : cases) {
    auto r = ParseUntil(c.text, "[load] until");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find("[load] until"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
}

TEST(UntilJudge, StopsAnIidStreamOnceItsIntervalIsWithinTheHalfWidth) {
  // Exponential latencies (mean 100 us), 200 answers a window (4 000 a second): p95's binomial
  // interval reaches ±5 % after some 3 000 answers.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> exp(1.0 / 100'000);
  UntilJudge judge(Rule("p95 ±5% max 10s"));
  int stopped = 0;
  UntilVerdict v = Feed(judge, 200, 200, [&](int) { return static_cast<int64_t>(exp(rng)); }, &stopped);
  ASSERT_TRUE(v.stop);
  EXPECT_TRUE(v.known) << v.reason;
  EXPECT_EQ(v.check, "interval");
  ASSERT_TRUE(v.interval.has_value());
  EXPECT_LE(*v.interval, 0.05);
  EXPECT_EQ(v.lag, 1) << v.reason;
  EXPECT_NE(v.reason.find("<= 5 %"), std::string::npos) << v.reason;
  // Not before the interval allowed it, not long after.
  EXPECT_GE(stopped * 200, 2000);
  EXPECT_LE(stopped * 200, 12000) << v.reason;
  EXPECT_NEAR(v.measured_s, stopped * static_cast<double>(kUntilWindowNs) / 1e9, 1e-9);
  // The interval it judged is the histogram's binomial interval of the same answers.
  std::mt19937_64 again(7);
  std::exponential_distribution<double> exp2(1.0 / 100'000);
  Histogram h;
  for (int i = 0; i < stopped * 200; ++i) h.Record(static_cast<int64_t>(exp2(again)));
  auto ci = PercentileConfidence(h, 0.95);
  ASSERT_TRUE(ci);
  EXPECT_NEAR(*v.interval, std::max(ci->value - ci->low, ci->high - ci->value) / ci->value, 1e-12);
}

TEST(UntilJudge, ATighterHalfWidthTakesLonger) {
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> exp(1.0 / 100'000);
  auto draw = [&](int) { return static_cast<int64_t>(exp(rng)); };
  UntilJudge wide(Rule("p95 ±5% max 30s")), tight(Rule("p95 ±2% max 30s"));
  int at_wide = 0, at_tight = 0;
  Feed(wide, 100, 1200, draw, &at_wide);
  Feed(tight, 100, 1200, draw, &at_tight);
  ASSERT_GT(at_wide, 0);
  ASSERT_GT(at_tight, 0);
  EXPECT_GT(at_tight, 3 * at_wide);
}

TEST(UntilJudge, CatchesADriftingStreamAsNotStationary) {
  // The latency's scale grows 3 % a window: an overloaded server's queue building up. The
  // interval is soon tight (20 000 answers a window) and neighbours hardly differ, but the
  // windows' p95 climbs.
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> exp(1.0);
  UntilJudge judge(Rule("p95 ±5% max 1s"));
  UntilVerdict v = Feed(judge, 20000, 100, [&](int w) { return static_cast<int64_t>(50'000 * std::pow(1.03, w) * exp(rng)); });
  ASSERT_TRUE(v.stop);
  EXPECT_FALSE(v.known) << v.reason;
  EXPECT_EQ(v.check, "max duration");
  EXPECT_NE(v.reason.find("max duration 1 s reached: not stationary: p95 per window"), std::string::npos) << v.reason;
  EXPECT_EQ(v.windows, 1'000'000'000 / kUntilWindowNs);
  // The same stream without the drift is known.
  UntilJudge steady(Rule("p95 ±5% max 1s"));
  EXPECT_TRUE(Feed(steady, 20000, 100, [&](int) { return static_cast<int64_t>(50'000 * exp(rng)); }).known);
}

TEST(UntilJudge, CatchesAnAutocorrelatedStreamAndCountsOnlyIndependentAnswers) {
  // AR(1) with r = 0.8 in log latency: neighbours alike, as requests queued behind each other.
  // At the rate the i.i.d. stream stopped, this one is still going: only every 20th answer
  // (0.8^20 = 0.01) counts toward its interval.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0, 0.6);
  double x = 0;
  auto ar = [&](int) {
    x = 0.8 * x + noise(rng);
    return static_cast<int64_t>(100'000 * std::exp(x));
  };
  UntilJudge iid(Rule("p95 ±5% max 3s"));
  std::mt19937_64 rng1(5);
  std::exponential_distribution<double> exp(1.0 / 100'000);
  int iid_stopped = 0;
  Feed(iid, 200, 1000, [&](int) { return static_cast<int64_t>(exp(rng1)); }, &iid_stopped);
  ASSERT_GT(iid_stopped, 0);
  UntilJudge judge(Rule("p95 ±5% max 3s"));
  int stopped = 0;
  UntilVerdict v = Feed(judge, 200, 1000, ar, &stopped);
  // It ran to its max (the i.i.d. stream at the same rate was known long before), thinned.
  EXPECT_EQ(stopped, 3'000'000'000 / kUntilWindowNs) << v.reason;
  EXPECT_LT(iid_stopped * 3, stopped);
  EXPECT_FALSE(v.known);
  EXPECT_GT(v.lag1_r, 0.7);
  EXPECT_GE(v.lag, 10);
  EXPECT_LE(v.interval_samples, static_cast<uint64_t>(stopped * 200 / v.lag + 1));
  EXPECT_NE(v.reason.find("max duration 3 s reached: interval "), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("th answer: lag-1 r = 0.7"), std::string::npos) << v.reason;

  // Correlated beyond every lag tried (r = 0.995 an answer: still 0.6 at lag 100), yet steady
  // from window to window: refused as autocorrelated, said, until the max.
  std::mt19937_64 rng2(9);
  std::normal_distribution<double> step(0, 0.1);
  double y = 0;
  UntilJudge stuck(Rule("p95 ±5% max 1s"));
  v = Feed(stuck, 2000, 200, [&](int) {
    y = 0.995 * y + step(rng2);
    return static_cast<int64_t>(100'000 * std::exp(y));
  });
  ASSERT_TRUE(v.stop);
  EXPECT_FALSE(v.known);
  EXPECT_EQ(v.check, "max duration");
  EXPECT_NE(v.reason.find("max duration 1 s reached: autocorrelated: lag-1 r = 0.99, still 0.5"), std::string::npos)
      << v.reason;
  EXPECT_EQ(v.lag, 0);
}

// The independence check sees no correlation in an i.i.d. stream.
TEST(UntilJudge, FindsNoCorrelationBetweenIndependentAnswers) {
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> draw(11, 1);
  UntilJudge judge(Rule("p99 ±1% max 1s"));
  UntilVerdict v = Feed(judge, 2000, 100, [&](int) { return static_cast<int64_t>(draw(rng)); });
  EXPECT_LT(std::fabs(v.lag1_r), 0.03) << v.reason;
  EXPECT_EQ(v.lag, 1) << v.reason;
}

TEST(UntilJudge, MaxDurationEndsAPointThatIsNotKnownWithItsInterval) {
  // 20 answers a window: p99 ±1 % needs far more than 2 s of them.
  std::mt19937_64 rng(13);
  std::exponential_distribution<double> exp(1.0 / 100'000);
  UntilJudge judge(Rule("p99 ±1% max 2s"));
  int stopped = 0;
  UntilVerdict v = Feed(judge, 100, 1000, [&](int) { return static_cast<int64_t>(exp(rng)); }, &stopped);
  EXPECT_EQ(stopped, 2'000'000'000 / kUntilWindowNs);
  EXPECT_FALSE(v.known);
  EXPECT_EQ(v.check, "max duration");
  EXPECT_NE(v.reason.find("max duration 2 s reached: interval "), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find(" > 1 %"), std::string::npos) << v.reason;
  ASSERT_TRUE(v.interval);
  EXPECT_GT(*v.interval, 0.01);
  EXPECT_NEAR(v.measured_s, 2.0, 1e-9);
}

TEST(UntilJudge, NeverStopsBeforeItsWindows) {
  std::mt19937_64 rng(1);
  std::exponential_distribution<double> exp(1.0 / 100'000);
  UntilJudge judge(Rule("p95 ±50% max 5s"));
  int stopped = 0;
  UntilVerdict v = Feed(judge, 5000, 100, [&](int) { return static_cast<int64_t>(exp(rng)); }, &stopped);
  EXPECT_TRUE(v.known) << v.reason;
  EXPECT_GE(stopped, kUntilMinWindows);
}

TEST(AugmentedDickeyFuller, RejectsTheUnitRootOfNoiseNotOfAWalkOrATrend) {
  std::mt19937_64 rng(21);
  std::normal_distribution<double> n(0, 1);
  int noise_passed = 0, walk_passed = 0, trend_passed = 0;
  constexpr int kTrials = 400, kLength = 20;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<double> noise, walk, trend;
    double w = 0;
    for (int i = 0; i < kLength; ++i) {
      noise.push_back(n(rng));
      walk.push_back(w += n(rng));
      trend.push_back(0.5 * i + n(rng));
    }
    noise_passed += AugmentedDickeyFuller(noise, 0)->stationary;
    walk_passed += AugmentedDickeyFuller(walk, 0)->stationary;
    trend_passed += AugmentedDickeyFuller(trend, 0)->stationary;
  }
  EXPECT_GT(noise_passed, kTrials * 85 / 100);
  EXPECT_LT(walk_passed, kTrials / 10);  // the test's 5 % size, give or take
  EXPECT_LT(trend_passed, kTrials / 10);
  EXPECT_TRUE(AugmentedDickeyFuller(std::vector<double>(12, 3.0), 1)->stationary);
  EXPECT_FALSE(AugmentedDickeyFuller({1, 2, 3}, 1).has_value());
  EXPECT_NEAR(AugmentedDickeyFuller(std::vector<double>(30, 0), 1)->critical, -2.86154 - 2.8903 / 28 - 4.234 / (28.0 * 28) - 40.040 / (28.0 * 28 * 28), 1e-12);
}

}  // namespace
}  // namespace ream
