// Cgroup creation and the knobs on fixture trees: v2 (this machine runs v1, which the
// integration tests cover for real) and v1's layout of one hierarchy per controller.
#include "partition/cgroup.h"

#include <gtest/gtest.h>

#include "partition/cgroup_knobs.h"
#include "platform/testdata_copy.h"

namespace ream {
namespace {

constexpr int64_t kCgroup2Magic = 0x63677270;

std::string ReadTrimmed(const std::string& path) {
  return Trim(MakePosixPlatform()->ReadFile(path).value_or("<missing>"));
}

TEST(CgroupV2, CreatesOneDirectoryAndWritesTheKnobs) {
  FixtureCopy fx("cgroup-v2");
  RootedPlatform p(fx.root());
  p.SetFilesystemMagic(kCgroup2Magic);
  CgroupLayout layout = DetectCgroups(p);
  ASSERT_EQ(layout.version, 2);
  std::vector<std::string> recorded;
  auto cg = Cgroup::Create(p, layout, "ream-7-1", [&](const std::string& d) {
    recorded.push_back(d);
    return Status::Ok();
  });
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  EXPECT_EQ(recorded, std::vector<std::string>{"/sys/fs/cgroup/ream-7-1"});
  EXPECT_EQ((*cg)->ProcsFiles(), std::vector<std::string>{"/sys/fs/cgroup/ream-7-1/cgroup.procs"});
  // Controllers were enabled for children (the fake keeps the last write).
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/cgroup.subtree_control")), "+io");
  // A knob whose file the kernel did not create fails by name.
  auto missing = ApplyCpuQuota(**cg, 0.5);
  EXPECT_EQ(missing.code(), StatusCode::kUnsupported);
  EXPECT_NE(missing.message().find("cpu.max"), std::string::npos);
  // The kernel's files, as it creates them in a new v2 group.
  for (const char* f : {"cpu.max", "cpu.weight", "cpuset.cpus", "memory.max", "memory.swap.max",
                        "io.max", "cgroup.procs"})
    fx.Write(std::string("/sys/fs/cgroup/ream-7-1/") + f, "");
  fx.Write("/sys/fs/cgroup/ream-7-1/memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
  ASSERT_TRUE(ApplyCpuQuota(**cg, 0.5).ok());
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/ream-7-1/cpu.max")), "50000 100000");
  ASSERT_TRUE(ApplyCpuWeight(**cg, 400).ok());
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/ream-7-1/cpu.weight")), "400");
  ASSERT_TRUE(ApplyCpuset(**cg, {2, 3, 5}).ok());
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/ream-7-1/cpuset.cpus")), "2-3,5");
  ASSERT_TRUE(ApplyMemoryLimit(**cg, 128 << 20).ok());
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/ream-7-1/memory.max")), "134217728");
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/ream-7-1/memory.swap.max")), "0");
  ASSERT_TRUE(ApplyDiskLimits(**cg, BlockDevice{254, 0, "vda"}, {10 << 20, std::nullopt, 100, std::nullopt}).ok());
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/ream-7-1/io.max")), "254:0 rbps=10485760 riops=100");
  EXPECT_EQ(*OomKillCount(**cg), 1);
  // Removal: the kernel removes a group's files itself; here the test does.
  for (const char* f : {"cpu.max", "cpu.weight", "cpuset.cpus", "memory.max", "memory.swap.max",
                        "io.max", "cgroup.procs", "memory.events"})
    std::filesystem::remove(fx.Path(std::string("/sys/fs/cgroup/ream-7-1/") + f));
  EXPECT_TRUE((*cg)->Destroy().ok());
  EXPECT_FALSE(std::filesystem::exists(fx.Path("/sys/fs/cgroup/ream-7-1")));
}

// The retries of a removal that keeps failing wait through the platform's clock: on the fake
// they advance it by 100 x 20 ms instead of taking two real seconds.
TEST(RemoveCgroupDir, WaitsBetweenRetriesThroughThePlatform) {
  FixtureCopy fx("cgroup-v2");
  fx.Write("/sys/fs/cgroup/stuck/cgroup.procs", "");  // a file inside: rmdir keeps failing
  RootedPlatform p(fx.root());
  Status s = RemoveCgroupDir(p, "/sys/fs/cgroup/stuck");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/sys/fs/cgroup/stuck"), std::string::npos) << s.ToString();
  ASSERT_EQ(p.sleeps().size(), 100u);
  EXPECT_EQ(p.sleeps().front(), std::chrono::milliseconds(20));
  EXPECT_EQ(p.MonotonicNanos(), 2'000'000'000);
}

TEST(CgroupV1, OneDirectoryPerHierarchyAndCpusetInitialized) {
  FixtureCopy fx("cgroup-v1");
  RootedPlatform p(fx.root());
  CgroupLayout layout = DetectCgroups(p);
  ASSERT_EQ(layout.version, 1);
  std::vector<std::string> recorded;
  auto cg = Cgroup::Create(p, layout, "ream-7-2", [&](const std::string& d) {
    recorded.push_back(d);
    return Status::Ok();
  });
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  EXPECT_EQ(recorded.size(), 5u);
  EXPECT_EQ((*cg)->Dir("memory"), "/sys/fs/cgroup/memory/ream-7-2");
  EXPECT_EQ((*cg)->Dir("cpuacct"), "/sys/fs/cgroup/cpuacct/ream-7-2");
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/cpuset/ream-7-2/cpuset.mems")), "0");
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/cpuset/ream-7-2/cpuset.cpus")), "0-7");
  ASSERT_TRUE(ApplyCpuQuota(**cg, 1.5).ok());
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/cpu/ream-7-2/cpu.cfs_quota_us")), "150000");
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/cpu/ream-7-2/cpu.cfs_period_us")), "100000");
  ASSERT_TRUE(ApplyCpuWeight(**cg, 1000).ok());
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/cpu/ream-7-2/cpu.shares")), "10240");
  ASSERT_TRUE(ApplyDiskLimits(**cg, BlockDevice{8, 0, "sda"}, {std::nullopt, 5 << 20, std::nullopt, std::nullopt}).ok());
  EXPECT_EQ(ReadTrimmed(fx.Path("/sys/fs/cgroup/blkio/ream-7-2/blkio.throttle.write_bps_device")),
            "8:0 5242880");
  // No oom_kill line: an old kernel, said so.
  fx.Write("/sys/fs/cgroup/memory/ream-7-2/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n");
  EXPECT_EQ(OomKillCount(**cg).status().code(), StatusCode::kUnsupported);
  for (const auto& d : (*cg)->dirs()) std::filesystem::remove_all(fx.Path(d)), std::filesystem::create_directory(fx.Path(d));
  EXPECT_TRUE((*cg)->Destroy().ok());
  for (const auto& d : recorded) EXPECT_FALSE(std::filesystem::exists(fx.Path(d))) << d;
}

// libvirt's group for a guest's QEMU on cgroupfs: the process in the domain's group, its threads
// in sub-groups (emulator, vcpuN) of the cpu hierarchies; at the root of cpuacct, which holds no
// group of its own for it there. The observer reads it and removes nothing.
TEST(CgroupOfProcess, FindsTheDomainsGroupAndRemovesNothing) {
  FixtureCopy fx("cgroup-v1");
  const std::string domain = "/machine/qemu-3-ream-vm-9-1.libvirt-qemu";
  fx.Write("/proc/4242/cgroup", "7:perf_event:/\n6:blkio:" + domain + "\n5:memory:" + domain + "\n4:cpuacct:/\n" +
                                     "3:cpu:" + domain + "/emulator\n2:cpuset:" + domain + "/emulator\n1:name=systemd:/\n");
  for (const char* c : {"memory", "cpu", "blkio", "cpuset"}) {
    fx.Write("/sys/fs/cgroup/" + std::string(c) + domain + "/cgroup.procs", "4242\n");
  }
  fx.Write("/sys/fs/cgroup/memory" + domain + "/memory.usage_in_bytes", "536870912\n");
  RootedPlatform p(fx.root());
  auto cg = Cgroup::OfProcess(p, DetectCgroups(p), 4242,
                              [](const std::string& leaf) { return leaf == "emulator" || leaf.rfind("vcpu", 0) == 0; });
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  EXPECT_TRUE((*cg)->observed());
  EXPECT_EQ((*cg)->Dir("memory"), "/sys/fs/cgroup/memory" + domain);
  EXPECT_EQ((*cg)->Dir("cpu"), "/sys/fs/cgroup/cpu" + domain);  // the domain's, not the emulator's
  EXPECT_EQ((*cg)->Dir("cpuacct"), "") << "a process at the root has no group of its own there";
  EXPECT_EQ(Trim((*cg)->Read("memory", "memory.usage_in_bytes").value_or("")), "536870912");
  EXPECT_TRUE((*cg)->Destroy().ok());
  cg->reset();
  EXPECT_TRUE(std::filesystem::exists(fx.Path("/sys/fs/cgroup/memory" + domain + "/cgroup.procs")));
  // A process of no group at all, and one that is gone, say so.
  fx.Write("/proc/4343/cgroup", "4:cpuacct:/\n3:cpu:/\n");
  EXPECT_EQ(Cgroup::OfProcess(p, DetectCgroups(p), 4343, nullptr).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(Cgroup::OfProcess(p, DetectCgroups(p), 4444, nullptr).ok());
}

TEST(Cgroup, NoHierarchyIsUnsupported) {
  RootedPlatform p(std::string(REAM_SOURCE_DIR) + "/src/partition/testdata/no-resctrl");
  CgroupLayout layout = DetectCgroups(p);
  EXPECT_EQ(layout.version, 0);
  EXPECT_EQ(Cgroup::Create(p, layout, "ream-x", nullptr).status().code(), StatusCode::kUnsupported);
}

TEST(BlockDevice, ResolvesMajorMinorAndRejectsGarbage) {
  auto p = MakePosixPlatform();
  EXPECT_EQ(ResolveBlockDevice(*p, "x:y").status().code(), StatusCode::kInvalidArgument);
  // /proc is on an anonymous device: no disk to throttle, said so.
  auto proc = ResolveBlockDevice(*p, "/proc");
  ASSERT_FALSE(proc.ok());
  EXPECT_NE(proc.status().message().find("not a block device"), std::string::npos);
}

}  // namespace
}  // namespace ream
