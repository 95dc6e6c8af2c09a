// The order of several experiments' runs: one after another, or interleaved in shuffled
// rounds (randomized multiple interleaved trials).
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "experiment/plan.h"

namespace ream {
namespace {

using Order = std::vector<std::pair<int, int>>;

TEST(RunOrder, WithoutInterleavingRunsEachExperimentInTurn) {
  EXPECT_EQ(RunOrder({2, 3}, false, 1), (Order{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}}));
  EXPECT_EQ(RunOrder({}, false, 1), Order{});
}

TEST(RunOrder, InterleavedRoundsHoldTheKthRunOfEveryExperimentOnce) {
  const std::vector<int> runs = {4, 1, 3};
  Order order = RunOrder(runs, true, 7);
  ASSERT_EQ(order.size(), 8u);
  // Round k is the k-th run of each experiment that has one, before any run of round k + 1.
  std::set<std::pair<int, int>> seen;
  int round = 0, in_round = 0;
  for (auto [e, i] : order) {
    EXPECT_TRUE(seen.insert({e, i}).second) << "run " << i << " of experiment " << e << " twice";
    ASSERT_GE(i, round) << "a run of an earlier round came after round " << round << " began";
    if (i > round) {
      int expected = 0;
      for (int n : runs) expected += n > round;
      EXPECT_EQ(in_round, expected) << "round " << round << " incomplete";
      round = i;
      in_round = 0;
    }
    ++in_round;
    EXPECT_LT(i, runs[e]);
  }
  EXPECT_EQ(seen.size(), 8u);
}

TEST(RunOrder, TheShuffleIsFixedBySeedAndNotAFixedAlternation) {
  // The same seed gives the same order on every build (the shuffle uses mt19937_64's raw
  // output, which the standard fixes); this one is what `ream run --dry-run` prints for seed 1.
  EXPECT_EQ(RunOrder({3, 3}, true, 1), (Order{{1, 0}, {0, 0}, {1, 1}, {0, 1}, {1, 2}, {0, 2}}));
  EXPECT_EQ(RunOrder({5, 5, 5}, true, 42), RunOrder({5, 5, 5}, true, 42));
  EXPECT_NE(RunOrder({5, 5, 5}, true, 42), RunOrder({5, 5, 5}, true, 43));
  // Over many rounds each of two experiments goes first about half the time: a periodic
  // disturbance cannot fall into step with one of them.
  Order order = RunOrder({1000, 1000}, true, 3);
  int first0 = 0;
  for (size_t k = 0; k < order.size(); k += 2) first0 += order[k].first == 0;
  EXPECT_GT(first0, 440);
  EXPECT_LT(first0, 560);
}

}  // namespace
}  // namespace ream
