// The LogGP overhead o end to end (issue 18's Done-when): `ream serve synthetic` in a
// ProcessSandbox pinned to CPU 1 with net_overhead = 20 µs, `ream load` on CPU 0. o must show as
// the workload's CPU per request (+2·o, from the monitor) and move the saturation point to
// c / (S0 + 2·o), S0 measured in the same test by the service-demand law. And a program the
// library cannot be preloaded into is refused naming the knob.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "monitor/monitor.h"
#include "platform/platform.h"
#include "sandbox/overhead_stats.h"
#include "sandbox/sandbox.h"

namespace ream {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr int64_t kOverheadNs = 20'000;
constexpr char kWarmup[] = "0.5s";
constexpr char kDuration[] = "1.5s";
constexpr double kScheduleS = 2.0;  // warmup + duration

struct LoadRun {
  nlohmann::json result;
  double wall_s = 0;  // the whole `ream load` process, start to last response
};

// `ream load` pinned to CPU 0 at `qps`, timed from the outside.
LoadRun Drive(Platform& p, int port, double qps) {
  LoadRun run;
  int64_t t0 = p.MonotonicNanos();
  auto r = p.Run({"taskset", "-c", "0", REAM_BINARY, "load", "--target",
                  "127.0.0.1:" + std::to_string(port), "--qps", std::to_string(qps),
                  "--warmup", kWarmup, "--duration", kDuration, "--response-timeout", "30s",
                  "--json", "-"},
                 std::chrono::seconds(60));
  run.wall_s = static_cast<double>(p.MonotonicNanos() - t0) / 1e9;
  if (!r.ok() || r->exit_code != 0) {
    ADD_FAILURE() << "ream load: " << (r.ok() ? r->Describe() + "\n" + r->err : r.status().message());
    return run;
  }
  run.result = nlohmann::json::parse(r->out, nullptr, false);
  EXPECT_FALSE(run.result.is_discarded()) << r->out;
  return run;
}

struct Measured {
  double s_low_us = 0;   // CPU per request at low load (service-demand law), µs
  double x_sat = 0;      // requests/s served at overload
  int64_t requests = 0;  // over both runs
  double cpu_over = 0;   // CPUs the workload used during the overload run
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

  // One server with o = overhead_ns: a low-load run (S by the service-demand law) and an
  // overload run at `overload_qps` (0: 2.5x the low-load capacity 1/S).
  Measured Measure(int64_t overhead_ns, double low_qps, double overload_qps) {
    Measured m;
    auto sb = StartSandbox(*p_, Options(overhead_ns),
                           {REAM_BINARY, "serve", "synthetic", "--service", "exp:100us", "--port", "0"});
    if (!sb.ok()) {
      ADD_FAILURE() << sb.status().ToString();
      return m;
    }
    auto line = (*sb)->WaitForLine(StartsWith("ready "), milliseconds(20000));
    if (!line.ok()) {
      ADD_FAILURE() << line.status().ToString();
      return m;
    }
    int port = std::stoi(line->substr(line->find(':') + 1));

    Monitor mon(*p_, TargetOf(**sb), {.interval = milliseconds(100)});
    EXPECT_TRUE(mon.Start().ok());
    LoadRun low = Drive(*p_, port, low_qps);
    MonitorReport rep = mon.Stop();
    if (low.result.is_null() || low.result.is_discarded()) return m;
    int64_t low_n = low.result.value("completed_total", int64_t{0});
    EXPECT_EQ(low.result.value("errors", -1), 0);
    auto cpu = rep.Mean("cpu_used");
    if (!cpu || low_n == 0) {
      ADD_FAILURE() << "no CPU reading or no request served";
      return m;
    }
    // Service-demand law over the whole window: CPU busy / requests served.
    m.s_low_us = *cpu * rep.duration_s / static_cast<double>(low_n) * 1e6;

    Monitor mon_over(*p_, TargetOf(**sb), {.interval = milliseconds(100)});
    EXPECT_TRUE(mon_over.Start().ok());
    LoadRun over = Drive(*p_, port, overload_qps > 0 ? overload_qps : 2.5e6 / m.s_low_us);
    MonitorReport rep_over = mon_over.Stop();
    m.cpu_over = rep_over.Mean("cpu_used").value_or(0);
    if (over.result.is_null() || over.result.is_discarded()) return m;
    int64_t over_n = over.result.value("completed_total", int64_t{0});
    EXPECT_EQ(over.result.value("errors", -1), 0);
    EXPECT_EQ(over.result.value("unanswered_total", -1), 0);
    // The server is busy from the first request to the last response: the schedule plus the
    // drain after it. The low-load run, same schedule, drains at once: what the overload run
    // takes beyond it is the drain (process start-up and connection cancel out).
    double busy_s = kScheduleS + (over.wall_s - low.wall_s);
    m.x_sat = static_cast<double>(over_n) / busy_s;
    m.requests = low_n + over_n;
    EXPECT_EQ((*sb)->overhead_stats_dir().empty(), overhead_ns == 0);
    EXPECT_TRUE((*sb)->Stop().ok());
    return m;
  }

  std::unique_ptr<Platform> p_;
  std::string state_dir_;
};

TEST_F(OverheadIntegration, OLowersTheSaturationPointToCOverS0Plus2o) {
  // Without o: S0 by the service-demand law at ~30 % load, capacity at 2.5x c/S0.
  Measured base = Measure(0, 3000, 0);
  ASSERT_GT(base.s_low_us, 50);
  double offered = 2.5e6 / base.s_low_us;
  // With o = 20 µs per message, the same offered rate (now ~3.2x the predicted capacity).
  Measured with_o = Measure(kOverheadNs, 3000, offered);
  ASSERT_GT(with_o.s_low_us, 0);

  const double o_us = kOverheadNs / 1e3;
  const double predicted = 1e6 / (base.s_low_us + 2 * o_us);
  std::printf(
      "S0 %.1f us; CPU per request with o=%.0f us: %.1f us (+%.1f us, expected +%.0f); "
      "saturation without o %.0f/s (c/S0 = %.0f/s), with o %.0f/s (c/(S0+2o) = %.0f/s); "
      "CPUs used at overload %.2f, %.2f\n",
      base.s_low_us, o_us, with_o.s_low_us, with_o.s_low_us - base.s_low_us, 2 * o_us,
      base.x_sat, 1e6 / base.s_low_us, with_o.x_sat, predicted, base.cpu_over, with_o.cpu_over);
  // The workload's own CPU per request rises by 2·o (within 15 %).
  EXPECT_NEAR(with_o.s_low_us - base.s_low_us, 2 * o_us, 0.15 * 2 * o_us);
  // The saturation point moves to c / (S0 + 2·o) (within 15 %), well below where it was.
  EXPECT_NEAR(with_o.x_sat, predicted, 0.15 * predicted);
  EXPECT_LT(with_o.x_sat, 0.85 * base.x_sat);
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
  EXPECT_LE(stats->cpu_per_message_ns(), kOverheadNs * 1.1);
  std::printf("%lld messages for %lld requests, CPU per message %.0f ns (requested %lld)\n",
              static_cast<long long>(stats->messages), static_cast<long long>(n),
              stats->cpu_per_message_ns(), static_cast<long long>(kOverheadNs));
  ASSERT_TRUE((*sb)->Stop().ok());
  EXPECT_FALSE(p_->Exists(dir)) << "the statistics go with the sandbox";
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
  // The same program without o starts (the refusal is the knob's, not the program's).
  auto plain = StartSandbox(*p_, Options(0), {REAM_STATIC_PROBE, "10"});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE((*plain)->Wait(milliseconds(10000)).ok());
  EXPECT_TRUE((*plain)->Stop().ok());
}

}  // namespace
}  // namespace ream
