// A group's capacity (the highest load meeting QoS, interpolated), the loads at 20 % and 50 %
// CPU utilization, where it saturates, and the scaling ratios between scenarios.
// Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// Max QPS under QoS: the highest load meeting the target, interpolated between the last
// passing and the first failing point; bounded (with the status saying so) otherwise.
Capacity ComputeCapacity(const std::vector<PointAnalysis>& points, std::optional<double> target,
                         LoadAxis axis);
// A sessions sweep's capacity: the most sessions measured whose chunks missed their play-out
// deadline at most kSessionMaxDeadlineMiss of the time, up to the first level that missed it
// more often (not interpolated: a session is whole). Bounded, with the status saying so, when
// every valid level meets it or none does.
Capacity ComputeSessionCapacity(const std::vector<PointAnalysis>& points);
// The load at CPU utilization `u` (interpolated over valid points); `note` says why not.
void QpsAtUtilization(const std::vector<PointAnalysis>& points, double u,
                      std::optional<double>* out, std::string* note);
// Where the group saturates: the CPU fills, or (a qps axis, whose levels are rates) the
// throughput falls behind the offered rate. A sessions level is a count, not a rate, so
// throughput is not compared with it.
void Saturation(GroupAnalysis& g, LoadAxis axis);
// num / den of the capacity (`capacity`) or of a GroupAnalysis field, with its status.
Ratio MakeRatio(const GroupAnalysis* num, const GroupAnalysis* den, const std::string& num_name,
                std::optional<double> GroupAnalysis::*field_ptr, bool capacity,
                const std::string& num_skipped = "", const std::string& den_skipped = "");

}  // namespace ream::analysis
