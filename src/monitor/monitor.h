// Samplers of what a sandbox consumes, on a timeline (default every 250 ms) and summarised:
// CPU (as CPUs used, as a fraction of the allotted CPUs, and per CPU), network rx/tx, disk
// read/write bytes and IOPS, memory in use, LLC occupancy and memory bandwidth. A metric the
// machine cannot measure is null, with the reason in "unavailable" — never a zero.
//
//   Monitor m(platform, TargetOf(*sandbox), {.interval = 100ms});
//   REAM_RETURN_IF_ERROR(m.Start());
//   ... one load level ...
//   MonitorReport r = m.Stop();   // r.ToJson(): {"timeline": [...], "summary": {...}, ...}
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "partition/cgroup.h"
#include "partition/cgroup_knobs.h"
#include "partition/resctrl.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"

namespace ream {

// Everything a sandbox exposes for monitoring.
MonitorTarget TargetOf(Sandbox& sandbox);

// The target's CPU time so far in ns (its cgroup's cpuacct.usage or cpu.stat usage_usec, or the
// kind's own reader: a guest's, from libvirt), or nullopt with why in `*why` when it cannot be
// read now. What a monitor samples; a manager reads it at each window's end.
std::optional<int64_t> ReadCpuNs(const MonitorTarget& target, std::string* why);

// MonitorReport::methods["mem_bandwidth"]: the memory controller's own count of the group's
// traffic, or an estimate from the LLC misses the CPUs counted for the sandbox's cgroup.
inline constexpr const char* kMemBwMeasured = "resctrl MBM";
inline constexpr const char* kMemBwEstimate = "estimate: LLC misses × line size (perf)";

struct MonitorOptions {
  // Time between samples (>= 10 ms).
  std::chrono::nanoseconds interval = std::chrono::milliseconds(250);
};

// One point of the timeline: rates over the interval that ends at t_s.
struct Sample {
  double t_s = 0;                        // seconds since Start()
  std::optional<double> cpu_used;        // CPUs busy (1.0 = one CPU's worth of time)
  std::optional<double> cpu_utilization;  // cpu_used / allotted CPUs
  std::vector<double> per_cpu;           // busy fraction of each allotted CPU
  std::optional<double> net_rx_bytes_per_s, net_tx_bytes_per_s;  // as the sandbox sees it
  std::optional<double> disk_read_bytes_per_s, disk_write_bytes_per_s;
  std::optional<double> disk_read_iops, disk_write_iops;
  std::optional<int64_t> memory_bytes;
  std::optional<int64_t> llc_occupancy_bytes;
  std::optional<double> mem_bandwidth_bytes_per_s;
};

struct MetricSummary {
  std::optional<double> mean, max;
};

struct MonitorReport {
  std::chrono::nanoseconds interval{0};
  double duration_s = 0;
  std::vector<int> cpus;
  double allotted_cpus = 0;
  std::vector<Sample> timeline;
  // Whole-window figures: rates from the counters at Start and Stop (exact means); levels
  // (memory, LLC) from the samples. Keys: cpu_used, cpu_utilization, net_rx_bytes_per_s,
  // net_tx_bytes_per_s, disk_read_bytes_per_s, disk_write_bytes_per_s, disk_read_iops,
  // disk_write_iops, memory_bytes, llc_occupancy_bytes, mem_bandwidth_bytes_per_s.
  std::map<std::string, MetricSummary> summary;
  std::vector<double> per_cpu_mean;  // busy fraction of each allotted CPU over the window
  // metric -> why it could not be measured here.
  std::map<std::string, std::string> unavailable;
  // Where each family of metrics comes from ("cgroup v1 cpuacct", "veth ream12h1", ...).
  std::map<std::string, std::string> sources;
  // How a family was obtained where ways differ in kind: "mem_bandwidth" -> kMemBwMeasured
  // (resctrl MBM) or kMemBwEstimate (perf LLC misses × line size).
  std::map<std::string, std::string> methods;
  double monitor_cpu_s = 0;  // CPU time the sampling thread itself used
  // The kernel's high-water mark of the cgroup's memory (bytes), read at Stop() while the
  // cgroup still exists. The sampled memory_bytes maximum misses what happens between samples
  // (an allocation that runs into the limit in a few ms); this does not. `peak_scope` says
  // what it covers: "window" (v1 memory.max_usage_in_bytes, reset when the window started)
  // or "cgroup lifetime" (v2 memory.peak, or a v1 file that refused the reset). Unset: see
  // unavailable["memory_peak"].
  std::optional<int64_t> memory_peak_bytes;
  std::string memory_peak_scope;

  nlohmann::json ToJson() const;
  // The inverse of ToJson: a report a remote workload's agent sampled on its host.
  // InvalidArgument naming what is malformed.
  static Result<MonitorReport> FromJson(const nlohmann::json& j);
  std::optional<double> Mean(const std::string& metric) const;
};

class Monitor {
 public:
  Monitor(Platform& platform, MonitorTarget target, MonitorOptions options = {});
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  // Takes the first reading and starts the sampling thread. InvalidArgument for a bad
  // interval; Internal when already started.
  Status Start();
  // Optional, before Start(): takes the reading the timeline starts from now, without starting
  // the sampling thread (Start() continues from it). For a whole process's life, call it from
  // SandboxOptions::before_exec: a command that runs for a few milliseconds is otherwise
  // partly over (its CPU time, a disk's first burst) before the monitor's first reading.
  Status Baseline();
  // Takes the last reading, stops the thread, and returns the timeline and summary.
  MonitorReport Stop();

  // One reading of every counter (exposed for tests).
  struct Counters {
    int64_t t_ns = 0;
    std::optional<int64_t> cpu_ns;
    std::map<int, int64_t> per_cpu_ns;  // cpu id -> busy ns
    std::optional<int64_t> net_rx, net_tx;  // bytes, from the sandbox's point of view
    std::optional<int64_t> disk_rbytes, disk_wbytes, disk_rios, disk_wios;
    std::optional<int64_t> memory;
    std::optional<int64_t> llc;
    std::optional<int64_t> mbm_total;
    // family ("cpu", "memory", "disk") -> why its counter file could not be read this time.
    std::map<std::string, std::string> faults;
  };
  Counters Read();
  // The sample for the interval between two readings.
  Sample Between(const Counters& a, const Counters& b) const;

 private:
  void Loop();
  void ProbeSources();
  // Opens the perf LLC-miss estimate of memory traffic (resctrl monitoring absent): "" when
  // it counts, else why not (perf's errno named).
  std::string ProbeLlcMissEstimate();
  // Resets the v1 high-water mark at the window's start (Baseline): the peak is then the
  // window's. Where it cannot be reset the scope says "cgroup lifetime".
  void ResetPeak();

  Platform& p_;
  MonitorTarget target_;
  MonitorOptions options_;
  double allotted_ = 0;
  std::map<std::string, std::string> unavailable_;
  std::map<std::string, std::string> sources_;
  std::map<std::string, std::string> methods_;
  // The perf LLC-miss estimate of memory traffic (null: not used) and its line size; read
  // into Counters::mbm_total as bytes.
  std::unique_ptr<EventCounter> llc_misses_;
  int64_t llc_line_bytes_ = 64;
  bool per_cpu_from_proc_stat_ = false;
  // Where the kernel's memory high-water mark is read ("" : unavailable) and what it covers.
  std::string peak_file_, peak_scope_;
  std::vector<std::string> host_ifaces_;

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool started_ = false;
  bool has_baseline_ = false;  // Baseline() (or Start()) has taken the first reading
  int64_t start_ns_ = 0;
  Counters first_, last_;
  std::vector<Sample> timeline_;
  // The first read failure of each family over the window (Counters::faults), for Stop().
  std::map<std::string, std::string> faults_;
  std::atomic<int64_t> thread_cpu_ns_{0};
};

}  // namespace ream
