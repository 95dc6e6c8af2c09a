// The second seed's queueing model fitted to a group and compared with its measurements, and
// the LogGP parameters a partition set (the knob table's net_latency, net_overhead, net_gap,
// net_per_byte). Internal to the analysis: Analyze (analysis.cc) calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// The LogGP knobs, by their [partitions] keys.
inline constexpr const char* kLatencyKnob = "net_latency";     // L, one way, µs
inline constexpr const char* kOverheadKnob = "net_overhead";   // o, per message, µs
inline constexpr const char* kGapKnob = "net_gap";             // g, between messages, µs
inline constexpr const char* kPerByteKnob = "net_per_byte";    // G, per byte, ns/B

// The resource a knob limits (the table's entry for it), else the knob's key itself.
std::string ResourceOf(const KnobTable& knobs, const std::string& knob);
// The amount `p` sets for LogGP knob `knob`, in seconds (L, o, g) or seconds per byte (G);
// nullopt when the partition does not set it or its resource's unit is not a time ("us",
// "µs", "ns", "ms", "s", per byte "ns/B", "us/B").
std::optional<double> LogGpSeconds(const Partition& p, const KnobTable& knobs, const std::string& knob);

// Fits the model on the group's valid points and compares its curve with them (g.model, or
// g.model_unavailable saying why not).
void FitModel(GroupAnalysis& g, const ExperimentData& d, const AnalysisOptions& o, double pct);

}  // namespace ream::analysis
