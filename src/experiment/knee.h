// The adaptive search for the QoS knee: the highest load that still meets QoS, found to a
// relative precision with far fewer points than a grid. Pure logic over a measure callback,
// so it is tested against synthetic latency curves and driven by the runner in production.
//
// It assumes "meets QoS" is monotone in the load (true below the knee, false above). It
// measures `low` (it must pass, or no load in range meets QoS), then `high` (if it passes the
// knee lies above the range), then bisects the bracket [last pass, first fail] until
// (fail − pass) ≤ precision × pass or max_points are spent.
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
  int max_points = 16;
};

struct KneeProbe {
  double qps = 0;
  bool meets_qos = false;
  double latency_us = 0;  // the QoS percentile's latency, for interpolation (0: unknown)
};

struct KneeResult {
  std::vector<KneeProbe> probes;         // in measurement order
  std::optional<double> last_pass;       // highest load that met QoS
  std::optional<double> first_fail;      // lowest load above it that did not
  bool below_range = false;              // `low` already fails QoS
  bool above_range = false;              // `high` still meets QoS
  bool converged = false;                // bracket narrower than the precision
  // The knee: last_pass, or interpolated (linearly in latency against the QoS target)
  // between last_pass and first_fail when both latencies are known.
  std::optional<double> knee_qps;
};

// `measure(qps)` runs one load level and says whether it met QoS; an error aborts the search
// (its Status is returned). `target_us` is used only for interpolating the knee.
using KneeMeasure = std::function<Result<KneeProbe>(double qps)>;
Result<KneeResult> FindKnee(const KneeOptions& options, double target_us,
                            const KneeMeasure& measure);

}  // namespace ream
