// Arrival processes of the open-loop generator: the gaps between consecutive scheduled send
// times. The generator adds them to an absolute schedule (t_{i+1} = t_i + gap, never
// "now + gap"), so a late send never shifts the requests after it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "load/distribution.h"
#include "platform/status.h"

namespace ream {

struct ArrivalSpec {
  enum class Kind { kExponential, kConstant, kTrace, kDistribution };
  Kind kind = Kind::kExponential;
  // As given: "exponential", "constant", "trace:FILE", or a distribution's text ("fb_ia").
  std::string name = "exponential";
  // kTrace: the trace's inter-arrival gaps (any unit; they are rescaled to the target rate).
  std::vector<double> trace_gaps;
  // kDistribution: the gaps' shape (load/distribution.h), in any unit: each draw (a negative
  // one, which only a normal can give, taken as 0) is scaled so the gaps' mean is 1 / rate,
  // as mutilate's --iadist is ("fb_ia": Facebook ETC's generalized Pareto gaps).
  Distribution gaps;
  // kDistribution: the mean of the draws as sent (a normal's negative draws count as 0).
  double DrawnMean() const;
  // kDistribution: P(gap / mean gap <= x), the CDF the send gaps are tested against.
  double UnitCdf(double x) const;
};

// Parses "exponential", "constant", "trace:FILE" where FILE's text (read by the caller,
// passed as `trace_text`) holds one inter-arrival gap in microseconds per line ('#' comments,
// blank lines ignored), or a distribution of gaps (load/distribution.h: "fb_ia",
// "gpareto:0,16.0292,0.154971", "normal:10,2", ...; a fixed number is "constant").
// InvalidArgument naming the line or the parameter on bad input, and for a distribution
// whose gaps could be negative (other than a normal's) or whose mean is not finite and > 0.
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
      case ArrivalSpec::Kind::kDistribution:
        return std::max(0.0, gaps_.Draw(rng_)) * trace_scale_;
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
  Distribution gaps_;
  double trace_scale_ = 1;  // kTrace, kDistribution: a gap as given -> ns at the rate
  size_t pos_ = 0;
};

}  // namespace ream
