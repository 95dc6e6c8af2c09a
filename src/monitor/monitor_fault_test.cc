// The monitor under faults, without root (a fixture cgroup tree): a counter file that vanishes
// mid-window, and a clock that jumps forward an hour while it samples.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "monitor/monitor.h"
#include "platform/testdata_copy.h"

namespace ream {
namespace {

// Counters of a v1 cgroup: CPU (total and per CPU), disk, memory.
void SetCounters(const FixtureCopy& fx, const std::string& name, int64_t cpu_ns) {
  const std::string cg = "/sys/fs/cgroup/";
  fx.Write(cg + "cpuacct/" + name + "/cpuacct.usage", std::to_string(cpu_ns) + "\n");
  fx.Write(cg + "cpuacct/" + name + "/cpuacct.usage_percpu", std::to_string(cpu_ns) + " 0 \n");
  fx.Write(cg + "blkio/" + name + "/blkio.throttle.io_service_bytes", "254:0 Read 0\n254:0 Write 0\n");
  fx.Write(cg + "blkio/" + name + "/blkio.throttle.io_serviced", "254:0 Read 0\n254:0 Write 0\n");
  fx.Write(cg + "memory/" + name + "/memory.usage_in_bytes", "4096\n");
}

TEST(MonitorFaults, CounterFileVanishingMidWindowMakesItsFamilyUnavailableNamingTheFile) {
  FixtureCopy fx("cgroup-v1");
  RootedPlatform p(fx.root());
  auto cg = Cgroup::Create(p, DetectCgroups(p), "ream-6-1", nullptr);
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  SetCounters(fx, "ream-6-1", 0);
  MonitorTarget t;
  t.cgroup = cg->get();
  t.cpus = {0, 1};
  Monitor m(p, t, {.interval = std::chrono::milliseconds(10)});
  ASSERT_TRUE(m.Start().ok());
  // The window's first reading had it; then the file goes (the cgroup removed under ream).
  const std::string usage = "/sys/fs/cgroup/cpuacct/ream-6-1/cpuacct.usage";
  SetCounters(fx, "ream-6-1", 500'000'000);
  std::filesystem::remove(fx.Path(usage));
  p.AdvanceNanos(1'000'000'000);
  MonitorReport r = m.Stop();
  ASSERT_TRUE(r.unavailable.count("cpu"));
  EXPECT_NE(r.unavailable.at("cpu").find(usage), std::string::npos) << r.unavailable.at("cpu");
  EXPECT_NE(r.unavailable.at("cpu").find("No such file or directory"), std::string::npos) << r.unavailable.at("cpu");
  // No CPU figure at all (not a zero, not part of the window), the other families kept.
  EXPECT_FALSE(r.Mean("cpu_used").has_value());
  EXPECT_FALSE(r.Mean("cpu_utilization").has_value());
  EXPECT_TRUE(r.Mean("memory_bytes").has_value());
  EXPECT_TRUE(r.Mean("disk_read_bytes_per_s").has_value());
  EXPECT_FALSE(r.unavailable.count("memory"));
  for (const auto& d : (*cg)->dirs()) std::filesystem::remove_all(fx.Path(d)), std::filesystem::create_directory(fx.Path(d));
}

TEST(MonitorFaults, ClockJumpingForwardRestartsTheScheduleInsteadOfABurstOfReadings) {
  FixtureCopy fx("cgroup-v1");
  RootedPlatform p(fx.root());
  auto cg = Cgroup::Create(p, DetectCgroups(p), "ream-6-2", nullptr);
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  SetCounters(fx, "ream-6-2", 0);
  MonitorTarget t;
  t.cgroup = cg->get();
  t.cpus = {0, 1};
  Monitor m(p, t, {.interval = std::chrono::milliseconds(10)});
  ASSERT_TRUE(m.Start().ok());
  // An hour is 360 000 intervals of 10 ms: caught up, they were read back to back.
  p.AdvanceNanos(3600LL * 1'000'000'000);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  MonitorReport r = m.Stop();
  EXPECT_LT(r.timeline.size(), 100u);
  for (const auto& d : (*cg)->dirs()) std::filesystem::remove_all(fx.Path(d)), std::filesystem::create_directory(fx.Path(d));
}

}  // namespace
}  // namespace ream
