// A batch subject end to end on this machine (root, real cgroups, Debian's programs): `ream run`
// of real copies, the stored figures checked against each other, and a copy killed by its
// partition's memory limit failing its point with nothing left behind.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/integration_test_support.h"
#include "platform/test_directory.h"
#include "store/store.h"

namespace ream {
namespace {

namespace fs = std::filesystem;

using testing_support::Exec;

// `BINARY ARGS` to its end (ream as built, or a copy of it elsewhere), stdout and stderr together.
Exec Ream(const std::string& args, const std::string& binary = REAM_BINARY) {
  return testing_support::Sh(binary + " " + args);
}

class BatchPointIntegration : public testing_support::RootDatabaseTest {
 protected:
  BatchPointIntegration() : RootDatabaseTest("ream-batch-it", "cgroups") {}
  // One copy of `program` (0.5 s runs) over a 1.5 s window, then `more` (co-runners, ...).
  std::string OneCopySpec(const std::string& name, const std::string& program, const std::string& more = "") {
    return Spec("name = \"" + name + "\"\nscenarios = [\"1-ST\"]\n[workload]\nbatch = \"" + program +
                "\"\nbatch_seconds = 0.5\n[load]\nwarmup = \"200ms\"\nduration = \"1500ms\"\n[sweep]\ncopies = [1]\n" + more);
  }
  std::string Spec(const std::string& text) {
    std::string path = (dir_ / "b.toml").string();
    std::ofstream(path) << text;
    return path;
  }
  std::vector<PointRecord> Points(const std::string& name) {
    auto s = Store::Open(db_, false);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return {};
    auto e = s->FindExperiment(name);
    EXPECT_TRUE(e.ok() && e->has_value());
    if (!e.ok() || !e->has_value()) return {};
    EXPECT_EQ((*e)->load_axis, LoadAxis::kCopies);
    auto runs = s->ListRuns((*e)->id);
    EXPECT_TRUE(runs.ok() && runs->size() == 1u);
    if (!runs.ok() || runs->empty()) return {};
    auto points = s->ListPoints((*runs)[0].id);
    EXPECT_TRUE(points.ok());
    return points.ok() ? *points : std::vector<PointRecord>{};
  }
};

// One and two copies of bzip2 (1 s runs) on one CPU over a 4 s window each: every figure is
// stored, consistent with the others, and two copies sharing the CPU each take longer.
TEST_F(BatchPointIntegration, CopiesOfARealProgramStoreConsistentFigures) {
  std::string spec = Spec(R"(name = "bz"
scenarios = ["1-ST"]
[workload]
batch = "bzip2"
batch_seconds = 1
[load]
warmup = "500ms"
duration = "4s"
[sweep]
copies = [1, 2]
)");
  Exec r = Ream("run " + spec + " --db " + db_);
  ASSERT_EQ(r.code, 0) << r.output;
  auto points = Points("bz");
  ASSERT_EQ(points.size(), 2u);
  double mean_run[2] = {0, 0};
  for (size_t i = 0; i < points.size(); ++i) {
    const PointRecord& p = points[i];
    const nlohmann::json& b = p.batch;
    SCOPED_TRACE(b.dump());
    EXPECT_EQ(p.status, PointStatus::kOk) << p.failure;
    EXPECT_TRUE(p.valid.value_or(false));
    EXPECT_EQ(b["program"], "bzip2");
    EXPECT_EQ(b["copies"].get<double>(), p.target_load);
    const double window = b["window_s"].get<double>();
    EXPECT_NEAR(window, 4.0, 0.5);
    const int64_t n = b["completions"].get<int64_t>();
    ASSERT_GT(n, 0);
    EXPECT_EQ(p.completed, std::optional<int64_t>(n));
    EXPECT_NEAR(b["runs_per_min"].get<double>(), static_cast<double>(n) * 60.0 / window, 1e-9);
    const double mean = b["run_time_mean_s"].get<double>();
    const double p50 = b["run_time_p50_s"].get<double>();
    const double p95 = b["run_time_p95_s"].get<double>();
    EXPECT_GT(p50, 0);
    EXPECT_LE(p50, p95);
    // A run completed in the window started at most a warm-up before it.
    EXPECT_LE(p95, window + 0.5);
    EXPECT_GT(mean, 0);
    mean_run[i] = mean;
    // CPU: measured, and no more than one CPU's worth over the window (one CPU allotted).
    ASSERT_TRUE(p.server_cpu_s.has_value()) << ::testing::PrintToString(p.unavailable);
    EXPECT_GT(*p.server_cpu_s, 0);
    EXPECT_LE(*p.server_cpu_s, window * 1.05);
    EXPECT_NEAR(b["cpu_s_per_run"].get<double>(), *p.server_cpu_s / window / p.target_load * mean, 1e-9);
    // A run takes no more CPU than its wall time (one thread each).
    EXPECT_LE(b["cpu_s_per_run"].get<double>(), mean * 1.05);
    EXPECT_GT(b["memory_peak_bytes"].get<double>(), 0);
  }
  // Two copies on the one CPU share it: each run's wall time grows by well over a third.
  EXPECT_GT(mean_run[1], 1.3 * mean_run[0]) << mean_run[0] << " s alone, " << mean_run[1] << " s with two";
}

// mcf (81 MB at its default size) under a 24 MiB memory limit: the copy is killed, the point
// fails saying so, the run goes on to its end, and no process of it is left.
TEST_F(BatchPointIntegration, ACopyKilledByTheMemoryLimitFailsThePointAndLeavesNothing) {
  std::string spec = Spec(R"(name = "oom"
scenarios = ["1-ST"]
[workload]
batch = "mcf"
batch_seconds = 5
[load]
warmup = "300ms"
duration = "2s"
[sweep]
copies = [1]
[partitions]
memory = "24M"
)");
  Exec r = Ream("run " + spec + " --db " + db_);
  auto points = Points("oom");
  ASSERT_EQ(points.size(), 1u) << r.output;
  EXPECT_EQ(points[0].status, PointStatus::kFailed);
  EXPECT_NE(points[0].failure.find("batch 'mcf' x 1"), std::string::npos) << points[0].failure;
  EXPECT_NE(points[0].failure.find("memory limit"), std::string::npos) << points[0].failure;
  EXPECT_TRUE(testing_support::ProcessesWith("batch mcf --seconds 5").empty());
}

// A batch subject beside a co-runner on the other CPU (the evidence for its category):
// the copies measured alone and beside it, the co-runner's figures stored with the shared point
// and alone with the run, and `ream analyze` comparing the two with the placement named.
TEST_F(BatchPointIntegration, CopiesBesideASourceOnTheOtherCpuAreMeasuredAloneAndTogether) {
  std::string spec = OneCopySpec("bzp", "bzip2", R"([[corunner]]
name = "spin"
pressure = "cpu"
intensity = 50
cpus = "1"
)");
  Exec r = Ream("run " + spec + " --db " + db_);
  ASSERT_EQ(r.code, 0) << r.output;
  auto s = Store::Open(db_, false);
  ASSERT_TRUE(s.ok());
  auto e = s->FindExperiment("bzp");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u) << r.output;  // alone, and beside the set
  int shared = 0;
  for (const auto& run : *runs) {
    auto points = s->ListPoints(run.id);
    ASSERT_TRUE(points.ok() && points->size() == 1u);
    const PointRecord& p = (*points)[0];
    EXPECT_EQ(p.status, PointStatus::kOk) << p.failure;
    EXPECT_GT(p.completed.value_or(0), 0);
    if (run.key.corunner_set.empty()) continue;
    ++shared;
    EXPECT_EQ(run.key.corunner_set, "spin");
    // The co-runner measured alone once, and over the shared point's window.
    ASSERT_TRUE(run.corunners && run.corunners->alone_measured);
    ASSERT_TRUE(p.corunners.contains("spin")) << TenantFiguresToJson(p.corunners).dump();
    EXPECT_GT(p.corunners.at("spin").cpu_share.value_or(0), 0.2) << p.corunners.at("spin").ToJson().dump();
  }
  EXPECT_EQ(shared, 1);
  Exec a = Ream("analyze --db " + db_ + " --json");
  ASSERT_EQ(a.code, 0) << a.output;
  auto j = nlohmann::json::parse(a.output);
  bool beside = false;
  for (const auto& g : j["batch"]["groups"]) {
    if (g.value("tenants", "") != "spin") continue;
    beside = true;
    EXPECT_TRUE(g["apart"].get<bool>()) << g.dump();
    EXPECT_EQ(g["pressure"]["source"], "cpu");
  }
  EXPECT_TRUE(beside) << a.output.substr(0, 3000);
  bool judged = false;
  for (const auto& sv : j["batch"]["sensitivity"]) judged = judged || sv["resource"] == "beside spin";
  EXPECT_TRUE(judged) << j["batch"]["sensitivity"].dump();
  // Nothing of the co-runner is left.
  // (The bracket keeps pgrep from finding the shell that runs it, whose command line holds the
  // pattern.)
  EXPECT_NE(std::system("pgrep -f 'ream [p]ressure cpu' >/dev/null"), 0);
}

// ream built where its unprivileged workload user cannot reach it (a checkout under /root, a
// private temporary directory such as `mktemp -d` makes): the copies, started by `ream corun`
// as that user, still run ream's own `ream batch` (through /proc/self/exe) and complete.
TEST_F(BatchPointIntegration, CopiesRunWhenReamLiesInADirectoryTheWorkloadUserCannotEnter) {
  const fs::path closed = dir_ / "closed";
  fs::create_directories(closed);
  fs::permissions(closed, fs::perms::owner_all, fs::perm_options::replace);  // 0700, root's
  const fs::path ream = closed / "ream";
  fs::copy_file(REAM_BINARY, ream);
  // mcf's program is a helper built beside ream (ream-mcf), which the copies' user cannot reach
  // there either: ream run publishes a copy of it in the cache for them.
  fs::copy_file(fs::path(REAM_BINARY).parent_path() / "ream-mcf", closed / "ream-mcf");
  std::string spec = OneCopySpec("closed", "mcf");
  Exec r = Ream("run " + spec + " --db " + db_, ream.string());
  EXPECT_EQ(r.code, 0) << r.output;
  auto points = Points("closed");
  ASSERT_EQ(points.size(), 1u) << r.output;
  EXPECT_EQ(points[0].status, PointStatus::kOk) << points[0].failure;
  EXPECT_GT(points[0].completed.value_or(0), 0) << r.output;
}

}  // namespace
}  // namespace ream
