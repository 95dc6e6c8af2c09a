// The clock helpers that are not plain reads: the monotonic-realtime offset and timer slack.
#include "platform/clock.h"

#include <sys/prctl.h>
#include <sys/resource.h>

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

uint64_t ThreadContextSwitches() {
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) != 0) return 0;
  return static_cast<uint64_t>(u.ru_nivcsw) + static_cast<uint64_t>(u.ru_nvcsw);
}

}  // namespace ream
