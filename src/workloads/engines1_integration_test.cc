// xapian and dnn end to end at reduced size (root, real cgroups and CPUs): `ream run` on a
// small spec like examples/xapian.toml and examples/dnn.toml (the builtin in its sandbox, 1-ST,
// a short grid), then `ream analyze --json`, and the category the classifier gives them: both
// are the seed's "fast / latency-critical" applications (TailBench's xapian and img-dnn).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/fast_category_check.h"
#include "platform/integration_test_support.h"
#include "platform/stall_probe.h"
#include "platform/test_directory.h"

namespace ream {
namespace {

namespace fs = std::filesystem;

using testing_support::Exec;
using testing_support::Ream;

class EnginesIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (cgroups)";
    dir_ = testing_support::FreshTestDirectory("ream-engines1-it").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs the spec (its name is `name`) and returns `ream analyze --json`'s document.
  nlohmann::json RunAndAnalyze(const std::string& name, const std::string& body) {
    std::string spec = dir_ + "/" + name + ".toml";
    std::ofstream(spec) << "name = \"" << name << "\"\nscenarios = [\"1-ST\"]\n" << body;
    std::string db = dir_ + "/results.db";
    Exec run = Ream("run " + spec + " --db " + db);
    EXPECT_EQ(run.code, 0) << run.output;
    std::printf("ream run %s: %.1f s\n%s", name.c_str(), run.seconds, run.output.c_str());
    Exec a = Ream("analyze --db " + db + " --experiment " + name + " --json", /*stdout_only=*/true);
    if (a.code != 0) {
      // Its message (on stderr): "no valid point" means the machine was too busy to measure.
      analyze_error_ = Ream("analyze --db " + db + " --experiment " + name).output;
      return nlohmann::json::value_t::discarded;
    }
    auto j = nlohmann::json::parse(a.output, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << a.output;
    return j;
  }

  // The points the generator measured validly (timely, at the target rate). On this
  // project's shared 2-vCPU VMs another process on the generator's CPU can make every level
  // late; then nothing about the workload was measured and the category cannot be checked.
  static int ValidPoints(const nlohmann::json& j) {
    int n = 0;
    if (j.is_discarded() || !j.contains("groups") || j["groups"].empty()) return 0;
    for (const auto& p : j["groups"][0]["points"]) n += p["valid"].get<bool>();
    return n;
  }

  // The seed's LQoS (5 × the service time at 20 % CPU) can fall below what any load meets on
  // a VM, where a request at low load pays both CPUs' wake-ups: then the lowest
  // valid load already misses QoS, QPS under QoS is "below the sweep" and no category's QoS
  // rule can hold. That says nothing about the engine; the reason, with the figures, instead.
  static std::string QosBelowTheFloor(const nlohmann::json& j) {
    if (j.is_discarded() || !j.contains("groups") || j["groups"].empty()) return "";
    const auto& cap = j["groups"][0]["capacity"];
    std::string status = cap.value("status", "");
    if (status.rfind("below the sweep", 0) != 0) return "";
    return "LQoS " + j["qos"]["target_us"].dump() + " us (5 x the reported service time) is below the p95 of the "
           "lowest valid load (" + status + "): the host's wake-ups at low load, not the engine";
  }

  // The seed's "fast" engine, from its sweep: a QoS target from the service time the server
  // reported (5 x ~0.1 ms), and the category. Skips, saying why, when the sweep cannot tell.
  void ExpectFast(const nlohmann::json& j) {
    SkipWhenNothingWasMeasured(j);
    if (IsSkipped() || HasFatalFailure()) return;
    EXPECT_EQ(j["qos"]["service_method"], "server-reported") << j["qos"].dump();
    if (ValidPoints(j) < 3) GTEST_SKIP() << "the generator kept its schedule at fewer than 3 levels: too busy to measure";
    if (std::string why = QosBelowTheFloor(j); !why.empty()) GTEST_SKIP() << why;
    Category(j);  // printed with its evidence
    ExpectFastCategory(j);
    ASSERT_TRUE(j["qos"]["target_us"].is_number()) << j["qos"].dump();
    ASSERT_TRUE(j["qos"]["service_time_us"].is_number()) << j["qos"].dump();
    // The seed's rule on a sub-millisecond engine. (A fixed "target < 2 ms" failed a clean clone
    // in an hour when the host's noise took the reported service time to 448 us at 24 % CPU.)
    const double service = j["qos"]["service_time_us"].get<double>(), target = j["qos"]["target_us"].get<double>();
    EXPECT_LT(service, 1000) << j["qos"].dump();
    if (!j["qos"].contains("seed_target_us")) {
      EXPECT_NEAR(target, 5 * service, 0.01 * target) << j["qos"].dump();
      return;
    }
    // The seed's rule fell below the round trip outside the server (a noisy host's wake-ups:
    // CI's run of 5 Dec 2026 had its lowest valid p95 at 659 us against 5 x 71 us): the target
    // is then the lowest tail at a valid load below saturation (at most 80 % CPU, qos.h) plus
    // 4 x the service time. Checked from the points themselves, not taken on trust.
    const double seed = j["qos"]["seed_target_us"].get<double>();
    EXPECT_NEAR(seed, 5 * service, 0.01 * seed) << j["qos"].dump();
    std::optional<double> floor;
    for (const auto& p : j["groups"][0]["points"]) {
      if (!p["valid"].get<bool>() || !p["cpu_util"].is_number() || p["cpu_util"].get<double>() > 0.8) continue;
      const double tail = p["tail_us"].get<double>();
      if (!floor || tail < *floor) floor = tail;
    }
    ASSERT_TRUE(floor.has_value()) << "a floor-based target without a valid point at or below 80 % CPU";
    EXPECT_GT(*floor, seed) << j["qos"].dump();
    EXPECT_NEAR(target, *floor + 4 * service, 0.01 * target) << j["qos"].dump();
  }

  // The classifier's verdict with its evidence, printed for the record.
  static std::string Category(const nlohmann::json& j) {
    if (j.is_discarded() || !j.contains("category")) return "";
    const auto& c = j["category"];
    std::printf("category: %s — %s\n", c["name"].get<std::string>().c_str(),
                c["explanation"].get<std::string>().c_str());
    for (const auto& e : c["evidence"]) {
      std::printf("  %-18s %-36s %-14s %-12s %s %s\n", e["category"].get<std::string>().c_str(),
                  e["name"].get<std::string>().c_str(), e["value"].dump().c_str(),
                  e["rule"].get<std::string>().c_str(), e["holds"].get<bool>() ? "yes" : "no",
                  e["note"].get<std::string>().c_str());
    }
    return c["name"].get<std::string>();
  }

  // Skips the test when no level could be measured (see ValidPoints); fails on another error.
  void SkipWhenNothingWasMeasured(const nlohmann::json& j) {
    if (!j.is_discarded()) return;
    ASSERT_NE(analyze_error_.find("has no valid point"), std::string::npos) << analyze_error_;
    GTEST_SKIP() << "the generator kept its schedule at no level (too busy to measure): " << analyze_error_;
  }

  std::string dir_;
  std::string analyze_error_;
};

// What both specs share: the example's load, shortened (levels of 1 s after 300 ms warm-up).
const char* kLoad = R"(
[load]
key_dist = "zipf:0.99"
keys = 10000
connections = 2
warmup = "300ms"
duration = "1s"
response_timeout = "300ms"
timely_tolerance = "200us"
[qos]
# The seed's rule at that tolerance: these tests judge the workloads' categories, not the
# generator. Under the default rule (its allowance stops at 20 us) a clean-clone make test
# found lateness moving every level's p95 by 6-17 % and skipped both tests for want of valid
# points.
validity = "seed"
)";

TEST_F(EnginesIntegration, XapianIsFast) {
  // 5 000 documents: ~0.08 ms per query (measured), an index built in well under a second.
  auto j = RunAndAnalyze("xapian-it", std::string(R"(
[workload]
builtin = "xapian"
args = ["--documents", "5000", "--vocabulary", "20000", "--words", "40"]
threads = 1
ready_timeout = "30s"
)") + kLoad + R"(
[sweep]
qps = [500, 2500, 4000, 5500]
remeasure_invalid = 1
)");
  ExpectFast(j);
}

TEST_F(EnginesIntegration, DnnIsFast) {
  // A network 1.5 times as wide as the quota test's, ~0.3 ms of CPU per request (16 % of a CPU
  // at 500 QPS). At width 256 (~0.06 ms) the QoS target, 5 × the service time (0.31 ms), was as
  // low as this host's own p95 at low load (wake-ups and stalls: 0.31-0.38 ms at every level in
  // one clean-clone run), so whether a level met QoS was the host's draw, not the workload's.
  // At 384, four runs here: low-load p95 0.59-0.76 ms, 1 723-1 861 QPS under QoS.
  auto j = RunAndAnalyze("dnn-it", std::string(R"(
[workload]
builtin = "dnn"
args = ["--width", "384", "--depth", "3", "--batch", "4"]
threads = 1
ready_timeout = "30s"
)") + kLoad + R"(
[sweep]
qps = [500, 1500, 2500, 3500]
remeasure_invalid = 1
)");
  ExpectFast(j);
}

TEST_F(EnginesIntegration, DnnCpuQuotaLowersItsQpsUnderQos) {
  // The seed's CPU sensitivity: the same network with its CPU time capped at a tenth of a CPU.
  // At ~0.09 ms of service (0.15 ms of CPU with the wake-ups at these rates) the cap binds near
  // 650 QPS, well below the ~1 900 QPS the full CPU holds under QoS. A quarter of a CPU bound near
  // 1 700 QPS, beside the full CPU's QoS limit, and a clean clone's CI of 6 Dec 2026 saw the two
  // capacities cross.
  auto j = RunAndAnalyze("dnn-quota-it", std::string(R"(
[workload]
builtin = "dnn"
args = ["--width", "256", "--depth", "3", "--batch", "4"]
threads = 1
ready_timeout = "30s"
)") + kLoad + R"(
[sweep]
qps = [250, 500, 1500, 2500, 3500]
remeasure_invalid = 1

[partitions]
cpu_quota = ["100%", "10%"]
)");
  SkipWhenNothingWasMeasured(j);
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_EQ(j["groups"].size(), 2u) << j.dump(1);
  std::optional<double> full, capped;
  // The cap binds: a load the full CPU carries validly, the capped partition cannot (invalid at
  // its allotment, cpu_util >= 0.95). This holds on a noisy host too: a stall moves a tail, not
  // a CPU's allotment.
  std::optional<double> full_highest_valid, capped_first_saturated;
  for (const auto& g : j["groups"]) {
    int valid = g["valid_points"].get<int>();
    const bool is_capped = g["key"].get<std::string>().find("=10%") != std::string::npos;
    std::printf("%s: %d valid point(s), capacity %s (%s)\n", g["key"].get<std::string>().c_str(), valid,
                g["capacity"]["qps"].dump().c_str(), g["capacity"]["status"].get<std::string>().c_str());
    for (const auto& p : g["points"]) {
      const double qps = p["target_qps"].get<double>();
      if (!is_capped && p["valid"].get<bool>()) full_highest_valid = std::max(full_highest_valid.value_or(0), qps);
      if (is_capped && !p["valid"].get<bool>() && p["cpu_util"].is_number() && p["cpu_util"].get<double>() >= 0.95 &&
          !capped_first_saturated) {
        capped_first_saturated = qps;
      }
    }
    if (valid < 2 || !g["capacity"]["qps"].is_number()) continue;
    (is_capped ? capped : full) = g["capacity"]["qps"].get<double>();
  }
  ASSERT_TRUE(capped_first_saturated.has_value()) << "the 10 % quota never held the workload at its allotment";
  ASSERT_TRUE(full_highest_valid.has_value());
  // At or below: the capped partition at its allotment at a load the full CPU carries validly
  // (a clean clone of 6 Dec 2026: both at 1 500 QPS, the capped levels below invalid from the host).
  EXPECT_LE(*capped_first_saturated, *full_highest_valid) << j.dump(1);
  if (!full || !capped) {
    // The cap's binding was judged above; QPS under QoS needs two valid levels in each partition.
    std::printf("QPS under QoS not compared: a partition had fewer than two valid levels (figures above)\n");
    return;
  }
  // QPS under QoS: the full CPU's is read where its p95 first crosses LQoS, which on a noisy host
  // a stalled window can put at the lowest levels (CI of 6 Dec 2026 at a 4-5 % floor: 282 QPS,
  // the 500 QPS level at p95 2 ms then 1.2 ms at 1 500). Judged where the host is quiet (at most
  // 1 % of the time stalled, measured when the comparison fails), printed otherwise.
  if (*capped >= *full) {
    const double floor = HostFloor();
    if (floor > 0.01) {
      std::printf("capacity capped %.0f QPS, full %.0f QPS: not judged, the host's floor is %.2f %%\n", *capped, *full,
                  100 * floor);
      return;
    }
    ADD_FAILURE() << "capped " << *capped << " QPS under QoS, full " << *full << " (host floor " << 100 * floor
                  << " %)\n"
                  << j.dump(1);
  }
}

}  // namespace
}  // namespace ream
