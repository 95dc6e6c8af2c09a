#include "store/export.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace ream {
namespace {

class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("ream-export-test-" + std::to_string(::getpid()) + ".db")).string();
    std::filesystem::remove(path_);
    auto s = Store::Open(path_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ExperimentRecord e;
    e.name = "exp, with comma";
    e.spec_text = "x";
    e.status = ExperimentStatus::kComplete;
    auto id = s->CreateExperiment(e);
    ASSERT_TRUE(id.ok());
    RunRecord r;
    r.experiment_id = *id;
    r.key = {"1-ST", "default", 0};
    auto run = s->EnsureRun(r);
    ASSERT_TRUE(run.ok());
    for (int i = 0; i < 2; ++i) {
      PointData d;
      d.point.run_id = run->id;
      d.point.seq = i;
      d.point.target_load = 1000 * (i + 1);
      d.point.latency_p95_us = 100.0 + i;
      d.point.duration_s = 2;
      d.point.started_ns = 1700000000000000000 + i * 3000000000LL;
      d.point.unavailable["cpu_util"] = "no cgroup";
      Histogram h;
      h.Record(100000 + i);
      d.histograms[kHistSojourn] = h;
      ASSERT_TRUE(s->InsertPoint(d).ok());
    }
  }
  void TearDown() override {
    for (auto suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  std::string path_;
};

TEST_F(ExportTest, CsvHasOneRowPerPointWithNullsLeftEmpty) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  auto files = ExportStore(*s, ExportFormat::kCsv, "");
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  const std::string& pts = files->at("points.csv");
  EXPECT_EQ(std::count(pts.begin(), pts.end(), '\n'), 3);  // header + 2 points
  EXPECT_NE(pts.find("\"exp, with comma\",1-ST,default,0,0,1000,ok"), std::string::npos) << pts;
  EXPECT_NE(pts.find(",101,"), std::string::npos);
  // cpu_util is NULL: an empty field, with the reason in the unavailable column.
  EXPECT_NE(pts.find("no cgroup"), std::string::npos);
  EXPECT_NE(files->at("experiments.csv").find("\"exp, with comma\",complete"), std::string::npos);
}

TEST_F(ExportTest, JsonNestsRunsAndPoints) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  auto files = ExportStore(*s, ExportFormat::kJson, "exp, with comma");
  ASSERT_TRUE(files.ok());
  auto j = nlohmann::json::parse(files->at("experiments.json"));
  ASSERT_EQ(j["experiments"].size(), 1u);
  auto& pts = j["experiments"][0]["runs"][0]["points"];
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[1]["latency_p95_us"], 101.0);
  EXPECT_TRUE(pts[1]["cpu_util"].is_null());
  EXPECT_EQ(ExportStore(*s, ExportFormat::kJson, "nope").status().code(), StatusCode::kNotFound);
}

TEST_F(ExportTest, HdrLogHasOneIntervalPerLoadLevel) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  auto files = ExportStore(*s, ExportFormat::kHdrLog, "");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  const auto& [name, log] = *files->begin();
  EXPECT_EQ(name, "exp__with_comma/1-ST.default.rep0.sojourn.hlog");
  EXPECT_NE(log.find("Tag=qps1000,0.000,2.000,0.100,HISTF"), std::string::npos) << log;
  EXPECT_NE(log.find("Tag=qps2000,3.000,2.000,0.100,HISTF"), std::string::npos) << log;
}

// A sessions sweep's level is exported as target_sessions (a qps one keeps target_qps, above).
TEST(ExportAxis, NamesTheLevelByTheLoadAxis) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("ream-export-axis-" + std::to_string(::getpid()) + ".db")).string();
  {
    auto s = Store::Open(path);
    ASSERT_TRUE(s.ok());
    ExperimentRecord e;
    e.name = "streams";
    e.load_axis = LoadAxis::kSessions;
    auto id = s->CreateExperiment(e);
    ASSERT_TRUE(id.ok());
    RunRecord r;
    r.experiment_id = *id;
    r.key = {"1-ST", "default", 0};
    auto run = s->EnsureRun(r);
    ASSERT_TRUE(run.ok());
    PointData d;
    d.point.run_id = run->id;
    d.point.target_load = 32;
    d.point.duration_s = 2;
    Histogram h;
    h.Record(1000);
    d.histograms[kHistSojourn] = h;
    ASSERT_TRUE(s->InsertPoint(d).ok());
    auto csv = ExportStore(*s, ExportFormat::kCsv, "");
    ASSERT_TRUE(csv.ok());
    EXPECT_EQ(csv->at("points.csv").rfind("point_id,experiment,scenario,partition,repetition,seq,"
                                          "target_sessions,status,", 0),
              0u)
        << csv->at("points.csv");
    EXPECT_NE(csv->at("points.csv").find(",0,32,ok,"), std::string::npos);
    auto json = ExportStore(*s, ExportFormat::kJson, "");
    ASSERT_TRUE(json.ok());
    auto j = nlohmann::json::parse(json->at("experiments.json"));
    EXPECT_EQ(j["experiments"][0]["runs"][0]["points"][0]["target_sessions"], 32);
    auto hdr = ExportStore(*s, ExportFormat::kHdrLog, "");
    ASSERT_TRUE(hdr.ok());
    EXPECT_NE(hdr->begin()->second.find("Tag=sessions32,"), std::string::npos);
  }
  for (auto suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

}  // namespace
}  // namespace ream
