// The machine's clocks as inline reads, for the hot paths (the generator's scheduler, the
// servers' service-time stamps) where a virtual call through Platform is the wrong price.
// Platform::MonotonicNanos of the real machine is this same clock; code that should run
// under a fake clock in tests takes a Platform& and asks it instead.
#pragma once

#include <time.h>

#include <cstdint>

#include "platform/status.h"

namespace ream {

namespace clock_detail {
inline int64_t ReadNs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);  // vDSO for the MONOTONIC and REALTIME clocks: ~20 ns, no syscall
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace clock_detail

// CLOCK_MONOTONIC in nanoseconds: the one clock ream schedules and measures with.
inline int64_t MonotonicNowNs() { return clock_detail::ReadNs(CLOCK_MONOTONIC); }
// CLOCK_REALTIME in nanoseconds (wall time, for records and kernel receive stamps).
inline int64_t RealtimeNowNs() { return clock_detail::ReadNs(CLOCK_REALTIME); }
// CPU time (user + system) of the calling thread / of this whole process, in nanoseconds.
inline int64_t ThreadCpuNs() { return clock_detail::ReadNs(CLOCK_THREAD_CPUTIME_ID); }
inline int64_t ProcessCpuNs() { return clock_detail::ReadNs(CLOCK_PROCESS_CPUTIME_ID); }

// CLOCK_MONOTONIC minus CLOCK_REALTIME, in ns, from the tightest of a few paired reads:
// converts a kernel arrival stamp to the monotonic clock the generator schedules with.
int64_t MonotonicMinusRealtimeNs();

// Sets the calling thread's timer slack to 1 ns so timed waits wake when asked, not up to
// 50 µs later (the Linux default). Returns the error when prctl refuses.
Status UseTightTimerSlack();

// How long the calling thread has waited on a run queue — runnable, but another task had its
// CPU — in ns since it started (/proc/thread-self/schedstat, second field; the file is kept
// open per thread). -1 where the kernel does not keep it. An event of the generator's loop
// during which this rose by most of the event's length was the thread not running.
int64_t ThreadRunQueueWaitNs();

// Gives the calling thread's CPU to any other runnable task there (sched_yield); returns at
// once when there is none. The generator's spin before a send calls it with `--wait yield`.
void YieldCpu();

}  // namespace ream
