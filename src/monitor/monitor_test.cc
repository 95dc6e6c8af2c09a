// The monitor on fake counters: rates between readings, per-CPU busy fractions, and
// "unavailable" (never 0) for what cannot be measured.
#include "monitor/monitor.h"

#include <filesystem>
#include <optional>

#include <gtest/gtest.h>

#include "platform/testdata_copy.h"

namespace ream {
namespace {

constexpr int64_t kCgroup2Magic = 0x63677270;  // statfs f_type of cgroup2

// Empties the cgroup's directories in the fixture copy, files the test wrote in them included,
// as the kernel's would be: the cgroup removes them when it goes.
void EmptyCgroupDirs(FixtureCopy& fx, const Cgroup& cg) {
  for (const auto& d : cg.dirs()) {
    std::filesystem::remove_all(fx.Path(d));
    std::filesystem::create_directory(fx.Path(d));
  }
}

// What a monitor of `cgroup` on CPU 0 reports when stopped as soon as it started; nullopt when
// it does not start.
std::optional<MonitorReport> ReportAtOnce(Platform& p, Cgroup* cgroup) {
  MonitorTarget t;
  t.cgroup = cgroup;
  t.cpus = {0};
  Monitor m(p, t, {});
  if (!m.Start().ok()) return std::nullopt;
  return m.Stop();
}

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
  // What a remote workload's agent sends back reads back into the same report.
  auto back = MonitorReport::FromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ToJson(), j);
  EXPECT_EQ(back->unavailable, r.unavailable);
  EXPECT_EQ(back->Mean("cpu_used"), r.Mean("cpu_used"));
  EXPECT_FALSE(MonitorReport::FromJson(nlohmann::json{{"duration_s", "long"}}).ok());
  EXPECT_FALSE(j["unavailable"]["mem_bandwidth"].get<std::string>().empty());
  // Without resctrl, the LLC-miss estimate from hardware counters is the fallback; where the
  // counters cannot be opened (here: the fake platform's refusal) the reason says so too.
  EXPECT_NE(r.unavailable.at("mem_bandwidth").find("hardware counters"), std::string::npos)
      << r.unavailable.at("mem_bandwidth");
  EXPECT_NE(r.unavailable.at("mem_bandwidth").find("no performance counters"), std::string::npos);
  EmptyCgroupDirs(fx, **cg);
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
  EmptyCgroupDirs(fx, **cg);
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
  EmptyCgroupDirs(fx, **cg);
}

// Memory bandwidth, the decision: resctrl monitoring where the sandbox has a group (the memory
// controller's count); else, where perf counts LLC misses for the sandbox's cgroup, misses ×
// line size as an estimate, labelled so; else unavailable with each reason.
TEST(Monitor, MemoryBandwidthFromResctrlBeforeAnEstimateFromPerf) {
  FixtureCopy fx("resctrl-intel");
  std::filesystem::create_directories(fx.Path("/sys/fs/resctrl/mon_groups"));
  RootedPlatform p(fx.root());
  auto info = ReadResctrl(p);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  auto g = ResctrlGroup::CreateMonitoring(p, *info, "ream-7-1", nullptr);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const std::string mon = "/sys/fs/resctrl/mon_groups/ream-7-1/mon_data/mon_L3_00/";
  fx.Write(mon + "llc_occupancy", "4096\n");
  fx.Write(mon + "mbm_total_bytes", "1000\n");
  p.SetPerfStatus(Status::Ok());  // counters exist too: resctrl still comes first
  p.SetCgroupLlcMisses(std::make_shared<std::atomic<uint64_t>>(0));
  MonitorTarget t;
  t.cpus = {0};
  t.resctrl = g->get();
  Monitor m(p, t, {});
  auto a = m.Read();
  fx.Write(mon + "mbm_total_bytes", "3001000\n");
  p.AdvanceNanos(1000000000);
  auto b = m.Read();
  EXPECT_DOUBLE_EQ(*m.Between(a, b).mem_bandwidth_bytes_per_s, 3e6);
  ASSERT_TRUE(m.Start().ok());
  MonitorReport r = m.Stop();
  EXPECT_EQ(r.methods.at("mem_bandwidth"), kMemBwMeasured);
  EXPECT_NE(r.sources.at("mem_bandwidth").find("mbm_total_bytes"), std::string::npos);
  EXPECT_TRUE(p.llc_miss_opens().empty()) << "perf was opened although resctrl monitors the sandbox";
  EXPECT_EQ(r.ToJson()["methods"]["mem_bandwidth"], kMemBwMeasured);
  std::filesystem::remove_all(fx.Path("/sys/fs/resctrl/mon_groups/ream-7-1/mon_data"));
}

TEST(Monitor, WithoutResctrlLlcMissesTimesTheLineAreAnEstimateForTheCgroup) {
  FixtureCopy fx("cgroup-v2");
  RootedPlatform p(fx.root());
  p.SetFilesystemMagic(kCgroup2Magic);
  auto cg = Cgroup::Create(p, DetectCgroups(p), "ream-7-2", nullptr);
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  fx.Write("/sys/devices/system/cpu/cpu2/cache/index0/level", "1\n");
  fx.Write("/sys/devices/system/cpu/cpu2/cache/index0/coherency_line_size", "64\n");
  fx.Write("/sys/devices/system/cpu/cpu2/cache/index3/level", "3\n");
  fx.Write("/sys/devices/system/cpu/cpu2/cache/index3/coherency_line_size", "128\n");
  p.SetPerfStatus(Status::Ok());
  auto misses = std::make_shared<std::atomic<uint64_t>>(500);
  p.SetCgroupLlcMisses(misses);
  MonitorTarget t;
  t.cgroup = cg->get();
  t.cpus = {2, 3};
  t.resctrl_reason = "resctrl is absent: the kernel has no resctrl filesystem";
  Monitor m(p, t, {});
  // One event per CPU of the sandbox, on the sandbox's cgroup directory.
  auto opens = p.llc_miss_opens();
  ASSERT_EQ(opens.size(), 1u);
  EXPECT_EQ(opens[0].first, (*cg)->Dir("cpu"));
  EXPECT_EQ(opens[0].second, (std::vector<int>{2, 3}));
  auto a = m.Read();
  *misses = 500 + 10000;
  p.AdvanceNanos(500000000);
  auto b = m.Read();
  // 10 000 misses × 128 B (the L3's line) in 0.5 s.
  EXPECT_DOUBLE_EQ(*m.Between(a, b).mem_bandwidth_bytes_per_s, 10000 * 128 / 0.5);
  ASSERT_TRUE(m.Start().ok());
  MonitorReport r = m.Stop();
  EXPECT_FALSE(r.unavailable.count("mem_bandwidth"));
  EXPECT_EQ(r.methods.at("mem_bandwidth"), kMemBwEstimate);
  EXPECT_NE(r.sources.at("mem_bandwidth").find("estimate"), std::string::npos);
  EXPECT_NE(r.sources.at("mem_bandwidth").find("128 B"), std::string::npos) << r.sources.at("mem_bandwidth");
  // Misses say nothing of occupancy: that stays unavailable, saying why.
  EXPECT_NE(r.unavailable.at("llc_occupancy").find("not occupancy"), std::string::npos);
  EXPECT_NE(r.unavailable.at("llc_occupancy").find("resctrl is absent"), std::string::npos);
  EmptyCgroupDirs(fx, **cg);
}

TEST(Monitor, WithNeitherMemoryBandwidthIsUnavailableWithPerfsReason) {
  {
    // perf refuses (the host's answer here: no such hardware event): its errno in the reason.
    FixtureCopy fx("cgroup-v2");
    RootedPlatform p(fx.root());
    p.SetFilesystemMagic(kCgroup2Magic);
    auto cg = Cgroup::Create(p, DetectCgroups(p), "ream-7-3", nullptr);
    ASSERT_TRUE(cg.ok());
    p.SetPerfStatus(Unsupported("perf_event_open(LLC read misses): No such file or directory (ENOENT)"));
    std::optional<MonitorReport> r = ReportAtOnce(p, cg->get());
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->unavailable.count("mem_bandwidth"));
    EXPECT_NE(r->unavailable.at("mem_bandwidth").find("(ENOENT)"), std::string::npos) << r->unavailable.at("mem_bandwidth");
    EXPECT_NE(r->unavailable.at("mem_bandwidth").find("resctrl"), std::string::npos);
    EXPECT_FALSE(r->methods.count("mem_bandwidth"));
    EXPECT_FALSE(r->Mean("mem_bandwidth_bytes_per_s").has_value());
    EmptyCgroupDirs(fx, **cg);
  }
  {
    // The probe passes but the cgroup event does not open: that open's reason.
    FixtureCopy fx("cgroup-v2");
    RootedPlatform p(fx.root());
    p.SetFilesystemMagic(kCgroup2Magic);
    auto cg = Cgroup::Create(p, DetectCgroups(p), "ream-7-4", nullptr);
    ASSERT_TRUE(cg.ok());
    p.SetPerfStatus(Status::Ok());  // and no counter set: the fake refuses the cgroup event
    std::optional<MonitorReport> r = ReportAtOnce(p, cg->get());
    ASSERT_TRUE(r.has_value());
    EXPECT_NE(r->unavailable.at("mem_bandwidth").find("no LLC-miss counter for cgroup"), std::string::npos)
        << r->unavailable.at("mem_bandwidth");
    EmptyCgroupDirs(fx, **cg);
  }
  {
    // cgroup v1 without the perf_event controller: the sandbox's misses cannot be counted apart.
    FixtureCopy fx("cgroup-v1");
    RootedPlatform p(fx.root());
    auto cg = Cgroup::Create(p, DetectCgroups(p), "ream-7-5", nullptr);
    ASSERT_TRUE(cg.ok());
    p.SetPerfStatus(Status::Ok());
    p.SetCgroupLlcMisses(std::make_shared<std::atomic<uint64_t>>(0));
    std::optional<MonitorReport> r = ReportAtOnce(p, cg->get());
    ASSERT_TRUE(r.has_value());
    EXPECT_NE(r->unavailable.at("mem_bandwidth").find("'perf_event' is not mounted"), std::string::npos)
        << r->unavailable.at("mem_bandwidth");
    EXPECT_TRUE(p.llc_miss_opens().empty());
    EmptyCgroupDirs(fx, **cg);
  }
}

}  // namespace
}  // namespace ream
