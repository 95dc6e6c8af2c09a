// Pinning threads to CPUs: a generator thread to its one CPU, and ream's helper processes that
// run outside a sandbox's cpuset (`ream relay --cpus`) to theirs.
#pragma once

#include <vector>

#include "platform/status.h"

namespace ream {

// The calling thread on `cpu` only. InvalidArgument for a negative CPU; the kernel's refusal (a
// CPU outside the process's cpuset or offline) as Unavailable naming the CPU.
Status PinCallingThread(int cpu);

// Pins the calling thread and the threads it creates afterwards to `cpus`. InvalidArgument for
// an empty list or a CPU out of range, the errno otherwise.
Status SetThisThreadAffinity(const std::vector<int>& cpus);

}  // namespace ream
