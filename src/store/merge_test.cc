#include "store/merge.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "platform/test_directory.h"

namespace ream {
namespace {

const std::string kSpec = "name = \"kv\"\n[workload]\nbuiltin = \"kv\"\n";

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing_support::FreshTestDirectory("ream-merge-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) { return (dir_ / name).string(); }

  // A database as one unit of a campaign leaves it: experiment `kv` (of `spec`) with the runs
  // of repetitions `reps` (1-ST / default), each two points with a histogram and a timeline,
  // measured on `host`.
  std::string Unit(const std::string& name, const std::string& host, const std::vector<int>& reps,
                   const std::string& spec = kSpec, double p95 = 100, int64_t recorded_ns = 1000) {
    const std::string path = Path(name);
    auto s = Store::Open(path);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return path;
    ExperimentRecord e;
    e.name = "kv";
    e.spec_text = spec;
    e.spec = {{"name", "kv"}};
    e.spec_hash = Fnv1aHex(spec);
    e.status = ExperimentStatus::kPartial;
    e.failure = "campaign unit of " + host;
    e.created_ns = recorded_ns;
    e.finished_ns = recorded_ns + 10;
    auto id = s->CreateExperiment(e);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    EnvironmentRecord env;
    env.hostname = host;
    env.ream_version = "1.0";
    env.kernel = "6.1";
    env.recorded_ns = recorded_ns;
    EXPECT_TRUE(s->RecordEnvironment(*id, env).ok());
    for (int rep : reps) {
      RunRecord r;
      r.experiment_id = *id;
      r.key = {"1-ST", "default", rep};
      r.ordinal = rep;
      r.host = host;
      r.provenance = {{"host", host}, {"unit", {{"index", rep}}}};
      auto run = s->EnsureRun(r);
      EXPECT_TRUE(run.ok()) << run.status().ToString();
      run->status = RunStatus::kComplete;
      EXPECT_TRUE(s->UpdateRun(*run).ok());
      for (int level = 1; level <= 2; ++level) {
        PointData d;
        d.point.run_id = run->id;
        d.point.seq = level;
        d.point.target_load = 100.0 * level;
        d.point.latency_p95_us = p95 + rep + 0.1 / 3 * level;
        d.histograms[kHistSojourn].Record(1000 * level + rep);
        d.timeline = {{"t", {1, 2, level}}};
        EXPECT_TRUE(s->InsertPoint(d).ok());
      }
      // A manager's two windows, the second with an action.
      for (int64_t window = 0; window < 2; ++window) {
        ManagerWindowRecord w;
        w.run_id = run->id;
        w.window = window;
        w.end_s = 0.5 * (window + 1);
        w.valid = true;
        w.tail_us = p95 + rep;
        w.target_us = 500;
        w.slack = (500 - p95 - rep) / 500;
        w.neighbour_throughput["stream"] = 100 + rep;
        w.allocation["stream"]["cpu_quota"] = {0.5, "50%"};
        if (window == 1) {
          w.actions.push_back({.seq = 0, .tenant = "stream", .knob = "cpu_quota", .from = 0.5, .to = 0.6,
                               .from_text = "50%", .to_text = "60%", .reason = "slack above 20 %"});
        }
        EXPECT_TRUE(s->InsertManagerWindow(w).ok());
      }
    }
    return path;
  }

  std::vector<std::string> Rows(const std::string& path) {
    auto db = sql::Database::Open(path, false, true);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    if (!db.ok()) return {};
    auto rows = CanonicalRows(*db);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.value_or(std::vector<std::string>{});
  }

  Result<MergeReport> Merge(const std::string& out, const std::vector<std::string>& inputs,
                            const MergeOptions& o = {}) {
    return MergeFiles(*platform_, out, inputs, o);
  }

  int64_t Count(const std::string& path, const std::string& sql) {
    auto db = sql::Database::Open(path, false, true);
    if (!db.ok()) return -1;
    auto st = db->Prepare(sql);
    if (!st.ok() || !st->Step().value_or(false)) return -1;
    return st->Int(0);
  }

  std::unique_ptr<Platform> platform_ = MakePosixPlatform();
  std::filesystem::path dir_;
};

TEST_F(MergeTest, DisjointRunsUnionIntoOneExperiment) {
  const std::string a = Unit("a.db", "node1", {0, 1}), b = Unit("b.db", "node2", {2});
  auto r = Merge(Path("out.db"), {a, b});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->experiments_added, 1);
  EXPECT_EQ(r->experiments_joined, 1);
  EXPECT_EQ(r->runs_added, 3);
  EXPECT_EQ(r->points_added, 6);
  const std::string out = Path("out.db");
  EXPECT_EQ(Count(out, "SELECT count(*) FROM experiments"), 1);
  EXPECT_EQ(Count(out, "SELECT count(*) FROM runs"), 3);
  EXPECT_EQ(Count(out, "SELECT count(*) FROM histograms"), 6);
  EXPECT_EQ(Count(out, "SELECT count(*) FROM timelines"), 6);
  EXPECT_EQ(Count(out, "SELECT count(*) FROM manager_windows"), 6);
  EXPECT_EQ(Count(out, "SELECT count(*) FROM manager_actions"), 3);
  // No partial file is left beside the output.
  for (const auto& f : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(f.path().filename().string().find(".partial-"), std::string::npos) << f.path();
  }
  // Lossless: every row of each input, ids aside, is in the output (the experiment's row but
  // for its aggregates).
  const auto merged = Rows(out);
  for (const auto& in : {a, b}) {
    for (const auto& row : Rows(in)) {
      if (row.rfind("[\"experiments\"", 0) == 0 || row.rfind("[\"environment\"", 0) == 0) continue;
      EXPECT_TRUE(std::binary_search(merged.begin(), merged.end(), row)) << row;
    }
  }
  // Each run keeps its host and provenance.
  auto s = Store::OpenReadOnly(out);
  ASSERT_TRUE(s.ok());
  auto e = s->FindExperiment("kv");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[2].host, "node2");
  EXPECT_EQ((*runs)[2].provenance["unit"]["index"], 2);
}

TEST_F(MergeTest, MergingAgainAddsNothing) {
  const std::string a = Unit("a.db", "node1", {0}), b = Unit("b.db", "node2", {1});
  const std::string out = Path("out.db");
  ASSERT_TRUE(Merge(out, {a, b}).ok());
  const auto once = Rows(out);
  auto again = Merge(out, {b, a});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->runs_added, 0);
  EXPECT_EQ(again->points_added, 0);
  EXPECT_EQ(again->runs_already_there, 2);
  EXPECT_EQ(Rows(out), once);
}

TEST_F(MergeTest, TwoOrdersGiveTheSameRows) {
  const std::string a = Unit("a.db", "node1", {0}, kSpec, 100, 3000);
  const std::string b = Unit("b.db", "node2", {1}, kSpec, 100, 1000);
  const std::string c = Unit("c.db", "node3", {2}, kSpec, 100, 2000);
  ASSERT_TRUE(Merge(Path("abc.db"), {a, b, c}).ok());
  // One at a time, the other way round, through an existing output.
  ASSERT_TRUE(Merge(Path("cba.db"), {c}).ok());
  ASSERT_TRUE(Merge(Path("cba.db"), {b}).ok());
  ASSERT_TRUE(Merge(Path("cba.db"), {a}).ok());
  const auto one = Rows(Path("abc.db")), other = Rows(Path("cba.db"));
  EXPECT_EQ(one, other);
  // Every host's environment is kept; `environment` holds the earliest recorded.
  EXPECT_EQ(Count(Path("abc.db"), "SELECT count(*) FROM host_environments"), 3);
  auto s = Store::OpenReadOnly(Path("cba.db"));
  ASSERT_TRUE(s.ok());
  auto env = s->GetEnvironment(1);
  ASSERT_TRUE(env.ok() && env->has_value());
  EXPECT_EQ((*env)->hostname, "node2");
  auto e = s->FindExperiment("kv");
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->created_ns, 1000);
  EXPECT_EQ((*e)->finished_ns, std::optional<int64_t>(3010));
}

TEST_F(MergeTest, SameNameDifferentSpecIsRefusedNamingBoth) {
  const std::string a = Unit("a.db", "node1", {0});
  const std::string b = Unit("b.db", "node2", {1}, kSpec + "# changed\n");
  auto r = Merge(Path("out.db"), {a, b});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("experiment 'kv' has different specs in " + a + " (spec " + Fnv1aHex(kSpec) +
                                      ") and " + b),
            std::string::npos)
      << r.status().message();
  // Nothing is left: no output, no partial file.
  EXPECT_FALSE(std::filesystem::exists(Path("out.db")));
  for (const auto& f : std::filesystem::directory_iterator(dir_)) {
    EXPECT_NE(f.path().filename().string().rfind("out.db", 0), 0u) << f.path();
  }
}

TEST_F(MergeTest, OlderSchemaInputIsRefusedNamingBoth) {
  const std::string a = Unit("a.db", "node1", {0});
  const std::string old = Path("old.db");
  ASSERT_TRUE(Store::CreateAtSchemaVersionForTesting(old, 9).ok());
  ASSERT_TRUE(Merge(Path("out.db"), {a}).ok());
  const auto before = Rows(Path("out.db"));
  auto r = Merge(Path("out.db"), {a, old});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(old + " has results schema version 9 and " + Path("out.db") + " " +
                                      std::to_string(kStoreSchemaVersion)),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(Rows(Path("out.db")), before);
  // The input is the output: refused too.
  auto self = Merge(Path("out.db"), {Path("out.db")});
  ASSERT_FALSE(self.ok());
  EXPECT_NE(self.status().message().find("is the output"), std::string::npos) << self.status().message();
}

TEST_F(MergeTest, SameRunDifferentPointsIsRefused) {
  const std::string a = Unit("a.db", "node1", {0, 1});
  const std::string b = Unit("b.db", "node2", {1}, kSpec, 250);
  const std::string out = Path("out.db");
  ASSERT_TRUE(Merge(out, {a}).ok());
  const auto before = Rows(out);
  auto r = Merge(out, {b});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("run 1-ST / default / repetition 1 / alone of experiment 'kv' is in " + out +
                                      " and " + b + " with different contents"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(Rows(out), before);
  // Both in one call: the message names the input the run came from.
  auto both = Merge(Path("both.db"), {a, b});
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("is in " + a + " and " + b), std::string::npos) << both.status().message();
}

// A merge killed after its second run leaves the output as it was: one transaction.
TEST_F(MergeTest, KillMidwayLeavesOutAsItWas) {
  const std::string a = Unit("a.db", "node1", {0}), b = Unit("b.db", "node2", {1, 2, 3});
  const std::string out = Path("out.db");
  ASSERT_TRUE(Merge(out, {a}).ok());
  const auto before = Rows(out);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    MergeOptions o;
    o.after_run = [](int runs) {
      if (runs == 2) ::raise(SIGKILL);
    };
    auto r = MergeFiles(*MakePosixPlatform(), out, {b}, o);
    ::_exit(r.ok() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  auto s = Store::Open(out, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->IntegrityCheck().ok());
  EXPECT_EQ(Rows(out), before);
  // And the same merge, not killed, completes.
  auto r = Merge(out, {b});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->runs_added, 3);
}

}  // namespace
}  // namespace ream
