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
// `axis`: what the sweep varied; load counted in sessions is part of the streaming evidence.
Category Classify(const GroupAnalysis* ref, const std::vector<GroupAnalysis>& groups,
                  LoadAxis axis = LoadAxis::kQps);

}  // namespace ream::analysis
