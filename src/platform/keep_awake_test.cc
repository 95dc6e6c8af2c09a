#include "platform/keep_awake.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "platform/clock.h"

namespace ream {
namespace {

// The share of a CPU that a normal thread pinned to `cpu` gets while spinning 300 ms.
double SpinShare(int cpu) {
  double share = 0;
  std::thread t([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) return;
    int64_t w0 = MonotonicNowNs(), c0 = ThreadCpuNs();
    while (MonotonicNowNs() - w0 < 300'000'000) {
    }
    share = static_cast<double>(ThreadCpuNs() - c0) / static_cast<double>(MonotonicNowNs() - w0);
  });
  t.join();
  return share;
}

TEST(KeepAwake, PollsAnIdleCpuAndYieldsItToAnyoneElse) {
  double alone = SpinShare(0);
  int64_t cpu0 = ProcessCpuNs();
  auto k = KeepAwake::Start({0, 0});
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ((*k)->cpus(), std::vector<int>{0});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // The poller spun while this thread slept (most of 200 ms, less what others took).
  EXPECT_GT(ProcessCpuNs() - cpu0, 60'000'000);
  // A normal thread on that CPU gets it as if the poller were not there: a poller of
  // ordinary priority would leave it half.
  double beside = SpinShare(0);
  EXPECT_GE(beside, 0.85 * alone) << "alone " << alone << ", beside the poller " << beside;
  k->reset();
  int64_t cpu1 = ProcessCpuNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LT(ProcessCpuNs() - cpu1, 20'000'000) << "a poller still runs after the KeepAwake was destroyed";
}

TEST(KeepAwake, RefusesNoCpuAndACpuItCannotPinTo) {
  EXPECT_FALSE(KeepAwake::Start({}).ok());
  auto bad = KeepAwake::Start({0, 4000});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("CPU 4000"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace ream
