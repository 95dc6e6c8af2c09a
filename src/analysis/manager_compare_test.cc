#include "analysis/manager_compare.h"

#include <functional>

#include <gtest/gtest.h>

namespace ream::analysis {
namespace {

// A run of `n` windows of 0.5 s under a step 10 000 -> 40 000 QPS at window `step`: window i
// meets QoS when `met(i)`, its neighbour takes `cpu` CPU-s/s.
ModeRun ModeRunOf(const std::string& mode, bool managed, int n, int step, const std::function<bool(int)>& met,
            double cpu) {
  ModeRun r;
  r.mode = mode;
  r.managed = managed;
  r.neighbour_alone["n"] = 1.0;
  for (int i = 0; i < n; ++i) {
    ManagerWindowRecord w;
    w.window = i;
    w.end_s = 0.5 * (i + 1);
    w.valid = true;
    w.target_us = 500;
    w.tail_us = met(i) ? 200 : 900;
    w.load_qps = i < step ? 10000 : 40000;
    if (mode != "alone") w.neighbour_throughput["n"] = cpu;
    r.windows.push_back(w);
  }
  return r;
}

TEST(ManagerCompare, SharesOfWindowsMeetingQosAndTheParetoFront) {
  std::vector<ModeRun> runs{
      ModeRunOf("alone", false, 10, 5, [](int) { return true; }, 0),
      ModeRunOf("normal", false, 10, 5, [](int i) { return i < 5; }, 0.9),  // misses every high window
      ModeRunOf("idle", false, 10, 5, [](int) { return true; }, 0.1),
      ModeRunOf("quota", false, 10, 5, [](int i) { return i != 5 && i != 6; }, 0.3),
      ModeRunOf("managed", true, 10, 5, [](int i) { return i != 5; }, 0.5),
  };
  runs[4].windows[5].actions.push_back({.seq = 0, .tenant = "n", .knob = "cpu_quota", .from = 1, .to = 0.9});
  ManagerComparison c = CompareModes(runs, 50000);
  ASSERT_EQ(c.modes.size(), 5u);
  EXPECT_EQ(c.modes[0].mode, "alone");
  const ModeFigures& normal = c.modes[1];
  EXPECT_EQ(normal.met, 5);
  EXPECT_DOUBLE_EQ(*normal.met_share, 0.5);
  EXPECT_EQ(normal.unsettled, 1);  // no high window met QoS
  const ModeFigures& quota = c.modes[3];
  EXPECT_DOUBLE_EQ(*quota.met_share, 0.8);
  EXPECT_FALSE(quota.pareto);
  EXPECT_EQ(quota.dominated_by, std::vector<std::string>{"managed"});
  const ModeFigures& managed = c.modes[4];
  EXPECT_TRUE(managed.managed);
  EXPECT_DOUBLE_EQ(*managed.met_share, 0.9);
  EXPECT_DOUBLE_EQ(*managed.neighbour_throughput, 0.5);
  EXPECT_EQ(managed.actions, 1);
  EXPECT_EQ(managed.steps, 1);
  // The step came after window 4 (2.5 s); window 6 met QoS again, ending at 3.5 s.
  ASSERT_TRUE(managed.settling_s);
  EXPECT_DOUBLE_EQ(*managed.settling_s, 1.0);
  EXPECT_TRUE(managed.pareto);
  EXPECT_TRUE(c.modes[1].pareto);  // the most for the neighbour
  EXPECT_TRUE(c.modes[2].pareto);  // every window met
  // EMU: the load's share of 50 000 plus the neighbour's share of its throughput alone.
  ASSERT_TRUE(managed.emu);
  EXPECT_NEAR(*managed.emu, (5 * 0.2 + 5 * 0.8) / 10 + 0.5, 1e-9);
  EXPECT_NE(c.verdict.find("on the Pareto front; it dominates quota"), std::string::npos) << c.verdict;
}

TEST(ManagerCompare, WithoutACapacityEmuIsWithheldSayingWhy) {
  ManagerComparison c = CompareModes({ModeRunOf("managed", true, 4, 2, [](int) { return true; }, 0.5)}, 0);
  ASSERT_EQ(c.modes.size(), 1u);
  EXPECT_FALSE(c.modes[0].emu);
  EXPECT_NE(c.modes[0].emu_note.find("peak_qps"), std::string::npos);
}

// A mode whose windows were all invalid is not judged: neither dominated nor dominating.
TEST(ManagerCompare, AModeWithoutAValidWindowIsNotJudged) {
  std::vector<ModeRun> runs{ModeRunOf("managed", true, 4, 2, [](int) { return false; }, 0.5),
                            ModeRunOf("normal", false, 4, 2, [](int) { return false; }, 0.9)};
  for (auto& w : runs[1].windows) w.valid = false;
  ManagerComparison c = CompareModes(runs, 0);
  ASSERT_EQ(c.modes.size(), 2u);
  EXPECT_FALSE(c.modes[1].met_share);
  EXPECT_EQ(c.modes[1].met_note, "no window was valid");
  EXPECT_FALSE(c.modes[1].pareto);
  EXPECT_TRUE(c.modes[0].dominated_by.empty());
  EXPECT_TRUE(c.modes[1].dominated_by.empty());
}

TEST(ManagerCompare, NoWindowsSaysSo) {
  ManagerComparison c = CompareModes({}, 0);
  EXPECT_TRUE(c.modes.empty());
  EXPECT_FALSE(c.note.empty());
}

}  // namespace
}  // namespace ream::analysis
