// Sensitivity to resource partitions: how QPS under QoS changes over the partitions that
// limit one resource of the knob table alone (partition/knobs.h).
// Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// One entry per resource of `knobs` and scenario ("not measured" when no partition limited it).
std::vector<Sensitivity> ComputeSensitivity(const std::vector<GroupAnalysis>& groups, const KnobTable& knobs);

}  // namespace ream::analysis
