// Arrival process parsing and trace rescaling.
#include "load/arrival.h"

#include <charconv>
#include <cmath>
#include <numeric>

#include "platform/platform.h"

namespace ream {

Result<std::vector<double>> ParseTraceGaps(std::string_view text) {
  std::vector<double> gaps;
  int line_no = 0;
  for (const auto& raw : Split(text, '\n', false)) {
    ++line_no;
    std::string line = Trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    double v = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec != std::errc() || p != line.data() + line.size() || !std::isfinite(v) || v < 0) {
      return InvalidArgument("trace line " + std::to_string(line_no) + ": '" + line +
                             "' is not a gap in microseconds (a number >= 0)");
    }
    gaps.push_back(v);
  }
  if (gaps.empty()) return InvalidArgument("the trace holds no inter-arrival gaps");
  if (std::accumulate(gaps.begin(), gaps.end(), 0.0) <= 0) {
    return InvalidArgument("the trace's gaps are all zero");
  }
  return gaps;
}

Result<ArrivalSpec> ParseArrival(std::string_view spec, std::string_view trace_text) {
  ArrivalSpec a;
  a.name = std::string(spec);
  if (spec == "exponential" || spec == "poisson") {
    a.kind = ArrivalSpec::Kind::kExponential;
    a.name = "exponential";
    return a;
  }
  if (spec == "constant" || spec == "uniform") {
    a.kind = ArrivalSpec::Kind::kConstant;
    a.name = "constant";
    return a;
  }
  if (spec.rfind("trace:", 0) == 0) {
    a.kind = ArrivalSpec::Kind::kTrace;
    REAM_ASSIGN_OR_RETURN(a.trace_gaps, ParseTraceGaps(trace_text));
    return a;
  }
  return InvalidArgument("--arrival '" + std::string(spec) +
                         "': expected exponential, constant or trace:FILE");
}

ArrivalProcess::ArrivalProcess(const ArrivalSpec& spec, double rate_per_s, uint64_t seed,
                               size_t offset)
    : kind_(spec.kind),
      mean_gap_ns_(1e9 / rate_per_s),
      rng_(seed),
      exp_(1.0 / mean_gap_ns_) {
  if (kind_ == ArrivalSpec::Kind::kTrace) {
    trace_ = &spec.trace_gaps;
    double mean = std::accumulate(trace_->begin(), trace_->end(), 0.0) / trace_->size();
    // Replay the trace's shape at the requested rate.
    trace_scale_ = mean_gap_ns_ / mean;
    pos_ = offset % trace_->size();
  }
}

}  // namespace ream
