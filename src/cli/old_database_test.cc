// Results databases written by older reams (src/store/testdata/schema_v2/, and schema_v9/ with
// co-runners) read by this one: `ream analyze`, `ream export` and `ream report` must print
// exactly what the ream that wrote each printed (an old database stays readable, its
// analysis unchanged).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "platform/platform.h"
#include "platform/test_directory.h"
#include "store/store.h"

namespace ream {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtureDir = fs::path(REAM_SOURCE_DIR) / "src/store/testdata/schema_v2";
const fs::path kSharedFixtureDir = fs::path(REAM_SOURCE_DIR) / "src/store/testdata/schema_v9";
const std::string kStubAssets = std::string(REAM_SOURCE_DIR) + "/src/report/testdata/stub_assets";

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << p;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first line where `got` and `want` differ, for a failure message that can be read.
std::string FirstDifference(const std::string& got, const std::string& want) {
  std::istringstream g(got), w(want);
  std::string gl, wl;
  for (int line = 1;; ++line) {
    bool gm = static_cast<bool>(std::getline(g, gl));
    bool wm = static_cast<bool>(std::getline(w, wl));
    if (!gm && !wm) return "no line differs (a trailing newline?)";
    if (gl != wl || gm != wm) {
      return "line " + std::to_string(line) + ":\n  got:  " + (gm ? gl.substr(0, 300) : "<end>") +
             "\n  want: " + (wm ? wl.substr(0, 300) : "<end>");
    }
  }
}

class OldDatabase : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::FreshTestDirectory("ream-old-db-test");
    db_ = (dir_ / "old.db").string();
    fs::copy_file(fixture_dir_ / "fixture.sqlite", db_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CommandResult Ream(std::vector<std::string> args) {
    args.insert(args.begin(), REAM_BINARY);
    auto r = MakePosixPlatform()->Run(args, std::chrono::seconds(60));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : CommandResult{};
  }

  // Runs `ream ARGS --db COPY` and expects its standard output to be the file `expected`.
  void ExpectOutput(std::vector<std::string> args, const std::string& expected) {
    args.push_back("--db");
    args.push_back(db_);
    auto r = Ream(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string want = ReadAll(fixture_dir_ / "expected" / expected);
    EXPECT_TRUE(r.out == want) << expected << " differs at " << FirstDifference(r.out, want);
  }

  // Expects the file `got` to be the file `expected`, with `from` in the expected text read
  // as `to`.
  void ExpectFile(const fs::path& got, const std::string& expected, const std::string& from = "",
                  const std::string& to = "") {
    std::string g = ReadAll(got), want = ReadAll(fixture_dir_ / "expected" / expected);
    if (!from.empty()) {
      size_t at = want.find(from);
      ASSERT_NE(at, std::string::npos) << from << " not in " << expected;
      want.replace(at, from.size(), to);
    }
    EXPECT_TRUE(g == want) << expected << " differs at " << FirstDifference(g, want);
  }

  fs::path fixture_dir_ = kFixtureDir;  // the database and the outputs of the ream that wrote it
  fs::path dir_;
  std::string db_;
};

TEST_F(OldDatabase, AnalyzeJsonIsWhatTheOldReamPrinted) {
  ExpectOutput({"analyze", "--json", "--experiment", "fixture-grid"}, "analyze-fixture-grid.json");
  ExpectOutput({"analyze", "--json", "--experiment", "fixture-grid", "--target-qps", "5000"},
               "analyze-fixture-grid-target-qps-5000.json");
  ExpectOutput({"analyze", "--json", "--experiment", "fixture-knee"}, "analyze-fixture-knee.json");
}

TEST_F(OldDatabase, AnalyzeTablesAreWhatTheOldReamPrinted) {
  ExpectOutput({"analyze"}, "analyze.txt");
  ExpectOutput({"analyze", "--experiment", "fixture-grid", "--target-qps", "5000"},
               "analyze-fixture-grid-target-qps-5000.txt");
}

TEST_F(OldDatabase, ListIsWhatTheOldReamPrinted) {
  ExpectOutput({"list"}, "list.txt");
  ExpectOutput({"list", "--json"}, "list.json");
}

TEST_F(OldDatabase, ExportKeepsItsColumnsAndValues) {
  for (std::string format : {"csv", "json"}) {
    auto r = Ream({"export", "--db", db_, "--format", format, "--out", (dir_ / format).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (std::string f : {"experiments.csv", "runs.csv", "points.csv"}) {
    ExpectFile(dir_ / "csv" / f, "csv/" + f);
  }
  // The JSON export says which schema its data has: the migrated one (the one change).
  ExpectFile(dir_ / "json" / "experiments.json", "json/experiments.json", "\"schema_version\": 2\n",
             "\"schema_version\": " + std::to_string(kStoreSchemaVersion) + "\n");
}

TEST_F(OldDatabase, ReportPageIsWhatTheOldReamWrote) {
  auto page = [&](std::vector<std::string> args, const std::string& expected) {
    std::string out = (dir_ / expected).string();
    args.insert(args.end(), {"--db", db_, "--assets", kStubAssets, "--out", out});
    auto r = Ream(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectFile(out, expected);
  };
  page({"report", "--experiment", "fixture-grid", "--target-qps", "5000"},
       "report-fixture-grid-target-qps-5000.html");
  page({"report", "--experiment", "fixture-knee"}, "report-fixture-knee.html");
}

// A database with co-runners written before their figures were a type (schema 9; see
// src/store/testdata/schema_v9/README.md): a kv subject beside a batch job, a pressure source and a
// loaded kv server, then beside the source alone, and a batch subject beside a source. Today's
// ream must read every figure as that ream did: `ream analyze --json` (co-location, interference
// and batch sections and all), its tables, and the JSON export of the runs and points, byte for
// byte.
class SharedDatabase : public OldDatabase {
 protected:
  SharedDatabase() { fixture_dir_ = kSharedFixtureDir; }
};

TEST_F(SharedDatabase, AnalyzeIsWhatTheOldReamPrinted) {
  ExpectOutput({"analyze", "--json", "--experiment", "fixture-shared"}, "analyze-fixture-shared.json");
  ExpectOutput({"analyze", "--json", "--experiment", "fixture-batch"}, "analyze-fixture-batch.json");
  ExpectOutput({"analyze", "--experiment", "fixture-shared"}, "analyze-fixture-shared.txt");
  ExpectOutput({"analyze"}, "analyze.txt");
}

// Two runs of one spec pooled: here the same run read from a second database, each run's QPS
// under QoS alone and beside each set shown beside the pool's. An experiment of another spec is
// refused, naming both.
TEST_F(SharedDatabase, RunsOfOneSpecPoolAcrossDatabases) {
  const std::string second = (dir_ / "second.db").string();
  fs::copy_file(db_, second);
  auto r = Ream({"analyze", "--db", db_, "--experiment", "fixture-shared", "--with", second + ":fixture-shared"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Across runs — 2 runs of one spec pooled (fixture-shared, " + second + ":fixture-shared)"),
            std::string::npos)
      << r.out;
  const size_t at = r.out.find("Across runs");
  ASSERT_NE(at, std::string::npos);
  const std::string table = r.out.substr(at);
  EXPECT_NE(table.find("QPS under QoS together"), std::string::npos) << table;
  // kv met QoS at the sweep's top in this fixture: each run's capacity is a bound, so there is
  // no range over the runs, and each figure says which runs bound it.
  EXPECT_NE(table.find("1-ST / unlimited: only a bound in fixture-shared, " + second + ":fixture-shared: no range"),
            std::string::npos)
      << table;
  // Without --with the section is absent (the old outputs above hold byte for byte).
  auto one = Ream({"analyze", "--db", db_, "--experiment", "fixture-shared"});
  EXPECT_EQ(one.out.find("Across runs"), std::string::npos);

  auto other = Ream({"analyze", "--db", db_, "--experiment", "fixture-shared", "--with", "fixture-batch"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("'fixture-batch' is not a run of the spec of 'fixture-shared'"), std::string::npos)
      << other.err;
}

TEST_F(SharedDatabase, TheCorunnersFiguresExportAsStored) {
  auto r = Ream({"export", "--db", db_, "--format", "json", "--out", (dir_ / "json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The JSON export says which schema its data has: the migrated one (the one change).
  ExpectFile(dir_ / "json" / "experiments.json", "json/experiments.json", "\"schema_version\": 9\n",
             "\"schema_version\": " + std::to_string(kStoreSchemaVersion) + "\n");
}

}  // namespace
}  // namespace ream
