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

std::optional<PercentileCi> PercentileConfidence(const Histogram& h, double q,
                                                 double confidence) {
  if (h.count() == 0) return std::nullopt;
  double n = static_cast<double>(h.count());
  double z = NormalQuantileTwoSided(confidence);
  double sd = std::sqrt(n * q * (1 - q));
  auto clamp_rank = [&](double r) {
    return static_cast<uint64_t>(std::clamp(r, 1.0, n));
  };
  PercentileCi ci;
  ci.n = h.count();
  ci.rank_low = clamp_rank(std::floor(n * q - z * sd));
  ci.rank_high = clamp_rank(std::ceil(n * q + z * sd) + 1);
  ci.value = static_cast<double>(h.ValueAtQuantile(q));
  ci.low = static_cast<double>(h.ValueAtRank(ci.rank_low));
  ci.high = static_cast<double>(h.ValueAtRank(ci.rank_high));
  return ci;
}

}  // namespace ream
