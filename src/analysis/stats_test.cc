#include "analysis/stats.h"

#include "analysis/format.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace ream::analysis {
namespace {

// Loads in explanations: whole from 100 up, with their fraction below (a speech recognizer's
// 0.5 QPS is not "0 QPS").
TEST(FormatLoad, KeepsTheFractionOfSmallLoads) {
  EXPECT_EQ(Qps(0.5), "0.5 QPS");
  EXPECT_EQ(Qps(12.5), "12.5 QPS");
  EXPECT_EQ(Qps(30), "30 QPS");
  EXPECT_EQ(Qps(14245.87), "14246 QPS");
  EXPECT_EQ(Load(2.5, LoadAxis::kSessions), "2.5 sessions");
}

TEST(Interpolate, LinearBetweenNeighboursAndNoExtrapolation) {
  std::vector<XY> s = {{0, 0}, {10, 100}, {20, 110}};
  EXPECT_DOUBLE_EQ(*InterpolateY(s, 5), 50);
  EXPECT_DOUBLE_EQ(*InterpolateY(s, 15), 105);
  EXPECT_DOUBLE_EQ(*InterpolateY(s, 20), 110);
  EXPECT_FALSE(InterpolateY(s, -1).has_value());
  EXPECT_FALSE(InterpolateY(s, 21).has_value());
  EXPECT_FALSE(InterpolateY({}, 0).has_value());
}

TEST(FirstUpCrossing, InterpolatesBetweenLastPassAndFirstFail) {
  std::vector<XY> s = {{100, 1}, {200, 2}, {300, 6}, {400, 3}};
  size_t idx = 0;
  auto x = FirstUpCrossing(s, 4, &idx);
  ASSERT_TRUE(x.has_value());
  EXPECT_DOUBLE_EQ(*x, 250);  // 2 → 6 crosses 4 halfway
  EXPECT_EQ(idx, 2u);
  EXPECT_FALSE(FirstUpCrossing(s, 10).has_value());  // never crosses
  EXPECT_FALSE(FirstUpCrossing(s, 0.5).has_value());  // fails from the first point
}

TEST(FitLine, ExactLineHasUnitR2AndNoiseLowersIt) {
  std::vector<XY> s;
  for (int i = 0; i < 10; ++i) s.push_back({double(i), 3.0 * i + 7});
  auto f = FitLine(s);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->slope, 3, 1e-12);
  EXPECT_NEAR(f->intercept, 7, 1e-12);
  EXPECT_NEAR(f->r2, 1, 1e-12);
  s[3].y += 5;
  s[7].y -= 5;
  auto g = FitLine(s);
  EXPECT_LT(g->r2, 0.99);
  EXPECT_GT(g->r2, 0.8);
  EXPECT_FALSE(FitLine({{1, 1}, {1, 2}}).has_value());  // no spread in x
}

TEST(Correlation, SignAndDegenerateCases) {
  EXPECT_NEAR(*Correlation({{1, 2}, {2, 4}, {3, 6}}), 1, 1e-12);
  EXPECT_NEAR(*Correlation({{1, 6}, {2, 4}, {3, 2}}), -1, 1e-12);
  EXPECT_FALSE(Correlation({{1, 1}, {2, 1}}).has_value());
}

TEST(NormalQuantile, KnownValues) {
  EXPECT_NEAR(NormalQuantileTwoSided(0.95), 1.959964, 1e-5);
  EXPECT_NEAR(NormalQuantileTwoSided(0.99), 2.575829, 1e-5);
}

TEST(PercentileConfidence, OrderStatisticRanksOfAUniformSample) {
  Histogram h;
  for (int v = 1; v <= 10000; ++v) h.Record(v * 1000);  // 1..10000 µs in ns
  auto ci = PercentileConfidence(h, 0.95);
  ASSERT_TRUE(ci.has_value());
  // n·q = 9500, sd = sqrt(10000·0.95·0.05) = 21.79, z = 1.96 → ranks 9457 and 9544.
  EXPECT_EQ(ci->rank_low, 9457u);
  EXPECT_EQ(ci->rank_high, 9544u);
  EXPECT_NEAR(ci->value, 9500e3, 9500e3 * Histogram::kRelativeError);
  EXPECT_NEAR(ci->low, 9457e3, 9457e3 * Histogram::kRelativeError);
  EXPECT_NEAR(ci->high, 9544e3, 9544e3 * Histogram::kRelativeError);
  EXPECT_FALSE(PercentileConfidence(Histogram(), 0.95).has_value());
}

TEST(PercentileConfidence, CoversTheTrueQuantileAboutAsOftenAsStated) {
  // Exponential samples with mean 100 µs: the true p95 is 100·ln 20 µs. Over many samples of
  // 2000, a 95 % interval must cover it close to 95 % of the time (bucket error included).
  const double truth = 100e3 * std::log(20.0);
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> exp(1.0 / 100e3);
  int covered = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    Histogram h;
    for (int i = 0; i < 2000; ++i) h.Record(static_cast<int64_t>(exp(rng)));
    auto ci = PercentileConfidence(h, 0.95);
    if (ci->low <= truth && truth <= ci->high) ++covered;
  }
  double coverage = double(covered) / trials;
  EXPECT_GT(coverage, 0.90);
  EXPECT_LT(coverage, 0.995);
}

TEST(MedianConfidence, SmallSamplesGiveTheirRangeWithItsCoverage) {
  auto three = MedianConfidence({10, 30, 12});
  ASSERT_TRUE(three.has_value());
  EXPECT_DOUBLE_EQ(three->median, 12);
  EXPECT_DOUBLE_EQ(three->low, 10);
  EXPECT_DOUBLE_EQ(three->high, 30);
  EXPECT_DOUBLE_EQ(three->coverage, 0.75);  // 1 − 2 / 2³
  auto two = MedianConfidence({4, 6});
  EXPECT_DOUBLE_EQ(two->median, 5);
  EXPECT_DOUBLE_EQ(two->coverage, 0.5);
  auto one = MedianConfidence({7});
  EXPECT_DOUBLE_EQ(one->median, 7);
  EXPECT_DOUBLE_EQ(one->low, 7);
  EXPECT_DOUBLE_EQ(one->high, 7);
  EXPECT_DOUBLE_EQ(one->coverage, 0);
  EXPECT_FALSE(MedianConfidence({}).has_value());
  // Five values: the range covers 1 − 2/32 = 93.75 %, short of 95 %, and says so.
  EXPECT_DOUBLE_EQ(MedianConfidence({1, 2, 3, 4, 5})->coverage, 0.9375);
}

TEST(MedianConfidence, NarrowsToTheWidestRankPairThatStillCovers) {
  // Ten values: [x_(1), x_(10)] covers 1 − 2/1024, [x_(2), x_(9)] 1 − 22/1024 = 97.9 %,
  // [x_(3), x_(8)] only 1 − 112/1024 = 89 %; at 95 % the interval is [x_(2), x_(9)].
  auto ci = MedianConfidence({9, 1, 8, 2, 7, 3, 6, 4, 5, 10});
  ASSERT_TRUE(ci.has_value());
  EXPECT_DOUBLE_EQ(ci->median, 5.5);
  EXPECT_DOUBLE_EQ(ci->low, 2);
  EXPECT_DOUBLE_EQ(ci->high, 9);
  EXPECT_DOUBLE_EQ(ci->coverage, 1 - 22.0 / 1024);
  // At 80 % it narrows one rank further.
  auto ci80 = MedianConfidence({9, 1, 8, 2, 7, 3, 6, 4, 5, 10}, 0.80);
  EXPECT_DOUBLE_EQ(ci80->low, 3);
  EXPECT_DOUBLE_EQ(ci80->high, 8);
}

TEST(MedianConfidence, OneDisturbedRepetitionDoesNotMoveIt) {
  auto ci = MedianConfidence({500, 510, 1300});
  EXPECT_DOUBLE_EQ(ci->median, 510);  // the mean would be 770
}

TEST(MedianConfidence, CoversTheTrueMedianAsOftenAsItSays) {
  // Exponential values (skewed, like latencies): the interval must cover the true median
  // (ln 2) in about `coverage` of the trials.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> exp(1.0);
  const int trials = 4000;
  int covered = 0;
  double stated = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(12);
    for (double& x : v) x = exp(rng);
    auto ci = MedianConfidence(v);
    stated = ci->coverage;
    if (ci->low <= std::log(2.0) && std::log(2.0) <= ci->high) ++covered;
  }
  EXPECT_NEAR(double(covered) / trials, stated, 0.015);
  EXPECT_GE(stated, 0.95);
}

}  // namespace
}  // namespace ream::analysis
