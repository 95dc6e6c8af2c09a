#include "load/histogram.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace ream {
namespace {

TEST(Histogram, BucketsTileTheRangeWithoutGaps) {
  for (size_t i = 0; i + 1 < Histogram::kBucketCount; ++i) {
    ASSERT_EQ(Histogram::BucketHigh(i) + 1, Histogram::BucketLow(i + 1)) << i;
    ASSERT_EQ(Histogram::BucketIndex(Histogram::BucketLow(i)), i);
    ASSERT_EQ(Histogram::BucketIndex(Histogram::BucketHigh(i)), i);
  }
}

TEST(Histogram, RelativeErrorIsBelowOnePercent) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> exp(0, 38);
  for (int i = 0; i < 200000; ++i) {
    int64_t v = static_cast<int64_t>(rng() % (uint64_t{1} << exp(rng))) + 1;
    int64_t mid = Histogram::BucketMid(Histogram::BucketIndex(v));
    ASSERT_LE(std::abs(static_cast<double>(mid - v)) / v, 0.01) << v;
  }
}

TEST(Histogram, QuantilesOfAKnownSequence) {
  Histogram h;
  for (int v = 1; v <= 10000; ++v) h.Record(v * 1000);  // 1 µs .. 10 ms in ns
  EXPECT_EQ(h.count(), 10000u);
  EXPECT_EQ(h.min(), 1000);
  EXPECT_EQ(h.max(), 10000000);
  EXPECT_NEAR(h.ValueAtQuantile(0.5), 5000000, 5000000 * 0.01);
  EXPECT_NEAR(h.ValueAtQuantile(0.95), 9500000, 9500000 * 0.01);
  EXPECT_NEAR(h.ValueAtQuantile(0.999), 9990000, 9990000 * 0.01);
  EXPECT_EQ(h.ValueAtQuantile(1.0), 10000000);
  EXPECT_NEAR(h.mean(), 5000500, 1);
  EXPECT_NEAR(h.stddev(), 2886751, 10);
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  Histogram a, b, all;
  std::mt19937_64 rng(1);
  std::exponential_distribution<double> d(1.0 / 100000);
  for (int i = 0; i < 5000; ++i) {
    auto v = static_cast<int64_t>(d(rng));
    (i % 2 ? a : b).Record(v);
    all.Record(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  for (double q : {0.5, 0.9, 0.99, 0.999}) EXPECT_EQ(a.ValueAtQuantile(q), all.ValueAtQuantile(q));
  EXPECT_NEAR(a.mean(), all.mean(), 1e-6 * all.mean());
}

TEST(Histogram, OverflowIsCountedNotDropped) {
  Histogram h;
  h.Record(Histogram::kMaxValue + 1000);
  h.Record(-5);
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.overflow(), 1u);
  EXPECT_EQ(h.min(), 0);
}

TEST(Histogram, EncodeDecodeRoundTrip) {
  Histogram h;
  for (int i = 0; i < 1000; ++i) h.Record(i * i * 37);
  auto d = Histogram::Decode(h.Encode());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->count(), h.count());
  EXPECT_EQ(d->ValueAtQuantile(0.99), h.ValueAtQuantile(0.99));
  EXPECT_DOUBLE_EQ(d->mean(), h.mean());
  EXPECT_EQ(d->Encode(), h.Encode());
  EXPECT_TRUE(Histogram::Decode(Histogram().Encode()).ok());
}

TEST(Histogram, DecodeRejectsGarbage) {
  EXPECT_FALSE(Histogram::Decode("").ok());
  EXPECT_FALSE(Histogram::Decode("v9;1;1;1;1;1;0;1:1").ok());
  EXPECT_FALSE(Histogram::Decode("v1;2;1;1;1;1;0;1:1").ok());  // counts do not add up
  EXPECT_FALSE(Histogram::Decode("v1;1;1;1;1;1;0;999999:1").ok());
  EXPECT_FALSE(Histogram::Decode("v1;1;1;1;1;1;0;x").ok());
  // Found by histogram_fuzzer: fields Record never writes (min above max, more overflowed
  // values than values, a sum that is not a finite non-negative number).
  EXPECT_FALSE(Histogram::Decode("v1;1;5;25;6;5;0;5:1").ok());
  EXPECT_FALSE(Histogram::Decode("v1;1;5;25;-1;5;0;5:1").ok());
  EXPECT_FALSE(Histogram::Decode("v1;1;5;25;5;5;2;5:1").ok());
  EXPECT_FALSE(Histogram::Decode("v1;1;nan;25;5;5;0;5:1").ok());
  EXPECT_FALSE(Histogram::Decode("v1;2;5;25;5;5;0;5:18446744073709551615,6:3").ok());  // wraps
}

}  // namespace
}  // namespace ream
