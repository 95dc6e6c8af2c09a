// Shared servers (DESIGN.md "Shared servers", docs/colocation.md): the subject measured alone
// and beside each co-runner set in one run, turned into ratios from that run — its QPS under
// QoS alone and together with their intervals, its tail at every level both measured, each
// co-runner's throughput alone and together, Heracles' effective machine utilization (EMU) and
// the subject's slack at each level.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/bounded.h"
#include "store/tenant_figures.h"

namespace ream::analysis {

// One co-runner of a set compared alone and together: its throughput alone (over the windows
// measured with the subject not running) and together (the mean over the shared points). The
// unit is the requests it served per second for a co-runner under a load of its own
// ([corunner.load]), else its completions per second when it completes runs (a batch job that
// `restart` repeats) in every alone window, else the CPU-seconds it obtained per second (an
// antagonist that never ends: the share of a CPU it got is the work it could do).
struct CorunnerComparison {
  std::string name;
  std::string sched, cpus;  // as the spec gave them
  ThroughputUnit unit = ThroughputUnit::kCpuSecondsPerSecond;
  std::optional<double> alone, together, ratio;  // ratio = together / alone
  int alone_windows = 0;    // windows the alone value is the median of
  std::string note;         // why a figure is missing
  // A co-runner under a load of its own: its p95 (µs) alone (the median over its valid alone
  // windows) and together (the median over its valid windows beside the subject's points), and
  // how many of its windows beside the subject were valid by its own generator's rule.
  bool loaded = false;
  double load_qps = 0;
  std::optional<double> alone_p95_us, together_p95_us;
  int together_windows = 0, together_valid_windows = 0;
  std::vector<std::string> together_invalid_reasons;  // distinct, from its invalid windows
};

// One load level both sides measured.
struct ColocationLevel {
  double load = 0;
  std::optional<double> alone_tail_us, together_tail_us;  // the QoS percentile
  std::optional<double> alone_p99_us, together_p99_us;
  bool alone_valid = false, together_valid = false;
  std::optional<bool> alone_meets, together_meets;
  std::vector<std::string> together_reasons;  // why the shared point is invalid
  // An invalid shared point whose tail from the actual send (a lower bound of the tail from the
  // schedule) already exceeds LQoS: it misses QoS whatever the generator's lateness did.
  std::optional<double> together_from_send_tail_us;
  bool together_certain_miss = false;
  // (LQoS - together tail) / LQoS: how much room the subject keeps beside the set (negative:
  // it misses QoS).
  std::optional<double> slack;
  // Heracles' effective machine utilization: load / capacity alone + Σ co-runner throughput
  // together / alone. At most its value when the capacity alone is only a lower bound (beyond
  // the sweep), at least when only an upper one; withheld with the term that is unknown.
  Bounded emu;
  std::map<std::string, double> corunner_throughput;  // at this level, in each one's measure
};

// A co-runner set beside the subject in one scenario × partition.
struct ColocationGroup {
  std::string set;        // "cache+stream"
  std::string group_key;  // "1-ST / unlimited"
  // The subject's QPS under QoS (axis units) alone and together, with their intervals.
  std::optional<double> alone_capacity, alone_low, alone_high;
  std::optional<double> together_capacity, together_low, together_high;
  bool alone_lower_bound = false, together_lower_bound = false;
  // When even the lowest valid level missed QoS: the capacity lies below it (no value above).
  std::optional<double> alone_upper_bound, together_upper_bound;
  std::string alone_status, together_status;
  // together / alone: a bound when either capacity is (≤ 0.18 beside a capacity alone beyond the
  // sweep), withheld when both bound it from opposite sides ("both beyond the sweep").
  Bounded capacity_ratio;
  // "lower beyond both intervals", "higher beyond both intervals", "within the intervals", "both
  // beyond the sweep: no difference within it", or why it cannot be said.
  std::string verdict;
  std::vector<ColocationLevel> levels;
  std::vector<CorunnerComparison> corunners;
  std::string unavailable;  // why nothing could be compared (no valid shared point, ...)

  Bounded AloneCapacity() const {
    return CapacityFigure(alone_capacity, alone_lower_bound, alone_upper_bound, alone_status);
  }
  Bounded TogetherCapacity() const {
    return CapacityFigure(together_capacity, together_lower_bound, together_upper_bound,
                          unavailable.empty() ? together_status : unavailable);
  }
};

}  // namespace ream::analysis
