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
// The same order-statistic interval for answers that are not independent: the count below the
// true quantile varies by `rank_half_width` either side (its standard deviation times the
// interval's multiplier, as load/until.h estimates it from batches of the answers) instead of
// the binomial's z·sqrt(n·q·(1−q)).
std::optional<PercentileCi> PercentileInterval(const Histogram& h, double q, double rank_half_width);

// Two-sided standard normal quantile for a confidence level (0.95 → 1.96).
double NormalQuantileTwoSided(double confidence);
// Two-sided Student t quantile for `df` ≥ 1 degrees of freedom (0.95, 15 → 2.131): the
// Cornish-Fisher expansion about the normal quantile (Hill 1970), within 0.1 % from 3 degrees
// of freedom on, 1 % at 2 (an interval from few batches, load/until.h, needs t's width).
double StudentQuantileTwoSided(double confidence, int df);

}  // namespace ream
