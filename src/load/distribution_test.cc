// The generator's distributions (load/distribution.h), presets (load/presets.h) and the gaps of
// parametric arrivals: each form parses to its parameters, draws follow the CDF they report,
// ETC's fits have the moments the paper's parameters give, sizes are held and counted.
#include "load/distribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "load/anderson_darling.h"
#include "load/arrival.h"
#include "load/generator.h"
#include "load/presets.h"
#include "protocol/keyspace.h"

namespace ream {
namespace {

Distribution Parsed(const std::string& text, const std::string& file = "") {
  auto d = ParseDistribution(text, "--test", file);
  EXPECT_TRUE(d.ok()) << text << ": " << d.status().ToString();
  return d.ok() ? *d : Distribution{};
}

TEST(Distribution, ParsesEveryFormToItsParameters) {
  Distribution d = Parsed("64");
  EXPECT_TRUE(d.fixed());
  EXPECT_EQ(d.a, 64);
  EXPECT_EQ(d.name, "64");
  d = Parsed("gev:30.7984,8.20449,0.078688");
  EXPECT_EQ(d.kind, Distribution::Kind::kGev);
  EXPECT_DOUBLE_EQ(d.b, 8.20449);
  d = Parsed("pareto:15,214.476,0.348238");  // mutilate's spelling
  EXPECT_EQ(d.kind, Distribution::Kind::kGpareto);
  d = Parsed("uniform:100");  // mutilate's: from 0
  EXPECT_EQ(d.kind, Distribution::Kind::kUniform);
  EXPECT_EQ(d.a, 0);
  EXPECT_EQ(d.b, 100);
  EXPECT_EQ(Parsed("exponential:0.01").Mean(), 100);
  EXPECT_EQ(Parsed("normal:50,5").Mean(), 50);
  d = Parsed("file:sizes", "# size weight\n10 3\n20 1\n\n30\n");
  EXPECT_EQ(d.kind, Distribution::Kind::kTable);
  EXPECT_DOUBLE_EQ(d.Mean(), (10 * 3 + 20 + 30) / 5.0);
  EXPECT_DOUBLE_EQ(d.Cdf(15), 0.6);
}

TEST(Distribution, RefusesWhatCannotBeDrawnNamingTheFlag) {
  for (const char* bad : {"", "gev:1,2", "gev:1,0,0.1", "normal:1,-1", "exponential:0", "uniform:5,1", "zipf:0.9",
                          "gpareto:a,b,c", "file:"}) {
    auto d = ParseDistribution(bad, "--value-bytes");
    EXPECT_FALSE(d.ok()) << bad;
    EXPECT_NE(d.status().message().find("--value-bytes"), std::string::npos) << d.status().message();
  }
  auto t = ParseDistribution("file:x", "--key-bytes", "10 1\n20 -1\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("line 2"), std::string::npos) << t.status().message();
  EXPECT_FALSE(ParseDistribution("file:x", "--key-bytes", "# nothing\n").ok());
}

// mutilate's fb_value: the measured sizes 0..14 with their probabilities, the generalized
// Pareto (15, 214.476, 0.348238) beyond: P(X = 2) = 0.1782, P(X < 15) = their sum, the tail's
// mean 15 + 214.476 / (1 - 0.348238).
TEST(Distribution, FacebookValueSizesHaveTheMeasuredHeadAndThePaperTail) {
  Distribution d = Parsed("fb_value");
  double head = 0.00536 + 0.00047 + 0.17820 + 0.09239 + 0.00018 + 0.02740 + 0.00065 + 0.00606 + 0.00023 + 0.00837 +
                0.00837 + 0.08989 + 0.00092 + 0.00326 + 0.01980;
  EXPECT_NEAR(d.Cdf(14.5), head, 1e-12);
  EXPECT_NEAR(d.Cdf(2) - d.Cdf(1.5), 0.17820, 1e-12);
  double head_mean = 0;
  const double p[] = {0.00536, 0.00047, 0.17820, 0.09239, 0.00018, 0.02740, 0.00065, 0.00606,
                      0.00023, 0.00837, 0.00837, 0.08989, 0.00092, 0.00326, 0.01980};
  for (int i = 0; i < 15; ++i) head_mean += i * p[i];
  EXPECT_NEAR(d.Mean(), head_mean + (1 - head) * (15 + 214.476 / (1 - 0.348238)), 1e-9);
  // A million draws: the share below 15 bytes and the mean of the rest as the paper's.
  std::mt19937_64 rng(5);
  int below = 0;
  for (int i = 0; i < 1'000'000; ++i) below += d.Draw(rng) < 15;
  EXPECT_NEAR(below / 1e6, head, 0.002);
}

// Every continuous form's draws pass the Anderson-Darling test against the CDF it reports, so
// what is drawn and what is stored as asked are one distribution.
TEST(Distribution, DrawsFollowTheirOwnCdf) {
  for (const char* text : {"fb_key", "fb_ia", "gev:10,2,-0.2", "gev:5,1,0", "gpareto:0,3,0", "gpareto:2,1,-0.3",
                           "normal:100,15", "exponential:0.5", "uniform:3,9"}) {
    Distribution d = Parsed(text);
    std::mt19937_64 rng(11);
    std::vector<double> x(5000);
    for (double& v : x) v = d.Draw(rng);
    double a2 = AndersonDarlingStatistic(x, [&d](double v) { return d.Cdf(v); });
    EXPECT_LT(a2, kAndersonDarlingCritical1) << text;
    // ...and not against another one: the test has the power to tell them apart.
    Distribution other = d;
    other.b *= 1.2;
    if (d.kind == Distribution::Kind::kExponential) other.a *= 1.2;
    if (d.kind == Distribution::Kind::kUniform) other.b += 1;
    std::vector<double> y(5000);
    rng.seed(11);
    for (double& v : y) v = d.Draw(rng);
    EXPECT_GT(AndersonDarlingStatistic(y, [&other](double v) { return other.Cdf(v); }), kAndersonDarlingCritical1)
        << text;
  }
}

TEST(Distribution, MeansAreThePapersFormulas) {
  // GEV mean: loc + scale (Gamma(1 - shape) - 1) / shape.
  EXPECT_NEAR(Parsed("fb_key").Mean(), 30.7984 + 8.20449 * (std::tgamma(1 - 0.078688) - 1) / 0.078688, 1e-9);
  EXPECT_NEAR(Parsed("fb_ia").Mean(), 16.0292 / (1 - 0.154971), 1e-9);
  EXPECT_TRUE(std::isinf(Parsed("gpareto:0,1,1.5").Mean()));
}

TEST(SizeSampler, RoundsHoldsAndCountsWhatFallsOutside) {
  SizeSampler s(Parsed("uniform:0,100"), 10, 50);
  std::mt19937_64 rng(3);
  uint64_t lo = 0, hi = 0;
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = s.Draw(rng);
    ASSERT_GE(v, 10u);
    ASSERT_LE(v, 50u);
    lo += v == 10, hi += v == 50;
  }
  // About 10 % of the draws fall below 9.5 and 50 % above 50.5.
  EXPECT_NEAR(static_cast<double>(s.clamped()) / 10000, 0.595, 0.03);
  EXPECT_GT(lo, 900u);
  EXPECT_GT(hi, 4500u);
  SizeSampler fixed(FixedDistribution(64), 0, 100);
  EXPECT_TRUE(fixed.fixed());
  EXPECT_EQ(fixed.Draw(rng), 64u);
}

// A key's size is a property of the key: the same index gets the same size in every thread.
TEST(SizeSampler, AKeysSizeIsAFunctionOfItsIndex) {
  SizeSampler a(Parsed("fb_key"), 8, 250), b(Parsed("fb_key"), 8, 250);
  bool varies = false;
  for (uint64_t k = 0; k < 1000; ++k) {
    EXPECT_EQ(a.Of(k), b.Of(k));
    varies = varies || a.Of(k) != a.Of(0);
  }
  EXPECT_TRUE(varies);
}

TEST(Keys, SizedKeysAreKeyAndThePaddedIndexAndSixteenIsFormatKey) {
  char a[kKeyBytes], b[kKeyBytes];
  FormatKey(12345, a);
  FormatSizedKey(12345, kKeyBytes, b);
  EXPECT_EQ(std::string(a, kKeyBytes), std::string(b, kKeyBytes));
  char c[32];
  FormatSizedKey(42, 9, c);
  EXPECT_EQ(std::string(c, 9), "key000042");
  EXPECT_EQ(MinKeyBytes(100000), 8u);  // "key" and 99999
  EXPECT_EQ(MinKeyBytes(1), 4u);
}

TEST(Arrival, ParametricGapsAreScaledToTheRateAndKeepTheirShape) {
  auto a = ParseArrival("fb_ia");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->kind, ArrivalSpec::Kind::kDistribution);
  ArrivalProcess p(*a, 20000, 9);
  double sum = 0;
  std::vector<double> unit;
  for (int i = 0; i < 400000; ++i) {
    double g = p.NextGapNs();
    sum += g;
    if (i % 100 == 0) unit.push_back(g / 50'000);
  }
  EXPECT_NEAR(sum / 400000, 50'000, 50'000 * 0.01);  // 1 / 20 000 s
  EXPECT_LT(AndersonDarlingStatistic(unit, [&a](double x) { return a->UnitCdf(x); }), kAndersonDarlingCritical1);
  // A normal's negative draws are sent at once (gap 0) and the scale accounts for them.
  auto n = ParseArrival("normal:1,1");
  ASSERT_TRUE(n.ok());
  ArrivalProcess q(*n, 1000, 2);
  sum = 0;
  for (int i = 0; i < 400000; ++i) sum += q.NextGapNs();
  EXPECT_NEAR(sum / 400000, 1e6, 1e6 * 0.01);
  EXPECT_FALSE(ParseArrival("gev:0,1,-0.5").ok());     // unbounded below: gaps could be negative
  EXPECT_FALSE(ParseArrival("gpareto:0,1,1.2").ok());  // no mean to scale to a rate
  EXPECT_EQ(ParseArrival("250")->kind, ArrivalSpec::Kind::kConstant);
}

TEST(Presets, EtcIsMutilatesFacebookFitsAndTheUnmodelledPoolsSayWhy) {
  auto etc = FindLoadPreset("etc");
  ASSERT_TRUE(etc.ok());
  EXPECT_STREQ(etc->key_bytes, "fb_key");
  EXPECT_STREQ(etc->value_bytes, "fb_value");
  EXPECT_STREQ(etc->arrival, "fb_ia");
  EXPECT_NEAR(etc->get_ratio, 30.0 / 31.0, 1e-12);
  auto usr = FindLoadPreset("usr");
  ASSERT_FALSE(usr.ok());
  EXPECT_NE(usr.status().message().find("ETC pool only"), std::string::npos) << usr.status().message();
  EXPECT_FALSE(FindLoadPreset("tpcc").ok());
}

}  // namespace
}  // namespace ream
