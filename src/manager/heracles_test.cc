// Heracles' top-level rules against the simulated plant: the neighbour disabled at a negative
// slack and kept so through the cooldown, disabled above the load threshold until the load
// falls below the other, grown a unit a window at high slack and low load.
#include "manager/heracles.h"

#include <gtest/gtest.h>

#include "manager/plant_test_helper.h"
#include "manager/policy.h"

namespace ream {
namespace {

using plant::Plant;
using plant::StreamSpec;

// Figures with a given slack and load, for the rules that read only those.
WindowFigures Figures(int64_t index, double slack, double load_qps) {
  WindowFigures w;
  w.index = index;
  w.valid = true;
  w.target_us = 500;
  w.tail_us = 500 * (1 - slack);
  w.load_qps = load_qps;
  return w;
}

TEST(Heracles, NegativeSlackDisablesTheNeighbourAndCoolsDown) {
  ManagerSpec s = StreamSpec("heracles");
  s.cooldown_windows = 3;
  auto policy = MakePolicy(s);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  Plant p;
  // The whole neighbour at normal priority beside 40 000 QPS: the subject is overloaded.
  WindowFigures w = p.Measure((*policy)->allocation(), 40000, 0);
  ASSERT_LT(*w.Slack(), 0);
  Decision d = (*policy)->Decide(w);
  ASSERT_EQ(d.actions.size(), 2u) << d.note;
  EXPECT_EQ(d.actions[0].knob, "cpu_quota");
  EXPECT_EQ(d.actions[0].to_text, "10%");
  EXPECT_EQ(d.actions[1].knob, "cpu_idle");
  EXPECT_EQ(d.actions[1].to_text, "idle");
  EXPECT_NE(d.note.find("below 0: the neighbours disabled, cooling down for 3 windows"), std::string::npos) << d.note;
  // Disabled, the neighbour leaves the subject its QoS and does little.
  WindowFigures after = p.Measure((*policy)->allocation(), 40000, 1);
  EXPECT_GT(*after.Slack(), 0.10);
  EXPECT_LE(after.neighbour_throughput.at("stream"), 0.1 * w.neighbour_throughput.at("stream"));
  // Through the cooldown nothing grows, however much slack there is.
  for (int64_t i = 1; i <= 3; ++i) {
    d = (*policy)->Decide(Figures(i, 0.9, 1000));
    EXPECT_TRUE(d.actions.empty()) << i;
    EXPECT_NE(d.note.find("cooling down after a negative slack until window 4"), std::string::npos) << d.note;
  }
  d = (*policy)->Decide(Figures(4, 0.9, 1000));
  ASSERT_EQ(d.actions.size(), 1u) << d.note;
  EXPECT_NE(d.note.find("the neighbours enabled"), std::string::npos) << d.note;
}

TEST(Heracles, GrowsTheNeighbourAUnitAWindowAtHighSlackAndLowLoad) {
  Allocation start;
  start.Set("stream", "cpu_quota", 0.1);
  start.Set("stream", "cpu_idle", 0);
  auto policy = MakePolicy(StreamSpec("heracles"), start);
  ASSERT_TRUE(policy.ok());
  Plant p;
  std::vector<std::string> moved;
  for (int64_t i = 0; i < 4; ++i) {
    Decision d = (*policy)->Decide(p.Measure((*policy)->allocation(), 10000, i));
    ASSERT_EQ(d.actions.size(), 1u) << i << ": " << d.note;
    EXPECT_EQ(d.actions[0].tenant, "stream");
    EXPECT_GT(d.actions[0].to, d.actions[0].from);
    EXPECT_NE(d.note.find("the neighbours grow a unit"), std::string::npos) << d.note;
    moved.push_back(d.actions[0].knob + "=" + d.actions[0].to_text);
  }
  // The resources take turns, as each of Heracles' sub-controllers grows its own.
  EXPECT_EQ(moved, (std::vector<std::string>{"cpu_quota=20%", "cpu_idle=normal", "cpu_quota=30%", "cpu_quota=40%"}));
}

TEST(Heracles, HighLoadDisablesUntilTheLoadFallsBelowTheOtherThreshold) {
  auto policy = MakePolicy(StreamSpec("heracles"));
  ASSERT_TRUE(policy.ok());
  const double peak = 48000;
  Decision d = (*policy)->Decide(Figures(0, 0.5, 0.9 * peak));
  EXPECT_EQ(d.actions.size(), 2u) << d.note;
  EXPECT_NE(d.note.find("load 90 % of the peak above 85 %: the neighbours disabled"), std::string::npos) << d.note;
  d = (*policy)->Decide(Figures(1, 0.5, 0.82 * peak));
  EXPECT_TRUE(d.actions.empty());
  EXPECT_NE(d.note.find("not below 80 %: the neighbours stay disabled"), std::string::npos) << d.note;
  d = (*policy)->Decide(Figures(2, 0.5, 0.5 * peak));
  ASSERT_EQ(d.actions.size(), 1u) << d.note;
  EXPECT_GT(d.actions[0].to, d.actions[0].from);
  // A slack under stop_growth_below holds; under shrink_below takes a unit.
  d = (*policy)->Decide(Figures(3, 0.08, 0.5 * peak));
  EXPECT_TRUE(d.actions.empty());
  EXPECT_NE(d.note.find("growth stopped"), std::string::npos) << d.note;
  d = (*policy)->Decide(Figures(4, 0.02, 0.5 * peak));
  ASSERT_EQ(d.actions.size(), 1u) << d.note;
  EXPECT_LT(d.actions[0].to, d.actions[0].from);
}

TEST(Heracles, StepLoadThrottlesWhileHighAndGivesBackAfter) {
  auto policy = MakePolicy(StreamSpec("heracles"));
  ASSERT_TRUE(policy.ok());
  Plant p;
  std::vector<double> quota, slack;
  for (int64_t i = 0; i < 150; ++i) {
    const double load = i < 30 ? 10000 : i < 90 ? 40000 : 10000;
    WindowFigures w = p.Measure((*policy)->allocation(), load, i);
    slack.push_back(*w.Slack());
    (*policy)->Decide(w);
    quota.push_back(*(*policy)->allocation().Get("stream", "cpu_quota"));
  }
  EXPECT_DOUBLE_EQ(quota[29], 1.0);
  EXPECT_DOUBLE_EQ(quota[30], 0.1);  // the step's first window: disabled at once
  int met = 0;
  for (int64_t i = 31; i < 90; ++i) met += slack[i] >= 0;
  EXPECT_GE(met, 55);
  EXPECT_DOUBLE_EQ(quota.back(), 1.0);
}

TEST(Heracles, NoActionOnAWindowThatWasNotMeasured) {
  auto policy = MakePolicy(StreamSpec("heracles"));
  ASSERT_TRUE(policy.ok());
  WindowFigures w = Figures(0, -0.5, 40000);
  w.valid = false;
  w.invalid_because = "the co-runner stream ended during the window";
  Decision d = (*policy)->Decide(w);
  EXPECT_TRUE(d.actions.empty());
  EXPECT_NE(d.note.find("not valid (the co-runner stream ended during the window): no action"), std::string::npos);
  EXPECT_DOUBLE_EQ(*(*policy)->allocation().Get("stream", "cpu_quota"), 1.0);
}

}  // namespace
}  // namespace ream
