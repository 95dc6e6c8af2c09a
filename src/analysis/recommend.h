// The cheapest measured allocation that meets QoS at a target load.
// Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// The cheapest group (cores, threads, then the knob table's resources by cost rank) whose
// capacity reaches `q`, with every candidate, cheapest first.
Recommendation Recommend(const std::vector<GroupAnalysis>& groups, double q, const KnobTable& knobs);

}  // namespace ream::analysis
