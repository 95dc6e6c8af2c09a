// pthread_setaffinity_np / sched_setaffinity behind PinCallingThread and SetThisThreadAffinity.
#include "platform/affinity.h"

#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ream {

Status PinCallingThread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return InvalidArgument("CPU " + std::to_string(cpu) + " is not a CPU number");
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set); e != 0) {
    return Unavailable("cannot pin a thread to CPU " + std::to_string(cpu) + ": " + std::strerror(e));
  }
  return Status::Ok();
}

Result<std::vector<int>> CallingThreadCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (int e = pthread_getaffinity_np(pthread_self(), sizeof set, &set); e != 0) {
    return ErrnoStatus(e, "pthread_getaffinity_np");
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

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

namespace ream {

Status SetSchedulingClass(SchedulingClass c) {
  const int policy = c == SchedulingClass::kIdle ? SCHED_IDLE : c == SchedulingClass::kBatch ? SCHED_BATCH : SCHED_OTHER;
  sched_param param{};
  param.sched_priority = 0;
  if (sched_setscheduler(0, policy, &param) != 0) {
    const int e = errno;
    return Unavailable(std::string("sched_setscheduler(") +
                       (c == SchedulingClass::kIdle ? "SCHED_IDLE" : c == SchedulingClass::kBatch ? "SCHED_BATCH" : "SCHED_OTHER") +
                       "): " + std::strerror(e));
  }
  return Status::Ok();
}

}  // namespace ream
