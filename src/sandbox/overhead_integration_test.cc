// The LogGP overhead o end to end: `ream serve synthetic` in a
// ProcessSandbox pinned to CPU 1 with net_overhead = 20 µs, `ream load` on CPU 0. o must show as
// the workload's CPU per request (+2·o, from the monitor) and move the saturation point to
// c / (S0 + 2·o), S0 measured in the same test by the service-demand law. And a program the
// library cannot be preloaded into is refused naming the knob.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "monitor/monitor.h"
#include "platform/platform.h"
#include "platform/stall_probe.h"
#include "sandbox/overhead_stats.h"
#include "sandbox/sandbox.h"

namespace ream {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr int64_t kOverheadNs = 20'000;
// The overload runs' schedule (and the low-load run that times their drain).
constexpr char kWarmup[] = "0.5s";
constexpr char kDuration[] = "1.5s";
constexpr double kScheduleS = 2.0;  // warmup + duration
// Low load for the service-demand law: ~35 % of the CPU. Lower, S0 carries more of the
// wake-ups from idle that a loaded server no longer pays per request: measured here, S0 is
// then ~10 % above the CPU per request at saturation (and c/S0 that much below the saturation
// point), against ~3 % at this rate.
constexpr double kLowQps = 3000;
// The machine is shared and its noise drifts: the two servers' low-load runs alternate, five
// pairs, and the median of the pairs' rises counts. (Three pairs gave +50.8 us once in seven
// runs on 2 Dec 2026, the others +41.4 to +44.6: one noisy pair of three moves the median.)
constexpr int kLowRuns = 5;

struct LoadRun {
  nlohmann::json result;
  double wall_s = 0;  // the whole `ream load` process, start to last response
};

// `ream load` pinned to CPU 0 at `qps`, timed from the outside.
LoadRun Drive(Platform& p, int port, double qps, const std::string& warmup = kWarmup,
              const std::string& duration = kDuration) {
  LoadRun run;
  int64_t t0 = p.MonotonicNanos();
  auto r = p.Run({"taskset", "-c", "0", REAM_BINARY, "load", "--target",
                  "127.0.0.1:" + std::to_string(port), "--qps", std::to_string(qps),
                  "--warmup", warmup, "--duration", duration, "--response-timeout", "30s",
                  "--json", "-"},
                 std::chrono::seconds(60));
  run.wall_s = static_cast<double>(p.MonotonicNanos() - t0) / 1e9;
  if (!r.ok() || r->exit_code != 0) {
    ADD_FAILURE() << "ream load: " << (r.ok() ? r->Describe() + "\n" + r->err : r.status().message());
    return run;
  }
  run.result = nlohmann::json::parse(r->out, nullptr, false);
  EXPECT_FALSE(run.result.is_discarded()) << r->out;
  if (run.result.is_discarded()) run.result = nullptr;
  return run;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Served {
  std::unique_ptr<ProcessSandbox> sandbox;
  int port = 0;
};

class OverheadIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    p_ = MakePosixPlatform();
    if (p_->EffectiveUserId() != 0) GTEST_SKIP() << "needs root (cgroups)";
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs CPUs 0 and 1";
    if (!p_->FindExecutable("taskset").ok()) GTEST_SKIP() << "taskset (util-linux) is missing";
    state_dir_ = "/tmp/ream-overhead-state-" + std::to_string(p_->ProcessId());
  }
  void TearDown() override {
    if (p_ && p_->IsDirectory(state_dir_)) (void)p_->RemoveDir(state_dir_);
  }

  SandboxOptions Options(int64_t overhead_ns) {
    SandboxOptions o;
    o.partition.cpus = "1";
    // The machine is shared (builds run beside the tests): the highest weight gives the
    // workload its CPU whole, so c is 1 and the saturation point is the workload's alone.
    o.partition.cpu_weight = 10000;
    if (overhead_ns > 0) o.partition.net_overhead = nanoseconds(overhead_ns);
    o.reserved_cpus = std::vector<int>{0};
    o.capture_stdout = true;
    o.state_dir = state_dir_;
    o.overhead_library = REAM_OVERHEAD_LIB;
    return o;
  }

  // `ream serve synthetic --service exp:100us` with o = overhead_ns, ready.
  Served Serve(int64_t overhead_ns) {
    Served s;
    auto sb = StartSandbox(*p_, Options(overhead_ns),
                           {REAM_BINARY, "serve", "synthetic", "--service", "exp:100us", "--port", "0"});
    if (!sb.ok()) {
      ADD_FAILURE() << sb.status().ToString();
      return s;
    }
    auto line = (*sb)->WaitForLine(StartsWith("ready "), milliseconds(20000));
    if (!line.ok()) {
      ADD_FAILURE() << line.status().ToString();
      return s;
    }
    s.port = std::stoi(line->substr(line->find(':') + 1));
    EXPECT_EQ((*sb)->overhead_stats_dir().empty(), overhead_ns == 0);
    s.sandbox = std::move(*sb);
    return s;
  }

  // The workload's CPU per request at low load, µs: the service-demand law over one short run
  // (the monitor's CPU busy over the run / requests served).
  double CpuPerRequestUs(Served& s) {
    Monitor mon(*p_, TargetOf(*s.sandbox), {.interval = milliseconds(100)});
    EXPECT_TRUE(mon.Start().ok());
    LoadRun low = Drive(*p_, s.port, kLowQps, "0.2s", "0.8s");
    MonitorReport rep = mon.Stop();
    if (low.result.is_null()) return 0;
    int64_t n = low.result.value("completed_total", int64_t{0});
    EXPECT_EQ(low.result.value("errors", -1), 0);
    auto cpu = rep.Mean("cpu_used");
    if (!cpu || n == 0) {
      ADD_FAILURE() << "no CPU reading or no request served";
      return 0;
    }
    return *cpu * rep.duration_s / static_cast<double>(n) * 1e6;
  }

  // Requests/s served at `qps` (well above capacity): the server is busy from the first
  // request to the last response, the schedule plus the drain after it. `low_wall_s` is a
  // low-load run of the same schedule, which drains at once: what the overload run takes
  // beyond it is the drain (process start-up and connection cancel out).
  // `cpu_per_request_us`: the workload's CPU per request over the whole run (all answered).
  double SaturationQps(Served& s, double qps, double low_wall_s, double* cpus_used,
                       double* cpu_per_request_us) {
    Monitor mon(*p_, TargetOf(*s.sandbox), {.interval = milliseconds(100)});
    EXPECT_TRUE(mon.Start().ok());
    LoadRun over = Drive(*p_, s.port, qps);
    MonitorReport rep = mon.Stop();
    *cpus_used = rep.Mean("cpu_used").value_or(0);
    if (over.result.is_null()) return 0;
    EXPECT_EQ(over.result.value("errors", -1), 0);
    EXPECT_EQ(over.result.value("unanswered_total", -1), 0);
    int64_t n = over.result.value("completed_total", int64_t{0});
    if (n == 0) return 0;
    *cpu_per_request_us = *cpus_used * rep.duration_s / static_cast<double>(n) * 1e6;
    return static_cast<double>(n) / (kScheduleS + (over.wall_s - low_wall_s));
  }

  std::unique_ptr<Platform> p_;
  std::string state_dir_;
};

TEST_F(OverheadIntegration, OLowersTheSaturationPointToCOverS0Plus2o) {
  Served base = Serve(0);
  Served with_o = Serve(kOverheadNs);  // o = 20 µs per message
  ASSERT_TRUE(base.sandbox && with_o.sandbox);
  // S0 and the CPU per request with o, by the service-demand law at low load, alternating.
  std::vector<double> s_base, s_with;
  std::string runs;
  for (int i = 0; i < kLowRuns; ++i) {
    s_base.push_back(CpuPerRequestUs(base));
    s_with.push_back(CpuPerRequestUs(with_o));
    char b[64];
    std::snprintf(b, sizeof b, "%s%.1f/%.1f", i ? " " : "", s_base[i], s_with[i]);
    runs += b;
  }
  const double s0_us = Median(s_base), s_o_us = Median(s_with);
  // The rise is the median of the pairs' differences: each pair is measured side by side, so a
  // drift of the host's wake-up cost between pairs (low-load S0 137.6-146.6 us within one run
  // on 2 Dec 2026) cancels, where a difference of the two medians took it in (+47.5 us against
  // pairs of +42.9, +53.2 and +42.6).
  std::vector<double> rises;
  for (size_t i = 0; i < s_base.size(); ++i) rises.push_back(s_with[i] - s_base[i]);
  const double rise_us = Median(rises);
  ASSERT_GT(s0_us, 50);
  ASSERT_GT(s_o_us, 0);
  const double o_us = kOverheadNs / 1e3;
  const double low_wall_s = Drive(*p_, base.port, kLowQps).wall_s;
  // Each server at 2.5x its predicted capacity (c/S0, c/(S0+2o)), so both backlogs grow alike.
  // A reading in which the workload did not get its CPU (something beside it took > 10 % of
  // CPU 1 despite the weight) is no saturation point of c = 1: it is measured again, once.
  auto saturation = [&](Served& s, double capacity, double* cpus, double* per_request_us) {
    double x = SaturationQps(s, 2.5 * capacity, low_wall_s, cpus, per_request_us);
    if (*cpus < 0.9) {
      std::printf("the workload used %.2f CPUs at overload: measuring again\n", *cpus);
      x = SaturationQps(s, 2.5 * capacity, low_wall_s, cpus, per_request_us);
    }
    return x;
  };
  double cpus_base = 0, cpus_with = 0, sat_base_us = 0, sat_with_us = 0;
  const double x_base = saturation(base, 1e6 / s0_us, &cpus_base, &sat_base_us);
  // The model's S0: the service-demand law where the CPU queue works, the server busy
  // throughout (CPU busy / requests served over the overload run without o). The low-load S0
  // above also carries each request's wake-up from idle, which a loaded server no longer pays
  // and whose cost this shared machine varies by ±10 µs between runs (printed below: the
  // prediction from it is up to ~12 % low).
  const double predicted = 1e6 / (sat_base_us + 2 * o_us);
  const double predicted_low = 1e6 / (s0_us + 2 * o_us);
  const double x_with = saturation(with_o, predicted, &cpus_with, &sat_with_us);
  EXPECT_TRUE(base.sandbox->Stop().ok());
  EXPECT_TRUE(with_o.sandbox->Stop().ok());

  std::printf(
      "low load: S0 %.1f us, with o=%.0f us %.1f us (+%.1f, the median of the pairs' rises, expected +%.0f; runs without/with "
      "o: %s); at saturation: S0 %.1f us, with o %.1f us (+%.1f); saturation without o %.0f/s "
      "(c/S0 = %.0f/s), with o %.0f/s: c/(S0+2o) = %.0f/s (%+.1f %%), from the low-load S0 "
      "%.0f/s (%+.1f %%); CPUs used at overload %.2f, %.2f\n",
      s0_us, o_us, s_o_us, rise_us, 2 * o_us, runs.c_str(), sat_base_us, sat_with_us,
      sat_with_us - sat_base_us, x_base, 1e6 / sat_base_us, x_with, predicted,
      (x_with / predicted - 1) * 100, predicted_low, (x_with / predicted_low - 1) * 100,
      cpus_base, cpus_with);
  // The workload's own CPU per request rises by 2·o (within 25 %), at low load (the median of
  // the alternating pairs' rises). The band is the host's, measured: the median of five pairs
  // read +41.4 to +44.6 (once +50.8 with three pairs) on 2 Dec 2026, and +39.7, +39.0, +38.2,
  // +36.6, +33.9, +33.0 and +32.7 in the noisy hours of 3 Dec — in those minutes every pair of a
  // run read low together (+29.8 to +36.8), a drift of the wake-up cost from idle that the
  // server with o, busy longer per request, pays less often; more pairs would not remove it, and
  // keeping both CPUs awake did not either (+38.2 and +32.7 beside +39.7 and +33.9 without, and
  // it inflates S0 itself). The band still tells o charged per message (+40) from o charged
  // once per request (+20) or not to the workload at all (0). At saturation the rise is a few
  // µs more (printed; measured +42 to +51 µs here, for reasons not pinned down), which the
  // prediction below absorbs.
  EXPECT_NEAR(rise_us, 2 * o_us, 0.25 * 2 * o_us);
  // Well below where it was, however much CPU the host left the workload.
  EXPECT_LT(x_with, 0.85 * x_base);
  // c = 1 holds only when the workload got its CPU. When it still had less than 0.9 of it after
  // the second reading (0.86 twice at 20:09 UTC on 3 Dec 2026, with the host's spin loops losing
  // 2.8-4.3 % of their time to stalls; the saturation point with o read 4 802/s against the
  // 5 976/s of c = 1, and 0.86 / (S0 + 2o) = 5 140/s), the host took the CPU, and whether the
  // workload idled or was preempted cannot be told apart here: no saturation point was measured.
  if (cpus_base < 0.9 || cpus_with < 0.9) {
    GTEST_SKIP() << "the workload did not get its CPU at overload (" << cpus_base << " and " << cpus_with
                 << " CPUs used, after a second reading): the host took it, so the saturation point of c = 1 was "
                    "not measured (bench/stalls.sh measures the host's stalls)";
  }
  // The saturation point moves to c / (S0 + 2·o) (within 15 %), well below where it was.
  EXPECT_NEAR(x_with, predicted, 0.15 * predicted);
}

TEST_F(OverheadIntegration, StatisticsCountTwoMessagesPerRequestAtO) {
  SandboxOptions o = Options(kOverheadNs);
  auto sb = StartSandbox(*p_, o, {REAM_BINARY, "serve", "synthetic", "--service", "exp:10us", "--port", "0"});
  ASSERT_TRUE(sb.ok()) << sb.status().ToString();
  auto line = (*sb)->WaitForLine(StartsWith("ready "), milliseconds(20000));
  ASSERT_TRUE(line.ok()) << line.status().ToString();
  int port = std::stoi(line->substr(line->find(':') + 1));
  std::string dir = (*sb)->overhead_stats_dir();
  ASSERT_TRUE(p_->IsDirectory(dir)) << dir;
  LoadRun run = Drive(*p_, port, 1000);
  ASSERT_FALSE(run.result.is_null());
  int64_t n = run.result.value("completed_total", int64_t{0});
  ASSERT_GT(n, 1000);
  // The library rewrites its file at most every 100 ms while messages flow; after the last
  // request it is at most that stale, and exact once the server exits — read it just before.
  ASSERT_TRUE((*sb)->process().Signal(SIGTERM).ok());
  ASSERT_TRUE((*sb)->Wait(milliseconds(5000)).ok());
  auto stats = ReadOverheadStats(*p_, dir);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->mode, "frames");
  EXPECT_EQ(stats->requested_ns, kOverheadNs);
  EXPECT_EQ(stats->messages, 2 * n);  // one request received, one response sent
  EXPECT_GE(stats->cpu_per_message_ns(), kOverheadNs);
  // At most 10 % above o on a quiet host: the spin's own overshoot and the library's accounting.
  // A vCPU taken away while the library spins is charged to the spinning thread (CI of 6 Dec
  // 2026: 22 141 ns for 20 000), so beyond 10 % the host's floor is measured, and the bound
  // widens with it (platform/stall_probe.h ToleranceOnFloor: 4 x the stalled share above 0.5 %).
  if (stats->cpu_per_message_ns() > kOverheadNs * 1.1) {
    const double floor = HostFloor();
    EXPECT_LE(stats->cpu_per_message_ns(), kOverheadNs * (1 + ToleranceOnFloor(0.10, floor)))
        << "host floor " << 100 * floor << " %";
  }
  std::printf("%lld messages for %lld requests, CPU per message %.0f ns (requested %lld)\n",
              static_cast<long long>(stats->messages), static_cast<long long>(n),
              stats->cpu_per_message_ns(), static_cast<long long>(kOverheadNs));
  ASSERT_TRUE((*sb)->Stop().ok());
  EXPECT_FALSE(p_->Exists(dir)) << "the statistics go with the sandbox";
}

// A foreign program (libc only, no knowledge of ream): its socket calls pay o, and the CPU is
// charged to the sandbox's cgroup, as the monitor sees it from outside.
TEST_F(OverheadIntegration, AForeignProgramPaysOOnItsSocketsInItsCgroup) {
  constexpr int kCalls = 200;  // sends, then as many reads: 2·kCalls socket messages
  constexpr int64_t kO = 50'000;
  auto run = [&](int64_t o_ns, std::string* dir, std::string* out) -> double {
    SandboxOptions o = Options(o_ns);
    std::unique_ptr<Monitor> mon;
    o.before_exec = [&](Sandbox& s) {
      mon = std::make_unique<Monitor>(*p_, TargetOf(s), MonitorOptions{.interval = milliseconds(100)});
      EXPECT_TRUE(mon->Baseline().ok());
    };
    auto sb = StartSandbox(*p_, o, {REAM_OVERHEAD_PROBE, std::to_string(kCalls)});
    if (!sb.ok()) {
      ADD_FAILURE() << sb.status().ToString();
      return 0;
    }
    auto line = (*sb)->WaitForLine(StartsWith("socket_send_cpu_ns="), milliseconds(10000));
    EXPECT_TRUE(line.ok()) << line.status().ToString();
    if (line.ok()) *out = *line;
    EXPECT_TRUE((*sb)->Wait(milliseconds(10000)).ok());
    EXPECT_TRUE(mon->Start().ok());
    MonitorReport rep = mon->Stop();
    *dir = (*sb)->overhead_stats_dir();
    if (o_ns > 0) {
      auto stats = ReadOverheadStats(*p_, *dir);  // written at exit: exact
      EXPECT_TRUE(stats.ok()) << stats.status().ToString();
      if (stats.ok()) {
        EXPECT_EQ(stats->mode, "calls");
        EXPECT_EQ(stats->messages, 2 * kCalls);
        EXPECT_GE(stats->cpu_per_message_ns(), o_ns);
      }
    }
    EXPECT_TRUE((*sb)->Stop().ok());
    return rep.Mean("cpu_used").value_or(0) * rep.duration_s;  // CPU-seconds in the cgroup
  };
  std::string dir0, dir, out0, out;
  double cpu0 = run(0, &dir0, &out0);
  double cpu = run(kO, &dir, &out);
  EXPECT_TRUE(dir0.empty());
  ASSERT_FALSE(dir.empty());
  EXPECT_FALSE(p_->Exists(dir)) << "the statistics go with the sandbox";
  EXPECT_NE(out.find("socket_send_cpu_ns="), std::string::npos);
  // 2·kCalls messages at o: 20 ms more CPU in the workload's cgroup.
  const double expected_s = 2.0 * kCalls * kO / 1e9;
  std::printf("cgroup CPU without o %.1f ms, with o = 50 us %.1f ms (+%.1f ms, expected +%.1f)\n",
              cpu0 * 1e3, cpu * 1e3, (cpu - cpu0) * 1e3, expected_s * 1e3);
  EXPECT_GE(cpu - cpu0, expected_s * 0.9);
  EXPECT_LE(cpu - cpu0, expected_s * 1.5);
}

TEST_F(OverheadIntegration, AStaticallyLinkedWorkloadIsRefusedNamingTheKnob) {
  auto sb = StartSandbox(*p_, Options(kOverheadNs), {REAM_STATIC_PROBE});
  ASSERT_FALSE(sb.ok());
  EXPECT_EQ(sb.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(sb.status().message().find("net_overhead"), std::string::npos) << sb.status().message();
  EXPECT_NE(sb.status().message().find("statically linked"), std::string::npos)
      << sb.status().message();
  // Refused before anything was created: no state file, no statistics directory.
  auto left = p_->ListDir(state_dir_);
  if (left.ok()) {
    for (const auto& f : *left) ADD_FAILURE() << "left behind: " << f.name;
  }
  // A missing library is refused the same way, before anything exists.
  SandboxOptions no_lib = Options(kOverheadNs);
  no_lib.overhead_library = "/nonexistent/libream-overhead.so";
  auto missing = StartSandbox(*p_, no_lib, {REAM_OVERHEAD_PROBE});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(missing.status().message().find("net_overhead"), std::string::npos);
  left = p_->ListDir(state_dir_);
  if (left.ok()) {
    for (const auto& f : *left) ADD_FAILURE() << "left behind: " << f.name;
  }
  // The same program without o starts (the refusal is the knob's, not the program's).
  auto plain = StartSandbox(*p_, Options(0), {REAM_STATIC_PROBE, "10"});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE((*plain)->Wait(milliseconds(10000)).ok());
  EXPECT_TRUE((*plain)->Stop().ok());
}

}  // namespace
}  // namespace ream
