// What holds for any sequence of windows, whichever policy: no level leaves its bounds or goes
// under the floor, every action starts where the allocation was and is the whole of the change,
// a shared knob only changes hands, and an invalid window moves nothing (a seeded property test
// over thousands of random windows).
#include "manager/allocation.h"

#include <gtest/gtest.h>

#include <random>

#include "manager/plant_test_helper.h"
#include "manager/policy.h"

namespace ream {
namespace {

using plant::Plant;
using plant::Resource;

ManagerSpec Busy(const std::string& policy) {
  ManagerSpec s = plant::StreamSpec(policy);
  s.resources = {Resource("cpu_quota", "stream", "10%", "10%", "100%"),
                 Resource("llc_ways", "subject", "1", "2", "11"),
                 Resource("llc_ways", "stream", "1", "1", "9"),
                 Resource("cpu_idle", "stream"),
                 Resource("cpu_weight", "subject", "50", "100", "1000"),
                 Resource("mem_bw", "stream", "10%", "10%", "100%")};
  s.floor["cpu_quota"] = 0.3;
  s.floor["mem_bw"] = 0.25;  // off the grid of its unit: a move ends on the floor
  s.skip_windows = 2;
  s.cooldown_windows = 3;
  return s;
}

void CheckManyWindows(const std::string& name, uint64_t seed) {
  SCOPED_TRACE(name + " seed " + std::to_string(seed));
  ManagerSpec s = Busy(name);
  Allocation start;
  start.Set("subject", "llc_ways", 4);
  start.Set("stream", "llc_ways", 7);
  start.Set("subject", "cpu_weight", 100);
  auto policy = MakePolicy(s, start);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  const std::vector<Movable> movables = MovablesOf(s);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> load(0, 70000), u(0, 1);
  std::lognormal_distribution<double> noise(0, 0.5);
  Plant p;
  int actions = 0, invalid = 0;
  for (int64_t i = 0; i < 3000; ++i) {
    const Allocation before = (*policy)->allocation();
    WindowFigures w = p.Measure(before, load(rng), i);
    w.tail_us = *w.tail_us * noise(rng);
    if (u(rng) < 0.1) {
      w.valid = false;
      w.invalid_because = "drawn invalid";
    } else if (u(rng) < 0.02) {
      w.tail_us.reset();
    }
    const Decision d = (*policy)->Decide(w);
    ASSERT_FALSE(d.note.empty()) << i;
    const bool unmeasured = !w.valid || !w.tail_us;
    if (unmeasured) {
      ++invalid;
      ASSERT_TRUE(d.actions.empty()) << i << ": " << d.note;
    }
    // The actions, replayed on the allocation before, give the allocation after.
    Allocation replay = before;
    for (const auto& a : d.actions) {
      ASSERT_DOUBLE_EQ(*replay.Get(a.tenant, a.knob), a.from) << i << ": " << a.ToString();
      ASSERT_NE(a.from, a.to) << i << ": " << a.ToString();
      ASSERT_FALSE(a.reason.empty());
      replay.Set(a.tenant, a.knob, a.to);
      ++actions;
    }
    const Allocation& after = (*policy)->allocation();
    ASSERT_EQ(replay.levels(), after.levels()) << i;
    for (const auto& m : movables) {
      const double level = *after.Get(m.tenant, m.knob->key);
      ASSERT_GE(level, m.lower - 1e-9) << i << ": " << m.tenant << " " << m.knob->key;
      ASSERT_LE(level, m.upper + 1e-9) << i << ": " << m.tenant << " " << m.knob->key;
      if (auto f = s.floor.find(m.knob->key); f != s.floor.end()) {
        ASSERT_GE(level, f->second - 1e-9) << i;
      }
    }
    // The ways only change hands: 11 between the two (PARTIES), or fewer when Heracles disabled
    // the neighbour and the subject could not take all it gave up.
    const double ways = *after.Get("subject", "llc_ways") + *after.Get("stream", "llc_ways");
    if (name == "parties") {
      ASSERT_DOUBLE_EQ(ways, 11) << i;
    } else {
      ASSERT_LE(ways, 11) << i;
    }
  }
  // The test meant something: the policy moved often and saw invalid windows.
  EXPECT_GT(actions, 300);
  EXPECT_GT(invalid, 200);
}

TEST(Allocation, PartiesKeepsBoundsAndFloorOverRandomWindows) {
  for (uint64_t seed : {1, 2, 3}) CheckManyWindows("parties", seed);
}

TEST(Allocation, HeraclesKeepsBoundsAndFloorOverRandomWindows) {
  for (uint64_t seed : {1, 2, 3}) CheckManyWindows("heracles", seed);
}

TEST(Allocation, FloorRaisesALowerBoundAndAnAbsentStartIsTheUpper) {
  ManagerSpec s = Busy("parties");
  std::vector<Movable> m = MovablesOf(s);
  ASSERT_EQ(m.size(), 6u);
  EXPECT_DOUBLE_EQ(m[0].lower, 0.3);  // min 10 %, floor 30 %
  EXPECT_DOUBLE_EQ(m[2].lower, 1);    // no floor for ways
  auto a = StartingAllocation(m, {});
  ASSERT_TRUE(a.ok());
  EXPECT_DOUBLE_EQ(*a->Get("stream", "cpu_quota"), 1.0);
  EXPECT_DOUBLE_EQ(*a->Get("stream", "cpu_idle"), 1.0);
  EXPECT_EQ(m[3].Text(0), "idle");
  EXPECT_DOUBLE_EQ(m[0].Step(0.35, -1), 0.3);  // held at the floor, not 25 %
}

}  // namespace
}  // namespace ream
