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

TEST(PartitionSpec, JsonRoundTripKeepsEveryKnob) {
  PartitionSpec s;
  s.cpus = "0,2-3";
  s.cpu_quota = 1.5;
  s.cpu_weight = 200;
  s.memory_bytes = 512LL << 20;
  s.disk_read_bps = 20'000'000;
  s.disk_write_bps = 10'000'000;
  s.disk_read_iops = 100;
  s.disk_write_iops = 50;
  s.disk_device = "/dev/vda";
  s.node = true;
  s.net_rate_bps = 100'000'000;
  s.llc_ways = 4;
  s.llc_masks = {{0, 0x0f0}, {1, 0x0f0}};
  s.mem_bw_mbps = 4000;
  s.net_latency = std::chrono::microseconds(200);
  s.net_overhead = std::chrono::microseconds(20);
  s.net_gap = std::chrono::microseconds(5);
  s.net_per_byte = std::chrono::nanoseconds(8);
  auto back = PartitionSpec::FromJson(s.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ToJson(), s.ToJson());
  EXPECT_EQ(back->cpus, "0,2-3");
  EXPECT_EQ(*back->net_latency, std::chrono::microseconds(200));
  EXPECT_EQ(back->llc_masks, s.llc_masks);  // a remote agent's sandbox takes the run's ways
  EXPECT_FALSE(PartitionSpec{}.ToJson().contains("llc_masks"));  // stored partitions as before

  s = PartitionSpec{};
  s.mem_bw_fraction = 0.5;
  back = PartitionSpec::FromJson(s.ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->cpus.empty());
  EXPECT_FALSE(back->cpu_quota.has_value());
  EXPECT_DOUBLE_EQ(*back->mem_bw_fraction, 0.5);
}

TEST(PartitionSpec, FromJsonNamesAFieldOfTheWrongType) {
  auto bad = PartitionSpec::FromJson({{"memory_bytes", "lots"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("memory_bytes"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(PartitionSpec::FromJson({{"node", 1}}).ok());
  EXPECT_FALSE(PartitionSpec::FromJson(nlohmann::json::array()).ok());
}

}  // namespace
}  // namespace ream
