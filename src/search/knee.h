// The adaptive search for the QoS knee: the highest load that still meets QoS, found to a
// relative precision with far fewer points than a grid. Pure logic over a measure callback,
// so it is tested against synthetic latency curves and driven by the runner in production.
//
// It assumes "meets QoS" is monotone in the load (true below the knee, false above). It
// measures `low` (it must pass, or no load in range meets QoS), then `high` (if it passes the
// knee lies above the range), then bisects the bracket [last pass, first fail] until
// (fail − pass) ≤ precision × pass or max_points are spent.
//
// An *invalid* measurement (the generator could not keep its schedule) is a failed
// measurement, not an answer: it says nothing about whether the workload meets QoS at that
// load. The search measures the same load again, up to `remeasure_invalid` more times, and the
// first valid measurement decides. A load that is invalid on every attempt is treated as not
// meeting QoS (capacity is never claimed from invalid data) and is listed in
// `invalid_levels`, so the caller can say so instead of reporting a QoS miss.
//
// With `confirm`, the final bracket is not taken on one measurement of each end: on a noisy
// machine one disturbed window at a load below the knee fails it, and a bisection never looks
// above its first fail again. Each end is measured once more; when the two measurements
// disagree, a third decides (the majority; the level's latency is then the median of its
// valid measurements). An end that turns out the other way re-opens the search: the bracket
// becomes [highest pass below the lowest fail] again, with every level's majority verdict,
// and is bisected and confirmed anew, within max_points.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "platform/status.h"

namespace ream {

struct KneeOptions {
  double low = 0;
  double high = 0;
  double precision = 0.05;  // relative width of the final bracket
  int max_points = 16;      // every measurement counts, re-measurements included
  int remeasure_invalid = 2;  // extra attempts at a load whose measurement was invalid
  bool confirm = false;       // measure the final bracket's ends again (see above)
};

struct KneeProbe {
  double load = 0;
  bool meets_qos = false;
  double latency_us = 0;  // the QoS percentile's latency, for interpolation (0: unknown)
  // False when the measurement itself is not to be trusted (the generator could not keep its
  // schedule): meets_qos is then ignored and the load is measured again. A level at which
  // the workload died is a valid answer (it does not meet QoS) and is not measured again.
  bool valid = true;
  int attempt = 0;  // set by FindKnee: 0 for a load's first measurement, 1, 2, … for repeats
};

// A load that no attempt measured validly; the search treated it as not meeting QoS.
struct KneeInvalidLevel {
  double load = 0;
  int attempts = 0;
};

struct KneeResult {
  std::vector<KneeProbe> probes;         // every measurement, in measurement order
  std::optional<double> last_pass;       // highest load that met QoS
  std::optional<double> first_fail;      // lowest load above it that did not
  bool below_range = false;              // `low` already fails QoS (or was never valid)
  bool above_range = false;              // `high` still meets QoS
  bool converged = false;                // bracket narrower than the precision
  // Both ends of the final bracket have a majority of at least two agreeing valid
  // measurements (only with KneeOptions::confirm).
  bool confirmed = false;
  int reopened = 0;  // how often a confirmation turned an end over and re-opened the search
  std::vector<KneeInvalidLevel> invalid_levels;  // in measurement order
  // The knee: last_pass, or interpolated (linearly in latency against the QoS target)
  // between last_pass and first_fail when both latencies are known (never from an invalid
  // measurement).
  std::optional<double> knee_load;
};

// `measure(load, attempt)` runs one load level (attempt 0 first, then 1, 2, … for each further
// measurement of it: after an invalid one, or to confirm an end) and says whether it met
// QoS; an error aborts the search (its Status is returned). `target_us` is used only for interpolating the knee.
using KneeMeasure = std::function<Result<KneeProbe>(double load, int attempt)>;
Result<KneeResult> FindKnee(const KneeOptions& options, double target_us,
                            const KneeMeasure& measure);

}  // namespace ream
