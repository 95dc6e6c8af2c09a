// resctrl against fixture trees that mirror real mounts: Intel (CAT+MBA+CMT+MBM, percentage
// MBA, 11-way L3, two sockets), AMD (absolute MBA in 1/8 GB/s, 16-way L3 per CCX, sparse
// masks), an Intel mount with mba_MBps, an Intel mount with CDP, and a kernel without resctrl.
// Each mask rule of ChooseL3Mask has a test here, with its refusal.
#include "partition/resctrl.h"

#include <gtest/gtest.h>

#include <filesystem>

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

// The seed's main node (two Xeon Silver 4116, src/topology/testdata/seed-4116x2): 11 ways per
// socket, the top two shared with I/O, 16 CLOSIDs for CAT and 8 for MBA.
ResctrlInfo SeedResctrl() {
  RootedPlatform p(std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/seed-4116x2");
  auto info = ReadResctrl(p);
  EXPECT_TRUE(info.ok()) << info.status().ToString();
  return info.ok() ? *info : ResctrlInfo{};
}

TEST(Resctrl, ReadsTheSeedMachinesClosids) {
  ResctrlInfo info = SeedResctrl();
  EXPECT_EQ(info.vendor, "intel");
  EXPECT_EQ(info.cbm_mask, 0x7ffu);
  EXPECT_EQ(info.shareable_bits, 0x600u);
  EXPECT_EQ(info.l3_domains, (std::vector<int>{0, 1}));
  EXPECT_EQ(info.mb_domains, (std::vector<int>{0, 1}));
  EXPECT_EQ(info.l3_closids, 16);
  EXPECT_EQ(info.mb_closids, 8);
  EXPECT_FALSE(info.sparse_masks);  // Intel, and a kernel without info/L3/sparse_masks
}

TEST(Resctrl, SeveralTenantsGetDisjointWays) {
  ResctrlInfo info = SeedResctrl();
  auto masks = AllocateL3Ways(info, {{"the subject", 4}, {"co-runner 'a'", 3}, {"co-runner 'b'", 4}});
  ASSERT_TRUE(masks.ok()) << masks.status().ToString();
  ASSERT_EQ(masks->size(), 3u);
  for (int d : {0, 1}) {
    // The first keeps what it would get alone; the next off shareable_bits while they last.
    EXPECT_EQ((*masks)[0].at(d), *ChooseL3Mask(info, d, 4));
    EXPECT_EQ((*masks)[0].at(d), 0x00fu);
    EXPECT_EQ((*masks)[1].at(d), 0x070u);
    EXPECT_EQ((*masks)[2].at(d), 0x780u);
  }
  auto too_many = AllocateL3Ways(info, {{"the subject", 8}, {"co-runner 'a'", 4}});
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_many.status().message().find("ask for 12 L3 ways (the subject 8, co-runner 'a' 4) but the L3 has 11"),
            std::string::npos)
      << too_many.status().message();
  // Enough ways in all, but not contiguous for the last: Intel refuses it, naming who holds what.
  info.l3_taken[0] = 0x100;  // another group holds way 8 exclusively
  auto split = AllocateL3Ways(info, {{"the subject", 4}, {"co-runner 'a'", 5}});
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.status().message().find("co-runner 'a': --llc-ways 5: L3 domain 0 has no 5 contiguous free ways"),
            std::string::npos)
      << split.status().message();
  EXPECT_NE(split.status().message().find("the run's other tenants hold the subject f"), std::string::npos)
      << split.status().message();
}

TEST(Resctrl, SchemataTakeTheWaysChosenAmongTheTenants) {
  ResctrlInfo info = SeedResctrl();
  auto s = BuildSchemata(info, 3, MemBandwidth{.fraction = 0.3}, {{0, 0x070}, {1, 0x070}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, "L3:0=70;1=70\nMB:0=30;1=30\n");
  auto wrong = BuildSchemata(info, 3, MemBandwidth{}, {{0, 0x0f0}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("(f0) is not 3 ways of cbm_mask 7ff"), std::string::npos)
      << wrong.status().message();
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

ResctrlInfo Read(const FixtureCopy& fx) {
  RootedPlatform p(fx.root());
  auto info = ReadResctrl(p);
  EXPECT_TRUE(info.ok()) << info.status().ToString();
  return info.value_or(ResctrlInfo{});
}

TEST(Resctrl, VendorAndUnitsComeFromCpuinfoAndTheMountNotTheRootValue) {
  FixtureCopy intel("resctrl-intel"), amd("resctrl-amd"), mbps("resctrl-intel-mbps");
  ResctrlInfo i = Read(intel), a = Read(amd), m = Read(mbps);
  EXPECT_EQ(i.vendor, "intel");
  EXPECT_EQ(i.mb_unit, MbUnit::kPercent);
  EXPECT_EQ(i.shareable_bits, 0x600u);
  EXPECT_FALSE(i.sparse_masks);  // info/L3/sparse_masks = 0
  EXPECT_EQ(a.vendor, "amd");
  EXPECT_EQ(a.mb_unit, MbUnit::kAmdEighthGBps);
  EXPECT_EQ(a.mb_max, 2048);
  // mba_MBps: the root reads 4294967295, which the old guess took for AMD's maximum.
  EXPECT_TRUE(m.mba_mbps);
  EXPECT_EQ(m.vendor, "intel");
  EXPECT_EQ(m.mb_unit, MbUnit::kMBps);
  EXPECT_FALSE(m.mb_is_percent);
  // Without sparse_masks (kernels before 6.8) the vendor decides.
  FixtureCopy old_amd("resctrl-amd");
  std::filesystem::remove(old_amd.Path("/sys/fs/resctrl/info/L3/sparse_masks"));
  EXPECT_TRUE(Read(old_amd).sparse_masks);
  FixtureCopy old_intel("resctrl-intel");
  std::filesystem::remove(old_intel.Path("/sys/fs/resctrl/info/L3/sparse_masks"));
  EXPECT_FALSE(Read(old_intel).sparse_masks);
}

TEST(Resctrl, MasksAvoidShareableBitsWhenTheyCan) {
  FixtureCopy fx("resctrl-intel");
  fx.Write("/sys/fs/resctrl/info/L3/shareable_bits", "3\n");  // ways 0-1 also filled by I/O
  ResctrlInfo info = Read(fx);
  EXPECT_EQ(*ChooseL3Mask(info, 0, 4), 0x3cu);   // off ways 0-1
  EXPECT_EQ(*ChooseL3Mask(info, 0, 9), 0x7fcu);  // ways 2-10: none shared
  EXPECT_EQ(*ChooseL3Mask(info, 0, 10), 0x7feu);  // one shared way is unavoidable
  EXPECT_EQ(*ChooseL3Mask(info, 0, 11), 0x7ffu);
  // The fixture's own shareable_bits (0x600, the top ways) leave the lowest ways first.
  FixtureCopy plain("resctrl-intel");
  EXPECT_EQ(*ChooseL3Mask(Read(plain), 1, 10), 0x3ffu);
}

TEST(Resctrl, MasksStayOffWaysOtherGroupsHoldExclusively) {
  FixtureCopy fx("resctrl-intel");
  // bit_usage lists the most significant way first: ways 3-4 of domain 0 are exclusive to
  // another group, way 0 of domain 1 pseudo-locked.
  fx.Write("/sys/fs/resctrl/info/L3/bit_usage", "0=XXSSSSEESSS;1=XXSSSSSSSSP\n");
  ResctrlInfo info = Read(fx);
  EXPECT_EQ(info.l3_taken.at(0), 0x18u);
  EXPECT_EQ(info.l3_taken.at(1), 0x1u);
  EXPECT_EQ(*ChooseL3Mask(info, 0, 3), 0x7u);
  EXPECT_EQ(*ChooseL3Mask(info, 0, 4), 0x1e0u);  // ways 5-8: contiguous, off 3-4 and 0x600
  EXPECT_EQ(*ChooseL3Mask(info, 1, 4), 0x1eu);
  // Per domain in the schemata.
  EXPECT_EQ(*BuildSchemata(info, 4, std::nullopt), "L3:0=1e0;1=1e\n");
  // Too few ways left: refused, naming bit_usage.
  auto none = ChooseL3Mask(info, 0, 10);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("bit_usage"), std::string::npos) << none.status().ToString();
}

TEST(Resctrl, IntelRequiresContiguousMasksAndRefusesWithTheReason) {
  FixtureCopy fx("resctrl-intel");
  fx.Write("/sys/fs/resctrl/info/L3/bit_usage", "0=XXSSSSEESSS;1=XXSSSSSSSSS\n");
  ResctrlInfo info = Read(fx);
  // 7 free ways exist on domain 0 (0-2 and 5-10) but not 7 in a row.
  EXPECT_EQ(*ChooseL3Mask(info, 0, 6), 0x7e0u);
  auto r = ChooseL3Mask(info, 0, 7);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("contiguous"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("sparse_masks"), std::string::npos);
  // min_cbm_bits is a floor on the ways asked for.
  fx.Write("/sys/fs/resctrl/info/L3/min_cbm_bits", "2\n");
  auto one = ChooseL3Mask(Read(fx), 1, 1);
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("min_cbm_bits=2"), std::string::npos);
}

TEST(Resctrl, AmdTakesSparseMasksWithRunsOfAtLeastMinCbmBits) {
  FixtureCopy fx("resctrl-amd");
  // Domain 0's free ways: 0, 2-3, 12-15 (the rest exclusive to other groups).
  fx.Write("/sys/fs/resctrl/info/L3/bit_usage",
           "0=SSSSEEEEEEEESSES;1=SSSSSSSSSSSSSSSS;2=SSSSSSSSSSSSSSSS;3=SSSSSSSSSSSSSSSS;"
           "4=SSSSSSSSSSSSSSSS;5=SSSSSSSSSSSSSSSS;6=SSSSSSSSSSSSSSSS;7=SSSSSSSSSSSSSSSS\n");
  ResctrlInfo info = Read(fx);
  ASSERT_TRUE(info.sparse_masks);
  EXPECT_EQ(*ChooseL3Mask(info, 0, 4), 0xf000u);  // contiguous when a block fits
  EXPECT_EQ(*ChooseL3Mask(info, 0, 5), 0x300du);  // ways 0, 2-3, 12-13
  EXPECT_EQ(*ChooseL3Mask(info, 1, 5), 0x1fu);
  fx.Write("/sys/fs/resctrl/info/L3/min_cbm_bits", "2\n");
  ResctrlInfo min2 = Read(fx);
  EXPECT_EQ(*ChooseL3Mask(min2, 0, 5), 0x700cu);  // way 0 alone is a run too short
  auto r = ChooseL3Mask(min2, 0, 7);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("min_cbm_bits=2"), std::string::npos) << r.status().ToString();
}

TEST(Resctrl, MbpsNeedsAMountThatExpressesIt) {
  FixtureCopy intel("resctrl-intel"), amd("resctrl-amd"), mbps("resctrl-intel-mbps");
  // mba_MBps: the amount goes in as is (the kernel's software controller holds it).
  EXPECT_EQ(*BuildSchemata(Read(mbps), std::nullopt, MemBandwidth{.mbps = 4000}), "MB:0=4000;1=4000\n");
  auto pct = BuildSchemata(Read(mbps), std::nullopt, MemBandwidth{.fraction = 0.5});
  ASSERT_FALSE(pct.ok());
  EXPECT_EQ(pct.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(pct.status().message().find("mba_MBps"), std::string::npos) << pct.status().ToString();
  // A percentage mount cannot take MB/s: refused, saying which mount option would.
  auto r = BuildSchemata(Read(intel), std::nullopt, MemBandwidth{.mbps = 4000});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("-o mba_MBps"), std::string::npos) << r.status().ToString();
  // AMD: 1/8 GB/s units.
  auto a = BuildSchemata(Read(amd), std::nullopt, MemBandwidth{.mbps = 4000});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(*a, "MB:0=32;1=32;2=32;3=32;4=32;5=32;6=32;7=32\n");
  auto tiny = BuildSchemata(Read(amd), std::nullopt, MemBandwidth{.mbps = 100});
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.status().message().find("1/8 GB/s"), std::string::npos);
}

TEST(Resctrl, CdpMountIsRecognizedAndGetsCodeAndDataMasks) {
  FixtureCopy fx("resctrl-intel-cdp");
  ResctrlInfo info = Read(fx);
  EXPECT_TRUE(info.cdp);
  EXPECT_TRUE(info.l3);
  EXPECT_EQ(info.cbm_bits, 11);
  EXPECT_EQ(info.l3_domains, (std::vector<int>{0, 1}));
  auto s = BuildSchemata(info, 4, MemBandwidth{.fraction = 0.3});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, "L3CODE:0=f;1=f\nL3DATA:0=f;1=f\nMB:0=30;1=30\n");
}

TEST(Resctrl, MonitoringGroupGoesUnderMonGroups) {
  FixtureCopy fx("resctrl-amd");
  std::filesystem::create_directories(fx.Path("/sys/fs/resctrl/mon_groups"));
  RootedPlatform p(fx.root());
  auto info = ReadResctrl(p);
  ASSERT_TRUE(info.ok());
  std::vector<std::string> recorded;
  auto g = ResctrlGroup::CreateMonitoring(p, *info, "ream-3-1", [&](const std::string& d) {
    recorded.push_back(d);
    return Status::Ok();
  });
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(recorded, std::vector<std::string>{"/sys/fs/resctrl/mon_groups/ream-3-1"});
  EXPECT_EQ((*g)->TasksFile(), "/sys/fs/resctrl/mon_groups/ream-3-1/tasks");
  EXPECT_FALSE(std::filesystem::exists(fx.Path("/sys/fs/resctrl/mon_groups/ream-3-1/schemata")));
  fx.Write("/sys/fs/resctrl/mon_groups/ream-3-1/mon_data/mon_L3_00/llc_occupancy", "4096\n");
  EXPECT_EQ(*(*g)->LlcOccupancyBytes(), 4096);
  std::filesystem::remove_all(fx.Path("/sys/fs/resctrl/mon_groups/ream-3-1/mon_data"));
  EXPECT_TRUE((*g)->Destroy().ok());
  EXPECT_FALSE(std::filesystem::exists(fx.Path("/sys/fs/resctrl/mon_groups/ream-3-1")));
  // A mount without monitoring refuses with the reason.
  info->mon_llc_occupancy = info->mon_mbm_total = false;
  auto none = ResctrlGroup::CreateMonitoring(p, *info, "ream-3-2", nullptr);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("mon_features"), std::string::npos);
}

}  // namespace
}  // namespace ream
