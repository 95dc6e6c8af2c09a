#include "load/lateness.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

constexpr int64_t kUs = 1000;
constexpr int64_t kT0 = 1'000'000'000;

TEST(LatenessTimeline, AClockJumpIsAStall) {
  LatenessTimeline t(20 * kUs);
  t.Tick(kT0);
  t.Tick(kT0 + 2 * kUs);
  t.Tick(kT0 + 80 * kUs);  // the thread did not run for 78 µs
  EXPECT_EQ(t.Attribute(kT0 + 5 * kUs, kT0 + 80 * kUs, false), LateCause::kStall);
  ASSERT_EQ(t.causes().worst.size(), 1u);
  EXPECT_EQ(t.causes().worst[0].duration_ns, 78 * kUs);
  EXPECT_EQ(t.causes().worst[0].late_requests, 1u);
}

TEST(LatenessTimeline, ALongWriteIsASlowSyscallOfItsConnection) {
  LatenessTimeline t(20 * kUs);
  t.Tick(kT0);
  t.Syscall(Activity::kWrite, kT0 + kUs, kT0 + 41 * kUs, 3);
  EXPECT_EQ(t.Attribute(kT0 + 2 * kUs, kT0 + 42 * kUs, false), LateCause::kSlowSyscall);
  // A second request behind the same write counts for the same event.
  EXPECT_EQ(t.Attribute(kT0 + 3 * kUs, kT0 + 42 * kUs, false), LateCause::kSlowSyscall);
  ASSERT_EQ(t.causes().worst.size(), 1u);
  EXPECT_EQ(t.causes().worst[0].conn, 3);
  EXPECT_EQ(t.causes().worst[0].late_requests, 2u);
  // A short write is the loop's own work, not an event.
  LatenessTimeline u(20 * kUs);
  u.Tick(kT0);
  for (int i = 0; i < 20; ++i) u.Syscall(Activity::kWrite, kT0 + i * 2 * kUs, kT0 + i * 2 * kUs + kUs, 0);
  EXPECT_EQ(u.Attribute(kT0, kT0 + 40 * kUs, false), LateCause::kBusy);
  EXPECT_TRUE(u.causes().worst.empty());
}

int64_t g_wait = 0;
int64_t FakeRunQueueWait() { return g_wait; }

TEST(LatenessTimeline, ALongCallDuringWhichTheThreadWaitedForItsCpuIsAStall) {
  g_wait = 10 * kUs;
  LatenessTimeline t(20 * kUs, &FakeRunQueueWait);
  t.Tick(kT0);
  t.Syscall(Activity::kWrite, kT0 + kUs, kT0 + 41 * kUs, 0);  // no wait on the run queue: the call
  EXPECT_EQ(t.Attribute(kT0 + 2 * kUs, kT0 + 42 * kUs, false), LateCause::kSlowSyscall);
  g_wait += 2900 * kUs;  // another task had the CPU for most of this read
  t.Syscall(Activity::kRead, kT0 + 100 * kUs, kT0 + 3100 * kUs, 2);
  EXPECT_EQ(t.Attribute(kT0 + 101 * kUs, kT0 + 3101 * kUs, false), LateCause::kStall);
  ASSERT_EQ(t.causes().worst.size(), 2u);
  EXPECT_EQ(t.causes().worst[0].What(), "read on connection 2 (waited for its CPU)");
}

TEST(LatenessTimeline, ASleepThatOverranBecauseAnotherTaskHadTheCpuIsAStall) {
  g_wait = 0;
  LatenessTimeline t(20 * kUs, &FakeRunQueueWait);
  t.Tick(kT0);
  t.BeforeSleep();
  g_wait = 150 * kUs;  // woken on time, then runnable behind another task for 150 µs
  t.Slept(kT0, kT0 + 400 * kUs, kT0 + 560 * kUs);
  EXPECT_EQ(t.Attribute(kT0 + 500 * kUs, kT0 + 561 * kUs, false), LateCause::kStall);
  t.BeforeSleep();  // no wait this time: the wake-up itself was late
  t.Slept(kT0 + 600 * kUs, kT0 + 900 * kUs, kT0 + 1060 * kUs);
  EXPECT_EQ(t.Attribute(kT0 + 1000 * kUs, kT0 + 1061 * kUs, false), LateCause::kLateWakeup);
}

TEST(LatenessTimeline, ASleepThatOverranIsALateWakeup) {
  LatenessTimeline t(20 * kUs);
  t.Tick(kT0);
  // Meant to wake at +400 µs (100 µs before the send due at +500), woke at +560.
  t.Slept(kT0, kT0 + 400 * kUs, kT0 + 560 * kUs);
  EXPECT_EQ(t.Attribute(kT0 + 500 * kUs, kT0 + 561 * kUs, false), LateCause::kLateWakeup);
  // A sleep that woke on time records nothing.
  LatenessTimeline u(20 * kUs);
  u.Slept(kT0, kT0 + 400 * kUs, kT0 + 401 * kUs);
  u.Tick(kT0 + 402 * kUs);
  EXPECT_EQ(u.Attribute(kT0 + 380 * kUs, kT0 + 402 * kUs, false), LateCause::kBusy);
}

TEST(LatenessTimeline, TheLargestShareOfTheLateStretchDecides) {
  LatenessTimeline t(20 * kUs);
  t.Tick(kT0);
  t.Tick(kT0 + 15 * kUs);                                      // a 15 µs jump: a stall
  t.Syscall(Activity::kRead, kT0 + 16 * kUs, kT0 + 46 * kUs, 1);  // a 30 µs read
  EXPECT_EQ(t.Attribute(kT0, kT0 + 47 * kUs, false), LateCause::kSlowSyscall);
  // Only the part inside [sched, sent] counts: from +10 µs the jump covers 5, the read 30.
  // From +40 µs, the read covers 6 of the 7 µs.
  EXPECT_EQ(t.Attribute(kT0 + 40 * kUs, kT0 + 47 * kUs, false), LateCause::kSlowSyscall);
}

TEST(LatenessTimeline, WaitingForAReconnectionIsItsOwnCause) {
  LatenessTimeline t(20 * kUs);
  t.Tick(kT0);
  t.Tick(kT0 + 500 * kUs);
  EXPECT_EQ(t.Attribute(kT0, kT0 + 500 * kUs, true), LateCause::kReconnect);
}

TEST(LatenessCauses, CountsAddUpAndMergeKeepsTheLongestEvents) {
  LatenessTimeline a(20 * kUs), b(20 * kUs);
  for (int i = 0; i < 8; ++i) {
    int64_t at = kT0 + i * 1000 * kUs;
    a.Tick(at);
    a.Tick(at + (30 + i) * kUs);
    a.Attribute(at + kUs, at + (30 + i) * kUs, false);
    b.Tick(at);
    b.Tick(at + 5 * kUs);
    b.Attribute(at, at + 25 * kUs, false);  // nothing recorded covers it: busy
  }
  LatenessCauses all = a.causes();
  all.Merge(b.causes());
  EXPECT_EQ(all.late(), 16u);
  EXPECT_EQ(all.requests[static_cast<size_t>(LateCause::kStall)], 8u);
  EXPECT_EQ(all.requests[static_cast<size_t>(LateCause::kBusy)], 8u);
  ASSERT_EQ(all.worst.size(), LatenessCauses::kWorst);
  EXPECT_EQ(all.worst.front().duration_ns, 37 * kUs);  // longest first
  EXPECT_EQ(all.worst.back().duration_ns, 33 * kUs);
  nlohmann::json j = all.ToJson(1000, kT0);
  EXPECT_EQ(j["late_requests"], 16);
  EXPECT_DOUBLE_EQ(j["causes"]["stall"]["share_of_issued"].get<double>(), 0.008);
  EXPECT_EQ(j["worst"][0]["cause"], "stall");
  EXPECT_EQ(all.Shares(1000), "stall 0.80 %, busy 0.80 %");
}

}  // namespace
}  // namespace ream
