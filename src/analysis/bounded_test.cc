// Figures derived from bounds (bounded.h): each direction carried through a ratio, a sum, a
// difference and a scale, and withheld where the bounds point opposite ways.
#include "analysis/bounded.h"

#include <gtest/gtest.h>

namespace ream::analysis {
namespace {

TEST(Bounded, ARatioOverACapacityBeyondTheSweepIsAnUpperBound) {
  // Together measured 7 184, alone at least 40 000: the ratio is at most 0.18.
  Bounded r = Divide(Bounded::Exact(7184), Bounded::AtLeast(40000), "both beyond the sweep");
  ASSERT_TRUE(r.value);
  EXPECT_NEAR(*r.value, 0.1796, 1e-9);
  EXPECT_EQ(r.bound, Bound::kUpper);
  // Together below its lowest valid level, alone measured: at most too.
  EXPECT_EQ(Divide(Bounded::AtMost(5000), Bounded::Exact(40000), "x").bound, Bound::kUpper);
  // Together beyond the sweep, alone measured (or below its lowest level): at least.
  EXPECT_EQ(Divide(Bounded::AtLeast(40000), Bounded::Exact(30000), "x").bound, Bound::kLower);
  EXPECT_EQ(Divide(Bounded::AtLeast(40000), Bounded::AtMost(2000), "x").bound, Bound::kLower);
  EXPECT_TRUE(Divide(Bounded::Exact(2), Bounded::Exact(4), "x").exact());
}

TEST(Bounded, BoundsFromOppositeSidesWithholdTheFigureWithTheReason) {
  Bounded r = Divide(Bounded::AtLeast(40000), Bounded::AtLeast(40000), "both beyond the sweep");
  EXPECT_FALSE(r.value);
  EXPECT_EQ(r.withheld, "both beyond the sweep");
  EXPECT_FALSE(Divide(Bounded::AtMost(1), Bounded::AtMost(2), "both below").value);
  Bounded missing = Divide(Bounded::Withheld("no valid point"), Bounded::Exact(1), "x", "together");
  EXPECT_EQ(missing.withheld, "together: no valid point");
  EXPECT_FALSE(Divide(Bounded::Exact(1), Bounded::Exact(0), "x").value);
  EXPECT_FALSE(Add(Bounded::AtMost(1), Bounded::AtLeast(1), "opposite").value);
}

TEST(Bounded, SumsDifferencesAndScalesKeepOrTurnTheDirection) {
  Bounded s = Add(Bounded::AtMost(0.5), Bounded::Exact(0.25), "x");
  EXPECT_DOUBLE_EQ(*s.value, 0.75);
  EXPECT_EQ(s.bound, Bound::kUpper);
  Bounded d = Subtract(Bounded::Exact(0.5), Bounded::AtMost(0.25), "x");
  EXPECT_DOUBLE_EQ(*d.value, 0.25);
  EXPECT_EQ(d.bound, Bound::kLower);
  EXPECT_EQ(Scale(Bounded::AtMost(2), 100).bound, Bound::kUpper);
  EXPECT_EQ(Also(Bounded::Exact(1), Bound::kLower, "x").bound, Bound::kLower);
  EXPECT_FALSE(Also(Bounded::AtMost(1), Bound::kLower, "opposite").value);
}

TEST(Bounded, ACapacityBecomesAFigureOfItsOwnDirection) {
  EXPECT_EQ(CapacityFigure(40000, true, std::nullopt, ""), Bounded::AtLeast(40000));
  EXPECT_EQ(CapacityFigure(std::nullopt, false, 5000, ""), Bounded::AtMost(5000));
  EXPECT_EQ(CapacityFigure(7184, false, std::nullopt, ""), Bounded::Exact(7184));
  EXPECT_EQ(CapacityFigure(std::nullopt, false, std::nullopt, "no valid point").withheld, "no valid point");
  auto j = ToJson(Bounded::AtMost(0.18));
  EXPECT_EQ(j["bound"], "upper");
  EXPECT_DOUBLE_EQ(j["value"].get<double>(), 0.18);
  EXPECT_EQ(ToJson(Bounded::Withheld("both beyond the sweep"))["value"], nullptr);
}

}  // namespace
}  // namespace ream::analysis
