// sched_setaffinity behind SetThisThreadAffinity.
#include "platform/affinity.h"

#include <sched.h>

#include <cerrno>
#include <string>

namespace ream {

Status SetThisThreadAffinity(const std::vector<int>& cpus) {
  if (cpus.empty()) return InvalidArgument("no CPU to pin to");
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c < 0 || c >= CPU_SETSIZE) return InvalidArgument("CPU " + std::to_string(c) + " is out of range");
    CPU_SET(c, &set);
  }
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    return ErrnoStatus(errno, "sched_setaffinity");
  }
  return Status::Ok();
}

}  // namespace ream
