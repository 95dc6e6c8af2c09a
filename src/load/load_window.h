// The measured window in pieces as it goes (LoadOptions::window_ns, `ream load --window`,
// `[load] window`): the generator's figures over each consecutive stretch of window_ns, handed
// on as each one ends, so a manager can act between them. What each figure means and how a
// window is judged valid: docs/load.md, "Windows".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/status.h"

namespace ream {

// A count as the generator (or an agent) writes it: a non-negative integer. nullopt for
// anything else — a fraction, which would convert with undefined behaviour, a negative, text.
std::optional<uint64_t> JsonCount(const nlohmann::json& v);

struct LoadWindow {
  int64_t index = 0;              // 0, 1, ... over the measured window
  double start_s = 0, end_s = 0;  // from the measured window's start
  double target_qps = 0;          // the schedule's (or qps's) mean rate over the window
  double throughput_qps = 0;      // answers received in the window / its length
  // Requests scheduled in the window (sent or not), answers received in it, and requests that
  // failed while it was open (an error answer, lost with a connection, not sent).
  uint64_t scheduled = 0, answered = 0, errors = 0;
  double percentile = 95;         // LoadOptions::validity_percentile (the QoS's)
  // That percentile of the latencies of the window's answers, timed from the scheduled send;
  // unset when the window had no answers (not 0: nothing was measured).
  std::optional<double> tail_us;
  std::optional<double> p95_us, p99_us;
  double timely_ratio = 0;        // of the requests scheduled in the window
  bool valid = false;             // timely >= min_timely_ratio, no errors, answers > 0
  std::string invalid_because;    // with !valid, in words

  nlohmann::json ToJson() const;
  // InvalidArgument naming the field that is missing or of the wrong type.
  static Result<LoadWindow> FromJson(const nlohmann::json& j);
};

// What the generator's threads counted over one window (summed over them), and the latencies
// (ns) of its answers: made into a LoadWindow with its figures and verdict.
struct WindowCounts {
  uint64_t scheduled = 0, timely = 0, answered = 0, errors = 0;
  std::vector<int64_t> latencies_ns;
  std::vector<int64_t> from_send_ns;  // the same answers from the actual send (the distortion rule)
};
// The distortion rule on a window (the generator's ValidityRule::kDistortion, without the
// send-gap test, which a window's few hundred gaps cannot carry): a window whose timely share is
// short is still valid when lateness moved its tail by at most `max_share` of it or by
// `floor_ns`, whichever is more — the tail from the schedule against the tail from the send.
struct WindowDistortion {
  double max_share = 0.05;
  int64_t floor_ns = 20'000;
};
// Seed's rule without `distortion`: the timely share alone.
LoadWindow JudgeWindow(int64_t index, double start_s, double end_s, double target_qps, WindowCounts counts,
                       double percentile, double min_timely_ratio,
                       std::optional<WindowDistortion> distortion = std::nullopt);

}  // namespace ream
