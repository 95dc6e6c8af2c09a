#include "partition/spec.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

TEST(ParseBytes, BinarySuffixes) {
  EXPECT_EQ(*ParseBytes("4096"), 4096);
  EXPECT_EQ(*ParseBytes("64k"), 65536);
  EXPECT_EQ(*ParseBytes("128M"), 128LL << 20);
  EXPECT_EQ(*ParseBytes("1G"), 1LL << 30);
  EXPECT_EQ(*ParseBytes("1.5GiB"), 3LL << 29);
  EXPECT_FALSE(ParseBytes("lots").ok());
  EXPECT_FALSE(ParseBytes("12Q").ok());
  EXPECT_FALSE(ParseBytes("0").ok());
}

TEST(ParseRates, BytesAndBits) {
  EXPECT_EQ(*ParseBytesPerSecond("10M"), 10LL << 20);
  EXPECT_EQ(*ParseBytesPerSecond("20M/s"), 20LL << 20);
  EXPECT_EQ(*ParseBitRate("100mbit"), 100000000);
  EXPECT_EQ(*ParseBitRate("1gbit"), 1000000000);
  EXPECT_EQ(*ParseBitRate("12.5MB/s"), 100000000);
  EXPECT_FALSE(ParseBitRate("100").ok());
  EXPECT_FALSE(ParseBitRate("100mbps").ok());
}

TEST(ParsePercent, PercentOrFraction) {
  EXPECT_DOUBLE_EQ(*ParsePercent("50%", "--cpu-quota"), 0.5);
  EXPECT_DOUBLE_EQ(*ParsePercent("150%", "--cpu-quota"), 1.5);
  EXPECT_DOUBLE_EQ(*ParsePercent("0.25", "--cpu-quota"), 0.25);
  auto bad = ParsePercent("half", "--cpu-quota");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--cpu-quota"), std::string::npos);
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(*ParseDuration("250ms"), std::chrono::milliseconds(250));
  EXPECT_EQ(*ParseDuration("2s"), std::chrono::seconds(2));
  // Past int64 nanoseconds: refused, not a negative duration.
  EXPECT_FALSE(ParseDuration("99999999999999s").ok());
  EXPECT_EQ(*ParseDuration("100us"), std::chrono::microseconds(100));
  EXPECT_FALSE(ParseDuration("soon").ok());
  EXPECT_FALSE(ParseDuration("3h").ok());
}

TEST(PartitionSpec, ValidateNamesTheKnob) {
  PartitionSpec s;
  EXPECT_TRUE(s.Validate().ok());
  EXPECT_TRUE(s.empty());
  s.net_rate_bps = 100000000;
  auto v = s.Validate();
  EXPECT_EQ(v.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(v.message().find("--node"), std::string::npos);
  s.node = true;
  EXPECT_TRUE(s.Validate().ok());
  s.memory_bytes = 1024;
  EXPECT_NE(s.Validate().message().find("--memory"), std::string::npos);
  s.memory_bytes.reset();
  s.mem_bw_fraction = 1.5;
  EXPECT_NE(s.Validate().message().find("--mem-bw"), std::string::npos);
  EXPECT_EQ(s.ToJson()["net_rate_bps"], 100000000);
}

}  // namespace
}  // namespace ream
