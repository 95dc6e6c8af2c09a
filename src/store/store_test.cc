#include "store/store.h"

#include <filesystem>

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace ream {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ream-store-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "r.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ExperimentRecord Exp(const std::string& name) {
    ExperimentRecord e;
    e.name = name;
    e.spec_text = "name = \"" + name + "\"\n";
    e.spec = {{"name", name}};
    e.spec_hash = "abc";
    e.status = "running";
    e.created_ns = 123;
    e.qos.fixed_target_us = 500.0;
    e.workload = "kv";
    e.protocol = "ream";
    return e;
  }

  // A new experiment `name` with one run in `s`; the run's id (0 after a test failure).
  int64_t NewRun(Store& s, const std::string& name) {
    auto id = s.CreateExperiment(Exp(name));
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    RunRecord r;
    r.experiment_id = id.value_or(0);
    r.key = {"1-ST", "default", 0};
    auto run = s.EnsureRun(r);
    EXPECT_TRUE(run.ok()) << run.status().ToString();
    return run.ok() ? run->id : 0;
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(StoreTest, CreatesSchemaAtCurrentVersionInWalMode) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  auto st = s->db().Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->Step());
  EXPECT_EQ(st->Text(0), "wal");
  EXPECT_TRUE(s->IntegrityCheck().ok());
}

TEST_F(StoreTest, RoundTripsExperimentRunPointHistogramTimeline) {
  int64_t point_id = 0;
  Histogram h;
  for (int i = 1; i <= 1000; ++i) h.Record(i * 1000);
  {
    auto s = Store::Open(path_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    auto id = s->CreateExperiment(Exp("e1"));
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    EnvironmentRecord env;
    env.ream_version = "0.1.0";
    env.kernel = "6.1";
    env.topology = {{"cpus", 2}};
    env.doctor = nlohmann::json::array({{{"name", "cgroup.cpuset"}}});
    ASSERT_TRUE(s->RecordEnvironment(*id, env).ok());
    RunRecord r;
    r.experiment_id = *id;
    r.key = {"1-ST", "default", 0};
    r.workload_cpus = "0";
    auto run = s->EnsureRun(r);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    auto again = s->EnsureRun(r);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->id, run->id);

    PointData d;
    d.point.run_id = run->id;
    d.point.target_qps = 1000;
    d.point.valid = true;
    d.point.latency_p95_us = 123.5;
    d.point.issued = 5000;
    d.point.unavailable["llc_occupancy_bytes"] = "resctrl not mounted";
    d.histograms[kHistSojourn] = h;
    d.timeline = {{"interval_ms", 250}, {"samples", nlohmann::json::array({1, 2})}};
    auto pid = s->InsertPoint(d);
    ASSERT_TRUE(pid.ok()) << pid.status().ToString();
    point_id = *pid;
    // The same load level twice in one run is refused: each point is stored exactly once.
    auto dup = s->InsertPoint(d);
    EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  }
  auto s = Store::OpenReadOnly(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto e = s->FindExperiment("e1");
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->qos.fixed_target_us.value_or(0), 500.0);
  EXPECT_EQ((*e)->workload, "kv");
  auto env = s->GetEnvironment((*e)->id);
  ASSERT_TRUE(env.ok() && env->has_value());
  EXPECT_EQ((*env)->kernel, "6.1");
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  auto points = s->ListPoints((*runs)[0].id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  const PointRecord& p = (*points)[0];
  EXPECT_EQ(p.latency_p95_us.value_or(-1), 123.5);
  EXPECT_EQ(p.issued.value_or(-1), 5000);
  EXPECT_FALSE(p.cpu_util.has_value());  // never measured: NULL, not 0
  EXPECT_EQ(p.unavailable.at("llc_occupancy_bytes"), "resctrl not mounted");
  auto hs = s->GetHistograms(point_id);
  ASSERT_TRUE(hs.ok());
  EXPECT_EQ(hs->at(kHistSojourn).count(), 1000u);
  EXPECT_EQ(hs->at(kHistSojourn).ValueAtQuantile(0.95), h.ValueAtQuantile(0.95));
  auto tl = s->GetTimeline(point_id);
  ASSERT_TRUE(tl.ok());
  EXPECT_EQ((*tl)["interval_ms"], 250);
}

TEST_F(StoreTest, ALoadLevelMayBeMeasuredAgainAsAFurtherAttempt) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  int64_t run_id = NewRun(*s, "e");
  ASSERT_FALSE(HasFailure());
  PointData d;
  d.point.run_id = run_id;
  d.point.target_qps = 1000;
  d.point.valid = false;
  d.point.invalid_reasons = {"timely ratio 96.6 % < 97.5 %"};
  ASSERT_TRUE(s->InsertPoint(d).ok());
  d.point.seq = 1;
  d.point.attempt = 1;
  d.point.valid = true;
  d.point.invalid_reasons.clear();
  ASSERT_TRUE(s->InsertPoint(d).ok());
  auto again = s->InsertPoint(d);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(again.status().message().find("attempt 1"), std::string::npos) << again.status().message();
  auto points = s->ListPoints(run_id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  EXPECT_EQ((*points)[0].attempt, 0);
  EXPECT_FALSE((*points)[0].valid.value_or(true));
  EXPECT_EQ((*points)[1].attempt, 1);
  EXPECT_TRUE((*points)[1].valid.value_or(false));
  EXPECT_EQ(PointToJson((*points)[1])["attempt"], 1);
}

// A database as ream left it before points had attempts (schema 1): the migration rebuilds
// `points` and keeps every point with its histograms and timeline.
TEST_F(StoreTest, MigratesSchemaOneKeepingPointsHistogramsAndTimelines) {
  int64_t run_id = 0;
  {
    auto s = Store::CreateAtSchemaVersionForTesting(path_, 1);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->schema_version(), 1);
    run_id = NewRun(*s, "old");
    ASSERT_FALSE(HasFailure());
    ASSERT_TRUE(s->db()
                    .Exec("INSERT INTO points (id, run_id, seq, target_qps, status, valid, latency_p95_us, "
                          "started_ns) VALUES (7, " + std::to_string(run_id) + ", 0, 1000, 'ok', 1, 250, 1);"
                          "INSERT INTO histograms (point_id, kind, encoded) VALUES (7, 'sojourn', 'x');"
                          "INSERT INTO timelines (point_id, timeline_json) VALUES (7, '{\"interval_s\":0.25}');")
                    .ok());
  }
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  EXPECT_TRUE(s->IntegrityCheck().ok());
  auto points = s->ListPoints(run_id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].id, 7);
  EXPECT_EQ((*points)[0].attempt, 0);
  EXPECT_EQ((*points)[0].latency_p95_us.value_or(0), 250);
  auto count = [&](const std::string& table) {
    auto st = s->db().Prepare("SELECT count(*) FROM " + table);
    return st.ok() && st->Step().value_or(false) ? st->Int(0) : -1;
  };
  EXPECT_EQ(count("histograms"), 1);
  auto tl = s->GetTimeline(7);
  ASSERT_TRUE(tl.ok());
  EXPECT_EQ((*tl)["interval_s"], 0.25);
  // The rebuilt table keeps its constraints: a second attempt at the level is a new point,
  // and removing the run still removes its points and their histograms.
  PointData d;
  d.point.run_id = run_id;
  d.point.target_qps = 1000;
  EXPECT_EQ(s->InsertPoint(d).status().code(), StatusCode::kAlreadyExists);
  d.point.attempt = 1;
  EXPECT_TRUE(s->InsertPoint(d).ok());
  ASSERT_TRUE(s->db().Exec("DELETE FROM runs").ok());
  EXPECT_EQ(count("points"), 0);
  EXPECT_EQ(count("histograms"), 0);
  EXPECT_EQ(count("timelines"), 0);
}

TEST_F(StoreTest, DuplicateExperimentNameIsRefusedWithAHint) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->CreateExperiment(Exp("e")).ok());
  auto again = s->CreateExperiment(Exp("e"));
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(again.status().message().find("--resume"), std::string::npos);
}

TEST_F(StoreTest, RefusesForeignAndNewerDatabases) {
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  auto s = Store::Open(path_);
  EXPECT_EQ(s.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(s.status().message().find("not a ream results store"), std::string::npos);

  std::string newer = (dir_ / "newer.db").string();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  auto n = Store::Open(newer);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(n.status().message().find("newer"), std::string::npos);
}

TEST_F(StoreTest, MissingDatabaseIsNotFoundWhenNotCreating) {
  auto s = Store::OpenReadOnly((dir_ / "absent.db").string());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ream
