// Keeping CPUs out of idle (issue 14, item 3): on a VM an idle vCPU halts, and the next
// request that lands on it first pays the wake-up (an IPI through the hypervisor, tens of
// microseconds here) — on both sides of a low-load measurement, so the curve inverts: the
// workload looks slower at 2 000 QPS than at 40 000. KeepAwake runs one SCHED_IDLE thread
// per given CPU that spins with `pause`: the CPU never halts, yet any other task that wants it
// preempts the poller at once (SCHED_IDLE's weight is ~1/300 of a nice-0 task's). The threads
// belong to the calling process, so they are charged to its cgroup, not the workload's or the
// generator's. What `idle=poll` does for a whole host, limited to the experiment's CPUs.
//
//   auto awake = KeepAwake::Start({0, 1});   // until `awake` is destroyed
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "platform/status.h"

namespace ream {

// The words of a point's keep_awake_workload note when the workload's CPUs were kept awake:
// the sandbox writes them, the analysis looks for them (its service-demand LQoS says what
// keep-awake does to the workload's CPU time).
inline constexpr char kWorkloadCpusKeptAwake[] = "kept awake by SCHED_IDLE pollers";

class KeepAwake {
 public:
  // One poller per CPU of `cpus` (duplicates ignored). InvalidArgument for an empty list;
  // the error of pinning or of SCHED_IDLE when the kernel refuses (nothing is left running).
  static Result<std::unique_ptr<KeepAwake>> Start(const std::vector<int>& cpus);
  ~KeepAwake();  // stops and joins the pollers
  KeepAwake(const KeepAwake&) = delete;
  KeepAwake& operator=(const KeepAwake&) = delete;

  const std::vector<int>& cpus() const { return cpus_; }

 private:
  KeepAwake() = default;
  std::vector<int> cpus_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace ream
