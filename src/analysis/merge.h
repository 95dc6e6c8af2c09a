// One load level's measurements merged into one point: which attempts decide a level, and
// the median of their figures.
// Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// Whether two target loads are the same level (stored loads are formatted floats).
bool SameLoad(double a, double b);
// The points that stand for `load` in run `r`: its valid measurements, or the last attempt
// when none was valid (see merge.cc).
std::vector<const PointData*> DecidingPoints(const RunData& r, double load);
// The measurements of one level (repetitions, confirmations) merged into one point: the
// median of each figure, the tail's interval at `confidence`, percentile `pct`.
PointAnalysis MergePoints(const std::vector<const PointData*>& all, const RunData& run,
                          double pct, double confidence);

}  // namespace ream::analysis
