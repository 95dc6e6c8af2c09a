// Pinning the calling process to CPUs (sched_setaffinity), for ream's helper processes that run
// outside a sandbox's cpuset (`ream relay --cpus`).
#pragma once

#include <vector>

#include "platform/status.h"

namespace ream {

// Pins the calling thread and the threads it creates afterwards to `cpus`. InvalidArgument for
// an empty list or a CPU out of range, the errno otherwise.
Status SetThisThreadAffinity(const std::vector<int>& cpus);

}  // namespace ream
