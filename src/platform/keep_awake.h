// Keeping CPUs out of idle: on a VM an idle vCPU halts, and the next
// request that lands on it first pays the wake-up (an IPI through the hypervisor, tens of
// microseconds here) — on both sides of a low-load measurement, so the curve inverts: the
// workload looks slower at 2 000 QPS than at 40 000. What `idle=poll` does for a whole host,
// limited to the experiment's CPUs, in one of two ways per CPU:
//
//  - the kernel's idle polling, wherever the CPU's cpuidle driver has a polling state (state0
//    "POLL": intel_idle, acpi_idle, haltpoll): a per-CPU PM QoS resume-latency constraint of 0
//    (/sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us = "n/a", what tuned's
//    latency profiles set) makes the idle governor choose that state, so the idle CPU polls
//    its need-resched flag inside the kernel. No task runs, so nothing is charged to anyone, a
//    wake-up needs no IPI, and no task switch changes address space. The previous value is put
//    back when the KeepAwake ends, and by a small guard process (`ream-qos-guard`) when this
//    process dies without ending it (SIGKILL): the guard waits on a pipe only this process
//    holds and restores the values at its end of file. It moves itself to the root of every
//    cgroup hierarchy, so that killing the caller's cgroup does not kill it first.
//  - elsewhere, one SCHED_IDLE thread per CPU that spins with `pause`: the CPU never halts, yet
//    any other task that wants it preempts the poller at once (SCHED_IDLE's weight is ~1/300 of
//    a nice-0 task's). The threads belong to the calling process, so they are charged to its
//    cgroup, not the workload's or the generator's.
//
// Measured side by side on this project's VMs (docs/notes/performance-notes.md, "The kernel's idle
// polling instead of pollers"): the kernel's polling gave the lower latencies and left the
// workload's CPU time per request lower, where the pollers' switches raised it.
//
// REAM_KEEP_AWAKE=pollers in the environment makes every KeepAwake use pollers (to compare
// the two ways; `ream keep-awake` and `ream load` inherit it).
//
//   auto awake = KeepAwake::Start({0, 1});   // until `awake` is destroyed
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "platform/status.h"

namespace ream {

// The words of a point's keep_awake_workload note when the workload's CPUs were kept awake by
// pollers: the sandbox writes them, the analysis looks for them (its service-demand LQoS says
// what the pollers do to the workload's CPU time).
inline constexpr char kWorkloadCpusKeptAwake[] = "kept awake by SCHED_IDLE pollers";
// ... and by the kernel's idle polling.
inline constexpr char kCpusPolledByKernel[] = "kept awake by the kernel's idle polling";

class KeepAwake {
 public:
  enum class Via { kBest, kPollers };  // kBest: the kernel's polling where it can, pollers elsewhere

  // Every CPU of `cpus` (duplicates ignored) kept out of idle (kBest: as REAM_KEEP_AWAKE says). InvalidArgument for an empty
  // list; the error of pinning or of SCHED_IDLE when the kernel refuses a poller, of the
  // sysfs write or the guard's fork for the kernel's way (nothing is left changed or running).
  static Result<std::unique_ptr<KeepAwake>> Start(const std::vector<int>& cpus, Via via = Via::kBest);
  // Whether the kernel can keep `cpu` awake here: its cpuidle driver's state0 is the polling
  // state, not disabled, and its PM QoS file is writable by this process. The reason when not.
  static Status KernelCanPoll(int cpu);
  // The way asked for by REAM_KEEP_AWAKE ("pollers", else kBest).
  static Via FromEnvironment();

  ~KeepAwake();  // stops and joins the pollers, puts the PM QoS values back, reaps the guard
  KeepAwake(const KeepAwake&) = delete;
  KeepAwake& operator=(const KeepAwake&) = delete;

  const std::vector<int>& cpus() const { return cpus_; }
  const std::vector<int>& polled_by_kernel() const { return kernel_cpus_; }
  const std::vector<int>& polled_by_threads() const { return thread_cpus_; }
  // "CPUs 0-1 kept awake by the kernel's idle polling (PM QoS resume latency 0)", or by
  // pollers, or both, with why a CPU got pollers when the kernel's way was asked for.
  std::string Describe() const;

 private:
  KeepAwake() = default;
  Status StartKernel(const std::vector<int>& cpus);
  Status StartPollers(const std::vector<int>& cpus);
  void RestoreKernel();

  std::vector<int> cpus_, kernel_cpus_, thread_cpus_;
  std::string why_pollers_;  // why some CPUs got pollers under kBest
  // The kernel's way: each file and the value it had; the guard process and its pipe.
  std::vector<std::pair<std::string, std::string>> restore_;
  pid_t guard_ = -1;
  int guard_pipe_ = -1;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace ream
