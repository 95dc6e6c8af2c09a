// The subject's sensitivity profile (issue 42; docs/interference.md): per source of interference
// (a co-runner set of one `pressure = SOURCE, intensity = P` co-runner, as [interference]
// generates them), the subject's QPS under QoS with its interval and its tail at a fixed load
// against the intensity — Bubble-Up's sensitivity curve, with the subject alone as 0 % — the
// intensity it tolerates at that load before it misses QoS (iBench's tolerated intensity,
// interpolated on the tail), and a verdict with its evidence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/colocation.h"
#include "analysis/data.h"

namespace ream::analysis {

// The verdict's threshold: sensitive when the subject misses QoS at the fixed load within the
// dial, or when its QPS under QoS at the highest intensity is lower than alone beyond both
// intervals by more than this share.
inline constexpr double kInterferenceCapacityDrop = 0.10;

// One intensity of a source's curve (0: the subject alone).
struct InterferencePoint {
  double intensity = 0;
  std::string set;  // the co-runner set ("llc@50"); "" for the subject alone
  std::optional<double> capacity, low, high;
  bool lower_bound = false;
  std::optional<double> upper_bound;  // the capacity lies below this (even the lowest level missed)
  std::optional<double> tail_us;      // the QoS percentile at the fixed load (valid point)
  std::optional<bool> meets;          // at the fixed load; a certain miss of an invalid point is false
  std::string note;                   // why the tail or the verdict at the load is missing
};

struct InterferenceProfile {
  std::string source;     // "llc"
  std::string group_key;  // "1-ST / unlimited"
  std::optional<double> load;  // the fixed load (axis units)
  std::string load_how;        // how it was chosen
  std::vector<InterferencePoint> points;  // ascending intensity, 0 first
  // The highest intensity that still meets QoS at the load, interpolated on the tail between
  // the last intensity that meets and the first that misses; the whole dial's top when every
  // intensity meets (tolerates_all), the last that met when the next could not be judged
  // (at_least).
  std::optional<double> tolerated;
  bool tolerates_all = false, at_least = false;
  std::string tolerated_note;
  std::optional<double> capacity_ratio_at_max;  // at the highest intensity, together / alone
  std::string verdict;   // "sensitive", "insensitive" or "undecided"
  std::string evidence;  // the figures the verdict rests on
};

// The profiles of every source that has single-source sets in `d`'s runs, per scenario ×
// partition of `groups` (AnalyzeColocation's); `lqos` the subject's QoS target alone.
std::vector<InterferenceProfile> AnalyzeInterference(const ExperimentData& d, const std::vector<ColocationGroup>& groups,
                                                     std::optional<double> lqos);

}  // namespace ream::analysis
