// Statistics the analysis needs: linear interpolation along a sweep, threshold crossings,
// least-squares lines with R², confidence intervals for percentiles (order statistics of
// a stored histogram) and for means across repetitions (Student's t).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "load/histogram.h"

namespace ream::analysis {

struct XY {
  double x = 0;
  double y = 0;
};

// y at x by linear interpolation between the two neighbouring samples (xs ascending).
// nullopt when x lies outside [first.x, last.x] or there are no samples: no extrapolation.
std::optional<double> InterpolateY(const std::vector<XY>& samples, double x);

// The x at which y first rises above `threshold`: interpolated between the last sample at
// or below it and the first sample above it (samples in ascending x). nullopt when y never
// crosses from ≤ threshold to > threshold. `index` receives the first sample above.
std::optional<double> FirstUpCrossing(const std::vector<XY>& samples, double threshold,
                                      size_t* index = nullptr);

struct LinearFit {
  double slope = 0;
  double intercept = 0;
  double r2 = 0;  // coefficient of determination; 1 when every point lies on the line
  int n = 0;
  double At(double x) const { return intercept + slope * x; }
};
// Ordinary least squares of y on x. nullopt with fewer than two distinct x.
std::optional<LinearFit> FitLine(const std::vector<XY>& samples);

// Pearson correlation of y with x; nullopt with fewer than two points or no variance.
std::optional<double> Correlation(const std::vector<XY>& samples);

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

// Mean of `values` and its two-sided Student-t confidence interval half-width.
struct MeanCi {
  double mean = 0;
  double half_width = 0;  // 0 with a single value (no spread to estimate)
  int n = 0;
};
std::optional<MeanCi> MeanConfidence(const std::vector<double>& values, double confidence = 0.95);

// Two-sided standard normal quantile for a confidence level (0.95 → 1.96).
double NormalQuantileTwoSided(double confidence);

}  // namespace ream::analysis
