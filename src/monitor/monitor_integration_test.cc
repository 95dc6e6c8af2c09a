// The monitor's memory-bandwidth decision on the real kernel: a cgroup of its own, the host's
// resctrl and perf as they are. On a host with neither (this project's VMs: no resctrl, perf
// "not supported"), memory bandwidth is unavailable and the reason names perf's errno.
#include <unistd.h>

#include <regex>

#include <gtest/gtest.h>

#include "monitor/monitor.h"

namespace ream {
namespace {

TEST(MonitorOnThisHost, MemoryBandwidthIsMeasuredEstimatedOrUnavailableNamingPerfsErrno) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (a cgroup of its own)";
  auto p = MakePosixPlatform();
  CgroupLayout layout = DetectCgroups(*p);
  auto cg = Cgroup::Create(*p, layout, "ream-monitor-it-" + std::to_string(::getpid()), nullptr);
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  MonitorTarget t;
  t.cgroup = cg->get();
  t.cpus = {0};
  Status perf = p->ProbePerfLlcMisses();
  MonitorReport r;
  {
    Monitor m(*p, t, {.interval = std::chrono::milliseconds(50)});
    ASSERT_TRUE(m.Start().ok());
    p->SleepFor(std::chrono::milliseconds(120));
    r = m.Stop();
  }
  std::printf("perf probe: %s\nmem_bandwidth: %s\n", perf.ok() ? "ok" : perf.message().c_str(),
              r.unavailable.count("mem_bandwidth") ? r.unavailable.at("mem_bandwidth").c_str()
                                                   : r.sources.at("mem_bandwidth").c_str());
  if (r.unavailable.count("mem_bandwidth")) {
    // Unavailable: never a zero, and perf's own failure (its errno by name) in the reason.
    EXPECT_FALSE(r.Mean("mem_bandwidth_bytes_per_s").has_value());
    EXPECT_FALSE(r.methods.count("mem_bandwidth"));
    const std::string& why = r.unavailable.at("mem_bandwidth");
    EXPECT_NE(why.find("hardware counters (for an LLC-miss estimate)"), std::string::npos) << why;
    if (!perf.ok()) {
      EXPECT_NE(why.find(perf.message()), std::string::npos) << why;
      EXPECT_TRUE(std::regex_search(perf.message(), std::regex("\\(E[A-Z0-9]+\\)"))) << perf.message();
    }
  } else {
    // resctrl or perf counted it: the method says which.
    ASSERT_TRUE(r.methods.count("mem_bandwidth"));
    EXPECT_TRUE(r.methods.at("mem_bandwidth") == kMemBwMeasured || r.methods.at("mem_bandwidth") == kMemBwEstimate);
  }
  EXPECT_TRUE((*cg)->Destroy().ok());
}

}  // namespace
}  // namespace ream
