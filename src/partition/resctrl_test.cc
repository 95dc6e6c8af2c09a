// resctrl against fixture trees that mirror real mounts: Intel (percentage MBA, 11-way L3,
// two sockets) and AMD (absolute MBA in 1/8 GB/s, 16-way L3 per CCX), and a kernel without it.
#include "partition/resctrl.h"

#include <gtest/gtest.h>

#include "platform/testdata_copy.h"

namespace ream {
namespace {

std::string ReadAll(const std::string& path) {
  auto p = MakePosixPlatform();
  return p->ReadFile(path).value_or("<missing>");
}

TEST(Resctrl, ReadsTheIntelLayout) {
  FixtureCopy fx("resctrl-intel");
  RootedPlatform p(fx.root());
  auto info = ReadResctrl(p);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->mount, "/sys/fs/resctrl");
  EXPECT_TRUE(info->l3);
  EXPECT_EQ(info->cbm_bits, 11);
  EXPECT_EQ(info->l3_domains, (std::vector<int>{0, 1}));
  EXPECT_FALSE(info->sparse_masks);
  EXPECT_TRUE(info->mb);
  EXPECT_TRUE(info->mb_is_percent);
  EXPECT_EQ(info->mb_max, 100);
  EXPECT_EQ(info->min_bandwidth, 10);
  EXPECT_EQ(info->bandwidth_gran, 10);
  EXPECT_TRUE(info->mon_llc_occupancy);
  EXPECT_TRUE(info->mon_mbm_total);
}

TEST(Resctrl, IntelSchemataAreContiguousAndRoundedToTheGranularity) {
  FixtureCopy fx("resctrl-intel");
  RootedPlatform p(fx.root());
  auto info = ReadResctrl(p);
  ASSERT_TRUE(info.ok());
  auto s = BuildSchemata(*info, 4, 0.55);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, "L3:0=f;1=f\nMB:0=50;1=50\n");
  EXPECT_EQ(*BuildSchemata(*info, 11, std::nullopt), "L3:0=7ff;1=7ff\n");
  auto too_many = BuildSchemata(*info, 12, std::nullopt);
  EXPECT_EQ(too_many.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_many.status().message().find("11 ways"), std::string::npos);
  auto too_little = BuildSchemata(*info, std::nullopt, 0.05);
  EXPECT_EQ(too_little.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_little.status().message().find("min_bandwidth 10"), std::string::npos);
}

TEST(Resctrl, AmdMemoryBandwidthIsAbsolute) {
  FixtureCopy fx("resctrl-amd");
  RootedPlatform p(fx.root());
  auto info = ReadResctrl(p);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->cbm_bits, 16);
  EXPECT_TRUE(info->sparse_masks);
  EXPECT_EQ(info->l3_domains.size(), 8u);
  EXPECT_FALSE(info->mb_is_percent);
  EXPECT_EQ(info->mb_max, 2048);
  auto s = BuildSchemata(*info, 2, 0.5);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s,
            "L3:0=3;1=3;2=3;3=3;4=3;5=3;6=3;7=3\n"
            "MB:0=1024;1=1024;2=1024;3=1024;4=1024;5=1024;6=1024;7=1024\n");
}

TEST(Resctrl, GroupIsCreatedWithSchemataAndMonitored) {
  FixtureCopy fx("resctrl-intel");
  RootedPlatform p(fx.root());
  auto info = ReadResctrl(p);
  ASSERT_TRUE(info.ok());
  std::vector<std::string> recorded;
  auto g = ResctrlGroup::Create(p, *info, "ream-1-1", "L3:0=f;1=f\nMB:0=50;1=50\n",
                                [&](const std::string& dir) {
                                  recorded.push_back(dir);
                                  return Status::Ok();
                                });
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(recorded, std::vector<std::string>{"/sys/fs/resctrl/ream-1-1"});
  EXPECT_EQ((*g)->TasksFile(), "/sys/fs/resctrl/ream-1-1/tasks");
  // A regular file stands in for the kernel's schemata: the last line written stays.
  EXPECT_EQ(ReadAll(fx.Path("/sys/fs/resctrl/ream-1-1/schemata")), "MB:0=50;1=50\n");
  // The kernel populates mon_data; so does the test.
  fx.Write("/sys/fs/resctrl/ream-1-1/mon_data/mon_L3_00/llc_occupancy", "1000\n");
  fx.Write("/sys/fs/resctrl/ream-1-1/mon_data/mon_L3_01/llc_occupancy", "2000\n");
  fx.Write("/sys/fs/resctrl/ream-1-1/mon_data/mon_L3_00/mbm_total_bytes", "Unavailable\n");
  fx.Write("/sys/fs/resctrl/ream-1-1/mon_data/mon_L3_01/mbm_total_bytes", "5\n");
  EXPECT_EQ(*(*g)->LlcOccupancyBytes(), 3000);
  EXPECT_EQ((*g)->MbmTotalBytes().status().code(), StatusCode::kUnavailable);
}

TEST(Resctrl, AbsentResctrlSaysWhy) {
  auto p = RootedPlatform(std::string(REAM_SOURCE_DIR) + "/src/partition/testdata/no-resctrl");
  auto info = ReadResctrl(p);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(info.status().message().find("/proc/filesystems"), std::string::npos);
  EXPECT_NE(info.status().message().find("cat_l3"), std::string::npos);
}

}  // namespace
}  // namespace ream
