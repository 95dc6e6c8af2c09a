// A percentile's distribution-free confidence interval from a histogram's order statistics.
// Here, below the analysis, because the generator's stopping rule (load/until.h) asks the
// same question of a point while it runs that the analysis asks of it afterwards.
#pragma once

#include <cstdint>
#include <optional>

#include "load/histogram.h"

namespace ream {

// A percentile with its confidence interval, in the histogram's unit.
struct PercentileCi {
  double value = 0;
  double low = 0;
  double high = 0;
  uint64_t n = 0;
  uint64_t rank_low = 0, rank_high = 0;  // the order statistics bounding the interval
};
// The q-quantile (q in (0,1)) of a histogram's samples and its distribution-free
// confidence interval: the number of samples below the true quantile is Binomial(n, q), so
// [X_(l), X_(u)] with l, u = n·q ∓ z·sqrt(n·q·(1−q)) (normal approximation, ranks clamped to
// [1, n]) covers it with the given confidence. Values carry the histogram's bucket error
// (≤ Histogram::kRelativeError). nullopt for an empty histogram.
std::optional<PercentileCi> PercentileConfidence(const Histogram& h, double q,
                                                 double confidence = 0.95);

// Two-sided standard normal quantile for a confidence level (0.95 → 1.96).
double NormalQuantileTwoSided(double confidence);

}  // namespace ream
