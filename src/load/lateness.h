// Why a request went out late: each generator thread keeps a short
// timeline of what could have held it up — the clock jumping between two reads of its loop
// (the thread was not running: a stall of the host), a system call that took long, a sleep
// that woke up after it should have — and every request sent later than the tolerance is
// attributed to the cause that covers most of the time between its scheduled instant and its
// send. Time covered by none of them is the thread's own work (encoding, parsing, bookkeeping
// in short pieces): "busy". A long call or a late wake-up during which the thread waited on a
// run queue for most of its length (another task had the CPU) counts as a stall: the thread
// was not running, which is neither the call's cost nor the timer's. Requests that waited for a reconnecting connection are their own
// cause. The counts per cause add up to the late requests, so their shares add up to the
// non-timely share; the longest offending events are kept, with the requests each delayed.
//
//   LatenessTimeline t(tolerance_ns);
//   t.Tick(now);                         // at every clock read of the loop
//   t.Syscall(Activity::kWrite, before, after, conn);
//   t.Slept(intended_end, woke);
//   if (late > tolerance) t.Attribute(sched, sent, false);
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ream {

enum class LateCause : uint8_t { kStall, kSlowSyscall, kLateWakeup, kBusy, kReconnect };
inline constexpr size_t kLateCauses = 5;
// "stall", "slow_syscall", "late_wakeup", "busy", "reconnecting": the JSON keys.
const char* LateCauseName(LateCause c);

// What a recorded event of the thread loop was.
enum class Activity : uint8_t { kJump, kSleep, kWrite, kRead, kPoll, kYield };
// "clock jump", "sleep", "write", "read", "epoll_wait", "sched_yield"
const char* ActivityName(Activity a);

// One event that made requests late, as reported.
struct LateOffender {
  LateCause cause = LateCause::kStall;
  Activity activity = Activity::kJump;
  int64_t begin_ns = 0;     // monotonic
  int64_t duration_ns = 0;
  int conn = -1;            // the connection of a write or read; -1: none
  uint64_t late_requests = 0;  // the requests it was the main cause of
  // "read on connection 3 (waited for its CPU)", "clock jump (thread not running)".
  std::string What() const;
};

// The causes over a run (merged over threads).
struct LatenessCauses {
  int64_t threshold_ns = 0;  // an event shorter than this is the loop's own work ("busy")
  std::array<uint64_t, kLateCauses> requests{};  // late requests per cause
  std::vector<LateOffender> worst;               // longest first, at most kWorst
  static constexpr size_t kWorst = 5;

  uint64_t late() const;
  void Merge(const LatenessCauses& other);
  // {"threshold_us", "late_requests", "causes": {name: {"requests", "share_of_issued"}},
  //  "worst": [{"cause", "what", "duration_us", "at_s", "late_requests"}]}; at_s counts from
  // `origin_ns`.
  nlohmann::json ToJson(uint64_t issued, int64_t origin_ns) const;
  // "stall 1.20 %, slow syscall 0.31 %, ..." (shares of `issued`, causes with requests only).
  std::string Shares(uint64_t issued) const;
};

class LatenessTimeline {
 public:
  // Events shorter than min(tolerance, 10 µs) are not recorded: no step of the loop takes that
  // long on a running CPU, and every one a request can wait behind is ≥ the tolerance away.
  // `runqueue_wait` reads the thread's total run-queue wait in ns (platform's
  // ThreadRunQueueWaitNs; < 0: unknown); it is called before each sleep and when an event is
  // recorded. nullptr: not known, events are put down to what they were.
  explicit LatenessTimeline(int64_t tolerance_ns, int64_t (*runqueue_wait)() = nullptr);

  // A clock read of the loop at `now`: a jump since the previous read longer than the
  // threshold is recorded as a stall.
  void Tick(int64_t now) {
    if (now - last_ > threshold_ && last_ > 0) Record(Activity::kJump, last_, now, -1);
    last_ = now;
  }
  // A system call from `begin` to `end` (both clock reads).
  void Syscall(Activity a, int64_t begin, int64_t end, int conn) {
    Tick(begin);
    if (end - begin > threshold_) Record(a, begin, end, conn);
    last_ = end;
  }
  // A timed sleep meant to end at `intended_end` that returned at `woke`.
  void Slept(int64_t begin, int64_t intended_end, int64_t woke) {
    Tick(begin);
    if (woke - intended_end > threshold_ / 4) Record(Activity::kSleep, intended_end, woke, -1);
    last_ = woke;
  }
  // Just before a timed sleep: what the thread waits on a run queue from here on is the
  // sleep's overrun's doing.
  void BeforeSleep() {
    if (runqueue_wait_ != nullptr) wait_ns_ = runqueue_wait_();
  }
  // A request scheduled at `sched` and sent at `sent` (late): counts it under its cause.
  LateCause Attribute(int64_t sched, int64_t sent, bool waited_for_reconnect);

  const LatenessCauses& causes() const { return causes_; }
  int64_t threshold_ns() const { return threshold_; }

 private:
  struct Event {
    int64_t begin = 0, end = 0;
    uint64_t seq = 0;
    Activity activity = Activity::kJump;
    LateCause cause = LateCause::kStall;
    int conn = -1;
  };
  static constexpr size_t kRing = 256;  // a power of two
  void Record(Activity a, int64_t begin, int64_t end, int conn);
  void CountOffender(const Event& e, LateCause cause);

  int64_t threshold_;
  int64_t (*runqueue_wait_)() = nullptr;
  int64_t wait_ns_ = -1;  // the run-queue wait at the last event or sleep
  int64_t last_ = 0;
  uint64_t seq_ = 0;  // events recorded so far; ring_[i % kRing] holds event i
  std::array<Event, kRing> ring_{};
  LatenessCauses causes_;
};

}  // namespace ream
