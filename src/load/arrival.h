// Arrival processes of the open-loop generator: the gaps between consecutive scheduled send
// times. The generator adds them to an absolute schedule (t_{i+1} = t_i + gap, never
// "now + gap"), so a late send never shifts the requests after it.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "platform/status.h"

namespace ream {

struct ArrivalSpec {
  enum class Kind { kExponential, kConstant, kTrace };
  Kind kind = Kind::kExponential;
  std::string name = "exponential";  // as given: "exponential", "constant", "trace:FILE"
  // kTrace: the trace's inter-arrival gaps (any unit; they are rescaled to the target rate).
  std::vector<double> trace_gaps;
};

// Parses "exponential", "constant" or "trace:FILE" where FILE's text (read by the caller,
// passed as `trace_text`) holds one inter-arrival gap in microseconds per line ('#' comments,
// blank lines ignored). InvalidArgument naming the line on bad input.
Result<ArrivalSpec> ParseArrival(std::string_view spec, std::string_view trace_text = {});
// Parses a trace's text (see above).
Result<std::vector<double>> ParseTraceGaps(std::string_view text);

// Draws gaps for one generator thread whose share of the load is `rate_per_s`.
class ArrivalProcess {
 public:
  // `offset` staggers trace replay between threads.
  ArrivalProcess(const ArrivalSpec& spec, double rate_per_s, uint64_t seed, size_t offset = 0);
  // The next gap in nanoseconds (fractional: the schedule is kept in double nanoseconds so
  // rounding never drifts the rate).
  double NextGapNs() {
    switch (kind_) {
      case ArrivalSpec::Kind::kExponential:
        return exp_(rng_);
      case ArrivalSpec::Kind::kConstant:
        return mean_gap_ns_;
      case ArrivalSpec::Kind::kTrace: {
        double g = (*trace_)[pos_] * trace_scale_;
        if (++pos_ == trace_->size()) pos_ = 0;
        return g;
      }
    }
    return mean_gap_ns_;
  }
  double mean_gap_ns() const { return mean_gap_ns_; }

 private:
  ArrivalSpec::Kind kind_;
  double mean_gap_ns_;
  std::mt19937_64 rng_;
  std::exponential_distribution<double> exp_;
  const std::vector<double>* trace_ = nullptr;
  double trace_scale_ = 1;
  size_t pos_ = 0;
};

}  // namespace ream
