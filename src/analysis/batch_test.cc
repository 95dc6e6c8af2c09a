// The batch subject's analysis on synthetic points: intervals, slowdowns per knob, verdicts and
// the category's rules, each case built to land on one side of a threshold.
#include "analysis/batch.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "analysis/analysis.h"

namespace ream::analysis {
namespace {

// A point of `copies` copies whose runs take `run_s` wall and `cpu_s` CPU each.
PointData BatchPoint(double copies, double run_s, double cpu_s, double disk_bps = 0) {
  PointData p;
  p.target_load = copies;
  p.valid = true;
  const double window = 10;
  const double n = copies * window / run_s;
  p.batch = {{"program", "xz"},          {"copies", copies},       {"window_s", window},
             {"completions", n},         {"run_time_mean_s", run_s}, {"runs_per_min", n * 60 / window},
             {"cpu_s_per_run", cpu_s},   {"memory_peak_bytes", 1e8}, {"unavailable", nlohmann::json::object()}};
  p.disk_read_bps = Metric::Of(disk_bps);
  p.disk_write_bps = Metric::Of(0);
  p.membw_bps = Metric::Unavailable("resctrl is absent");
  return p;
}

RunData BatchRun(const std::string& scenario, Partition partition, int rep, std::vector<PointData> points) {
  RunData r;
  r.scenario = scenario;
  r.partition = std::move(partition);
  r.repetition = rep;
  r.points = std::move(points);
  return r;
}

Partition Limited(const std::string& resource, double v) {
  Partition p;
  p.limits[resource] = v;
  return p;
}

ExperimentData Experiment(std::vector<RunData> runs) {
  ExperimentData d;
  d.name = "b";
  d.load_axis = LoadAxis::kCopies;
  d.runs = std::move(runs);
  return d;
}

TEST(BatchAnalysis, MeanIntervalUsesStudentTAndSaysWhenThereIsNone) {
  BatchFigure f = MeanWithInterval({2.0, 4.0}, 0.95);
  ASSERT_TRUE(f.mean && f.low && f.high);
  EXPECT_DOUBLE_EQ(*f.mean, 3.0);
  // sd = sqrt(2), half-width = 12.706 * sqrt(2) / sqrt(2).
  EXPECT_NEAR(*f.high - *f.mean, 12.706, 1e-9);
  BatchFigure one = MeanWithInterval({5.0}, 0.95);
  EXPECT_DOUBLE_EQ(*one.mean, 5.0);
  EXPECT_FALSE(one.low.has_value());
  EXPECT_NE(one.unavailable.find("one repetition"), std::string::npos);
  BatchFigure none = MeanWithInterval({}, 0.95);
  EXPECT_FALSE(none.mean.has_value());
  BatchFigure r = RatioOf(MeanWithInterval({4.0, 4.2}, 0.95), MeanWithInterval({2.0, 2.1}, 0.95));
  ASSERT_TRUE(r.mean && r.low && r.high);
  EXPECT_NEAR(*r.mean, 4.1 / 2.05, 1e-12);
  EXPECT_LT(*r.low, *r.mean);
  EXPECT_GT(*r.high, *r.mean);
}

// CPU time per run grows 30 % from one copy to two: memory-bound; the quota stretches the run
// time 2× (sensitive, judged by run time); the memory limit changes nothing (insensitive, by
// CPU time per run).
TEST(BatchAnalysis, CopyContentionSlowdownsAndVerdicts) {
  std::vector<RunData> runs;
  for (int rep = 0; rep < 3; ++rep) {
    const double jitter = 0.01 * rep;
    runs.push_back(BatchRun("1-ST", {}, rep, {BatchPoint(1, 2.0 + jitter, 1.9 + jitter), BatchPoint(2, 5.0 + jitter, 2.47 + jitter)}));
    runs.push_back(BatchRun("1-ST", Limited("cpu_quota", 0.5), rep,
                       {BatchPoint(1, 4.0 + jitter, 1.9 + jitter), BatchPoint(2, 10.0 + jitter, 2.47 + jitter)}));
    runs.push_back(BatchRun("1-ST", Limited("memory", 256e6), rep,
                       {BatchPoint(1, 2.0 + jitter, 1.9 + jitter), BatchPoint(2, 5.0 + jitter, 2.47 + jitter)}));
  }
  auto d = Experiment(runs);
  BatchAnalysis a = AnalyzeBatch(d, 0.95);
  EXPECT_EQ(a.program, "xz");
  ASSERT_EQ(a.groups.size(), 3u);
  ASSERT_EQ(a.groups[0].levels.size(), 2u);
  EXPECT_EQ(a.groups[0].levels[0].repetitions, 3);
  EXPECT_NEAR(*a.groups[0].levels[0].run_time_s.mean, 2.01, 1e-9);
  EXPECT_TRUE(a.groups[0].levels[0].run_time_s.low.has_value());
  EXPECT_FALSE(a.groups[0].levels[0].membw_bps.has());
  EXPECT_EQ(a.groups[0].levels[0].membw_bps.unavailable, "resctrl is absent");
  ASSERT_EQ(a.slowdowns.size(), 4u);
  EXPECT_NEAR(*a.slowdowns[0].run_time.mean, 4.01 / 2.01, 1e-9);
  EXPECT_NEAR(*a.slowdowns[0].cpu_time.mean, 1.0, 1e-9);
  std::map<std::string, BatchSensitivity> by;
  for (const auto& s : a.sensitivity) by[s.resource] = s;
  EXPECT_EQ(by["cpu_quota"].verdict, "sensitive");
  EXPECT_EQ(by["cpu_quota"].judged_by, "run time");
  EXPECT_NEAR(*by["cpu_quota"].worst, 10.01 / 5.01, 1e-9);
  EXPECT_EQ(by["memory"].verdict, "insensitive");
  EXPECT_EQ(by["memory"].judged_by, "CPU time per run");
  EXPECT_EQ(a.category.name, "memory-bound");
  EXPECT_FALSE(a.category.tentative);  // ×1.3 with an interval well above 1.2
  bool stated = false;
  for (const auto& e : a.category.evidence) stated = stated || e.find("memory-bound at ≥ 1.2") != std::string::npos;
  EXPECT_TRUE(stated) << ::testing::PrintToString(a.category.evidence);
  // Through Analyze, the batch findings replace the server's.
  auto full = Analyze(d, {});
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  ASSERT_TRUE(full->batch.has_value());
  EXPECT_TRUE(full->groups.empty());
  EXPECT_EQ(ToJson(*full)["batch"]["category"]["name"], "memory-bound");
}

TEST(BatchAnalysis, CategoryRulesOnEachSideOfTheirThresholds) {
  auto category = [](double cpu_two_copies, double disk_bps = 0, double run_s = 2.0) {
    auto d = Experiment({BatchRun("1-ST", {}, 0, {BatchPoint(1, run_s, 1.0, disk_bps), BatchPoint(2, run_s, cpu_two_copies, disk_bps)})});
    return AnalyzeBatch(d, 0.95).category;
  };
  EXPECT_EQ(category(1.02).name, "compute-bound");
  EXPECT_EQ(category(1.10).name, "cache-sensitive");
  EXPECT_EQ(category(1.25).name, "memory-bound");
  // 5 runs a copy in the 10 s window at 50 MB/s: 100 MB per run, CPU share 1.0 / 2.0 = 0.5.
  EXPECT_EQ(category(1.02, 50e6).name, "disk-bound");
  // The same I/O with the CPU busy (share 1.0 / 1.2 > 0.7): not waiting on the disk.
  EXPECT_EQ(category(1.02, 50e6, 1.2).name, "compute-bound");
  // One copies level: no contention evidence, and no category is made up.
  auto one = AnalyzeBatch(Experiment({BatchRun("1-ST", {}, 0, {BatchPoint(1, 2.0, 1.0)})}), 0.95).category;
  EXPECT_TRUE(one.name.empty());
  EXPECT_NE(one.unavailable.find("two copies levels"), std::string::npos) << one.unavailable;
  // No unlimited partition: the knobs cannot be judged, and say why.
  auto limited = AnalyzeBatch(Experiment({BatchRun("1-ST", Limited("cpu_quota", 0.5), 0, {BatchPoint(1, 2.0, 1.0)})}), 0.95);
  ASSERT_EQ(limited.sensitivity.size(), 1u);
  EXPECT_EQ(limited.sensitivity[0].verdict, "unavailable");
  EXPECT_NE(limited.sensitivity[0].evidence.find("no unlimited partition"), std::string::npos);
}

// Three noisy repetitions: CPU time per run × 1.14 at two copies, but its interval reaches below
// 1.05 — cache-sensitive by the point estimate, marked tentative with the interval stated.
TEST(BatchAnalysis, ACategoryWhoseIntervalCrossesItsThresholdIsTentative) {
  std::vector<RunData> runs;
  const double one[] = {1.0, 1.02, 1.01}, two[] = {1.0, 1.3, 1.15};
  for (int rep = 0; rep < 3; ++rep) {
    runs.push_back(BatchRun("1-ST", {}, rep, {BatchPoint(1, 2.0, one[rep]), BatchPoint(2, 4.0, two[rep])}));
  }
  auto c = AnalyzeBatch(Experiment(runs), 0.95).category;
  EXPECT_EQ(c.name, "cache-sensitive");
  EXPECT_TRUE(c.tentative);
  ASSERT_FALSE(c.evidence.empty());
  EXPECT_NE(c.evidence.back().find("tentative: the copy contention's interval ["), std::string::npos) << c.evidence.back();
}

// A failed point counts as failed, with its reason, and contributes no figure.
// A shared run beside one of ream's sources, on `cpu_list`, the copies on CPU 0.
RunData BesideRun(const std::string& source, double intensity, const std::string& cpu_list, int rep,
                  std::vector<PointData> points) {
  char name[64];
  std::snprintf(name, sizeof name, "%s@%g", source.c_str(), intensity);
  for (auto& p : points) p.batch["cpus"] = "0";
  RunData r = BatchRun("1-ST", {}, rep, std::move(points));
  r.corunner_set = name;
  CorunnerRecord c;
  c.name = name;
  c.sched = "normal";
  c.cpu_list = cpu_list;
  c.pressure = source;
  c.intensity = intensity;
  r.corunners.corunners = {c};
  return r;
}

RunData AloneRun(int rep, double run_s) {
  PointData p = BatchPoint(1, run_s, run_s);
  p.batch["cpus"] = "0";
  return BatchRun("1-ST", {}, rep, {p});
}

// Three repetitions alone (2.00, 2.02, 2.01 s a run) interleaved with three beside the source at
// 100 % on `cpu_list` whose runs take `beside` seconds.
ExperimentData AloneAndBeside(const std::string& cpu_list, std::vector<double> beside,
                              const std::string& source = "mem_bw") {
  const std::vector<double> alone = {2.0, 2.02, 2.01};
  std::vector<RunData> runs;
  for (int rep = 0; rep < 3; ++rep) {
    runs.push_back(AloneRun(rep, alone[rep]));
    runs.push_back(BesideRun(source, 100, cpu_list, rep, {BatchPoint(1, beside[rep], beside[rep])}));
  }
  return Experiment(std::move(runs));
}

TEST(BatchAnalysis, SlowerBesideTheMemBwSourceOnAnotherCpuIsMemoryBoundAndUnmovedIsComputeBound) {
  // Beside mem_bw on CPU 1, 2.60-2.62 s a run (× 1.30, the interval's low end above 1.1).
  BatchAnalysis m = AnalyzeBatch(AloneAndBeside("1", {2.6, 2.62, 2.61}), 0.95);
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.groups[1].key, "1-ST / unlimited with mem_bw@100");
  EXPECT_TRUE(m.groups[1].apart);
  EXPECT_EQ(m.category.name, "memory-bound");
  bool said = false;
  for (const auto& e : m.category.evidence) said = said || e.find("mem_bw source at 100 % on other CPUs") != std::string::npos;
  EXPECT_TRUE(said);
  const BatchSensitivity* beside = nullptr;
  for (const auto& s : m.sensitivity) {
    if (s.resource == "beside mem_bw@100") beside = &s;
  }
  ASSERT_TRUE(beside);
  EXPECT_EQ(beside->verdict, "sensitive");
  EXPECT_NE(beside->evidence.find("apart"), std::string::npos) << beside->evidence;

  // Unmoved beside it (2.01-2.03 s, the interval's high end below 1.1): compute-bound.
  EXPECT_EQ(AnalyzeBatch(AloneAndBeside("1", {2.01, 2.03, 2.02}), 0.95).category.name, "compute-bound");
  // Between (× 1.10 with an interval across it): neither.
  BatchAnalysis between = AnalyzeBatch(AloneAndBeside("1", {2.1, 2.3, 2.2}), 0.95);
  EXPECT_EQ(between.category.name, "");

  // The same slowdown with the source on the copies' own CPU is time-sharing, not memory: no
  // category from it.
  BatchAnalysis sh = AnalyzeBatch(AloneAndBeside("0", {2.6, 2.62, 2.61}), 0.95);
  EXPECT_FALSE(sh.groups[1].apart);
  EXPECT_EQ(sh.category.name, "");
  EXPECT_NE(sh.category.unavailable.find("no mem_bw source ran beside the copies on other CPUs"), std::string::npos);
}

TEST(BatchAnalysis, SlowerBesideEitherCacheSourceOnAnotherCpuIsCacheSensitive) {
  // The same × 1.30 beside llc or l2: both rows of the pressure table stress a cache.
  for (const char* source : {"llc", "l2"}) {
    BatchAnalysis m = AnalyzeBatch(AloneAndBeside("1", {2.6, 2.62, 2.61}, source), 0.95);
    EXPECT_EQ(m.category.name, "cache-sensitive") << source;
  }
  // Beside the memory source (capacity, not bandwidth) it decides neither.
  EXPECT_EQ(AnalyzeBatch(AloneAndBeside("1", {2.6, 2.62, 2.61}, "memory"), 0.95).category.name, "");
}

TEST(BatchAnalysis, FailedPointsAreCountedNotAveraged) {
  PointData failed;
  failed.target_load = 1;
  failed.failed = true;
  failed.invalid_reasons = {"batch 'mcf' x 1 ended during the window: killed by the memory limit"};
  auto a = AnalyzeBatch(Experiment({BatchRun("1-ST", {}, 0, {BatchPoint(1, 2.0, 1.0)}), BatchRun("1-ST", {}, 1, {failed})}), 0.95);
  ASSERT_EQ(a.groups.size(), 1u);
  const BatchLevel& l = a.groups[0].levels[0];
  EXPECT_EQ(l.repetitions, 1);
  EXPECT_EQ(l.failed, 1);
  ASSERT_EQ(l.failures.size(), 1u);
  EXPECT_NE(l.failures[0].find("memory limit"), std::string::npos);
  EXPECT_DOUBLE_EQ(*l.run_time_s.mean, 2.0);
}

}  // namespace
}  // namespace ream::analysis
