// Pinning the calling thread to one CPU (the generator's threads, one CPU each).
#pragma once

#include "platform/status.h"

namespace ream {

// InvalidArgument for a negative CPU; the kernel's refusal (a CPU outside the process's cpuset
// or offline) as Unavailable naming the CPU.
Status PinCallingThread(int cpu);

}  // namespace ream
