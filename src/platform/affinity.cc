#include "platform/affinity.h"

#include <pthread.h>
#include <sched.h>

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

}  // namespace ream
