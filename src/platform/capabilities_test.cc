#include "platform/capabilities.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "platform/testdata_copy.h"

namespace ream {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(REAM_SOURCE_DIR) + "/src/platform/testdata/" + name;
}

// A probe creates (and removes) cgroups in its tree: each probing test gets a copy of its own.
FixtureCopy Writable(const std::string& name) { return FixtureCopy(name, "src/platform/testdata"); }

std::string Join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// A command runner that behaves like this machine's kernel: netns, veth, htb and tbf work;
// netem is not built in.
Result<CommandResult> KernelWithoutNetem(const std::vector<std::string>& argv) {
  std::string cmd = Join(argv);
  if (cmd.find("netem") != std::string::npos) {
    return CommandResult{2, "", "Error: Specified qdisc kind is unknown.\n"};
  }
  return CommandResult{0, "", ""};
}

Support StatusOf(const std::vector<Capability>& caps, std::string_view name) {
  const Capability* c = FindCapability(caps, name);
  EXPECT_NE(c, nullptr) << name;
  return c ? c->status : Support::kUnknown;
}

TEST(DetectCgroups, FindsV1ControllersInHybridLayout) {
  RootedPlatform p(Fixture("cgroup_v1"));
  CgroupLayout l = DetectCgroups(p);
  EXPECT_EQ(l.version, 1);
  EXPECT_EQ(l.V1Mount("cpuset"), "/sys/fs/cgroup/cpuset");
  EXPECT_EQ(l.V1Mount("blkio"), "/sys/fs/cgroup/blkio");
  EXPECT_EQ(l.V1Mount("io"), "");
  EXPECT_EQ(l.v2_root, "/sys/fs/cgroup/unified");
}

TEST(DetectCgroups, FindsUnifiedV2) {
  RootedPlatform p(Fixture("cgroup_v2"));
  p.SetFilesystemMagic(0x63677270);
  CgroupLayout l = DetectCgroups(p);
  EXPECT_EQ(l.version, 2);
  EXPECT_EQ(l.v2_root, "/sys/fs/cgroup");
}

TEST(ProbeCapabilities, V1ControllersAndTcQdiscsAsTheKernelAnswers) {
  FixtureCopy fx = Writable("cgroup_v1");
  RootedPlatform p(fx.root(), KernelWithoutNetem);
  // The probe cgroup directories are created under the fixture and must be removed again.
  auto caps = ProbeCapabilities(p);
  EXPECT_EQ(StatusOf(caps, "cgroup.version"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "cgroup.cpuset"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "cgroup.io"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "cgroup.create"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "tc.htb"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "tc.tbf"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "tc.netem"), Support::kUnsupported);
  EXPECT_NE(FindCapability(caps, "tc.netem")->detail.find("unknown"), std::string::npos);
  EXPECT_EQ(StatusOf(caps, "tc.fq"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "tc.clsact"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "tc.cls_bpf"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "resctrl.cat_l3"), Support::kUnsupported);
  EXPECT_NE(FindCapability(caps, "resctrl.cat_l3")->detail.find("/proc/filesystems"),
            std::string::npos);
  EXPECT_FALSE(p.Exists("/sys/fs/cgroup/cpu/ream-doctor-4242"));
  EXPECT_FALSE(p.Exists("/sys/fs/cgroup/cpuset/ream-doctor-4242"));
}

// `--keep-awake` asks the kernel only where every online CPU's idle driver can poll.
TEST(ProbeCapabilities, IdlePollingNeedsEveryCpusPollingStateAndPmQosFile) {
  FixtureCopy fx = Writable("cgroup_v1");
  auto put = [&](const std::string& rel, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(fx.root() + rel).parent_path());
    std::ofstream(fx.root() + rel) << text;
  };
  RootedPlatform p(fx.root(), KernelWithoutNetem);
  EXPECT_EQ(StatusOf(ProbeCapabilities(p), "cpu.idle_poll"), Support::kUnsupported);
  put("/sys/devices/system/cpu/online", "0-1\n");
  put("/sys/devices/system/cpu/cpu0/cpuidle/state0/name", "POLL\n");
  put("/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us", "0\n");
  put("/sys/devices/system/cpu/cpu1/cpuidle/state0/name", "C1\n");
  put("/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us", "0\n");
  auto caps = ProbeCapabilities(p);
  EXPECT_EQ(StatusOf(caps, "cpu.idle_poll"), Support::kUnsupported);
  EXPECT_NE(FindCapability(caps, "cpu.idle_poll")->detail.find("CPU 1's shallowest idle state is C1"), std::string::npos)
      << FindCapability(caps, "cpu.idle_poll")->detail;
  put("/sys/devices/system/cpu/cpu1/cpuidle/state0/name", "POLL\n");
  EXPECT_EQ(StatusOf(ProbeCapabilities(p), "cpu.idle_poll"), Support::kSupported);
}

TEST(ProbeCapabilities, RemovesEveryObjectItCreated) {
  FixtureCopy fx = Writable("cgroup_v1");
  RootedPlatform p(fx.root(), KernelWithoutNetem);
  (void)ProbeCapabilities(p);
  int netns_added = 0, netns_deleted = 0, veth_added = 0, veth_deleted = 0, qdisc_added = 0,
      qdisc_deleted = 0;
  for (const auto& c : p.commands()) {
    std::string s = Join(c);
    if (s.rfind("ip netns add", 0) == 0) ++netns_added;
    if (s.rfind("ip netns delete", 0) == 0) ++netns_deleted;
    if (s.rfind("ip link add", 0) == 0) ++veth_added;
    if (s.rfind("ip link delete", 0) == 0) ++veth_deleted;
    if (s.rfind("tc qdisc add", 0) == 0 && s.find("netem") == std::string::npos) ++qdisc_added;
    if (s.rfind("tc qdisc del", 0) == 0) ++qdisc_deleted;
  }
  EXPECT_EQ(netns_added, 1);
  EXPECT_EQ(netns_deleted, 1);
  EXPECT_EQ(veth_added, 1);
  EXPECT_EQ(veth_deleted, 1);
  // htb, tbf, fq (root) and clsact; netem is refused by this kernel.
  EXPECT_EQ(qdisc_added, 4);
  EXPECT_EQ(qdisc_deleted, 4);
}

TEST(ProbeCapabilities, FailingVethMakesQdiscsUnknownNotUnsupported) {
  FixtureCopy fx = Writable("cgroup_v1");
  RootedPlatform p(fx.root(), [](const std::vector<std::string>& argv)
                                             -> Result<CommandResult> {
    if (argv.size() > 2 && argv[1] == "link") return CommandResult{2, "", "Operation not permitted"};
    return CommandResult{0, "", ""};
  });
  auto caps = ProbeCapabilities(p);
  EXPECT_EQ(StatusOf(caps, "net.veth"), Support::kUnsupported);
  EXPECT_EQ(StatusOf(caps, "tc.htb"), Support::kUnknown);
}

TEST(ProbeCapabilities, V2WithoutIoController) {
  FixtureCopy fx = Writable("cgroup_v2");
  RootedPlatform p(fx.root(), KernelWithoutNetem);
  p.SetFilesystemMagic(0x63677270);
  ASSERT_TRUE(p.WriteFile("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory pids\n").ok());
  auto caps = ProbeCapabilities(p);
  ASSERT_TRUE(p.WriteFile("/sys/fs/cgroup/cgroup.controllers",
                          "cpuset cpu io memory hugetlb pids rdma misc\n").ok());
  EXPECT_EQ(StatusOf(caps, "cgroup.version"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "cgroup.memory"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "cgroup.io"), Support::kUnsupported);
  EXPECT_FALSE(p.Exists("/sys/fs/cgroup/ream-doctor-4242"));
}

TEST(ProbeCapabilities, ReadsResctrlFeaturesFromAMountedTree) {
  FixtureCopy fx = Writable("resctrl_intel");
  RootedPlatform p(fx.root(), KernelWithoutNetem);
  p.SetFilesystemMagic(0x63677270);
  auto caps = ProbeCapabilities(p);
  EXPECT_EQ(StatusOf(caps, "resctrl.cat_l3"), Support::kSupported);
  EXPECT_NE(FindCapability(caps, "resctrl.cat_l3")->detail.find("7ff"), std::string::npos);
  EXPECT_EQ(StatusOf(caps, "resctrl.mba"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "resctrl.cmt"), Support::kSupported);
  EXPECT_EQ(StatusOf(caps, "resctrl.mbm"), Support::kSupported);
}

TEST(ProbeCapabilities, WithoutTryingReportsUnknown) {
  FixtureCopy fx = Writable("cgroup_v1");
  RootedPlatform p(fx.root());
  ProbeOptions o;
  o.try_kernel_objects = false;
  auto caps = ProbeCapabilities(p, o);
  EXPECT_EQ(StatusOf(caps, "tc.htb"), Support::kUnknown);
  EXPECT_EQ(StatusOf(caps, "cgroup.create"), Support::kUnknown);
  EXPECT_TRUE(p.commands().empty());
  auto json = CapabilitiesToJson(caps);
  ASSERT_TRUE(json.is_array());
  EXPECT_EQ(json[0]["status"], "supported");
  EXPECT_TRUE(json[0].contains("detail"));
}

TEST(Capabilities, JsonRoundTrip) {
  std::vector<Capability> caps = {{"cgroup.cpuset", Support::kSupported, "v1 at /sys/fs/cgroup/cpuset"},
                                  {"tc.netem", Support::kUnsupported, "Unknown qdisc \"netem\""},
                                  {"perf.counters", Support::kUnknown, ""}};
  auto back = CapabilitiesFromJson(CapabilitiesToJson(caps));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[1].name, "tc.netem");
  EXPECT_EQ((*back)[1].status, Support::kUnsupported);
  EXPECT_EQ((*back)[0].status, Support::kSupported);
  EXPECT_EQ((*back)[2].status, Support::kUnknown);
  EXPECT_EQ((*back)[1].detail, caps[1].detail);
  EXPECT_FALSE(CapabilitiesFromJson(nlohmann::json::object()).ok());
  EXPECT_FALSE(CapabilitiesFromJson(nlohmann::json::array({{{"status", "supported"}}})).ok());
}

}  // namespace
}  // namespace ream
