// The clock helpers that are not plain reads: the monotonic-realtime offset and timer slack.
#include "platform/clock.h"

#include <sys/prctl.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>

#include <cerrno>
#include <climits>

namespace ream {

int64_t MonotonicMinusRealtimeNs() {
  int64_t best_width = INT64_MAX, offset = 0;
  for (int i = 0; i < 5; ++i) {
    int64_t ma = MonotonicNowNs();
    int64_t rr = RealtimeNowNs();
    int64_t mb = MonotonicNowNs();
    if (mb - ma < best_width) {
      best_width = mb - ma;
      offset = ma + (mb - ma) / 2 - rr;
    }
  }
  return offset;
}

Status UseTightTimerSlack() {
  if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0) return ErrnoStatus(errno, "prctl(PR_SET_TIMERSLACK)");
  return Status::Ok();
}

void YieldCpu() { (void)sched_yield(); }

int64_t ThreadRunQueueWaitNs() {
  thread_local int fd = -2;
  if (fd == -2) fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char* end = nullptr;
  (void)std::strtoull(buf, &end, 10);  // time on the CPU
  if (end == buf) return -1;
  char* end2 = nullptr;
  unsigned long long wait = std::strtoull(end, &end2, 10);
  if (end2 == end) return -1;
  return static_cast<int64_t>(wait);
}

}  // namespace ream
