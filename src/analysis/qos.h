// The QoS target (LQoS): 5 × the mean service time at 20 % CPU utilization of the reference
// group, or the spec's fixed target (DESIGN.md).
// Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// Where the seed's m × S lies below every tail measured, the target moves above the round trip
// outside the server, read as the lowest tail at a valid point at or below this CPU
// utilization. The rule is for servers whose S is far below the round trip (memcached: ~13 µs
// against ~150 µs): at 80 % an M/M/1 p95 holds ~15 S of queueing, tens of µs there; towards
// saturation it climbs without bound (60 S at 95 %), and a floor read there is queueing.
inline constexpr double kFloorMaxUtilization = 0.8;

// The group the QoS target and the category are derived from (unlimited 1-ST first).
const GroupAnalysis* ReferenceGroup(const std::vector<GroupAnalysis>& groups);
// Whether any point carries session load's figures (a sessions sweep measured by session
// load). A sessions sweep without them (stored by a driver that does not report them) is
// judged by its latency percentile against the target, as a qps sweep is.
bool HasSessionFigures(const std::vector<GroupAnalysis>& groups);
// The QoS target with how it was set, or why there is none.
QosTarget ComputeQos(const ExperimentData& d, const std::vector<GroupAnalysis>& groups);

}  // namespace ream::analysis
