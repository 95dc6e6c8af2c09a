// The co-location comparison (colocation.h) on known inputs: the subject an M/M/1 server alone
// and, beside a co-runner that takes part of its CPU, one whose service is slower; the
// co-runner's throughput alone and together from the stored windows.
#include "analysis/colocation.h"

#include <gtest/gtest.h>

#include "analysis/analysis.h"
#include "analysis/mm1_point_test_util.h"

namespace ream::analysis {
namespace {

// A co-runner's figures over a window: its completions and their rate, the CPU share it got.
TenantFigures Window(int64_t completions, std::optional<double> completions_per_s, double cpu_share) {
  TenantFigures f;
  f.window_s = 1;
  f.completions = completions;
  f.completions_per_s = completions_per_s;
  f.cpu_share = cpu_share;
  return f;
}

// A shared run's description of its one co-runner `name`, measured alone over `alone`.
CorunnerSetRecord OneCorunner(const std::string& name, const std::string& sched, const TenantFigures& alone) {
  CorunnerSetRecord set;
  set.corunners.resize(1);
  set.corunners[0].name = name;
  set.corunners[0].sched = sched;
  set.corunners[0].cpu_list = "0";
  set.SetAlone({{name, alone}}, {});
  return set;
}

// A run of the subject (service s) over 500..8000 QPS; beside `set` when given, whose
// co-runner "job" completed `alone_rate` runs/s alone and `together_rate` beside each point.
RunData SharedRun(double s, const std::string& set, int rep, double alone_rate, double together_rate) {
  RunData r;
  r.scenario = "1-ST";
  r.repetition = rep;
  r.corunner_set = set;
  for (double l = 500; l <= 8000; l += 500) {
    PointData p = Mm1Point(l, s);
    if (!set.empty()) p.corunners = {{"job", Window(10, together_rate, 0.4)}};
    r.points.push_back(p);
  }
  if (!set.empty()) r.corunners = OneCorunner("job", "idle", Window(20, alone_rate, 0.99));
  return r;
}

TEST(Colocation, CapacityAloneAndTogetherWithTheAloneTargetEmuAndTheCorunnersThroughput) {
  ExperimentData d;
  d.name = "shared";
  d.qos.fixed_target_us = 1000;
  for (int rep = 0; rep < 2; ++rep) {
    d.runs.push_back(SharedRun(100e-6, "", rep, 0, 0));
    d.runs.push_back(SharedRun(160e-6, "job", rep, 4.0, 1.0));
  }
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  // The subject's own findings are its alone runs' only.
  ASSERT_EQ(a->groups.size(), 1u);
  ASSERT_EQ(a->colocation.size(), 1u);
  const ColocationGroup& g = a->colocation[0];
  EXPECT_EQ(g.set, "job");
  ASSERT_TRUE(g.alone_capacity && g.together_capacity);
  EXPECT_NEAR(*g.alone_capacity, *a->groups[0].capacity.qps, 1e-9);
  // A slower service beside the co-runner: fewer QPS under the same target.
  EXPECT_LT(*g.together_capacity, *g.alone_capacity * 0.8);
  ASSERT_TRUE(g.capacity_ratio.exact());
  EXPECT_NEAR(*g.capacity_ratio.value, *g.together_capacity / *g.alone_capacity, 1e-12);
  EXPECT_EQ(g.verdict, "lower beyond both intervals");
  // The co-runner completes runs in every alone window: its unit is completions/s.
  ASSERT_EQ(g.corunners.size(), 1u);
  EXPECT_EQ(g.corunners[0].unit, ThroughputUnit::kCompletionsPerSecond);
  EXPECT_DOUBLE_EQ(*g.corunners[0].alone, 4.0);
  EXPECT_DOUBLE_EQ(*g.corunners[0].together, 1.0);
  EXPECT_DOUBLE_EQ(*g.corunners[0].ratio, 0.25);
  // EMU at 1000 QPS: 1000 / capacity alone + 1 / 4; slack from the alone LQoS.
  const ColocationLevel* l1000 = nullptr;
  for (const auto& l : g.levels) {
    if (l.load == 1000) l1000 = &l;
  }
  ASSERT_NE(l1000, nullptr);
  ASSERT_TRUE(l1000->emu.exact()) << l1000->emu.withheld;
  EXPECT_NEAR(*l1000->emu.value, 1000 / *g.alone_capacity + 0.25, 1e-9);
  ASSERT_TRUE(l1000->slack && l1000->together_tail_us);
  EXPECT_NEAR(*l1000->slack, (1000 - *l1000->together_tail_us) / 1000, 1e-12);
  EXPECT_GT(*l1000->together_tail_us, *l1000->alone_tail_us);
  // JSON carries the section.
  auto j = ToJson(*a);
  ASSERT_TRUE(j.contains("colocation"));
  EXPECT_EQ(j["colocation"]["groups"][0]["verdict"], "lower beyond both intervals");
}

TEST(Colocation, BesideACapacityAloneBeyondTheSweepTheRatiosAndEmuAreBoundsOrWithheld) {
  ExperimentData d;
  d.name = "shared";
  d.qos.fixed_target_us = 1000;
  for (int rep = 0; rep < 2; ++rep) {
    // Alone (50 us) the subject meets QoS at every level up to 8000 QPS: its capacity is ≥ 8000.
    d.runs.push_back(SharedRun(50e-6, "", rep, 0, 0));
    // Beside "job" (160 us) it misses from about 3100 QPS; beside "light" (60 us) never.
    d.runs.push_back(SharedRun(160e-6, "job", rep, 4.0, 1.0));
    d.runs.push_back(SharedRun(60e-6, "light", rep, 4.0, 2.0));
  }
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->colocation.size(), 2u);
  const ColocationGroup& job = a->colocation[0];
  ASSERT_EQ(job.set, "job");
  ASSERT_TRUE(job.alone_lower_bound);
  EXPECT_DOUBLE_EQ(*job.alone_capacity, 8000);
  ASSERT_TRUE(job.together_capacity && !job.together_lower_bound);
  // together / alone ≤ together / 8000: an upper bound, never an exact ratio.
  ASSERT_TRUE(job.capacity_ratio.value) << job.capacity_ratio.withheld;
  EXPECT_EQ(job.capacity_ratio.bound, Bound::kUpper);
  EXPECT_NEAR(*job.capacity_ratio.value, *job.together_capacity / 8000, 1e-12);
  // EMU at 1000 QPS: 1000 / (≥ 8000) + 1 / 4, so at most 0.375.
  const ColocationLevel& l1000 = job.levels.at(1);
  ASSERT_EQ(l1000.load, 1000);
  ASSERT_TRUE(l1000.emu.value) << l1000.emu.withheld;
  EXPECT_EQ(l1000.emu.bound, Bound::kUpper);
  EXPECT_NEAR(*l1000.emu.value, 1000.0 / 8000 + 0.25, 1e-9);
  // Beside "light" both capacities are beyond the sweep: the ratio is withheld, with why.
  const ColocationGroup& light = a->colocation[1];
  ASSERT_EQ(light.set, "light");
  EXPECT_TRUE(light.together_lower_bound);
  EXPECT_FALSE(light.capacity_ratio.value);
  EXPECT_NE(light.capacity_ratio.withheld.find("both beyond the sweep"), std::string::npos);
  EXPECT_EQ(light.verdict, "both beyond the sweep: no difference within it");
  // The JSON carries each derived figure's direction beside its number.
  auto j = ToJson(*a)["colocation"]["groups"];
  EXPECT_EQ(j[0]["capacity_ratio"]["bound"], "upper");
  EXPECT_NEAR(j[0]["capacity_ratio"]["value"].get<double>(), *job.capacity_ratio.value, 1e-12);
  EXPECT_EQ(j[0]["levels"][1]["emu"]["bound"], "upper");
  EXPECT_EQ(j[1]["capacity_ratio"]["value"], nullptr);
  EXPECT_NE(j[1]["capacity_ratio"]["withheld"].get<std::string>().find("both beyond the sweep"), std::string::npos);
}

// Beside a neighbour that makes the generator late, every level above the lowest is invalid;
// where the tail from the send alone (a lower bound of the tail) is already above LQoS the
// level certainly missed QoS. The capacity together is then not "at least the lowest level"
// (beyond a sweep it never left) but below the lowest certain miss, and the ratio to a
// capacity alone beyond the sweep is an upper bound read from that end.
TEST(Colocation, CertainMissesAboveTheOnlyValidLevelBoundTheCapacityTogetherFromAbove) {
  ExperimentData d;
  d.name = "shared";
  d.qos.fixed_target_us = 1000;
  for (int rep = 0; rep < 2; ++rep) {
    d.runs.push_back(SharedRun(50e-6, "", rep, 0, 0));  // alone: meets QoS up to 8000 (≥ 8000)
    RunData r = SharedRun(50e-6, "job", rep, 4.0, 1.0);
    for (auto& p : r.points) {
      if (p.target_load <= 500) continue;
      p.valid = false;
      p.invalid_reasons = {"rule distortion: lateness moved p95 by 40 %"};
      // From the send: under LQoS up to 1500 QPS (unknown there), far above it from 2000 up.
      const double from_send = p.target_load < 2000 ? 600 : 2500;
      p.latency_from_send_us = {{"p95", from_send}, {"p99", from_send * 1.2}};
    }
    d.runs.push_back(r);
  }
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->colocation.size(), 1u);
  const ColocationGroup& g = a->colocation[0];
  EXPECT_FALSE(g.together_capacity) << g.together_status;
  EXPECT_FALSE(g.together_lower_bound);
  ASSERT_TRUE(g.together_low && g.together_upper_bound) << g.together_status;
  EXPECT_DOUBLE_EQ(*g.together_low, 500);
  EXPECT_DOUBLE_EQ(*g.together_upper_bound, 2000);
  EXPECT_NE(g.together_status.find("at least 500 and below 2000"), std::string::npos) << g.together_status;
  // Alone ≥ 8000, together < 2000: the ratio is at most 2000 / 8000, and the verdict says lower.
  ASSERT_TRUE(g.capacity_ratio.value) << g.capacity_ratio.withheld;
  EXPECT_EQ(g.capacity_ratio.bound, Bound::kUpper);
  EXPECT_NEAR(*g.capacity_ratio.value, 0.25, 1e-12);
  EXPECT_NE(g.verdict.find("lower beyond both intervals"), std::string::npos) << g.verdict;
}

TEST(Colocation, AnAntagonistThatNeverCompletesIsMeasuredByTheCpuItGot) {
  ExperimentData d;
  d.name = "shared";
  d.qos.fixed_target_us = 1000;
  RunData alone = SharedRun(100e-6, "", 0, 0, 0);
  RunData shared = SharedRun(100e-6, "spin", 0, 0, 0);
  shared.corunners = OneCorunner("spin", "normal", Window(0, std::nullopt, 0.98));
  for (auto& p : shared.points) p.corunners = {{"spin", Window(0, std::nullopt, 0.49)}};
  d.runs = {alone, shared};
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->colocation.size(), 1u);
  const auto& c = a->colocation[0].corunners.at(0);
  EXPECT_EQ(c.unit, ThroughputUnit::kCpuSecondsPerSecond);
  EXPECT_NEAR(*c.ratio, 0.5, 1e-12);
  // The same service alone and together: the verdict is that nothing moved.
  EXPECT_EQ(a->colocation[0].verdict, "within the intervals");
}

TEST(Colocation, ALatencyCriticalNeighbourIsMeasuredByTheQpsItServedAndItsOwnTail) {
  ExperimentData d;
  d.name = "shared";
  d.qos.fixed_target_us = 1000;
  RunData alone = SharedRun(100e-6, "", 0, 0, 0);
  RunData shared = SharedRun(100e-6, "kv2", 0, 0, 0);
  auto window = [](double served, double p95, bool valid) {
    TenantLoadFigures l;
    l.target_qps = 3000;
    l.throughput_qps = served;
    l.valid = valid;
    l.latency_p95_us = p95;
    if (!valid) l.invalid_reasons = {"rule distortion: lateness moved p95 by 40 %"};
    TenantFigures f = Window(0, std::nullopt, 0.3);
    f.load = l;
    return f;
  };
  shared.corunners = OneCorunner("kv2", "normal", window(2990, 40, true));
  shared.corunners.corunners[0].load = CorunnerLoadRecord{.qps = 3000, .connections = 1, .protocol = "ream"};
  // Beside the subject its tail grows with the subject's load; the top window is invalid by its
  // own generator's rule and is left out of its tail.
  for (size_t i = 0; i < shared.points.size(); ++i) {
    const bool top = i + 1 == shared.points.size();
    shared.points[i].corunners = {{"kv2", window(2950, 50 + static_cast<double>(i), !top)}};
  }
  d.runs = {alone, shared};
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  const auto& c = a->colocation.at(0).corunners.at(0);
  EXPECT_TRUE(c.loaded);
  EXPECT_EQ(c.unit, ThroughputUnit::kQps);
  EXPECT_DOUBLE_EQ(*c.alone, 2990);
  EXPECT_DOUBLE_EQ(*c.together, 2950);
  EXPECT_DOUBLE_EQ(*c.alone_p95_us, 40);
  const int n = static_cast<int>(shared.points.size());
  EXPECT_EQ(c.together_windows, n);
  EXPECT_EQ(c.together_valid_windows, n - 1);
  EXPECT_DOUBLE_EQ(*c.together_p95_us, 50 + (n - 2) / 2.0);  // the median of 50 .. 50 + n - 2
  ASSERT_EQ(c.together_invalid_reasons.size(), 1u);
  EXPECT_NE(c.together_invalid_reasons[0].find("lateness"), std::string::npos);
}

}  // namespace
}  // namespace ream::analysis
