#include "experiment/knee.h"

#include <cmath>

#include <gtest/gtest.h>

namespace ream {
namespace {

// An M/M/1 server with mean service 100 µs plus a 50 µs base round trip: the p95 sojourn is
// base + ln(20) / (μ − λ); above saturation it is unbounded.
double Mm1P95Us(double qps) {
  const double mu = 10000.0;  // per second
  if (qps >= mu) return 1e9;
  return 50.0 + std::log(20.0) / (mu - qps) * 1e6;
}

// The highest load on a fine grid whose p95 meets the target.
double FineGridKnee(double low, double high, double step, double target_us, int* points) {
  double best = 0;
  *points = 0;
  for (double q = low; q <= high + 1e-9; q += step) {
    ++*points;
    if (Mm1P95Us(q) <= target_us) best = q;
  }
  return best;
}

TEST(Knee, MatchesAFineGridWithAtMostHalfThePoints) {
  for (double target : {400.0, 500.0, 1000.0, 2000.0}) {
    KneeOptions o{.low = 500, .high = 12000, .precision = 0.02, .max_points = 20};
    int measured = 0;
    auto r = FindKnee(o, target, [&](double q) -> Result<KneeProbe> {
      ++measured;
      double p95 = Mm1P95Us(q);
      return KneeProbe{q, p95 <= target, p95};
    });
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->converged);
    ASSERT_TRUE(r->last_pass.has_value());
    // A grid fine enough for the same precision at this knee: step = precision × knee.
    double exact = 10000.0 - std::log(20.0) / ((target - 50.0) * 1e-6);
    int grid_points = 0;
    double grid = FineGridKnee(500, 12000, 0.02 * exact, target, &grid_points);
    EXPECT_NEAR(*r->last_pass, grid, 0.02 * grid + 0.02 * exact) << "target " << target;
    EXPECT_LE(std::abs(*r->knee_qps - exact), 0.02 * exact) << "target " << target;
    EXPECT_LE(measured * 2, grid_points) << "target " << target;
    EXPECT_EQ(measured, static_cast<int>(r->probes.size()));
  }
}

TEST(Knee, ReportsAKneeOutsideTheRange) {
  auto below = FindKnee({.low = 9990, .high = 12000}, 300, [](double q) -> Result<KneeProbe> {
    return KneeProbe{q, Mm1P95Us(q) <= 300, Mm1P95Us(q)};
  });
  ASSERT_TRUE(below.ok());
  EXPECT_TRUE(below->below_range);
  EXPECT_FALSE(below->last_pass.has_value());
  EXPECT_EQ(below->probes.size(), 1u);

  auto above = FindKnee({.low = 100, .high = 1000}, 1000, [](double q) -> Result<KneeProbe> {
    return KneeProbe{q, Mm1P95Us(q) <= 1000, Mm1P95Us(q)};
  });
  ASSERT_TRUE(above.ok());
  EXPECT_TRUE(above->above_range);
  EXPECT_EQ(above->knee_qps.value_or(0), 1000);
}

TEST(Knee, StopsAtMaxPointsAndPropagatesErrors) {
  int n = 0;
  auto r = FindKnee({.low = 1, .high = 1e6, .precision = 0.001, .max_points = 5}, 0,
                    [&](double q) -> Result<KneeProbe> {
                      ++n;
                      return KneeProbe{q, q < 777, 0};
                    });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(n, 5);
  EXPECT_FALSE(r->converged);
  auto e = FindKnee({.low = 1, .high = 10}, 0, [](double) -> Result<KneeProbe> {
    return Cancelled("interrupted");
  });
  EXPECT_EQ(e.status().code(), StatusCode::kCancelled);
}

}  // namespace
}  // namespace ream
