// A batch point's figures from its completed runs, and the argv its sandbox runs.
#include "experiment/batch_point.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

TEST(BatchWindowFigures, PercentilesThroughputAndCpuPerRun) {
  // 20 runs of 1..20 s over a 60 s window with 2 copies and 90 CPU-seconds.
  std::vector<double> runs;
  for (int i = 20; i >= 1; --i) runs.push_back(i);
  nlohmann::json j = BatchWindowFigures(runs, 60, 2, 90.0);
  EXPECT_EQ(j["completions"], 20);
  EXPECT_DOUBLE_EQ(j["runs_per_min"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(j["run_time_mean_s"].get<double>(), 10.5);
  EXPECT_DOUBLE_EQ(j["run_time_p50_s"].get<double>(), 10);  // nearest rank: the 10th of 20
  EXPECT_DOUBLE_EQ(j["run_time_p95_s"].get<double>(), 19);  // the 19th
  // A copy's CPU rate (90 / 60 / 2 = 0.75) times the mean run time.
  EXPECT_DOUBLE_EQ(j["cpu_s_per_run"].get<double>(), 0.75 * 10.5);
  EXPECT_TRUE(j["unavailable"].empty());
}

TEST(BatchWindowFigures, WhatWasNotMeasuredIsNullWithItsReasonNeverZero) {
  nlohmann::json none = BatchWindowFigures({}, 5, 1, 4.0);
  EXPECT_EQ(none["completions"], 0);
  EXPECT_DOUBLE_EQ(none["runs_per_min"].get<double>(), 0);  // measured: no run completed
  EXPECT_TRUE(none["run_time_mean_s"].is_null());
  EXPECT_TRUE(none["cpu_s_per_run"].is_null());
  EXPECT_NE(none["unavailable"]["run_time_p95_s"].get<std::string>().find("no run completed"), std::string::npos);
  nlohmann::json no_cpu = BatchWindowFigures({1.0}, 5, 1, std::nullopt);
  EXPECT_DOUBLE_EQ(no_cpu["run_time_mean_s"].get<double>(), 1.0);
  EXPECT_TRUE(no_cpu["cpu_s_per_run"].is_null());
  EXPECT_NE(no_cpu["unavailable"]["cpu_s_per_run"].get<std::string>().find("not measured"), std::string::npos);
}

TEST(BatchPointArgv, RunsTheCopiesUnderCorunWithRepeat) {
  auto spec = ParseSpec("name = \"b\"\n[workload]\nbatch = \"xz\"\nbatch_seconds = 1.5\n[sweep]\ncopies = [3]\n", "x.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(BatchPointArgv(*spec, "/r/ream", 3),
            (std::vector<std::string>{"/r/ream", "corun", "--copies", "3", "--repeat", "--", "/r/ream", "batch", "xz",
                                      "--seconds", "1.5"}));
}

}  // namespace
}  // namespace ream
