// The sphinx and rocksdb workloads end to end at reduced size: `ream run` on a small spec (the
// builtin in its sandbox, 1-ST, a short grid, two partitions), then `ream analyze --json`.
// Each suite runs its experiment once and checks the category the classifier gives it (with
// its evidence printed) and the seed's sensitivity: capacity lower under a CPU quota for
// sphinx, under a disk-read cap for rocksdb, both measured in the same run.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/platform.h"

namespace ream {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Outcome {
  std::string error;  // empty when ream run and ream analyze succeeded
  json analysis;
};

Outcome RunAndAnalyze(const std::string& name, const std::string& spec) {
  Outcome o;
  auto dir = std::filesystem::temp_directory_path() / ("ream-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string text = spec;
  for (size_t at; (at = text.find("{dir}")) != std::string::npos;) text.replace(at, 5, dir.string());
  std::ofstream(dir / "spec.toml") << text;
  std::string db = (dir / "r.db").string();
  auto p = MakePosixPlatform();
  auto r = p->Run({REAM_BINARY, "run", (dir / "spec.toml").string(), "--db", db}, 300s);
  if (!r.ok() || r->exit_code != 0) {
    o.error = "ream run: " + (r.ok() ? r->out + r->err : r.status().ToString());
  } else {
    auto an = p->Run({REAM_BINARY, "analyze", "--db", db, "--experiment", name, "--json"}, 60s);
    if (!an.ok() || an->exit_code != 0) {
      o.error = "ream analyze: " + (an.ok() ? an->err : an.status().ToString());
    } else {
      o.analysis = json::parse(an->out);
    }
  }
  std::filesystem::remove_all(dir);
  return o;
}

void Print(const json& a) {
  std::printf("category %s: %s\n", a["category"]["name"].get<std::string>().c_str(),
              a["category"]["explanation"].get<std::string>().c_str());
  for (const auto& e : a["category"]["evidence"]) {
    std::printf("  [%s] %s = %s %s (%s): %s %s\n", e["category"].get<std::string>().c_str(),
                e["name"].get<std::string>().c_str(), e["value"].dump().c_str(),
                e["unit"].get<std::string>().c_str(), e["rule"].get<std::string>().c_str(),
                e["holds"].get<bool>() ? "holds" : "does not hold", e["note"].get<std::string>().c_str());
  }
  for (const auto& g : a["groups"]) {
    std::printf("group %s: capacity %s (%s)\n", g["key"].get<std::string>().c_str(),
                g["capacity"]["qps"].dump().c_str(), g["capacity"]["status"].dump().c_str());
    for (const auto& pt : g["points"]) {
      std::printf("  %7.1f QPS: x=%.1f p95=%.0f us service=%s cpu=%s disk=%s valid=%d qos=%s %s\n",
                  pt["target_qps"].get<double>(), pt["throughput_qps"].get<double>(),
                  pt["p95_us"].get<double>(), pt["service_us"].dump().c_str(), pt["cpu_util"].dump().c_str(),
                  pt["disk_bps"].dump().c_str(), pt["valid"].get<bool>() ? 1 : 0, pt["meets_qos"].dump().c_str(),
                  pt["reasons"].dump().c_str());
    }
  }
}

// The group whose key contains `label` and not `unlike` (nullptr when there is none).
const json* GroupOf(const json& a, const std::string& label, const std::string& unlike = "\n") {
  for (const auto& g : a["groups"]) {
    const std::string key = g["key"].get<std::string>();
    if (key.find(label) != std::string::npos && key.find(unlike) == std::string::npos) return &g;
  }
  return nullptr;
}

// That group's capacity (0 when unmeasured).
double CapacityOf(const json& a, const std::string& label, const std::string& unlike = "\n") {
  const json* g = GroupOf(a, label, unlike);
  return g && (*g)["capacity"]["qps"].is_number() ? (*g)["capacity"]["qps"].get<double>() : 0;
}

// The highest `figure` any measured point of that group reached (0: none measured it).
double PeakOf(const json& a, const std::string& figure, const std::string& label, const std::string& unlike = "\n") {
  double best = 0;
  if (const json* g = GroupOf(a, label, unlike)) {
    for (const auto& pt : (*g)["points"]) {
      if (!pt["failed"].get<bool>() && pt[figure].is_number()) best = std::max(best, pt[figure].get<double>());
    }
  }
  return best;
}

// The highest throughput any point of that group reached: where the resource caps the load.
double PeakThroughputOf(const json& a, const std::string& label, const std::string& unlike = "\n") {
  return PeakOf(a, "throughput_qps", label, unlike);
}

// The service time of that group's lowest level (0 when it has none).
double LowestLevelServiceOf(const json& a, const std::string& label, const std::string& unlike = "\n") {
  if (const json* g = GroupOf(a, label, unlike)) {
    for (const auto& pt : (*g)["points"]) {
      if (!pt["failed"].get<bool>() && pt["service_us"].is_number()) return pt["service_us"].get<double>();
    }
  }
  return 0;
}

class EnginesIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (cgroups)";
  }
};

// Sphinx: utterances of 8 words (~3 s of speech). A decode takes 0.40-1.15 s of CPU on this
// project's VMs, depending on the instance and the hour, so the levels reach past both ends:
// 0.4 to 1.6 QPS evenly spaced, then 2.4. On a slow instance the full CPU saturates from
// ~0.9 QPS and half a CPU from ~0.45; on a fast one (0.40-0.46 s a decode, 4 Dec 2026) the full
// CPU was only 68-75 % busy at 1.6 QPS, and without the 2.4 level the sweep never saturated it:
// the category read "unclassified" (no 90 % CPU, a low-load tail under 0.5 s). (With 6 words and
// 0.5/1/2 QPS, 2 QPS saturated the full CPU on a slower instance, whose capacity then read "at
// least 1" as the half CPU's did.)
const char* kSphinxSpec = R"(name = "sphinx"
scenarios = ["1-ST"]
[workload]
builtin = "sphinx"
args = ["--utterances", "2", "--words", "8", "--cache-dir", "/var/cache/ream/sphinx-test"]
threads = 1
ready_timeout = "60s"
[load]
keys = 2
get_ratio = 1.0
connections = 2
# Even spacing: with 2-6 requests a point, Poisson bunching alone decided whether a level met
# QoS; what this test asks is where each partition saturates.
arrival = "constant"
warmup = "500ms"
duration = "4s"
response_timeout = "4s"
# Requests a second apart: a send 20 ms late is still on time for a ~1 s service, while a
# sleeping generator on this 2-CPU machine shared with builds overshoots 1 ms now and then,
# which at 3-10 requests a point fails 97.5 % on a single send.
timely_tolerance = "20ms"
[sweep]
qps = [0.4, 0.8, 1.2, 1.6, 2.4]
stop_after_invalid = 1
[[partitions.set]]
cpu_quota = "100%"
[[partitions.set]]
cpu_quota = "50%"
)";

class SphinxIntegration : public EnginesIntegration {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() == 0) outcome_ = new Outcome(RunAndAnalyze("sphinx", kSphinxSpec));
  }
  static void TearDownTestSuite() { delete outcome_; outcome_ = nullptr; }
  static Outcome* outcome_;
};
Outcome* SphinxIntegration::outcome_ = nullptr;

// One test of the one run: CTest runs every test in a process of its own, so a second test
// of the suite would measure the whole sweep again.
TEST_F(SphinxIntegration, IsCpuIntensiveAndACpuQuotaLowersItsCapacity) {
  ASSERT_TRUE(outcome_->error.empty()) << outcome_->error;
  // The control: at 0.4 QPS (the CPU mostly idle) a decode under a 50 % quota takes twice to
  // two and a half times as long as at full CPU (2.85 against 1.15 s on 3 Dec 2026). The two
  // groups run one after the other; a clean clone at 13:18 UTC that day decoded in 1.15-1.65 s
  // at full CPU and about as fast under the quota (its peak, 0.75 QPS, against 1.00): the host
  // was slower while the first group ran, both capacities read "at least 0.8 QPS" and said
  // nothing of the quota. So when the ratio is under 1.5 the experiment is measured again,
  // once. The peak throughputs are printed, not compared (the peak CPU is): a point's throughput counts every
  // request of its window that completed, in the window or during the drain after it (up to the
  // 4 s response timeout), so with a handful of ~0.5 s requests a saturated half CPU finishes
  // nearly all of them too (2.00 against 2.25 QPS at 2.4 QPS offered on 4 Dec 2026, where its
  // capacity was 1.48 against 2.40).
  double full = 0, half = 0, ratio = 0;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    Print(outcome_->analysis);
    full = CapacityOf(outcome_->analysis, "cpu_quota=100%");
    half = CapacityOf(outcome_->analysis, "cpu_quota=50%");
    double full_peak = PeakThroughputOf(outcome_->analysis, "cpu_quota=100%");
    double half_peak = PeakThroughputOf(outcome_->analysis, "cpu_quota=50%");
    double full_service = LowestLevelServiceOf(outcome_->analysis, "cpu_quota=100%");
    double half_service = LowestLevelServiceOf(outcome_->analysis, "cpu_quota=50%");
    std::printf("QPS under QoS: %.2f at 100 %% CPU, %.2f at 50 %% (0: none met QoS); peak "
                "throughput %.2f vs %.2f QPS; decode at 0.4 QPS %.2f vs %.2f s\n", full, half, full_peak,
                half_peak, full_service / 1e6, half_service / 1e6);
    ASSERT_GT(full_service, 0);
    ASSERT_GT(half_service, 0);
    // The quota binds, checked on every measurement whatever the host's speed: at its top level
    // the full CPU's group spends well over half a CPU (0.99 on 4 Dec 2026), and the 50 % group
    // never more than its half (cpu_util is a share of the allotment, not clamped: 0.98-1.00
    // there; a quota left unenforced would read about 2).
    const double full_cpu = PeakOf(outcome_->analysis, "cpu_util", "cpu_quota=100%");
    const double half_cpu = PeakOf(outcome_->analysis, "cpu_util", "cpu_quota=50%");
    std::printf("peak CPU: %.2f of a CPU at 100 %%, %.2f of its half CPU at 50 %%\n", full_cpu, half_cpu);
    EXPECT_GE(full_cpu, 0.65);
    EXPECT_LE(half_cpu, 1.1);
    ratio = half_service / full_service;
    if (ratio >= 1.5 || attempt == 2) break;
    std::printf("the quota's decode took only %.2f times the full CPU's: the host's speed changed between the "
                "groups; measuring again, once\n", ratio);
    *outcome_ = RunAndAnalyze("sphinx", kSphinxSpec);
    ASSERT_TRUE(outcome_->error.empty()) << outcome_->error;
  }
  EXPECT_EQ(outcome_->analysis["category"]["name"], "cpu-intensive");
  if (ratio < 1.5) {
    GTEST_SKIP() << "the host's speed changed between the two groups twice (a decode under the 50 % quota took "
                 << ratio << " times the full CPU's at 0.4 QPS): the capacities are not compared this time";
  }
  ASSERT_GT(full, 0);
  EXPECT_LT(half, full);
}

// RocksDB: 200 000 records of 1000 bytes (~200 MB), eight O_DIRECT point reads per get (the
// seed's shore reads ~35 kB from disk per query). The fixed QoS target is
// the seed's choice for shore, whose CPU never reaches the 20 % its rule needs.
//
// The cap is 2 MiB/s, a quarter of the example's: at ~31 kB per request it carries at most
// ~68 QPS, so the capped group cannot meet QoS at 100 QPS whatever the disk does, while the
// unthrottled group's capacity is the disk's and the one server thread's (~500 QPS). With the
// example's 8 MiB/s (~270 QPS) the two capacities were a factor of two apart at best, and the
// shared virtual disk, measured one group after the other, moved the unthrottled one across
// it: a CI run at 16:50 UTC on 3 Dec 2026 read 131 QPS unthrottled (p95 26 ms at 250 QPS) and
// 252 capped. The sweep ends at 750 QPS, past the unthrottled knee (~600): the levels beyond
// it only flattened the disk-vs-QPS trend the category reads (r = 0.81 in that run).
const char* kRocksdbSpec = R"(name = "rocksdb"
scenarios = ["1-ST"]
[workload]
builtin = "rocksdb"
args = ["--keys", "200000", "--value-bytes", "1000", "--reads", "8", "--data-dir", "/var/tmp/ream/test"]
threads = 1
ready_timeout = "60s"
[load]
key_dist = "zipf:0.99"
keys = 200000
# Reads only: a synced write waits behind whatever else the shared disk is flushing (seen:
# over a second while other builds write), which says nothing about the reads measured here.
get_ratio = 1.0
value_bytes = 1000
connections = 4
warmup = "500ms"
duration = "1500ms"
response_timeout = "2s"
# A tolerance proportionate to a millisecond-scale service: on this 2-CPU machine shared with
# builds, sleeping sends overshoot 200 us often enough to fail 97.5 % at 250 QPS.
timely_tolerance = "1ms"
[sweep]
qps = [50, 100, 250, 500, 750]
stop_after_invalid = 2
[qos]
# The default rule: for a millisecond-scale service its allowance (5 % of the p95) is wider
# than any fixed tolerance. Under the seed's rule at 1 ms a clean-clone make test lost the
# unthrottled partition's four lowest levels (89-96 % timely while the disk was busy).
target = "10ms"
[[partitions.set]]
memory = "256M"
[[partitions.set]]
memory = "256M"
disk_read_bps = "2M"
)";
constexpr double kRocksdbReadCapBps = 2 * 1048576.0;  // the spec's disk_read_bps

class RocksdbIntegration : public EnginesIntegration {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() == 0) outcome_ = new Outcome(RunAndAnalyze("rocksdb", kRocksdbSpec));
  }
  static void TearDownTestSuite() { delete outcome_; outcome_ = nullptr; }
  static Outcome* outcome_;
};
Outcome* RocksdbIntegration::outcome_ = nullptr;

// One test of the one run (see the sphinx test).
TEST_F(RocksdbIntegration, IsDiskBoundAndADiskReadCapLowersItsCapacity) {
  ASSERT_TRUE(outcome_->error.empty()) << outcome_->error;
  Print(outcome_->analysis);
  double full = CapacityOf(outcome_->analysis, "memory=256M", "disk_read_bps");
  double capped = CapacityOf(outcome_->analysis, "disk_read_bps");
  double full_peak = PeakThroughputOf(outcome_->analysis, "memory=256M", "disk_read_bps");
  double capped_peak = PeakThroughputOf(outcome_->analysis, "disk_read_bps");
  std::printf("QPS under QoS: %.0f unthrottled, %.0f with reads capped at 2 MiB/s (0: none met "
              "QoS); peak throughput %.0f vs %.0f QPS\n", full, capped, full_peak, capped_peak);
  // The cap binds: the capped group's reads never exceed it by more than the throttle's
  // slice rounding, and its throughput plateaus far under the unthrottled one's.
  const double capped_disk = PeakOf(outcome_->analysis, "disk_bps", "disk_read_bps");
  EXPECT_GT(capped_disk, 0.5 * kRocksdbReadCapBps);
  EXPECT_LT(capped_disk, 1.15 * kRocksdbReadCapBps);
  EXPECT_LT(capped_peak, full_peak * 0.5);
  EXPECT_EQ(outcome_->analysis["category"]["name"], "disk-bound");
  if (full == 0) {
    // The unthrottled group's lowest valid load already missed the QoS target: on a noisy
    // host the p95 at the lowest levels is the host's, not the disk's (a clean clone at
    // 09:10 UTC, 3 Dec 2026, measured 10-21 ms at 100-250 QPS).
    const json* u = GroupOf(outcome_->analysis, "memory=256M", "disk_read_bps");
    ASSERT_NE(u, nullptr);
    std::string status = (*u)["capacity"].value("status", "");
    ASSERT_EQ(status.rfind("below the sweep", 0), 0u) << (*u)["capacity"].dump();
    GTEST_SKIP() << "the unthrottled levels all missed QoS (below the sweep): capacities not comparable this time";
  }
  EXPECT_LT(capped, full);
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

// `ream serve rocksdb` on a file system that cannot take the dataset: it exits at start-up
// with a message naming the cause and leaves nothing on it. The file system is a small tmpfs
// mounted for the test, full or remounted read-only.
class RocksdbBadPath : public EnginesIntegration {
 protected:
  void SetUp() override {
    EnginesIntegration::SetUp();
    if (IsSkipped()) return;
    mnt_ = std::filesystem::temp_directory_path() / ("ream-rocksdb-fs-" + std::to_string(::getpid()));
    std::filesystem::create_directories(mnt_);
    auto m = p_->Run({"mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt_.string()}, 10s);
    ASSERT_TRUE(m.ok() && m->exit_code == 0) << (m.ok() ? m->Describe() : m.status().ToString());
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) (void)p_->Run({"umount", mnt_.string()}, 10s);
    if (!mnt_.empty()) std::filesystem::remove(mnt_);
  }
  CommandResult Serve(const std::string& path) {
    auto r = p_->Run({REAM_BINARY, "serve", "rocksdb", "--path", path, "--keys", "20000", "--value-bytes", "1000"},
                     60s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : CommandResult{};
  }
  std::unique_ptr<Platform> p_ = MakePosixPlatform();
  std::filesystem::path mnt_;
  bool mounted_ = false;
};

TEST_F(RocksdbBadPath, AFullFileSystemFailsAtStartUpAndLeavesNothing) {
  // 20 000 records of 1000 bytes (~20 MB) on a 1 MiB file system.
  CommandResult r = Serve((mnt_ / "data" / "db").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the file system is full"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(mnt_)) << "left behind on the file system";
}

TEST_F(RocksdbBadPath, AReadOnlyFileSystemFailsAtStartUpAndLeavesNothing) {
  auto ro = p_->Run({"mount", "-o", "remount,ro", mnt_.string()}, 10s);
  ASSERT_TRUE(ro.ok() && ro->exit_code == 0);
  CommandResult r = Serve((mnt_ / "db").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((mnt_ / "db").string()), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(mnt_));
}

}  // namespace
}  // namespace ream
