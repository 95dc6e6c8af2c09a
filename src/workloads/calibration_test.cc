// The whole chain's calibration: ream load against ream serve synthetic --service exp:100us
// (one worker, pinned to CPU 0; the generator pinned to CPU 1) must agree with the M/G/1
// Pollaczek–Khinchine mean sojourn once the base round trip (the same rate against
// const:0) is subtracted. A disagreement points at the measurement, not at the theory.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/platform.h"
#include "platform/process.h"
#include "platform/stall_probe.h"

namespace ream {
namespace {

// On a machine shared with builds, a pinned process still shares its CPU with whatever else
// the scheduler puts there; SCHED_FIFO (when allowed: root) keeps both sides of the
// measurement from being preempted by them. The prefix is empty when chrt is refused.
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
  o.argv = Pinned(p, "1", {REAM_BINARY, "load", "--target", "127.0.0.1:" + std::to_string(port),
                           "--qps", std::to_string(qps), "--duration", duration, "--warmup", warmup,
                           "--json", path});
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


TEST(Calibration, SojournMatchesTheMG1PredictionAtThreeRates) {
  auto platform = MakePosixPlatform();
  if (!platform->FindExecutable("taskset").ok()) GTEST_SKIP() << "taskset (util-linux) is not installed";
  auto online = platform->ReadFile("/sys/devices/system/cpu/online");
  if (!online.ok() || ParseCpuList(Trim(*online)).value_or({}).size() < 2) {
    GTEST_SKIP() << "needs two CPUs (server on CPU 0, generator on CPU 1)";
  }
  // A precondition, measured: the calibration compares means to within 10 %, which a CPU
  // that is away 5 % of the time in 20-250 us pieces cannot support. Such a machine is
  // reported as unable to calibrate (with its figure), not as a failed calibration.
  if (!MachineIsQuiet()) {
    GTEST_SKIP() << "a CPU is stalled more than 1 % of the time in pieces > 20 us (figures above: a "
                    "busy or virtualized CPU); the M/G/1 calibration needs < 1 %. Run it on a quiet "
                    "machine: ctest -R Calibration";
  }
  SyntheticServer base(*platform, "const:0");
  SyntheticServer exp(*platform, "exp:100us");
  ASSERT_GT(base.port(), 0);
  ASSERT_GT(exp.port(), 0);
  // The base round trip drifts on a virtualized host: against const:0 at 2 000 QPS its mean
  // was 85 us in most 1.5 s windows here and 110-198 us in some, while the exp server's
  // sojourn stayed within 3 %. One such window is as large as the whole queueing delay at
  // 2 000 QPS. So base and exp are measured in alternating rounds (both see the same drift),
  // each round gives the difference of the two means, and the median of the rounds' differences
  // is compared with the prediction: a disturbed round is outvoted, not averaged in.
  constexpr int kRounds = 5;
  for (int qps : {2000, 4000, 6000}) {
    std::vector<double> diffs, bases;
    double n = 0, svc_sum = 0, svc_sq = 0;  // service time: count, sum, sum of squares
    double issued = 0, window_s = 0, cpu_ns = 0, completed_total = 0;
    int valid = 0;
    for (int round = 0; round < kRounds; ++round) {
      nlohmann::json b = Load(*platform, base.port(), qps, "1s", "300ms");
      double cpu0 = exp.CpuNs();
      nlohmann::json m = Load(*platform, exp.port(), qps, "1500ms", "300ms");
      double cpu1 = exp.CpuNs();
      ASSERT_TRUE(b.contains("latency_us") && m.contains("latency_us"));
      EXPECT_EQ(m["errors"].get<uint64_t>(), 0u);
      double mn = m["completed"].get<double>();
      double base_mean = b["latency_us"]["mean"].get<double>();
      double exp_mean = m["latency_us"]["mean"].get<double>();
      bases.push_back(base_mean);
      diffs.push_back(exp_mean - base_mean);
      double sm = m["service_us"]["mean"].get<double>(), sd = m["service_us"]["stddev"].get<double>();
      n += mn;
      svc_sum += sm * mn;
      svc_sq += (sd * sd + sm * sm) * mn;
      issued += m["achieved_qps"].get<double>() * m["duration_s"].get<double>();
      window_s += m["duration_s"].get<double>();
      cpu_ns += cpu1 - cpu0;
      completed_total += m["completed_total"].get<double>();
      valid += m["valid"].get<bool>() ? 1 : 0;
      std::printf("  round %d at %d QPS: base mean %.1f us; exp mean %.1f p50 %.1f p99 %.1f us, "
                  "service %.1f us\n", round, qps, base_mean, exp_mean,
                  m["latency_us"]["p50"].get<double>(), m["latency_us"]["p99"].get<double>(), sm);
    }
    auto median = [](std::vector<double> v) {
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      return v[v.size() / 2];
    };
    double lambda = issued / window_s / 1e6;    // per µs
    double s = cpu_ns / 1e3 / completed_total;  // server CPU µs per request (warm-ups included)
    double mean_service = svc_sum / n;
    double var_service = svc_sq / n - mean_service * mean_service;
    double predicted = lambda * (var_service + s * s) / (2 * (1 - lambda * s)) + mean_service;
    double measured = median(diffs);
    double error = (measured - predicted) / predicted;
    std::printf("qps %d: rho %.3f, s %.1f us, service mean %.1f us sd %.1f us, base median %.1f us, "
                "sojourn-base %.1f us (median of %d rounds), M/G/1 %.1f us, error %+.1f %% "
                "(%d of %d rounds valid)\n",
                qps, lambda * s, s, mean_service, std::sqrt(var_service), median(bases), measured,
                kRounds, predicted, 100 * error, valid, kRounds);
    EXPECT_LE(std::abs(error), 0.10) << "at " << qps << " QPS";
    EXPECT_NEAR(mean_service, 100, 5) << "at " << qps << " QPS";
  }
}

}  // namespace
}  // namespace ream
