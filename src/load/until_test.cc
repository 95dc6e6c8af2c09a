#include "load/until.h"

#include <cmath>
#include <functional>
#include <random>
#include <utility>

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
  EXPECT_NE(v.reason.find("<= 5 %"), std::string::npos) << v.reason;
  // Not before the interval allowed it, not long after.
  EXPECT_GE(stopped * 200, 2000);
  EXPECT_LE(stopped * 200, 12000) << v.reason;
  EXPECT_NEAR(v.measured_s, stopped * static_cast<double>(kUntilWindowNs) / 1e9, 1e-9);
  // Independent answers: the batches' interval is the binomial one of the same answers, give or
  // take the batch variance's own error (about 13 % at 32 batches), and as many answers count.
  std::mt19937_64 again(7);
  std::exponential_distribution<double> exp2(1.0 / 100'000);
  Histogram h;
  for (int i = 0; i < stopped * 200; ++i) h.Record(static_cast<int64_t>(exp2(again)));
  auto ci = PercentileConfidence(h, 0.95);
  ASSERT_TRUE(ci);
  const double binomial = std::max(ci->value - ci->low, ci->high - ci->value) / ci->value;
  EXPECT_NEAR(*v.interval, binomial, 0.35 * binomial);
  EXPECT_NEAR(v.effective_samples, stopped * 200.0, 0.5 * stopped * 200.0);
  EXPECT_EQ(v.interval_samples, static_cast<uint64_t>(stopped * 200));
  EXPECT_GE(v.batches, kUntilMinBatches);
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

TEST(UntilJudge, EndsAPointWhoseQueueKeepsGrowing) {
  // An overloaded server: the latency's scale grows with the time its queue has had to build
  // (1 + w/2 times at window w). Not stationary from the start; once a quarter of the max is
  // measured, the windows' p95 over the last quarter is more than 4 times that over the first,
  // and the point ends there instead of running on to its max.
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> exp(1.0);
  UntilJudge judge(Rule("p95 ±5% max 2s"));
  int stopped = 0;
  UntilVerdict v = Feed(judge, 2000, 200, [&](int w) { return static_cast<int64_t>(50'000 * (1 + w / 2.0) * exp(rng)); },
                        &stopped);
  ASSERT_TRUE(v.stop);
  EXPECT_FALSE(v.known);
  EXPECT_EQ(v.check, "hopeless") << v.reason;
  EXPECT_EQ(stopped, 500'000'000 / kUntilWindowNs) << v.reason;
  EXPECT_EQ(v.reason.rfind("not knowable: p95 per window grew ", 0), 0u) << v.reason;
  EXPECT_NE(v.reason.find("a queue building up; not stationary: p95 per window"), std::string::npos) << v.reason;
}

// AR(1) in log latency: x_t = phi·x_{t−1} + e_t, neighbours alike as requests queued behind
// each other; its p95 is known: exp(1.645 σ / sqrt(1 − phi²)) times the scale.
struct Ar1 {
  double phi, sigma;
  std::mt19937_64 rng;
  std::normal_distribution<double> noise{0, 1};
  double x = 0;
  Ar1(double p, double s, uint64_t seed) : phi(p), sigma(s), rng(seed) {
    x = sigma / std::sqrt(1 - phi * phi) * noise(rng);  // started stationary
  }
  int64_t operator()(int) {
    x = phi * x + sigma * noise(rng);
    return static_cast<int64_t>(100'000 * std::exp(x));
  }
  double P95() const { return 100'000 * std::exp(1.6448536 * sigma / std::sqrt(1 - phi * phi)); }
};

TEST(UntilJudge, ACorrelatedStreamStopsLaterThanAnIndependentOneButStops) {
  // At the same rate, the i.i.d. stream is known after a few thousand answers; the AR(1) one
  // with phi = 0.8 (lag-1 r near 0.8) is worth about a quarter as many independent ones (its
  // answers' being above p95 has an integrated autocorrelation of 4.2: the tail forgets faster
  // than the latency's (1 + phi) / (1 − phi) = 9), so takes several times as long, and ends known.
  std::mt19937_64 rng1(5);
  std::exponential_distribution<double> exp(1.0 / 100'000);
  UntilJudge iid(Rule("p95 ±5% max 30s"));
  int iid_stopped = 0;
  Feed(iid, 200, 1200, [&](int) { return static_cast<int64_t>(exp(rng1)); }, &iid_stopped);
  ASSERT_GT(iid_stopped, 0);
  Ar1 ar(0.8, 0.6, 5);
  UntilJudge judge(Rule("p95 ±5% max 30s"));
  int stopped = 0;
  UntilVerdict v = Feed(judge, 200, 1200, std::ref(ar), &stopped);
  ASSERT_GT(stopped, 0) << v.reason;
  EXPECT_TRUE(v.known) << v.reason;
  EXPECT_LT(iid_stopped * 3, stopped) << v.reason;
  EXPECT_GT(v.lag1_r, 0.7) << v.reason;
  // It counted every answer, as worth far fewer independent ones.
  EXPECT_EQ(v.interval_samples, static_cast<uint64_t>(stopped * 200));
  EXPECT_LT(v.effective_samples, 0.6 * stopped * 200) << v.reason;
  EXPECT_NE(v.reason.find("effective answers of"), std::string::npos) << v.reason;
}

// Many AR(1) streams, each judged over the same number of answers: the batches' 95 % interval
// covers the true p95 in about 95 % of them, where the binomial interval of the same answers
// (as if independent) covers it far less often.
TEST(UntilJudge, ItsIntervalCoversTheTruePercentileOfACorrelatedStream) {
  constexpr int kStreams = 300;
  int covered = 0, binomial_covered = 0;
  double width = 0;
  for (int s = 0; s < kStreams; ++s) {
    Ar1 ar(0.9, 0.3, 1000 + s);
    // A half-width it cannot reach: the judge runs to its max, 64 windows of 250 answers.
    UntilJudge judge(Rule("p95 ±0.01% max 1.6s"));
    Histogram h;
    UntilVerdict v = Feed(judge, 250, 1000, [&](int w) {
      const int64_t x = ar(w);
      h.Record(x);
      return x;
    });
    ASSERT_TRUE(v.stop);
    ASSERT_EQ(v.windows, 64);
    ASSERT_TRUE(v.interval) << v.reason;
    covered += v.low_ns <= ar.P95() && ar.P95() <= v.high_ns;
    auto ci = PercentileConfidence(h, 0.95);
    binomial_covered += ci->low <= ar.P95() && ar.P95() <= ci->high;
    width += *v.interval / kStreams;
  }
  // ±2.5 standard errors of a 95 % coverage over 300 streams (290 here; the binomial 150).
  EXPECT_GE(covered, kStreams * 92 / 100) << "binomial " << binomial_covered << ", mean half-width " << width;
  EXPECT_LE(covered, kStreams * 99 / 100) << "binomial " << binomial_covered << ", mean half-width " << width;
  EXPECT_LT(binomial_covered, kStreams * 75 / 100);
}

// Stopped as soon as its interval is narrow enough, a correlated stream's interval still covers
// the true p95 about as often as asked (193 of 200 here), though stopping at the first narrow
// estimate favours estimates narrower than the truth.
TEST(UntilJudge, StoppedWhenNarrowEnoughItsIntervalStillCovers) {
  constexpr int kStreams = 200;
  int covered = 0, known = 0;
  for (int s = 0; s < kStreams; ++s) {
    Ar1 ar(0.9, 0.3, 5000 + s);
    UntilJudge judge(Rule("p95 ±5% max 30s"));
    UntilVerdict v = Feed(judge, 250, 1200, std::ref(ar));
    known += v.known;
    covered += v.interval && v.low_ns <= ar.P95() && ar.P95() <= v.high_ns;
  }
  EXPECT_EQ(known, kStreams);
  EXPECT_GE(covered, kStreams * 91 / 100);  // 95 % less 2.5 standard errors
}

// Answers alike over longer than the point has run (phi = 0.9995 an answer: about 4 000 answers
// to forget, 2 windows): the batches are too, and the point goes on, said, until its max.
TEST(UntilJudge, RefusesBatchesThatAreStillAlike) {
  Ar1 ar(0.9995, 0.02, 9);
  UntilJudge stuck(Rule("p95 ±5% max 1s"));
  UntilVerdict v = Feed(stuck, 2000, 200, std::ref(ar));
  ASSERT_TRUE(v.stop);
  EXPECT_FALSE(v.known);
  // Held by its batches or its drift to the max, or ended as hopeless once its interval says so.
  EXPECT_TRUE(v.check == "max duration" || v.check == "hopeless") << v.reason;
  EXPECT_TRUE(v.reason.find("autocorrelated: batches of") != std::string::npos ||
              v.reason.find("not stationary") != std::string::npos ||
              v.reason.find(" > 5 %") != std::string::npos)
      << v.reason;
}

// The independence check sees no correlation in an i.i.d. stream.
TEST(UntilJudge, FindsNoCorrelationBetweenIndependentAnswers) {
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> draw(11, 1);
  UntilJudge judge(Rule("p99 ±1% max 1s"));
  UntilVerdict v = Feed(judge, 2000, 100, [&](int) { return static_cast<int64_t>(draw(rng)); });
  EXPECT_LT(std::fabs(v.lag1_r), 0.03) << v.reason;
  EXPECT_GT(v.effective_samples, 0.5 * static_cast<double>(v.interval_samples)) << v.reason;
}

TEST(UntilJudge, MaxDurationEndsAPointThatIsNotKnownWithItsInterval) {
  // 30 answers a window: p95 ±5 % needs some 3 000 and has 2 400 by the 2 s max, so its interval
  // is near enough to go on for (not hopeless), and not within it at the max.
  std::mt19937_64 rng(13);
  std::exponential_distribution<double> exp(1.0 / 100'000);
  UntilJudge judge(Rule("p95 ±5% max 2s"));
  int stopped = 0;
  UntilVerdict v = Feed(judge, 30, 1000, [&](int) { return static_cast<int64_t>(exp(rng)); }, &stopped);
  EXPECT_EQ(stopped, 2'000'000'000 / kUntilWindowNs) << v.reason;
  EXPECT_FALSE(v.known);
  EXPECT_EQ(v.check, "max duration");
  EXPECT_NE(v.reason.find("max duration 2 s reached: interval "), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find(" > 5 %"), std::string::npos) << v.reason;
  ASSERT_TRUE(v.interval);
  EXPECT_GT(*v.interval, 0.05);
  EXPECT_LT(*v.interval, 0.10);
  EXPECT_NEAR(v.measured_s, 2.0, 1e-9);
}

TEST(UntilJudge, EndsAPointThatCannotBeKnownByItsMax) {
  // 100 answers a window: p99 ±1 % would need some 400 000 answers, and 8 000 come by the 2 s
  // max. After a quarter of the max its interval, narrowing as 1/sqrt(time), would still be
  // more than three times ±1 % at the max: the point ends there, not known, and says so.
  std::mt19937_64 rng(13);
  std::exponential_distribution<double> exp(1.0 / 100'000);
  UntilJudge judge(Rule("p99 ±1% max 2s"));
  int stopped = 0;
  UntilVerdict v = Feed(judge, 100, 1000, [&](int) { return static_cast<int64_t>(exp(rng)); }, &stopped);
  EXPECT_EQ(stopped, 500'000'000 / kUntilWindowNs) << v.reason;
  EXPECT_TRUE(v.stop);
  EXPECT_FALSE(v.known);
  EXPECT_EQ(v.check, "hopeless");
  EXPECT_EQ(v.reason.rfind("not knowable by the max of 2 s: at this pace the interval would still be ", 0), 0u)
      << v.reason;
  EXPECT_NE(v.reason.find("; interval "), std::string::npos) << v.reason;
  ASSERT_TRUE(v.interval);
  EXPECT_GT(*v.interval * std::sqrt(0.25), 0.03);
  // A rule whose half-width is below the histogram's precision is never met: its points run to
  // the max with the judge watching (a fixed duration's interval by the same method).
  UntilJudge watch(Rule("p99 ±0.01% max 2s"));
  std::mt19937_64 rng2(13);
  v = Feed(watch, 100, 1000, [&](int) { return static_cast<int64_t>(exp(rng2)); }, &stopped);
  EXPECT_EQ(stopped, 2'000'000'000 / kUntilWindowNs) << v.reason;
  EXPECT_EQ(v.check, "max duration");
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

TEST(StudentQuantileTwoSided, MatchesTheTablesAndTendsToTheNormal) {
  // Student t's 97.5 % points from the tables, down to the fewest batches that could occur.
  const std::pair<int, double> table[] = {{3, 3.182}, {5, 2.571}, {10, 2.228}, {15, 2.131}, {31, 2.040}, {63, 1.998}};
  for (const auto& [df, t] : table) EXPECT_NEAR(StudentQuantileTwoSided(0.95, df), t, 0.002 * t) << df;
  EXPECT_NEAR(StudentQuantileTwoSided(0.99, 15), 2.947, 0.003);
  EXPECT_NEAR(StudentQuantileTwoSided(0.95, 100000), NormalQuantileTwoSided(0.95), 1e-4);
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
