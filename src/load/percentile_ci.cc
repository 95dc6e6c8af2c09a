#include "load/percentile_ci.h"

#include <algorithm>
#include <cmath>

namespace ream {

double NormalQuantileTwoSided(double confidence) {
  // Inverse of the standard normal CDF at (1 + confidence) / 2 by bisection on erfc: exact
  // enough (1e-9) and free of tables.
  double p = (1.0 + confidence) / 2.0;
  double lo = 0, hi = 10;
  for (int i = 0; i < 100; ++i) {
    double mid = (lo + hi) / 2;
    double cdf = 0.5 * std::erfc(-mid / std::sqrt(2.0));
    (cdf < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double StudentQuantileTwoSided(double confidence, int df) {
  const double z = NormalQuantileTwoSided(confidence);
  const double v = std::max(1, df);
  const double z2 = z * z;
  const double g1 = (z2 + 1) * z / 4;
  const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

std::optional<PercentileCi> PercentileConfidence(const Histogram& h, double q,
                                                 double confidence) {
  const double n = static_cast<double>(h.count());
  return PercentileInterval(h, q, NormalQuantileTwoSided(confidence) * std::sqrt(n * q * (1 - q)));
}

std::optional<PercentileCi> PercentileInterval(const Histogram& h, double q, double rank_half_width) {
  if (h.count() == 0) return std::nullopt;
  const double n = static_cast<double>(h.count());
  auto clamp_rank = [&](double r) {
    return static_cast<uint64_t>(std::clamp(r, 1.0, n));
  };
  PercentileCi ci;
  ci.n = h.count();
  ci.rank_low = clamp_rank(std::floor(n * q - rank_half_width));
  ci.rank_high = clamp_rank(std::ceil(n * q + rank_half_width) + 1);
  ci.value = static_cast<double>(h.ValueAtQuantile(q));
  ci.low = static_cast<double>(h.ValueAtRank(ci.rank_low));
  ci.high = static_cast<double>(h.ValueAtRank(ci.rank_high));
  return ci;
}

}  // namespace ream
