#include "analysis/across_runs.h"

#include <gtest/gtest.h>

#include "analysis/analysis.h"
#include "analysis/mm1_point_test_util.h"

namespace ream::analysis {
namespace {

// One run of a spec: an M/M/1 server of mean service `s` swept over `levels`, QoS fixed at
// 500 us (capacity where the p95, 50 us + ln(20) / (1/s − λ), crosses it).
ExperimentData OneRun(const std::string& name, double s, std::vector<double> levels, int repetitions = 1) {
  ExperimentData d;
  d.name = name;
  d.spec_text = "name = \"" + name + "\"\nscenarios = [\"1-ST\"]\n\n[workload]\nname = \"kv\"\n";
  d.qos.fixed_target_us = 500;
  for (int rep = 0; rep < repetitions; ++rep) {
    RunData r;
    r.scenario = "1-ST";
    r.repetition = rep;
    for (double l : levels) r.points.push_back(Mm1Point(l, s));
    d.runs.push_back(r);
  }
  return d;
}

const std::vector<double> kLevels = {1000, 2000, 3000, 4000, 5000, 6000};

TEST(AcrossRuns, PooledRunsKeepEachRunsCapacityBesideThePoolsAndTheirRange) {
  ExperimentData a = OneRun("a", 100e-6, kLevels, 2);
  ExperimentData b = OneRun("b", 90e-6, kLevels, 2);
  auto one_a = Analyze(a, {});
  auto one_b = Analyze(b, {});
  ASSERT_TRUE(one_a.ok() && one_b.ok());
  const double cap_a = *one_a->groups.at(0).capacity.qps, cap_b = *one_b->groups.at(0).capacity.qps;
  ASSERT_LT(cap_a, cap_b);  // the faster server holds QoS further

  std::vector<ExperimentData> more = {b};
  auto pooled = PoolRuns(a, more);
  ASSERT_TRUE(pooled.ok()) << pooled.status().ToString();
  EXPECT_EQ(pooled->pooled, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(pooled->runs.size(), 4u);
  // b's repetitions follow a's: no two runs share one, so the pool has four repetitions.
  EXPECT_EQ(pooled->runs[2].repetition, 2);
  EXPECT_EQ(pooled->runs[3].repetition, 3);
  EXPECT_EQ(pooled->runs[3].source, "b");

  auto an = Analyze(*pooled, {});
  ASSERT_TRUE(an.ok()) << an.status().ToString();
  EXPECT_EQ(an->groups.at(0).repetitions, 4);
  const AcrossRuns& r = an->across_runs;
  EXPECT_EQ(r.experiments, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(r.figures.size(), 1u);
  const AcrossRunsFigure& f = r.figures[0];
  EXPECT_EQ(f.group, "1-ST / unlimited");
  ASSERT_EQ(f.per_run.size(), 2u);
  EXPECT_EQ(f.per_run[0], Bounded::Exact(cap_a));
  EXPECT_EQ(f.per_run[1], Bounded::Exact(cap_b));
  EXPECT_DOUBLE_EQ(*f.low, cap_a);
  EXPECT_DOUBLE_EQ(*f.high, cap_b);
  EXPECT_NEAR(*f.spread, (cap_b - cap_a) / ((cap_a + cap_b) / 2), 1e-9);
  // The pool's capacity lies between the runs' and is exact.
  ASSERT_TRUE(f.pooled.exact());
  EXPECT_GE(*f.pooled.value, cap_a);
  EXPECT_LE(*f.pooled.value, cap_b);
  EXPECT_EQ(f.note, "");

  const auto j = ToJson(*an);
  ASSERT_TRUE(j.contains("across_runs"));
  EXPECT_EQ(j["across_runs"]["figures"][0]["per_run"][1]["value"].get<double>(), cap_b);
  // One run alone has no such key: the JSON of an unpooled analysis is what it was.
  EXPECT_FALSE(ToJson(*one_a).contains("across_runs"));
}

TEST(AcrossRuns, ARunThatOnlyBoundsItsCapacityIsNamedAndLeftOutOfTheRange) {
  ExperimentData a = OneRun("a", 100e-6, kLevels);
  ExperimentData b = OneRun("b", 100e-6, {1000, 2000, 3000});  // every level meets QoS
  std::vector<ExperimentData> more = {b};
  auto pooled = PoolRuns(a, more);
  ASSERT_TRUE(pooled.ok());
  auto an = Analyze(*pooled, {});
  ASSERT_TRUE(an.ok()) << an.status().ToString();
  const AcrossRunsFigure& f = an->across_runs.figures.at(0);
  EXPECT_TRUE(f.per_run[0].exact());
  EXPECT_EQ(f.per_run[1], Bounded::AtLeast(3000));
  EXPECT_EQ(*f.low, *f.high);  // the range is a's alone
  EXPECT_EQ(f.note, "only a bound in b");
}

TEST(AcrossRuns, OnlyRunsOfOneSpecPool) {
  ExperimentData a = OneRun("a", 100e-6, kLevels);
  ExperimentData c = OneRun("c", 100e-6, kLevels);
  c.spec_text = "name = \"c\"\nscenarios = [\"1-ST\"]\n\n[workload]\nname = \"redis\"\n";
  std::vector<ExperimentData> more = {c};
  auto pooled = PoolRuns(a, more);
  ASSERT_FALSE(pooled.ok());
  EXPECT_NE(pooled.status().message().find("'c' is not a run of the spec of 'a'"), std::string::npos)
      << pooled.status().message();
  // A `name` inside a table is part of the spec: it is the line named.
  EXPECT_NE(pooled.status().message().find("'name = \"kv\"' against 'name = \"redis\"'"), std::string::npos)
      << pooled.status().message();

  ExperimentData b = OneRun("b", 100e-6, kLevels);
  std::vector<ExperimentData> twice = {b, b};
  auto again = PoolRuns(a, twice);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("'b' is given twice"), std::string::npos) << again.status().message();
}

}  // namespace
}  // namespace ream::analysis
