// The whole chain's calibration: ream load against ream serve synthetic --service exp:100us
// (one worker, pinned to CPU 0; the generator pinned to CPU 1) must agree with the M/G/1
// Pollaczek–Khinchine mean sojourn once the base round trip (the same rate against
// const:0) is subtracted. A disagreement points at the measurement, not at the theory.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/median.h"
#include "platform/platform.h"
#include "platform/process.h"
#include "platform/stall_probe.h"

namespace ream {
namespace {

// On a machine shared with builds, a pinned process still shares its CPU with whatever else
// the scheduler puts there; SCHED_FIFO (when allowed: root) keeps the servers from being
// preempted by them (the generator, which spins, cannot have it: see Load). The prefix is
// empty when chrt is refused.
std::vector<std::string> Shield(Platform& p) {
  auto r = p.Run({"chrt", "-f", "10", "true"}, std::chrono::seconds(5));
  if (r.ok() && r->exit_code == 0) return {"chrt", "-f", "10"};
  return {};
}

std::vector<std::string> Pinned(Platform& p, const char* cpu, std::vector<std::string> argv) {
  std::vector<std::string> full = Shield(p);
  for (const char* a : {"taskset", "-c", cpu}) full.push_back(a);
  full.insert(full.end(), argv.begin(), argv.end());
  return full;
}

class SyntheticServer {
 public:
  SyntheticServer(Platform& p, const std::string& service) : p_(p) {
    SpawnOptions o;
    o.argv = Pinned(p, "0", {REAM_BINARY, "serve", "synthetic", "--service", service,
                             "--threads", "1", "--port", "0"});
    o.capture_stdout = true;
    auto child = p.Spawn(o);
    EXPECT_TRUE(child.ok()) << child.status().ToString();
    if (!child.ok()) return;
    child_ = std::move(child).value();
    auto line = child_->WaitForLine([](const std::string& l) { return l.rfind("ready ", 0) == 0; },
                                    std::chrono::seconds(10));
    EXPECT_TRUE(line.ok()) << line.status().ToString();
    if (!line.ok()) return;
    size_t colon = line->find(':');
    port_ = std::stoi(line->substr(colon + 1));
  }
  ~SyntheticServer() {
    if (!child_) return;
    (void)child_->Signal(15);
    (void)child_->Wait(std::chrono::seconds(5));
  }
  int port() const { return port_; }
  // CPU time of every thread of the server so far, in ns (schedstat: exact, not in ticks).
  double CpuNs() {
    double total = 0;
    std::string dir = "/proc/" + std::to_string(child_->pid()) + "/task";
    auto tasks = p_.ListDir(dir);
    EXPECT_TRUE(tasks.ok());
    if (!tasks.ok()) return 0;
    for (const auto& t : *tasks) {
      auto text = p_.ReadFile(dir + "/" + t.name + "/schedstat");
      if (text.ok()) total += std::stod(*text);
    }
    return total;
  }

 private:
  Platform& p_;
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
};

nlohmann::json Load(Platform& p, int port, int qps, const char* duration, const char* warmup) {
  // The JSON goes through a file (removed afterwards): its histogram lines are long.
  std::string path = "/tmp/ream-calibration-" + std::to_string(p.ProcessId()) + "-" +
                     std::to_string(port) + "-" + std::to_string(qps) + ".json";
  SpawnOptions o;
  // The generator spins rather than sleeps between sends, so a response never has to wake
  // its CPU: on a VM that wake-up (an IPI to an idle vCPU) costs the server's send 15-25 us
  // of CPU per request at low rates, which s would count although no queued request waits
  // for it. A thread that never sleeps must not be SCHED_FIFO (the kernel's RT throttling
  // would stop it for 50 ms of every second), so only pinned.
  o.argv = {"taskset", "-c", "1", REAM_BINARY, "load", "--target",
            "127.0.0.1:" + std::to_string(port), "--qps", std::to_string(qps), "--duration",
            duration, "--warmup", warmup, "--wait", "spin", "--timely-tolerance", "200us",
            "--json", path};
  auto child = p.Spawn(o);
  EXPECT_TRUE(child.ok()) << child.status().ToString();
  if (!child.ok()) return {};
  auto exit = (*child)->Wait(std::chrono::seconds(60));
  EXPECT_TRUE(exit.ok() && exit->ShellCode() == 0) << (exit.ok() ? exit->Describe() : exit.status().ToString());
  auto text = p.ReadFile(path);
  (void)p.RemoveFile(path);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  if (!text.ok()) return {};
  auto j = nlohmann::json::parse(*text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << *text;
  return j;
}


TEST(Calibration, SojournMatchesTheMG1PredictionAtALowAndAHighRate) {
  auto platform = MakePosixPlatform();
  if (!platform->FindExecutable("taskset").ok()) GTEST_SKIP() << "taskset (util-linux) is not installed";
  auto online = platform->ReadFile("/sys/devices/system/cpu/online");
  if (!online.ok() || ParseCpuList(Trim(*online)).value_or({}).size() < 2) {
    GTEST_SKIP() << "needs two CPUs (server on CPU 0, generator on CPU 1)";
  }
  // The host's floor, measured: the calibration compares means to within 10 % on a quiet
  // machine, which a CPU that is away 4-11 % of the time in 20-250 us pieces does not support
  // reliably: paired rounds and medians (below) hold it in most runs there, not in all (seen:
  // 29 of 30; the miss was +10.6 % at 6 000 QPS, after rounds of +13..+39 % while s held
  // still: host stalls inside busy periods). So the tolerance is widened by the floor measured
  // before and after (platform/stall_probe.h ToleranceOnFloor), and only a host beyond
  // JudgeableFloor (8 %) is reported as unable to calibrate, with its figure.
  const double floor_before = HostFloor();
  if (floor_before > JudgeableFloor()) {
    GTEST_SKIP() << "a CPU is stalled " << 100 * floor_before << " % of the time in pieces > 20 us (figures above: "
                 << "another job shares it); above " << 100 * JudgeableFloor()
                 << " % the M/G/1 calibration would measure the host. Run it on a quieter machine: ctest -R Calibration";
  }
  SyntheticServer base(*platform, "const:0");
  SyntheticServer exp(*platform, "exp:100us");
  ASSERT_GT(base.port(), 0);
  ASSERT_GT(exp.port(), 0);
  // The base round trip drifts on a virtualized host: against const:0 at 2 000 QPS its mean
  // was 85 us in most 1.5 s windows here and 110-198 us (once 320 us) in some, while the exp
  // server's sojourn stayed within 3 %. One such window is as large as the whole queueing delay
  // at 2 000 QPS. So base and exp are measured in alternating rounds (both see the same
  // drift). Each round is a whole calibration of its own: its (sojourn - base) against the
  // P-K prediction from its own lambda, s, service mean and variance. The median of the
  // rounds' errors is compared with the tolerance: a disturbed round is outvoted, not
  // averaged in. A whole stretch of disturbed rounds can still shift the median (seen here: a
  // run whose CPU 0 lost 10.8 % to stalls); when the first kRounds miss, kRounds more are
  // measured and the median of all of them decides. A real error of the chain (such as
  // responses held back by the generator, +6..+20 %) misses in both halves alike.
  constexpr int kRounds = 5;  // (7, and 14 on a miss, took 71 s of make test's 20 minutes)
  // Each rate's verdict, judged at the end: the precondition is measured again there, since a
  // burst of host noise can begin after the first measurement (seen: a neighbour's build
  // starting mid-test, 2 of 14 rounds valid at 4 000 QPS). Still quiet: every verdict is
  // asserted. No longer quiet: the figures are printed and the test is skipped, saying so.
  struct Verdict {
    int qps;
    double error, median_error, mean_service;
  };
  std::vector<Verdict> verdicts;
  // 23 % and 70 % of the CPU. (The middle of the range, 4 000 QPS, was measured here too, 17 s of
  // make test's 20 minutes; the same server through `ream run` is judged at four loads between
  // them against M/M/1 and the model by QueueingCalibration, src/analysis.)
  for (int qps : {2000, 6000}) {
    std::vector<double> errors, diffs, predictions, bases, rhos, ss, services, median_errors;
    int valid = 0, rounds = kRounds;
    for (int round = 0; round < rounds; ++round) {
      nlohmann::json b = Load(*platform, base.port(), qps, "700ms", "200ms");
      double cpu0 = exp.CpuNs();
      nlohmann::json m = Load(*platform, exp.port(), qps, "1100ms", "200ms");
      double cpu1 = exp.CpuNs();
      ASSERT_TRUE(b.contains("latency_us") && m.contains("latency_us"));
      EXPECT_EQ(m["errors"].get<uint64_t>(), 0u);
      double base_mean = b["latency_us"]["mean"].get<double>();
      double exp_mean = m["latency_us"]["mean"].get<double>();
      double sm = m["service_us"]["mean"].get<double>(), sd = m["service_us"]["stddev"].get<double>();
      double lambda = m["achieved_qps"].get<double>() / 1e6;  // per µs, in the measured window
      // server CPU µs per request over the round (its warm-up included: CPU and requests alike)
      double s = (cpu1 - cpu0) / 1e3 / m["completed_total"].get<double>();
      double predicted = lambda * (sd * sd + s * s) / (2 * (1 - lambda * s)) + sm;
      double diff = exp_mean - base_mean;
      errors.push_back((diff - predicted) / predicted);
      // The median, which a stall of a few windows' requests does not move as it moves the mean:
      // exp:100us makes the queue M/M/1, whose sojourn is exponential at rate 1/s - lambda, so
      // its median is ln 2 / (1/s - lambda) above the base's median round trip.
      const double predicted_p50 = b["latency_us"]["p50"].get<double>() + std::log(2.0) / (1 / s - lambda);
      median_errors.push_back((m["latency_us"]["p50"].get<double>() - predicted_p50) / predicted_p50);
      diffs.push_back(diff);
      predictions.push_back(predicted);
      bases.push_back(base_mean);
      rhos.push_back(lambda * s);
      ss.push_back(s);
      services.push_back(sm);
      valid += m["valid"].get<bool>() ? 1 : 0;
      std::printf("  round %d at %d QPS: base mean %.1f us; exp mean %.1f p50 %.1f p99 %.1f us, "
                  "service %.1f sd %.1f us, s %.1f us, rho %.3f: sojourn-base %.1f us, M/G/1 %.1f "
                  "us, error %+.1f %%; timely (200 us) base %.4f exp %.4f, lateness p99 base %.1f "
                  "exp %.1f us; p50 error (M/M/1) %+.1f %%\n",
                  round, qps, base_mean, exp_mean, m["latency_us"]["p50"].get<double>(),
                  m["latency_us"]["p99"].get<double>(), sm, sd, s, lambda * s, diff, predicted,
                  100 * errors.back(), b["timely_ratio"].get<double>(), m["timely_ratio"].get<double>(),
                  b["lateness_us"]["p99"].get<double>(), m["lateness_us"]["p99"].get<double>(),
                  100 * median_errors.back());
      if (round + 1 == kRounds && std::abs(Median(errors)) > 0.10) {
        std::printf("  median error of %d rounds at %d QPS is %+.1f %%: measuring %d more rounds, "
                    "the median of all %d decides\n",
                    kRounds, qps, 100 * Median(errors), kRounds, 2 * kRounds);
        rounds = 2 * kRounds;
      }
    }
    double error = Median(errors);
    // The reported service time's mean, as the median of the rounds' means like the error: a
    // host stall that straddles the end of a 100 us spin lengthens that service, and a round
    // that met a burst of stalls reports a mean a few us higher (seen: 105.8 us).
    double mean_service = Median(services);
    // Each figure is the median of its own column over the rounds (so the error is not
    // computed from the two medians beside it).
    std::printf("qps %d, medians of %d rounds: rho %.3f, s %.1f us, service mean %.1f us, base "
                "%.1f us, sojourn-base %.1f us, M/G/1 %.1f us, error %+.1f %% (%d of %d rounds "
                "valid); p50 error (M/M/1) %+.1f %%\n",
                qps, rounds, Median(rhos), Median(ss), mean_service, Median(bases), Median(diffs),
                Median(predictions), 100 * error, valid, rounds, 100 * Median(median_errors));
    verdicts.push_back({qps, error, Median(median_errors), mean_service});
  }
  // Noise can begin during the test (seen: a neighbour's build starting mid-test): the floor
  // measured again at the end, and the larger of the two widens the tolerances.
  const double floor = std::max(floor_before, HostFloor());
  // The mean sojourn P-K predicts carries every stall a request met: at a 4-5 % floor (CI of 6 Dec
  // 2026) single rounds read -113 % to +113 % and the median of 14 +31 %. It is judged where the
  // CPUs stall at most 1 % of the time (the old gate); the median sojourn and the reported
  // service time, which such stalls barely move, on any host up to JudgeableFloor, every
  // tolerance widened by the floor.
  const double tolerance = ToleranceOnFloor(0.10, floor), median_tolerance = ToleranceOnFloor(0.15, floor),
               service_tolerance_us = 100 * ToleranceOnFloor(0.05, floor);
  const bool mean_judged = floor <= 0.01;
  std::printf("host floor %.2f %%: tolerance %.1f %% on the M/G/1 error (%s), %.1f %% on the median's, %.1f us on the "
              "service mean\n",
              100 * floor, 100 * tolerance, mean_judged ? "judged" : "printed only, the floor is above 1 %",
              100 * median_tolerance, service_tolerance_us);
  if (floor > JudgeableFloor()) {
    GTEST_SKIP() << "the host's floor rose to " << 100 * floor << " % during the test (figures above), beyond "
                 << 100 * JudgeableFloor() << " %: not a verdict on the calibration";
  }
  for (const Verdict& v : verdicts) {
    if (mean_judged) {
      EXPECT_LE(std::abs(v.error), tolerance) << "at " << v.qps << " QPS, host floor " << 100 * floor << " %";
    }
    EXPECT_LE(std::abs(v.median_error), median_tolerance) << "median at " << v.qps << " QPS, host floor "
                                                          << 100 * floor << " %";
    EXPECT_NEAR(v.mean_service, 100, service_tolerance_us) << "at " << v.qps << " QPS, host floor " << 100 * floor
                                                           << " %";
  }
}

}  // namespace
}  // namespace ream
