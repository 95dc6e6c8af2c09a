// The whole chain against queueing theory: ream's synthetic server with exponential service
// of 100 µs on one CPU (1-ST) is an M/M/1 queue. Swept with `ream run` and analyzed with
// `ream analyze --json`: LQoS must be within 10 % of 5 × 100 µs, and at every valid point up
// to 70 % CPU utilization the measured p95 must be within 15 % of base + ln 20 / (μ − λ) and
// the median within 15 % of base p50 + ln 2 / (μ − λ), where base is the round trip against
// `--service const:0` at the same rate (a second experiment) and 1/μ the server's measured CPU
// time per request (U / X, from the monitor). On a noisy host the tolerances widen with its
// measured floor, and the quantities its stalls move (the p95, LQoS) are judged only up to 1 %.
// The two experiments run interleaved (`ream run --interleave`), five sweeps each, so the
// comparison is between measurements taken side by side in time.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/platform.h"
#include "platform/keep_awake.h"
#include "platform/stall_probe.h"

namespace ream {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::string Spec(const std::string& name, const std::string& service) {
  // The CPUs polling in idle (where the kernel can: platform/keep_awake.h): at 10 % utilization
  // every request otherwise wakes the server's halted vCPU, and that wake-up is charged to the
  // server as CPU time, which 1/mu would count as service (1/mu read 131 us at 1 000 QPS against
  // 113-121 us above it on 3 Dec 2026, and the p95 fell 16 % under the prediction there).
  const bool poll = KeepAwake::KernelCanPoll(0).ok() && KeepAwake::KernelCanPoll(1).ok();
  return std::string(poll ? "# keep_awake: the kernel's idle polling on both CPUs\n" : "") + "name = \"" + name +
         R"("
scenarios = ["1-ST"]
# Four sweeps, a median of four at each level: on a shared host one 2 s window now and then
# is disturbed (a stall inside a busy period delays everything queued behind it; seen +33 %
# and +39 % at one level of one sweep), and some disturbances last longer than a sweep (seen:
# two sweeps of three in a row, and a whole baseline experiment run after the other). With
# the two experiments interleaved, such a disturbance reaches both alike. (Five sweeps took
# 111 s of make test's 20 minutes.)
repetitions = 4
[workload]
builtin = "synthetic"
args = ["--service", ")" + service + R"("]
threads = 1
[load]
# 1.5 s windows (1 500-10 500 requests a point): the median of five sweeps, not one window's
# length, is what holds the p95 still; 2 s windows took 35 s more of make test's 20 minutes.
warmup = "300ms"
duration = "1500ms"
response_timeout = "200ms"
connections = 2
# ream's default timely tolerance (20us) cannot be held on this project's 2-vCPU VMs, whose
# vCPUs stall >20us ~1100 times a second, up to ~250us (docs/notes/performance-notes.md); 200us can,
# and is reported.
timely_tolerance = "200us"
# The generator spins instead of sleeping between sends: a response then never has to wake
# its CPU. On this project's VMs that wake-up (an IPI to an idle vCPU) costs the server's
# send 15-25 us of CPU at low rates, which 1/mu (the CPU time per request) would count as
# service although no queued request ever waits for it (docs/notes/performance-notes.md).
wait = "spin"
)" + std::string(poll ? "keep_awake = true\n" : "") + R"([sweep]
# 10 % to 60 % of the CPU in four steps (seven took 3 minutes of make test's 20; 7 000 QPS, at
# ~78 %, lies above the 70 % the comparison stops at).
qps = [1000, 2500, 4000, 5500]
)";
}

TEST(Mm1Calibration, LqosAndTailMatchTheMM1Prediction) {
  // The host's floor, measured first and again after the runs (noise can begin in between):
  // the tolerances widen with it (platform/stall_probe.h ToleranceOnFloor), and only a host
  // beyond JudgeableFloor (8 %), whose figures would be its own, is not judged.
  const double floor_before = HostFloor();
  if (floor_before > JudgeableFloor()) {
    GTEST_SKIP() << "this machine's CPUs stall " << 100 * floor_before << " % of the time (figures above), beyond "
                 << 100 * JudgeableFloor() << " %: LQoS and the tail would be the host's, not M/M/1's; run it on a "
                 << "quieter machine (ctest -R Mm1Calibration)";
  }
  auto dir = std::filesystem::temp_directory_path() / ("ream-mm1-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mm1.toml") << Spec("mm1", "exp:100us");
  std::ofstream(dir / "base.toml") << Spec("base", "const:0");
  std::string db = (dir / "r.db").string();
  // The database is kept when the test fails, for a look at each repetition; removed otherwise.
  struct KeepOnFailure {
    std::filesystem::path dir;
    ~KeepOnFailure() {
      if (::testing::Test::HasFailure()) {
        std::printf("the runs' database is kept: %s\n", (dir / "r.db").c_str());
      } else {
        std::filesystem::remove_all(dir);
      }
    }
  } keep{dir};
  auto p = MakePosixPlatform();
  {
    auto r = p->Run({REAM_BINARY, "run", (dir / "mm1.toml").string(), (dir / "base.toml").string(), "--db", db,
                     "--interleave"},
                    500s);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->exit_code, 0) << r->out << r->err;
  }
  auto an = p->Run({REAM_BINARY, "analyze", "--db", db, "--experiment", "mm1", "--baseline",
                    "base", "--json"},
                   60s);
  auto bn = p->Run({REAM_BINARY, "analyze", "--db", db, "--experiment", "base", "--json"}, 60s);
  ASSERT_TRUE(an.ok() && bn.ok());
  // No valid point at all is the generator's timeliness on a stalling CPU (each reason is
  // printed) — the machine's noise, measured now, unless the machine is quiet.
  const double floor = std::max(floor_before, HostFloor());
  if ((an->exit_code != 0 || bn->exit_code != 0) && (an->err + bn->err).find("has no valid point") != std::string::npos &&
      floor > JudgeableFloor()) {
    GTEST_SKIP() << "no valid point, and this machine's CPUs stalled " << 100 * floor << " % of the time during the "
                 << "runs (figures above): " << an->err << bn->err;
  }
  ASSERT_EQ(an->exit_code, 0) << an->err;
  ASSERT_EQ(bn->exit_code, 0) << bn->err;
  json a = json::parse(an->out);
  json b = json::parse(bn->out);

  ASSERT_FALSE(a["qos"]["target_us"].is_null()) << a["qos"].dump();
  double lqos = a["qos"]["target_us"];
  RecordProperty("lqos_us", std::to_string(lqos));

  // A CPU away in 20-250 us pieces adds exactly such pieces to the tail, and to the round trip
  // outside the server that LQoS's floor rule rests on (seen: p95 1 630 us against M/M/1's 693 at
  // 31 % utilization, and LQoS 1 095 us from a lowest p95 of 676 us, at a 3 % floor on 6 Dec
  // 2026). What such a host does not move is judged on any host up to JudgeableFloor: the median
  // sojourn against base p50 + ln 2 / (mu - lambda) (the same run read +4 to +11 %), and the
  // seed's target 5 x the server's service time (523 us). The p95 and LQoS itself are judged
  // where the CPUs stall at most 1 % of the time (the old gate), every tolerance widened by the
  // floor measured before and after the runs.
  const bool judged = floor <= JudgeableFloor();
  const bool tail_judged = floor <= 0.01;
  const double lqos_tolerance = ToleranceOnFloor(0.10, floor), tail_tolerance = ToleranceOnFloor(0.15, floor);
  std::printf("host floor %.2f %%: the seed's target within %.1f %% of 500 us, the median within %.1f %% of M/M/1's; "
              "%s\n",
              100 * floor, 100 * lqos_tolerance, 100 * tail_tolerance,
              tail_judged ? "LQoS and the p95 too" : "LQoS and the p95 printed, not judged (floor above 1 %)");
  std::printf("LQoS %.1f us (%s)\n", lqos, a["qos"]["method"].dump().c_str());
  const double seed_target = a["qos"].contains("seed_target_us") ? a["qos"]["seed_target_us"].get<double>() : lqos;
  if (judged) {
    EXPECT_NEAR(seed_target, 500, 500 * lqos_tolerance) << a["qos"].dump();
  }
  if (tail_judged) {
    EXPECT_NEAR(lqos, 500, 500 * lqos_tolerance) << a["qos"]["method"];
  }
  const json& g = a["groups"][0];
  const json& base_points = b["groups"][0]["points"];
  int checked = 0;
  for (const auto& pt : g["points"]) {
    if (!pt["valid"].get<bool>() || !pt["cpu_util"].is_number()) {
      std::printf("  %5.0f QPS: not compared: %s\n", pt["target_qps"].get<double>(),
                  pt["valid"].get<bool>() ? "CPU utilization unavailable" : pt["reasons"].dump().c_str());
      continue;
    }
    double u = pt["cpu_util"];
    if (u > 0.70) continue;
    double x = pt["throughput_qps"];
    double lambda = pt["achieved_qps"];
    double service_s = u / x;  // 1-ST: one CPU, so U / X is the CPU time per request
    double mu = 1 / service_s;
    const json* base = nullptr;
    for (const auto& bp : base_points) {
      if (bp["target_qps"] == pt["target_qps"]) base = &bp;
    }
    ASSERT_NE(base, nullptr) << "no baseline point at " << pt["target_qps"];
    if (!(*base)["valid"].get<bool>()) {
      // An invalid baseline (here: the generator's timeliness on a stalling CPU) leaves no
      // delay center to compare with; only a quiet machine is expected to give a valid one.
      if (floor <= kQuietFloor) {
        ADD_FAILURE() << "baseline point invalid at " << pt["target_qps"] << ": "
                      << (*base)["reasons"];
      }
      std::printf("  %5.0f QPS: baseline invalid, not compared: %s\n", pt["achieved_qps"].get<double>(),
                  (*base)["reasons"].dump().c_str());
      continue;
    }
    // M/M/1's sojourn is exponential with rate mu - lambda: its q-quantile is ln(1/(1-q)) / (mu - lambda).
    double predicted_us = (*base)["mean_us"].get<double>() + std::log(20.0) / (mu - lambda) * 1e6;
    double measured_us = pt["p95_us"];
    double err = (measured_us - predicted_us) / predicted_us;
    double predicted_p50_us = (*base)["p50_us"].get<double>() + std::log(2.0) / (mu - lambda) * 1e6;
    double err_p50 = (pt["p50_us"].get<double>() - predicted_p50_us) / predicted_p50_us;
    std::printf("  %5.0f QPS: U %.1f %%, 1/mu %.1f us, base %.1f us (p50 %.1f), p95 %.1f us, M/M/1 %.1f us, "
                "error %+.1f %%; p50 %.1f us, M/M/1 %.1f us, error %+.1f %%\n",
                lambda, u * 100, service_s * 1e6, (*base)["mean_us"].get<double>(), (*base)["p50_us"].get<double>(),
                measured_us, predicted_us, err * 100, pt["p50_us"].get<double>(), predicted_p50_us, err_p50 * 100);
    if (judged) {
      EXPECT_LE(std::abs(err_p50), tail_tolerance) << "median at " << pt["target_qps"] << " QPS, host floor "
                                                   << 100 * floor << " %";
    }
    if (tail_judged) {
      EXPECT_LE(std::abs(err), tail_tolerance) << "at " << pt["target_qps"] << " QPS, host floor " << 100 * floor << " %";
    }
    ++checked;
  }
  // Points from 10 % to 70 % utilization: a pass needs most of them measured and valid (a level
  // the host spoiled is measured again, [load] attempts). How many come out valid is itself the
  // machine's timing noise (seen: 2 of 6 before re-measurement): 3 of 4 on a quiet machine, 2
  // on a noisy one.
  if (judged) {
    EXPECT_GE(checked, floor <= kQuietFloor ? 3 : 2) << "too few valid points up to 70 % utilization";
  }
  if (!judged) {
    GTEST_SKIP() << "LQoS and the p95 vs M/M/1 comparison were printed but not asserted: this machine's CPUs "
                 << "stalled " << 100 * floor << " % of the time (figures above), beyond " << 100 * JudgeableFloor()
                 << " %. Run it on a quieter machine: ctest -R Mm1Calibration";
  }
}

}  // namespace
}  // namespace ream
