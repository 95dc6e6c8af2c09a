// Statistics the analysis needs: linear interpolation along a sweep, threshold crossings,
// least-squares lines with R², confidence intervals for percentiles (order statistics of
// a stored histogram) and for medians across repetitions (order statistics of the
// repetitions' values).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "load/histogram.h"
#include "load/percentile_ci.h"

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

// A percentile's interval from a histogram (load/percentile_ci.h, where the generator's
// stopping rule uses it too).
using ::ream::NormalQuantileTwoSided;
using ::ream::PercentileCi;
using ::ream::PercentileConfidence;

// The median of `values` (repetitions of one measurement) and its distribution-free
// confidence interval [x_(k), x_(n+1−k)]: the number of values below the true median is
// Binomial(n, ½), so that interval covers it with probability 1 − 2·P(Bin(n, ½) ≤ k − 1)
// whatever the values' distribution. k is the largest rank whose coverage reaches
// `confidence`; with too few values for that (fewer than 6 at 95 %) the interval is the
// whole range [min, max] and `coverage` says how much less it covers. A median, unlike a
// mean, is not moved by one disturbed repetition (Hoefler & Belli, "Scientific
// benchmarking of parallel computing systems", SC'15, rule 5).
struct MedianCi {
  double median = 0;
  double low = 0;
  double high = 0;
  double coverage = 0;  // probability that [low, high] covers the true median (0 with n = 1)
  int n = 0;
};
std::optional<MedianCi> MedianConfidence(std::vector<double> values, double confidence = 0.95);

}  // namespace ream::analysis
