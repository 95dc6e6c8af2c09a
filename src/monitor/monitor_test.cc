// The monitor on fake counters: rates between readings, per-CPU busy fractions, and
// "unavailable" (never 0) for what cannot be measured.
#include "monitor/monitor.h"

#include <gtest/gtest.h>

#include "platform/testdata_copy.h"

namespace ream {
namespace {

constexpr int64_t kCgroup2Magic = 0x63677270;  // statfs f_type of cgroup2

TEST(Monitor, RatesFromV1CountersAndUnavailableWithReasons) {
  FixtureCopy fx("cgroup-v1");
  RootedPlatform p(fx.root());
  CgroupLayout layout = DetectCgroups(p);
  auto cg = Cgroup::Create(p, layout, "ream-5-1", nullptr);
  ASSERT_TRUE(cg.ok());
  auto set = [&](int64_t cpu0_ns, int64_t cpu1_ns, int64_t rbytes, int64_t rios, int64_t mem) {
    fx.Write("/sys/fs/cgroup/cpuacct/ream-5-1/cpuacct.usage", std::to_string(cpu0_ns + cpu1_ns) + "\n");
    fx.Write("/sys/fs/cgroup/cpuacct/ream-5-1/cpuacct.usage_percpu",
             std::to_string(cpu0_ns) + " " + std::to_string(cpu1_ns) + " \n");
    fx.Write("/sys/fs/cgroup/blkio/ream-5-1/blkio.throttle.io_service_bytes",
             "254:0 Read " + std::to_string(rbytes) + "\n254:0 Write 0\n254:0 Total " +
                 std::to_string(rbytes) + "\nTotal " + std::to_string(rbytes) + "\n");
    fx.Write("/sys/fs/cgroup/blkio/ream-5-1/blkio.throttle.io_serviced",
             "254:0 Read " + std::to_string(rios) + "\n254:0 Write 0\nTotal " + std::to_string(rios) + "\n");
    fx.Write("/sys/fs/cgroup/memory/ream-5-1/memory.usage_in_bytes", std::to_string(mem) + "\n");
  };
  set(0, 0, 0, 0, 1000);
  MonitorTarget t;
  t.cgroup = cg->get();
  t.cpus = {0, 1};
  t.cpu_quota = 0.5;
  Monitor m(p, t, {});
  // Readings by hand (the fake clock does not move by itself).
  auto a = m.Read();
  set(250000000, 0, 10 << 20, 80, 5000);
  p.AdvanceNanos(1000000000);
  auto b = m.Read();
  Sample s = m.Between(a, b);
  ASSERT_TRUE(s.cpu_used.has_value());
  EXPECT_DOUBLE_EQ(*s.cpu_used, 0.25);
  // Allotted: 2 CPUs capped by the 0.5-CPU quota.
  EXPECT_DOUBLE_EQ(*s.cpu_utilization, 0.5);
  ASSERT_EQ(s.per_cpu.size(), 2u);
  EXPECT_DOUBLE_EQ(s.per_cpu[0], 0.25);
  EXPECT_DOUBLE_EQ(s.per_cpu[1], 0.0);
  EXPECT_DOUBLE_EQ(*s.disk_read_bytes_per_s, 10 << 20);
  EXPECT_DOUBLE_EQ(*s.disk_read_iops, 80);
  EXPECT_EQ(*s.memory_bytes, 5000);
  EXPECT_FALSE(s.llc_occupancy_bytes.has_value());
  ASSERT_TRUE(m.Start().ok());
  MonitorReport r = m.Stop();
  EXPECT_DOUBLE_EQ(r.allotted_cpus, 0.5);
  ASSERT_TRUE(r.unavailable.count("llc_occupancy"));
  EXPECT_NE(r.unavailable.at("llc_occupancy").find("resctrl"), std::string::npos);
  // The fixture has no /sys/class/net: network is unavailable, with the reason.
  ASSERT_TRUE(r.unavailable.count("net"));
  EXPECT_NE(r.unavailable.at("net").find("/sys/class/net"), std::string::npos);
  auto j = r.ToJson();
  EXPECT_TRUE(j["summary"]["llc_occupancy_bytes"].is_null());
  EXPECT_FALSE(j["unavailable"]["mem_bandwidth"].get<std::string>().empty());
  // Without resctrl, the LLC-miss estimate from hardware counters is the fallback; where the
  // counters cannot be opened (here: the fake platform's refusal) the reason says so too.
  EXPECT_NE(r.unavailable.at("mem_bandwidth").find("hardware counters"), std::string::npos)
      << r.unavailable.at("mem_bandwidth");
  EXPECT_NE(r.unavailable.at("mem_bandwidth").find("no performance counters"), std::string::npos);
  for (const auto& d : (*cg)->dirs()) std::filesystem::remove_all(fx.Path(d)), std::filesystem::create_directory(fx.Path(d));
}

// v1: the high-water mark is reset when the window starts, so the report's peak is the
// window's, and it is read at Stop() (the cgroup goes when the sandbox stops).
TEST(Monitor, V1PeakIsTheKernelsHighWaterMarkOverTheWindow) {
  FixtureCopy fx("cgroup-v1");
  RootedPlatform p(fx.root());
  auto cg = Cgroup::Create(p, DetectCgroups(p), "ream-5-2", nullptr);
  ASSERT_TRUE(cg.ok());
  const std::string peak = "/sys/fs/cgroup/memory/ream-5-2/memory.max_usage_in_bytes";
  fx.Write(peak, "999999999\n");  // what an earlier window left
  fx.Write("/sys/fs/cgroup/memory/ream-5-2/memory.usage_in_bytes", "4096\n");
  MonitorTarget t;
  t.cgroup = cg->get();
  t.cpus = {0};
  Monitor m(p, t, {.interval = std::chrono::milliseconds(10)});
  ASSERT_TRUE(m.Baseline().ok());
  auto reset = p.ReadFile(peak);
  ASSERT_TRUE(reset.ok());
  EXPECT_EQ(Trim(*reset), "0");  // the write the kernel takes as "reset to current usage"
  fx.Write(peak, "134217728\n");  // the kernel saw 128 MiB between two samples
  ASSERT_TRUE(m.Start().ok());
  p.AdvanceNanos(1'000'000'000);
  MonitorReport r = m.Stop();
  ASSERT_TRUE(r.memory_peak_bytes.has_value());
  EXPECT_EQ(*r.memory_peak_bytes, 134217728);
  EXPECT_EQ(r.memory_peak_scope, "window");
  auto j = r.ToJson();
  EXPECT_EQ(j["memory_peak"]["bytes"].get<int64_t>(), 134217728);
  EXPECT_EQ(j["memory_peak"]["scope"], "window");
  // The sampled maximum stays beside it, and is what the samples saw.
  EXPECT_LE(j["summary"]["memory_bytes"]["max"].get<double>(), 4096);
  for (const auto& d : (*cg)->dirs()) std::filesystem::remove_all(fx.Path(d)), std::filesystem::create_directory(fx.Path(d));
}

TEST(Monitor, V2PeakIsTheLifetimePeakLabelledAsSuchOrUnavailable) {
  FixtureCopy fx("cgroup-v2");
  RootedPlatform p(fx.root());
  p.SetFilesystemMagic(kCgroup2Magic);
  auto cg = Cgroup::Create(p, DetectCgroups(p), "ream-5-3", nullptr);
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  std::string dir = (*cg)->Dir("memory");
  MonitorTarget t;
  t.cgroup = cg->get();
  t.cpus = {0};
  {
    // No memory.peak (a kernel before 5.19): unavailable, with the reason.
    Monitor m(p, t, {.interval = std::chrono::milliseconds(10)});
    ASSERT_TRUE(m.Start().ok());
    MonitorReport r = m.Stop();
    EXPECT_FALSE(r.memory_peak_bytes.has_value());
    ASSERT_TRUE(r.unavailable.count("memory_peak"));
    EXPECT_NE(r.unavailable.at("memory_peak").find("memory.peak"), std::string::npos);
    EXPECT_TRUE(r.ToJson()["memory_peak"]["bytes"].is_null());
  }
  fx.Write(dir + "/memory.peak", "2097152\n");
  Monitor m(p, t, {.interval = std::chrono::milliseconds(10)});
  ASSERT_TRUE(m.Start().ok());
  MonitorReport r = m.Stop();
  ASSERT_TRUE(r.memory_peak_bytes.has_value());
  EXPECT_EQ(*r.memory_peak_bytes, 2097152);
  EXPECT_EQ(r.memory_peak_scope, "cgroup lifetime");
  EXPECT_NE(r.sources.at("memory_peak").find("lifetime"), std::string::npos);
  std::filesystem::remove_all(fx.Path(dir));
  std::filesystem::create_directory(fx.Path(dir));
}

}  // namespace
}  // namespace ream
