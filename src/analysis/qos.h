// The QoS target (LQoS): 5 × the mean service time at 20 % CPU utilization of the reference
// group, or the spec's fixed target (DESIGN.md).
// Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// The group the QoS target and the category are derived from (unlimited 1-ST first).
const GroupAnalysis* ReferenceGroup(const std::vector<GroupAnalysis>& groups);
// The QoS target with how it was set, or why there is none.
// Whether any point carries session load's figures (a sessions sweep measured by session
// load). A sessions sweep without them (stored by a driver that does not report them) is
// judged by its latency percentile against the target, as a qps sweep is.
bool HasSessionFigures(const std::vector<GroupAnalysis>& groups);
QosTarget ComputeQos(const ExperimentData& d, const std::vector<GroupAnalysis>& groups);

}  // namespace ream::analysis
