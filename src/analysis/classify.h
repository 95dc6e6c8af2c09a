// The workload's category (DESIGN.md "Categories") from the measured profile, with the
// evidence and the thresholds of analysis.h.
// Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// The category of the reference group `ref`, explained.
Category Classify(const GroupAnalysis* ref, const std::vector<GroupAnalysis>& groups);

}  // namespace ream::analysis
