#include "store/store.h"

#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "platform/test_directory.h"

namespace ream {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::FreshTestDirectory("ream-store-test");
    path_ = (dir_ / "r.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ExperimentRecord Exp(const std::string& name) {
    ExperimentRecord e;
    e.name = name;
    e.spec_text = "name = \"" + name + "\"\n";
    e.spec = {{"name", name}};
    e.spec_hash = "abc";
    e.status = ExperimentStatus::kRunning;
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

// Whatever the umask, the database and its journal get no group/other write: another local
// user must not be able to alter hours of results.
TEST_F(StoreTest, DatabaseAndJournalAreCreatedWithoutGroupOrOtherWrite) {
  const mode_t old = ::umask(0);
  {
    auto s = Store::Open(path_);
    ::umask(old);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_TRUE(s->CreateExperiment(Exp("modes")).ok());
    for (const std::string& f : {path_, path_ + "-wal"}) {
      struct stat st {};
      ASSERT_EQ(::stat(f.c_str(), &st), 0) << f;
      EXPECT_EQ(st.st_mode & 022, 0u) << f << " mode " << std::oct << (st.st_mode & 0777);
    }
  }
}

// A link where the database is expected (or a directory link on its path) would redirect
// every write: refused, naming the path, and nothing is created behind it.
TEST_F(StoreTest, DatabasePathThroughASymlinkIsRefused) {
  const std::string elsewhere = (dir_ / "elsewhere.db").string();
  std::filesystem::create_symlink(elsewhere, path_);
  for (bool read_only : {false, true}) {
    auto s = read_only ? Store::OpenReadOnly(path_) : Store::Open(path_);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find("refusing results database " + path_ + ": it is a symbolic link"),
              std::string::npos)
        << s.status().message();
  }
  EXPECT_FALSE(std::filesystem::exists(elsewhere));
  std::filesystem::create_directories(dir_ / "real");
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "linkdir");
  auto through = Store::Open((dir_ / "linkdir" / "r.db").string());
  ASSERT_FALSE(through.ok());
  EXPECT_NE(through.status().message().find("symbolic link"), std::string::npos) << through.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "real" / "r.db"));
}

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
    env.timing = {{"tolerance_us", 20}, {"cpus", {{{"cpu", 0}, {"late_fraction", 0.006}}}}};
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
    d.point.target_load = 1000;
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
  EXPECT_DOUBLE_EQ((*env)->timing["cpus"][0]["late_fraction"].get<double>(), 0.006);
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
  d.point.target_load = 1000;
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
  EXPECT_EQ(PointToJson((*points)[1], LoadAxis::kQps)["attempt"], 1);
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
  d.point.target_load = 1000;
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

// The database of src/store/testdata/schema_v2 (written by a ream of schema 2, before the load
// axis): opened read-write it is migrated in place, every point kept at its level.
TEST_F(StoreTest, MigratesTheSchemaTwoFixtureToTheLoadAxis) {
  std::filesystem::copy_file(std::string(REAM_SOURCE_DIR) + "/src/store/testdata/schema_v2/fixture.sqlite",
                             path_);
  auto s = Store::Open(path_, /*create=*/false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  EXPECT_TRUE(s->IntegrityCheck().ok());
  auto exps = s->ListExperiments();
  ASSERT_TRUE(exps.ok()) << exps.status().ToString();
  ASSERT_EQ(exps->size(), 2u);
  std::vector<double> levels;
  int64_t a_run = 0;
  for (const auto& e : *exps) {
    EXPECT_EQ(e.load_axis, LoadAxis::kQps) << e.name;
    EXPECT_EQ(e.status, ExperimentStatus::kComplete) << e.name;
    auto runs = s->ListRuns(e.id);
    ASSERT_TRUE(runs.ok());
    for (const auto& r : *runs) {
      EXPECT_EQ(r.status, RunStatus::kComplete);
      a_run = r.id;
      auto points = s->ListPoints(r.id);
      ASSERT_TRUE(points.ok());
      for (const auto& p : *points) {
        if (e.name == "fixture-grid" && r.key.partition_label == "cpu_quota=50%") {
          levels.push_back(p.target_load);
        }
        EXPECT_EQ(p.status, PointStatus::kOk);
      }
    }
  }
  EXPECT_EQ(levels, (std::vector<double>{500, 2000, 8000, 30000}));
  // The uniqueness moved with the column: one point per run, level and attempt.
  auto st = s->db().Prepare("SELECT sql FROM sqlite_master WHERE name = 'points'");
  ASSERT_TRUE(st.ok() && st->Step().value_or(false));
  EXPECT_NE(st->Text(0).find("UNIQUE (run_id, target_load, attempt)"), std::string::npos) << st->Text(0);
  EXPECT_EQ(st->Text(0).find("target_qps"), std::string::npos) << st->Text(0);
  PointData d;
  d.point.run_id = a_run;
  d.point.target_load = 500;  // the knee run's first level
  EXPECT_EQ(s->InsertPoint(d).status().code(), StatusCode::kAlreadyExists);
  d.point.attempt = 7;
  EXPECT_TRUE(s->InsertPoint(d).ok());
}

// Schema 5 -> 6: a point's network path (the LogGP knobs' methods and calibration) is a column
// of its own; the points that existed before have none, a new point's comes back whole.
TEST_F(StoreTest, MigratesSchemaFiveAndKeepsANetworkPathWithEveryPoint) {
  int64_t run_id = 0;
  {
    auto s = Store::CreateAtSchemaVersionForTesting(path_, 5);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    run_id = NewRun(*s, "v5");
    ASSERT_FALSE(HasFailure());
    PointData old;
    old.point.run_id = run_id;
    old.point.target_load = 100;
    old.point.network = {{"ignored", true}};  // schema 5 has no column for it
    ASSERT_TRUE(s->InsertPoint(old).ok());
  }
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  EXPECT_TRUE(s->IntegrityCheck().ok());
  NetworkPath n;
  n.methods["net_latency"] = "relay (message granularity, ream framing)";
  n.relay_added_us = 12.5;
  n.direct_rtt_us = 40;
  n.target = "relay 127.0.0.1:4242";
  n.calibrations.push_back({.knob = "net_latency", .requested = 200, .measured = 260, .unit = "us",
                            .method = "round trip at 200 QPS through the relay at L and at 0, halved",
                            .note = "rtt 700 us vs 180 us", .warning = true});
  n.calibrations.push_back({.knob = "net_gap", .requested = 50, .unit = "us", .note = "not measured"});
  PointData d;
  d.point.run_id = run_id;
  d.point.target_load = 200;
  d.point.network = n.ToJson();
  ASSERT_TRUE(s->InsertPoint(d).ok());
  auto points = s->ListPoints(run_id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 2u);
  EXPECT_TRUE((*points)[0].network.is_null());
  EXPECT_FALSE(PointToJson((*points)[0], LoadAxis::kQps).contains("network"));
  NetworkPath back = NetworkPath::FromJson((*points)[1].network);
  EXPECT_EQ(back.methods.at("net_latency"), "relay (message granularity, ream framing)");
  ASSERT_EQ(back.calibrations.size(), 2u);
  EXPECT_DOUBLE_EQ(*back.calibrations[0].measured, 260);
  EXPECT_TRUE(back.calibrations[0].warning);
  EXPECT_FALSE(back.calibrations[1].measured.has_value());
  EXPECT_TRUE(back.warning());
  EXPECT_DOUBLE_EQ(*back.relay_added_us, 12.5);
  EXPECT_EQ(PointToJson((*points)[1], LoadAxis::kQps)["network"]["calibrations"][0]["unit"], "us");
}

// Schema 7 gives the connections the server closed their own columns; a schema-6 point takes
// them from its generator JSON when that generator counted them, and keeps NULL otherwise.
TEST_F(StoreTest, MigratesSchemaSixTakingReconnectionsFromTheGeneratorJson) {
  int64_t run_id = 0;
  {
    auto s = Store::CreateAtSchemaVersionForTesting(path_, 6);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    run_id = NewRun(*s, "v6");
    ASSERT_FALSE(HasFailure());
    PointData reconnecting;
    reconnecting.point.run_id = run_id;
    reconnecting.point.target_load = 100;
    reconnecting.point.generator = {
        {"reconnections", 19},
        {"error_reasons",
         {{"connection lost: server closed the connection (Connection: close)", 3},
          {"not sent: every connection was closed", 2},
          {"server error: 500", 7}}}};
    reconnecting.point.reconnections = 99;  // schema 6 has no column: not written
    ASSERT_TRUE(s->InsertPoint(reconnecting).ok());
    PointData older;  // a generator from before reconnections: no key
    older.point.run_id = run_id;
    older.point.target_load = 200;
    older.point.generator = {{"error_reasons", {{"connection lost: EOF", 4}}}};
    ASSERT_TRUE(s->InsertPoint(older).ok());
  }
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  EXPECT_TRUE(s->IntegrityCheck().ok());
  auto points = s->ListPoints(run_id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 2u);
  const PointRecord& a = (*points)[0];
  ASSERT_TRUE(a.reconnections.has_value());
  EXPECT_EQ(*a.reconnections, 19);
  ASSERT_TRUE(a.lost_requests.has_value());
  EXPECT_EQ(*a.lost_requests, 5);  // the server's error answer is not a lost request
  EXPECT_EQ(a.lost_reasons.size(), 2u);
  EXPECT_EQ(a.lost_reasons["connection lost: server closed the connection (Connection: close)"], 3);
  EXPECT_EQ(PointToJson(a, LoadAxis::kQps)["reconnections"], 19);
  const PointRecord& b = (*points)[1];
  EXPECT_FALSE(b.reconnections.has_value());
  EXPECT_FALSE(b.lost_requests.has_value());
  EXPECT_TRUE(b.lost_reasons.is_null());
  EXPECT_FALSE(PointToJson(b, LoadAxis::kQps).contains("reconnections"));
  EXPECT_FALSE(PointToJson(b, LoadAxis::kQps).contains("lost_requests"));

  // Written at schema 7, the columns round-trip.
  PointData d;
  d.point.run_id = run_id;
  d.point.target_load = 300;
  d.point.reconnections = 0;
  d.point.lost_requests = 0;
  d.point.lost_reasons = nlohmann::json::object();
  ASSERT_TRUE(s->InsertPoint(d).ok());
  points = s->ListPoints(run_id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[2].reconnections, std::optional<int64_t>(0));
  EXPECT_EQ((*points)[2].lost_requests, std::optional<int64_t>(0));
  EXPECT_TRUE((*points)[2].lost_reasons.is_object());
}

// Schema 12 keeps what ended a point measured until known; a schema-10 point (fixed duration)
// reads back without, and its JSON is as it was.
TEST_F(StoreTest, MigratesSchemaTenKeepingPointsOfFixedDurationAsTheyWere) {
  int64_t run_id = 0;
  {
    auto s = Store::CreateAtSchemaVersionForTesting(path_, 10);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    run_id = NewRun(*s, "v10");
    ASSERT_FALSE(HasFailure());
    PointData fixed;
    fixed.point.run_id = run_id;
    fixed.point.target_load = 100;
    fixed.point.duration_s = 1.0;
    fixed.point.until_decided = "interval: not written";  // schema 10 has no column
    ASSERT_TRUE(s->InsertPoint(fixed).ok());
  }
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  EXPECT_TRUE(s->IntegrityCheck().ok());
  PointData until;
  until.point.run_id = run_id;
  until.point.target_load = 200;
  until.point.duration_s = 0.45;
  until.point.until_decided = "interval: interval 3.8 % <= 5 %";
  until.point.until_interval = 0.038;
  ASSERT_TRUE(s->InsertPoint(until).ok());
  auto points = s->ListPoints(run_id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 2u);
  EXPECT_FALSE((*points)[0].until_decided.has_value());
  EXPECT_FALSE((*points)[0].until_interval.has_value());
  EXPECT_FALSE(PointToJson((*points)[0], LoadAxis::kQps).contains("until_decided"));
  EXPECT_EQ((*points)[1].until_decided, std::optional<std::string>("interval: interval 3.8 % <= 5 %"));
  EXPECT_EQ((*points)[1].until_interval, std::optional<double>(0.038));
  EXPECT_EQ(PointToJson((*points)[1], LoadAxis::kQps)["until_decided"], "interval: interval 3.8 % <= 5 %");
}

// Schema 9 gives a batch subject's point its figures (batch_json); a schema-8 point (a server's,
// or a co-located one) keeps its tenants and reads back with no batch figures.
TEST_F(StoreTest, MigratesSchemaEightToBatchPoints) {
  int64_t run_id = 0;
  {
    auto s = Store::CreateAtSchemaVersionForTesting(path_, 8);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    run_id = NewRun(*s, "v8");
    ASSERT_FALSE(HasFailure());
    PointData d;
    d.point.run_id = run_id;
    d.point.target_load = 100;
    d.point.corunners["stream"].completions = 3;
    d.point.batch = {{"completions", 99}};  // schema 8 has no column: not written
    ASSERT_TRUE(s->InsertPoint(d).ok());
  }
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  EXPECT_TRUE(s->IntegrityCheck().ok());
  auto points = s->ListPoints(run_id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_TRUE((*points)[0].batch.is_null());
  EXPECT_EQ((*points)[0].corunners.at("stream").completions, 3);
  EXPECT_FALSE(PointToJson((*points)[0], LoadAxis::kQps).contains("batch"));

  // Written at schema 9, the figures round-trip and reach the point's JSON.
  PointData b;
  b.point.run_id = run_id;
  b.point.target_load = 2;
  b.point.batch = {{"program", "xz"}, {"copies", 2}, {"completions", 7}, {"run_time_p95_s", 1.25}};
  ASSERT_TRUE(s->InsertPoint(b).ok());
  points = s->ListPoints(run_id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  EXPECT_EQ((*points)[1].batch["program"], "xz");
  EXPECT_EQ((*points)[1].batch["completions"], 7);
  EXPECT_DOUBLE_EQ((*points)[1].batch["run_time_p95_s"].get<double>(), 1.25);
  EXPECT_EQ(PointToJson((*points)[1], LoadAxis::kQps)["batch"]["copies"], 2);
}

// Readers never write: an older database is migrated in a private copy, the file left as is.
TEST_F(StoreTest, ReadOnlyOpenOfAnOlderSchemaLeavesTheFileAlone) {
  int64_t run_id = 0;
  {
    auto s = Store::CreateAtSchemaVersionForTesting(path_, 2);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    run_id = NewRun(*s, "old");
    ASSERT_FALSE(HasFailure());
    ASSERT_TRUE(s->db()
                    .Exec("INSERT INTO points (run_id, seq, target_qps, status, valid, started_ns) "
                          "VALUES (" + std::to_string(run_id) + ", 0, 1500, 'ok', 1, 1)")
                    .ok());
  }
  auto user_version = [&] {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr);
    int v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
  };
  ASSERT_EQ(user_version(), 2);
  {
    auto s = Store::OpenReadOnly(path_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
    EXPECT_EQ(s->path(), path_);
    auto e = s->FindExperiment("old");
    ASSERT_TRUE(e.ok() && e->has_value());
    EXPECT_EQ((*e)->load_axis, LoadAxis::kQps);
    auto points = s->ListPoints(run_id);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    ASSERT_EQ(points->size(), 1u);
    EXPECT_EQ((*points)[0].target_load, 1500);
  }
  EXPECT_EQ(user_version(), 2);
}

TEST_F(StoreTest, RecordsTheLoadAxisAndTheStatusesByName) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  auto e = Exp("streams");
  e.load_axis = LoadAxis::kSessions;
  auto id = s->CreateExperiment(e);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  ASSERT_TRUE(s->SetExperimentStatus(*id, ExperimentStatus::kPartial, "only 1-ST", 5).ok());
  RunRecord r;
  r.experiment_id = *id;
  r.key = {"1-ST", "default", 0};
  auto run = s->EnsureRun(r);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, RunStatus::kPending);
  run->status = RunStatus::kInterrupted;
  ASSERT_TRUE(s->UpdateRun(*run).ok());
  PointData d;
  d.point.run_id = run->id;
  d.point.target_load = 16;
  d.point.status = PointStatus::kFailed;
  ASSERT_TRUE(s->InsertPoint(d).ok());

  auto text = [&](const std::string& sql) {
    auto st = s->db().Prepare(sql);
    return st.ok() && st->Step().value_or(false) ? st->Text(0) : std::string("?");
  };
  EXPECT_EQ(text("SELECT load_axis || ' ' || status FROM experiments"), "sessions partial");
  EXPECT_EQ(text("SELECT status FROM runs"), "interrupted");
  EXPECT_EQ(text("SELECT status || ' ' || target_load FROM points"), "failed 16.0");
  auto back = s->GetExperiment(*id);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->load_axis, LoadAxis::kSessions);
  EXPECT_EQ(back->status, ExperimentStatus::kPartial);
  auto runs = s->ListRuns(*id);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ((*runs)[0].status, RunStatus::kInterrupted);
  auto points = s->ListPoints(run->id);
  ASSERT_TRUE(points.ok());
  EXPECT_EQ((*points)[0].status, PointStatus::kFailed);
  auto j = PointToJson((*points)[0], LoadAxis::kSessions);
  EXPECT_EQ(j["target_sessions"], 16);
  EXPECT_FALSE(j.contains("target_qps"));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(PointToJson((*points)[0], LoadAxis::kQps)["target_qps"], 16);

  // A name this build does not know is an error naming it, not a silent default.
  ASSERT_TRUE(s->db().Exec("UPDATE runs SET status = 'paused'").ok());
  auto bad = s->ListRuns(*id);
  EXPECT_EQ(bad.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(bad.status().message().find("'paused'"), std::string::npos) << bad.status().message();
  ASSERT_TRUE(s->db().Exec("UPDATE experiments SET load_axis = 'rps'").ok());
  EXPECT_EQ(s->GetExperiment(*id).status().code(), StatusCode::kCorrupt);
}

TEST(StoreStatuses, NamesRoundTripAndOthersAreRefused) {
  for (auto st : {PointStatus::kOk, PointStatus::kFailed}) {
    EXPECT_EQ(ParsePointStatus(StatusName(st)), st);
  }
  for (auto st : {RunStatus::kPending, RunStatus::kRunning, RunStatus::kComplete,
                  RunStatus::kFailed, RunStatus::kInterrupted, RunStatus::kUnavailable}) {
    EXPECT_EQ(ParseRunStatus(StatusName(st)), st);
  }
  for (auto st : {ExperimentStatus::kRunning, ExperimentStatus::kComplete, ExperimentStatus::kFailed,
                  ExperimentStatus::kInterrupted, ExperimentStatus::kPartial}) {
    EXPECT_EQ(ParseExperimentStatus(StatusName(st)), st);
  }
  EXPECT_EQ(StatusName(PointStatus::kOk), "ok");
  EXPECT_EQ(StatusName(RunStatus::kPending), "pending");
  EXPECT_EQ(StatusName(ExperimentStatus::kPartial), "partial");
  EXPECT_EQ(ParsePointStatus("OK"), std::nullopt);
  EXPECT_EQ(ParseRunStatus("ok"), std::nullopt);
  EXPECT_EQ(ParseExperimentStatus("pending"), std::nullopt);
}

TEST(LoadAxis, NamesRoundTripAndOthersAreRefused) {
  for (LoadAxis a : kLoadAxes) EXPECT_EQ(ParseLoadAxis(LoadAxisName(a)), a);
  EXPECT_EQ(LoadAxisName(LoadAxis::kQps), "qps");
  EXPECT_EQ(LoadAxisName(LoadAxis::kSessions), "sessions");
  EXPECT_EQ(LoadAxisUnit(LoadAxis::kQps), "QPS");
  EXPECT_EQ(LoadAxisUnit(LoadAxis::kSessions), "sessions");
  EXPECT_EQ(LoadAxisName(LoadAxis::kCopies), "copies");
  EXPECT_EQ(LoadAxisUnit(LoadAxis::kCopies), "copies");
  EXPECT_EQ(ParseLoadAxis("QPS"), std::nullopt);
  EXPECT_EQ(ParseLoadAxis(""), std::nullopt);
}

TEST_F(StoreTest, MissingDatabaseIsNotFoundWhenNotCreating) {
  auto s = Store::OpenReadOnly((dir_ / "absent.db").string());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

TEST(StoreSweep, ARunKeepsHowItsLevelsWereChosen) {
  auto dir = std::filesystem::temp_directory_path() / ("ream-store-sweep-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    auto s = Store::Open((dir / "r.db").string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ExperimentRecord e;
    e.name = "auto";
    e.spec = nlohmann::json::object();
    auto id = s->CreateExperiment(e);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    RunRecord r;
    r.experiment_id = *id;
    r.key = {"1-ST", "default", 0};
    auto run = s->EnsureRun(r);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    EXPECT_TRUE(run->sweep.is_null());  // the spec's levels: nothing stored
    run->sweep = {{"levels", {100, 200}}, {"why", "2 probe(s)"}};
    ASSERT_TRUE(s->UpdateRun(*run).ok());
  }
  auto s = Store::OpenReadOnly((dir / "r.db").string());
  ASSERT_TRUE(s.ok());
  auto runs = s->ListRuns(1);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  EXPECT_EQ((*runs)[0].sweep["levels"], nlohmann::json({100, 200}));
  EXPECT_EQ((*runs)[0].sweep["why"], "2 probe(s)");
  std::filesystem::remove_all(dir);
}

// A shared run's co-runners and each point's figures are stored through their type and read
// back as they were written; a stored document of the wrong shape is an error that names the
// database, the point and the key, not a figure silently read as missing.
TEST_F(StoreTest, CorunnerFiguresRoundTripAndMalformedOnesAreNamed) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto id = s->CreateExperiment(Exp("shared"));
  ASSERT_TRUE(id.ok());
  RunRecord r;
  r.experiment_id = *id;
  r.key = {"1-ST", "default", 0, "xz+kv2"};
  auto run = s->EnsureRun(r);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_FALSE(run->corunners.has_value());
  CorunnerSetRecord set;
  set.corunners.resize(2);
  set.corunners[0].name = "xz";
  set.corunners[0].batch = "xz";
  set.corunners[1].name = "kv2";
  set.corunners[1].builtin = "kv";
  set.corunners[1].load = CorunnerLoadRecord{.qps = 500, .connections = 1, .protocol = "ream"};
  TenantFigures xz{.window_s = 1, .cpu_s = 0.2, .completions = 3, .cpu_share = 0.2, .completions_per_s = 3};
  TenantFigures kv{.window_s = 1, .cpu_share = 0.1};
  kv.load = TenantLoadFigures{.target_qps = 500, .protocol = "ream", .throughput_qps = 499, .valid = true};
  set.SetAlone({{"xz", xz}, {"kv2", kv}}, {});
  run->corunners = set;
  ASSERT_TRUE(s->UpdateRun(*run).ok());
  PointData d;
  d.point.run_id = run->id;
  d.point.target_load = 1000;
  d.point.corunners = {{"xz", xz}, {"kv2", kv}};
  auto point_id = s->InsertPoint(d);
  ASSERT_TRUE(point_id.ok()) << point_id.status().ToString();

  auto runs = s->ListRuns(*id);
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].key.corunner_set, "xz+kv2");
  ASSERT_TRUE((*runs)[0].corunners.has_value());
  EXPECT_EQ(*(*runs)[0].corunners, set);
  auto points = s->ListPoints(run->id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].corunners, d.point.corunners);
  EXPECT_DOUBLE_EQ(*(*points)[0].corunners.at("kv2").Throughput(ThroughputUnit::kQps), 499);

  ASSERT_TRUE(s->db().Exec("UPDATE points SET tenants_json = '{\"xz\": {\"completions\": \"three\"}}'").ok());
  points = s->ListPoints(run->id);
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(points.status().message().find(path_ + ": point " + std::to_string(*point_id) +
                                           ": co-runner 'xz': \"completions\" should be an integer"),
            std::string::npos)
      << points.status().message();
  ASSERT_TRUE(s->db().Exec("UPDATE runs SET tenants_json = '{\"corunners\": 3}'").ok());
  runs = s->ListRuns(*id);
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(runs.status().message().find(path_ + ": run " + std::to_string(run->id)), std::string::npos)
      << runs.status().message();
}

// The co-runners' figures of a database written before they were a type (testdata/schema_v9,
// README.md there) decode into it: every kind of co-runner reads as what it measured. (A copy:
// opening the fixture itself would leave SQLite's -shm file beside it in the source tree.)
TEST_F(StoreTest, CorunnersWrittenBeforeTheTypeReadTyped) {
  std::filesystem::copy_file(std::string(REAM_SOURCE_DIR) + "/src/store/testdata/schema_v9/fixture.sqlite", path_);
  auto s = Store::OpenReadOnly(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto e = s->FindExperiment("fixture-shared");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  const RunRecord* three = nullptr;
  for (const auto& r : *runs) {
    if (r.key.corunner_set == "xz+cpu+kv2") three = &r;
  }
  ASSERT_NE(three, nullptr);
  ASSERT_TRUE(three->corunners && three->corunners->alone_measured);
  const CorunnerRecord* xz = three->corunners->Find("xz");
  const CorunnerRecord* cpu = three->corunners->Find("cpu");
  const CorunnerRecord* kv2 = three->corunners->Find("kv2");
  ASSERT_TRUE(xz && cpu && kv2);
  EXPECT_EQ(xz->batch, "xz");
  EXPECT_TRUE(xz->restart);
  EXPECT_EQ(cpu->pressure, "cpu");
  EXPECT_EQ(cpu->intensity, 50);
  EXPECT_EQ(kv2->builtin, "kv");
  ASSERT_TRUE(kv2->load.has_value());
  EXPECT_EQ(kv2->load->qps, 500);
  // Alone: the batch job completed runs, the source and the server got CPU, the server's own
  // load measured a tail.
  ASSERT_TRUE(xz->alone && cpu->alone && kv2->alone);
  EXPECT_GT(xz->alone->completions, 0);
  EXPECT_GT(xz->alone->Throughput(ThroughputUnit::kCompletionsPerSecond).value_or(0), 0);
  EXPECT_GT(cpu->alone->Throughput(ThroughputUnit::kCpuSecondsPerSecond).value_or(0), 0);
  ASSERT_TRUE(kv2->alone->load.has_value());
  EXPECT_TRUE(kv2->alone->load->measured()) << kv2->alone->load->unavailable;
  EXPECT_GT(kv2->alone->load->latency_p95_us.value_or(0), 0);
  auto points = s->ListPoints(three->id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_FALSE(points->empty());
  for (const auto& p : *points) {
    EXPECT_EQ(p.corunners.size(), 3u);
    ASSERT_TRUE(p.corunners.contains("kv2"));
    EXPECT_TRUE(p.corunners.at("kv2").load.has_value());
    EXPECT_FALSE(p.corunners.at("cpu").load.has_value());
  }
}

// Schema 10 names each run's host: the runs of a database written before ran on their
// experiment's one recorded host, and that environment is the first of its host environments.
TEST_F(StoreTest, MigratesSchemaNineToRunHosts) {
  std::filesystem::copy_file(std::string(REAM_SOURCE_DIR) + "/src/store/testdata/schema_v9/fixture.sqlite", path_);
  auto s = Store::Open(path_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  EXPECT_TRUE(s->IntegrityCheck().ok());
  auto exps = s->ListExperiments();
  ASSERT_TRUE(exps.ok());
  ASSERT_FALSE(exps->empty());
  for (const auto& e : *exps) {
    auto env = s->GetEnvironment(e.id);
    ASSERT_TRUE(env.ok() && env->has_value()) << e.name;
    ASSERT_FALSE((*env)->hostname.empty());
    auto runs = s->ListRuns(e.id);
    ASSERT_TRUE(runs.ok()) << runs.status().ToString();
    ASSERT_FALSE(runs->empty());
    for (const auto& r : *runs) {
      EXPECT_EQ(r.host, (*env)->hostname);
      EXPECT_TRUE(r.provenance.is_null());
    }
    auto st = s->db().Prepare("SELECT hostname, recorded_ns, timing_json FROM host_environments WHERE experiment_id = ?");
    ASSERT_TRUE(st.ok());
    st->Bind(1, e.id);
    ASSERT_TRUE(st->Step().value_or(false));
    EXPECT_EQ(st->Text(0), (*env)->hostname);
    EXPECT_EQ(st->Int(1), (*env)->recorded_ns);
    EXPECT_EQ(st->Text(2), (*env)->timing.dump());
    EXPECT_FALSE(st->Step().value_or(true));
  }
  // A run stored now keeps its host and provenance; a later update leaves them.
  RunRecord r;
  r.experiment_id = exps->front().id;
  r.key = {"9-ST", "default", 0};
  r.host = "node7";
  r.provenance = {{"slurm", {{"array_job_id", "42"}}}};
  auto run = s->EnsureRun(r);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  run->host = "elsewhere";
  run->status = RunStatus::kComplete;
  ASSERT_TRUE(s->UpdateRun(*run).ok());
  auto again = s->EnsureRun(r);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->host, "node7");
  EXPECT_EQ(again->provenance["slurm"]["array_job_id"], "42");
  EXPECT_EQ(again->status, RunStatus::kComplete);
}

// A manager's windows and actions round-trip typed, in order, with an unmeasured tail NULL (not
// 0); a window stored twice is refused; a database of schema 10 opens migrated, its runs kept,
// and takes windows after.
TEST_F(StoreTest, ManagerWindowsAndActionsRoundTrip) {
  {
    auto old = Store::CreateAtSchemaVersionForTesting(path_, 10);
    ASSERT_TRUE(old.ok()) << old.status().ToString();
    EXPECT_EQ(old->schema_version(), 10);
    NewRun(*old, "before");
    ManagerWindowRecord w;
    EXPECT_EQ(old->InsertManagerWindow(w).code(), StatusCode::kUnsupported);
  }
  auto s = Store::Open(path_, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->schema_version(), kStoreSchemaVersion);
  auto e = s->FindExperiment("before");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  const int64_t run = (*runs)[0].id;
  auto none = s->ListManagerWindows(run);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  ManagerWindowRecord w1;
  w1.run_id = run;
  w1.window = 1;
  w1.end_s = 1.0;
  w1.valid = true;
  w1.tail_us = 620;
  w1.target_us = 500;
  w1.slack = -0.24;
  w1.load_qps = 40000;
  w1.neighbour_throughput["stream"] = 0.93;
  w1.allocation["stream"]["cpu_quota"] = {0.9, "90%"};
  w1.allocation["stream"]["cpu_idle"] = {1, "normal"};
  w1.note = "slack -24.0 % below +5.0 %: a unit toward the subject: cpu_quota";
  w1.actions.push_back({.seq = 0, .tenant = "stream", .knob = "cpu_quota", .from = 1.0, .to = 0.9,
                        .from_text = "100%", .to_text = "90%", .reason = "slack -24.0 % below +5.0 %"});
  w1.actions.push_back({.seq = 1, .tenant = "subject", .knob = "llc_ways", .from = 5, .to = 6, .from_text = "5",
                        .to_text = "6", .reason = "ways", .failure = "no resctrl mount"});
  ManagerWindowRecord w0;
  w0.run_id = run;
  w0.window = 0;
  w0.end_s = 0.5;
  w0.valid = false;
  w0.invalid_because = "the generator sent 71 % of its requests on time";
  w0.target_us = 500;
  w0.note = "window 0 is not valid";
  // Out of order: read back in the windows' order.
  ASSERT_TRUE(s->InsertManagerWindow(w1).ok());
  ASSERT_TRUE(s->InsertManagerWindow(w0).ok());
  Status twice = s->InsertManagerWindow(w0);
  EXPECT_EQ(twice.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(twice.message().find("already has manager window 0"), std::string::npos) << twice.message();

  auto got = s->ListManagerWindows(run);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 2u);
  const ManagerWindowRecord& g0 = (*got)[0];
  EXPECT_EQ(g0.window, 0);
  EXPECT_FALSE(g0.valid);
  EXPECT_EQ(g0.invalid_because, w0.invalid_because);
  EXPECT_FALSE(g0.tail_us.has_value());  // not measured: NULL, never 0
  EXPECT_FALSE(g0.slack.has_value());
  EXPECT_TRUE(g0.actions.empty());
  const ManagerWindowRecord& g1 = (*got)[1];
  EXPECT_TRUE(g1.valid);
  EXPECT_DOUBLE_EQ(*g1.tail_us, 620);
  EXPECT_DOUBLE_EQ(*g1.slack, -0.24);
  EXPECT_DOUBLE_EQ(*g1.load_qps, 40000);
  EXPECT_DOUBLE_EQ(g1.neighbour_throughput.at("stream"), 0.93);
  EXPECT_EQ(g1.allocation.at("stream").at("cpu_quota").text, "90%");
  EXPECT_DOUBLE_EQ(g1.allocation.at("stream").at("cpu_idle").level, 1);
  EXPECT_EQ(g1.note, w1.note);
  ASSERT_EQ(g1.actions.size(), 2u);
  EXPECT_EQ(g1.actions[0].to_text, "90%");
  EXPECT_DOUBLE_EQ(g1.actions[0].to, 0.9);
  EXPECT_TRUE(g1.actions[0].failure.empty());
  EXPECT_EQ(g1.actions[1].failure, "no resctrl mount");

  // A document that is not what InsertManagerWindow writes is named, not read as something else.
  ASSERT_TRUE(s->db().Exec("UPDATE manager_windows SET allocation_json = '{\"stream\": {\"cpu_quota\": 3}}' "
                           "WHERE window_index = 1").ok());
  auto bad = s->ListManagerWindows(run);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(bad.status().message().find("manager window 1: allocation_json.stream.cpu_quota is not"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace ream
