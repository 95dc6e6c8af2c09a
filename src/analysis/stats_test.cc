#include "analysis/stats.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace ream::analysis {
namespace {

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

TEST(MeanConfidence, StudentTHalfWidth) {
  auto ci = MeanConfidence({10, 12, 14});
  ASSERT_TRUE(ci.has_value());
  EXPECT_DOUBLE_EQ(ci->mean, 12);
  // sd = 2, t(2) = 4.303 → 4.303·2/sqrt(3)
  EXPECT_NEAR(ci->half_width, 4.303 * 2 / std::sqrt(3.0), 1e-9);
  EXPECT_DOUBLE_EQ(MeanConfidence({5})->half_width, 0);
  EXPECT_FALSE(MeanConfidence({}).has_value());
}

}  // namespace
}  // namespace ream::analysis
