// The second seed's queueing model fitted to a group and compared with its measurements.
// Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// Fits S0 on the group's valid points and compares the model's curve with them (g.model,
// or g.model_unavailable saying why not).
void FitModel(GroupAnalysis& g, const ExperimentData& d, const AnalysisOptions& o, double pct);

}  // namespace ream::analysis
