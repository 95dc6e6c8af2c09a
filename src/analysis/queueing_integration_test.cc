// The whole chain against queueing theory, from one sweep: ream's synthetic server with
// exponential service of 100 µs on one CPU (1-ST) is an M/M/1 queue. Swept with `ream run`
// (interleaved with the same server at `--service const:0`, the round trip outside the queue)
// and analyzed with `ream analyze --json`, it is judged twice:
//  - as M/M/1: LQoS within 10 % of 5 × 100 µs, and at every valid point up to 70 % CPU
//    utilization the p95 within 15 % of base + ln 20 / (μ − λ) and the median within 15 % of base
//    p50 + ln 2 / (μ − λ), where base is the const:0 experiment at the same rate and 1/μ the
//    server's measured CPU time per request (U / X, from the monitor);
//  - through the second seed's model (`ream analyze`'s queueing model, `ream report`'s tables,
//    `ream model`): a mean response time within 15 % of the measured one across 10–70 %
//    utilization (the mean of |measured − model| / measured over the levels' medians, and on a
//    quiet host the worst level's distance from the range its repetitions measured). The kv
//    server's table is shown and its figures printed, not asserted.
// On a noisy host the tolerances widen with its measured floor, and the quantities its stalls
// move (the p95, LQoS) are judged only up to 1 %. The two experiments run interleaved (`ream run
// --interleave`), four sweeps each, so the comparison is between measurements taken side by side
// in time. (The model was judged on a sweep of its own before: 32 s more of make test's 20 minutes
// for the same server at the same loads.)
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/store_loader.h"
#include "platform/platform.h"
#include "platform/keep_awake.h"
#include "platform/stall_probe.h"
#include "store/store.h"

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
# 14 % to 62 % of the CPU in four steps, inside the model's operating range (10-70 %) with a
# margin for 1/mu's drift (seven steps took 3 minutes of make test's 20; 7 000 QPS, at ~78 %,
# lies above the 70 % both comparisons stop at).
qps = [1200, 2600, 4000, 5400]
)";
}

// The kv server, for the model's table beside the synthetic one's: one sweep, its figures printed,
// not asserted.
std::string KvSpec() {
  return R"(name = "kv"
scenarios = ["1-ST"]
generator_cpus = "0"
[workload]
builtin = "kv"
args = ["--records", "10000"]
threads = 1
[load]
warmup = "300ms"
duration = "1500ms"
response_timeout = "200ms"
connections = 2
# ream's default tolerance (20us) cannot be held on this project's 2-vCPU VMs (their vCPUs
# stall > 20 us ~1100 times a second, docs/notes/performance-notes.md); 200us can, and is reported.
timely_tolerance = "200us"
# The generator spins between sends, so a response never has to wake its CPU: that wake-up
# costs the server's send 15-25 us of CPU at low rates on this project's VMs, which the
# service-demand law would count as service although no queued request waits for it.
wait = "spin"
[sweep]
qps = [10000, 25000, 40000, 55000, 70000, 85000]
)";
}

// Each valid level's mean response time per repetition (us), by target load, from the store.
Result<std::map<double, std::vector<double>>> RepetitionMeans(const std::string& db, const std::string& experiment) {
  REAM_ASSIGN_OR_RETURN(Store store, Store::OpenReadOnly(db));
  REAM_ASSIGN_OR_RETURN(analysis::ExperimentData d, analysis::LoadExperiment(store, experiment));
  std::map<double, std::vector<double>> out;
  for (const auto& r : d.runs) {
    for (const auto& p : r.points) {
      if (p.valid && !p.failed) out[p.target_load].push_back(p.latency_mean_us);
    }
  }
  return out;
}

// The level whose target load is nearest to an achieved rate.
const std::vector<double>* Nearest(const std::map<double, std::vector<double>>& by_load, double qps) {
  const std::vector<double>* best = nullptr;
  double gap = 0;
  for (const auto& [load, reps] : by_load) {
    if (!best || std::fabs(load - qps) < gap) best = &reps, gap = std::fabs(load - qps);
  }
  return best;
}

void PrintModel(const json& g) {
  const json& m = g["model"];
  if (m.is_null()) {
    std::printf("%s: model unavailable: %s\n", g["key"].get<std::string>().c_str(),
                g["model_unavailable"].get<std::string>().c_str());
    return;
  }
  std::printf("%s: %s, S %.1f us (S0 %.1f), SCV %.2f, D %.1f us, X_sat %.0f QPS\n", g["key"].get<std::string>().c_str(),
              m["queue"].get<std::string>().c_str(), m["service_us"].get<double>(), m["s0_us"].get<double>(),
              m["scv"].get<double>(), m["delay_us"].get<double>(), m["saturation_qps"].get<double>());
  for (const auto& p : m["points"]) {
    std::printf("  %6.0f QPS  U %5.1f %%%s  mean %7.1f us  model %7s  p95 %7.1f us  model %7s\n",
                p["qps"].get<double>(), p["utilization"].get<double>() * 100, p["in_range"].get<bool>() ? " " : "*",
                p["measured_mean_us"].get<double>(),
                p["predicted_mean_us"].is_number() ? std::to_string(p["predicted_mean_us"].get<int>()).c_str() : "—",
                p["measured_tail_us"].get<double>(),
                p["predicted_tail_us"].is_number() ? std::to_string(p["predicted_tail_us"].get<int>()).c_str() : "—");
  }
  for (const char* t : {"regression_mean", "regression_tail"}) {
    const json& r = m[t];
    if (!r["unavailable"].is_null()) {
      std::printf("  %s: unavailable: %s\n", t, r["unavailable"].get<std::string>().c_str());
      continue;
    }
    std::printf("  %s over %d points: measured slope %.4f us/QPS R2 %.3f, model slope %.4f R2 %.3f; |rel err| mean "
                "%.3f max %.3f\n",
                t, r["points"].get<int>(), r["measured"]["slope_us_per_qps"].get<double>(),
                r["measured"]["r2"].get<double>(),
                r["model"].is_null() ? NAN : r["model"]["slope_us_per_qps"].get<double>(),
                r["model"].is_null() ? NAN : r["model"]["r2"].get<double>(),
                r["mean_abs_relative_error"].is_number() ? r["mean_abs_relative_error"].get<double>() : NAN,
                r["max_abs_relative_error"].is_number() ? r["max_abs_relative_error"].get<double>() : NAN);
  }
}

// M/M/1: LQoS from the seed's rule, the p95 and the median at each level against the queue's
// quantiles over the base round trip (a: `ream analyze mm1 --baseline base`, b: base's).
void JudgeAsMM1(const json& a, const json& b, double floor) {
  ASSERT_FALSE(a["qos"]["target_us"].is_null()) << a["qos"].dump();
  double lqos = a["qos"]["target_us"];
  ::testing::Test::RecordProperty("lqos_us", std::to_string(lqos));

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
}

// The second seed's model of the same sweep: `ream analyze`'s table (mean within 15 % across
// 10-70 % utilization), `ream report`'s tables for it and for kv, and `ream model`.
void JudgeTheModel(Platform& p, const std::filesystem::path& dir, double floor) {
  const std::string db = (dir / "r.db").string();
  auto analyze = [&](const std::string& name) {
    auto an = p.Run({REAM_BINARY, "analyze", "--db", db, "--experiment", name, "--json"}, 60s);
    if (!an.ok() || an->exit_code != 0) {
      std::printf("ream analyze %s: %s\n", name.c_str(), an.ok() ? an->err.c_str() : an.status().ToString().c_str());
    }
    return an.ok() && an->exit_code == 0 ? json::parse(an->out) : json();
  };
  json syn = analyze("mm1");
  json kv = analyze("kv");
  const double tolerance = ToleranceOnFloor(0.15, floor);
  std::printf("host floor %.2f %%: the model's mean |relative error| within %.1f %%\n", 100 * floor, 100 * tolerance);
  ASSERT_FALSE(syn.is_null()) << "ream analyze mm1 failed (above)";
  const json& g = syn["groups"][0];
  PrintModel(g);
  // kv's accuracy is reported, not asserted; a kv sweep left without a valid point by the
  // host's noise is said so.
  if (!kv.is_null()) PrintModel(kv["groups"][0]);

  // The report shows the measured-vs-model table with R² and the relative error, for both.
  for (const char* name : {"mm1", "kv"}) {
    if (std::string(name) == "kv" && kv.is_null()) continue;
    std::string out = (dir / (std::string(name) + ".html")).string();
    auto rep = p.Run({REAM_BINARY, "report", "--db", db, "--experiment", name, "--out", out}, 60s);
    ASSERT_TRUE(rep.ok() && rep->exit_code == 0) << (rep.ok() ? rep->err : rep.status().ToString());
    std::ifstream in(out);
    std::stringstream html;
    html << in.rdbuf();
    const std::string h = html.str();
    EXPECT_NE(h.find("id=\"model_regression_mean\""), std::string::npos) << name;
    EXPECT_NE(h.find("R²"), std::string::npos) << name;
    EXPECT_NE(h.find("mean |relative error|"), std::string::npos) << name;
    if (std::string(name) == "mm1") {
      // The synthetic sweep spans the range by construction: its table has figures.
      EXPECT_NE(h.find("data-metric=\"model_mean_measured_r2\""), std::string::npos);
      EXPECT_NE(h.find("data-metric=\"model_mean_mean_rel_error\""), std::string::npos);
    }
  }
  // `ream model` prints the same table alone.
  auto model = p.Run({REAM_BINARY, "model", "--db", db, "--experiment", "mm1"}, 60s);
  ASSERT_TRUE(model.ok() && model->exit_code == 0);
  EXPECT_NE(model->out.find("Table 5.1 of the mean"), std::string::npos) << model->out;

  ASSERT_FALSE(g["model"].is_null()) << g["model_unavailable"];
  const json& mean = g["model"]["regression_mean"];
  // The server names its distribution (exp), so the queue is an M/G/1 with the measured
  // moments (Pollaczek–Khinchine, or Welch's when a wake-up on idle is fitted).
  EXPECT_EQ(g["model"]["queue"].get<std::string>().rfind("M/G/1", 0), 0u) << g["model"]["queue"];
  if (floor > JudgeableFloor()) return;  // printed; the caller says why it is not judged
  ASSERT_TRUE(mean["unavailable"].is_null()) << mean["unavailable"];
  // Three of the four levels on a quiet host (one the host spoiled on every attempt is lost, as the
  // M/M/1 check allows), two on a noisy one.
  EXPECT_GE(mean["points"].get<int>(), floor <= kQuietFloor ? 3 : 2)
      << "too few valid points between 10 % and 70 % utilization";
  EXPECT_LE(mean["mean_abs_relative_error"].get<double>(), tolerance) << "host floor " << 100 * floor << " %";
  // The worst single point is one window a stall can spoil (at a 4.8 % floor on 6 Dec 2026: the
  // mean error 8 %, the worst point +32 % at 2 000 QPS): judged where the host is quiet, printed
  // elsewhere.
  // Each level's measured mean is the median of four repetitions, and one window is a few
  // thousand requests: at 55-65 % utilization the sample mean of a queue's response time moves
  // by several per cent between windows, more when the host takes the CPU for a while between
  // its two floor readings (CI of 6 Dec 2026, floor 0.08 %: the 5 000 QPS level at 293 us
  // against the model's 248, -15.3 %, the other five within 5 %). So the worst point is judged
  // against the range its repetitions measured: the model within 15 % of the nearest of them.
  if (floor <= kQuietFloor) {
    auto by_load = RepetitionMeans(db, "mm1");
    ASSERT_TRUE(by_load.ok()) << by_load.status().ToString();
    double worst = 0;
    for (const auto& pt : g["model"]["points"]) {
      if (!pt["in_range"].get<bool>() || !pt["predicted_mean_us"].is_number()) continue;
      const double model_us = pt["predicted_mean_us"].get<double>();
      const std::vector<double>* reps = Nearest(*by_load, pt["qps"].get<double>());
      ASSERT_NE(reps, nullptr);
      const auto [lo, hi] = std::minmax_element(reps->begin(), reps->end());
      const double err = model_us < *lo ? (*lo - model_us) / *lo : model_us > *hi ? (model_us - *hi) / *hi : 0.0;
      std::printf("  %6.0f QPS: repetitions' means %.1f-%.1f us, model %.1f us: %.1f %% from the range\n",
                  pt["qps"].get<double>(), *lo, *hi, model_us, 100 * err);
      worst = std::max(worst, err);
    }
    EXPECT_LE(worst, tolerance) << "the model's worst point, from its repetitions' range; host floor " << 100 * floor
                                << " %";
  }
}


TEST(QueueingCalibration, OneSweepMatchesMM1AndTheModelsMean) {
  // The host's floor, measured first and again after the runs (noise can begin in between):
  // the tolerances widen with it (platform/stall_probe.h ToleranceOnFloor), and only a host
  // beyond JudgeableFloor (8 %), whose figures would be its own, is not judged.
  const double floor_before = HostFloor();
  if (floor_before > JudgeableFloor()) {
    GTEST_SKIP() << "this machine's CPUs stall " << 100 * floor_before << " % of the time (figures above), beyond "
                 << 100 * JudgeableFloor() << " %: LQoS, the tail and the model's mean would be the host's, not the "
                 << "queue's; run it on a quieter machine (ctest -R QueueingCalibration)";
  }
  auto dir = std::filesystem::temp_directory_path() / ("ream-queueing-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mm1.toml") << Spec("mm1", "exp:100us");
  std::ofstream(dir / "base.toml") << Spec("base", "const:0");
  std::ofstream(dir / "kv.toml") << KvSpec();
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
  for (const std::vector<std::string>& specs :
       {std::vector<std::string>{(dir / "mm1.toml").string(), (dir / "base.toml").string(), "--interleave"},
        std::vector<std::string>{(dir / "kv.toml").string()}}) {
    std::vector<std::string> argv{REAM_BINARY, "run"};
    argv.insert(argv.end(), specs.begin(), specs.end());
    argv.insert(argv.end(), {"--db", db});
    auto r = p->Run(argv, 500s);
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
  const bool judged = floor <= JudgeableFloor();
  JudgeAsMM1(a, b, floor);
  JudgeTheModel(*p, dir, floor);
  if (!judged) {
    GTEST_SKIP() << "LQoS, the p95 vs M/M/1 and the model's mean were printed but not asserted: this machine's CPUs "
                 << "stalled " << 100 * floor << " % of the time (figures above), beyond " << 100 * JudgeableFloor()
                 << " %. Run it on a quieter machine: ctest -R QueueingCalibration";
  }
}

}  // namespace
}  // namespace ream
