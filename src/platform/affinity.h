// Pinning threads to CPUs: a generator thread to its one CPU, and ream's helper processes that
// run outside a sandbox's cpuset (`ream relay --cpus`) to theirs.
#pragma once

#include <vector>

#include "platform/status.h"

namespace ream {

// The calling thread on `cpu` only. InvalidArgument for a negative CPU; the kernel's refusal (a
// CPU outside the process's cpuset or offline) as Unavailable naming the CPU.
Status PinCallingThread(int cpu);

// The CPUs the calling thread may run on (its affinity mask: the cpuset and any pinning), in
// rising order. The errno when the kernel refuses.
Result<std::vector<int>> CallingThreadCpus();

// The scheduling classes a tenant's threads may run in (sched(7)): SCHED_OTHER, SCHED_BATCH
// (the same fair share, never preempting for wake-up latency) and SCHED_IDLE (runs only when
// nothing else of a higher class wants the CPU: the best-effort tier).
enum class SchedulingClass { kOther, kBatch, kIdle };

// Puts the calling process (and the threads and children it creates afterwards) in `c` at
// priority 0. The errno when the kernel refuses (a lowering never needs a privilege).
Status SetSchedulingClass(SchedulingClass c);

// Pins the calling thread and the threads it creates afterwards to `cpus`. InvalidArgument for
// an empty list or a CPU out of range, the errno otherwise.
Status SetThisThreadAffinity(const std::vector<int>& cpus);

}  // namespace ream
