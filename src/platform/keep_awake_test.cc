#include "platform/keep_awake.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
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

// The time CPU `cpu` spent idle (idle + iowait in /proc/stat), in ns: the polling idle state
// counts as idle, so this bounds what the kernel can have polled.
int64_t CpuIdleNs(int cpu) {
  std::ifstream in("/proc/stat");
  const std::string name = "cpu" + std::to_string(cpu);
  for (std::string l; std::getline(in, l);) {
    std::istringstream f(l);
    std::string label;
    int64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0;
    if (f >> label >> user >> nice >> system >> idle >> iowait && label == name) {
      return (idle + iowait) * (1'000'000'000 / sysconf(_SC_CLK_TCK));
    }
  }
  return -1;
}

TEST(KeepAwake, PollsAnIdleCpuAndYieldsItToAnyoneElse) {
  double alone = SpinShare(0);
  int64_t cpu0 = ProcessCpuNs();
  auto k = KeepAwake::Start({0, 0}, KeepAwake::Via::kPollers);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ((*k)->cpus(), std::vector<int>{0});
  EXPECT_EQ((*k)->polled_by_threads(), std::vector<int>{0});
  EXPECT_NE((*k)->Describe().find(kWorkloadCpusKeptAwake), std::string::npos) << (*k)->Describe();
  const int64_t wall0 = MonotonicNowNs(), idle0 = CpuIdleNs(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // The poller spun while this thread slept: most of what the other tasks on CPU 0 (a test or a
  // build beside this one) left of the 200 ms. It runs at idle priority, so they come first.
  const int64_t polled_ns = ProcessCpuNs() - cpu0, wall_ns = MonotonicNowNs() - wall0;
  const int64_t others_ns = std::max<int64_t>(0, wall_ns - (CpuIdleNs(0) - idle0) - polled_ns);
  const int64_t left_ns = wall_ns - others_ns;
  if (idle0 < 0 || left_ns < 50'000'000) {
    GTEST_SKIP() << "other tasks took " << others_ns / 1'000'000 << " ms of CPU 0's " << wall_ns / 1'000'000
                 << " ms: too little left to see the poller";
  }
  EXPECT_GT(polled_ns, left_ns / 3) << "the poller's CPU time, of " << left_ns / 1'000'000
                                    << " ms the other tasks left";
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

std::string Line(const std::string& path) {
  std::ifstream in(path);
  std::string l;
  std::getline(in, l);
  return l;
}
const std::string kQos = "/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us";
const std::string kPollTime = "/sys/devices/system/cpu/cpu1/cpuidle/state0/time";  // µs spent polling in idle

// Processes named `comm` (the guard names itself ream-qos-guard).
int ProcessesNamed(const std::string& comm) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    if (Line(e.path().string() + "/comm") == comm) ++n;
  }
  return n;
}

// Where the CPU's cpuidle driver has a polling state, the kernel keeps it awake: the CPU's PM
// QoS resume latency reads 0 ("n/a") while the KeepAwake lives, the CPU's idle time goes into
// the polling state, no thread of this process spins, and the value it had comes back after.
TEST(KeepAwake, TheKernelPollsWhereItsIdleDriverCanAndTheSettingIsPutBack) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs CPU 1";
  if (Status can = KeepAwake::KernelCanPoll(1); !can.ok()) GTEST_SKIP() << can.message();
  const std::string before = Line(kQos);
  ASSERT_FALSE(before.empty());
  if (before == "n/a") GTEST_SKIP() << "CPU 1 is already held at resume latency 0 by something else";
  auto k = KeepAwake::Start({1});
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ((*k)->polled_by_kernel(), std::vector<int>{1});
  EXPECT_TRUE((*k)->polled_by_threads().empty());
  EXPECT_NE((*k)->Describe().find(kCpusPolledByKernel), std::string::npos) << (*k)->Describe();
  EXPECT_EQ(Line(kQos), "n/a");
  int guards = 0;  // the guard names itself just after its fork
  for (int i = 0; i < 200 && (guards = ProcessesNamed("ream-qos-guard")) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(guards, 1);
  // Out of this process's cgroups, at each hierarchy's root ("N:controllers:/").
  std::string guard_cgroups;
  for (int i = 0; i < 200; ++i) {
    guard_cgroups.clear();
    bool at_roots = true;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      if (Line(e.path().string() + "/comm") != "ream-qos-guard") continue;
      std::ifstream cg(e.path().string() + "/cgroup");
      for (std::string l; std::getline(cg, l);) {
        guard_cgroups += l + "\n";
        if (l.size() < 2 || l.substr(l.size() - 2) != ":/") at_roots = false;
      }
    }
    if (at_roots && !guard_cgroups.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::istringstream lines(guard_cgroups);
  for (std::string l; std::getline(lines, l);) {
    EXPECT_EQ(l.substr(l.size() - 2), ":/") << guard_cgroups;
  }
  const int64_t poll0 = std::stoll(Line(kPollTime)), cpu0 = ProcessCpuNs(), wall0 = MonotonicNowNs();
  const int64_t idle0 = CpuIdleNs(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const int64_t idle_ns = CpuIdleNs(1) - idle0;
  const double wall_ns = static_cast<double>(MonotonicNowNs() - wall0);
  const double polled = static_cast<double>(std::stoll(Line(kPollTime)) - poll0) * 1e3 / wall_ns;
  const double idle = static_cast<double>(idle_ns) / wall_ns;
  // Whatever share of these 300 ms CPU 1 idled, it idled in the polling state, not halted. Other
  // work on CPU 1 (a test beside this one, a build) leaves less idle time to poll in, so the
  // polled share is judged against the idle share; a CPU that never idled says nothing.
  if (idle0 < 0 || idle < 0.2) {
    k->reset();
    GTEST_SKIP() << "CPU 1 idled only " << 100 * idle << " % of the window (busy): its polling cannot be seen";
  }
  EXPECT_GT(polled, 0.5 * idle) << "share of the time CPU 1 spent in its polling idle state, of "
                                << 100 * idle << " % idle";
  EXPECT_LT(ProcessCpuNs() - cpu0, 30'000'000) << "no thread of this process spins for the kernel's way";
  k->reset();
  EXPECT_EQ(Line(kQos), before);
  EXPECT_EQ(ProcessesNamed("ream-qos-guard"), 0);
  // Halted again: the polling state's time stands (nearly) still.
  const int64_t poll1 = std::stoll(Line(kPollTime));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_LT(std::stoll(Line(kPollTime)) - poll1, 50'000) << "CPU 1 still polls after the KeepAwake ended";
}

// A process SIGKILLed while it keeps a CPU awake the kernel's way leaves nothing changed: its
// guard puts the value back and exits.
TEST(KeepAwake, AfterASigkillTheGuardPutsTheSettingBack) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs CPU 1";
  if (Status can = KeepAwake::KernelCanPoll(1); !can.ok()) GTEST_SKIP() << can.message();
  const std::string before = Line(kQos);
  if (before == "n/a") GTEST_SKIP() << "CPU 1 is already held at resume latency 0 by something else";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    auto k = KeepAwake::Start({1});
    char c = k.ok() ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    for (;;) pause();
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  EXPECT_EQ(c, 'y');
  EXPECT_EQ(Line(kQos), "n/a");
  kill(child, SIGKILL);
  int st;
  waitpid(child, &st, 0);
  std::string after;
  for (int i = 0; i < 200 && (after = Line(kQos)) != before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(after, before);
  int guards = 1;
  for (int i = 0; i < 200 && (guards = ProcessesNamed("ream-qos-guard")) != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(guards, 0);
}

}  // namespace
}  // namespace ream
