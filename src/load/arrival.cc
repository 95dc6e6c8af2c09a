// Arrival process parsing and trace rescaling.
#include "load/arrival.h"

#include <charconv>
#include <cmath>
#include <numeric>

#include "platform/platform.h"
#include "platform/text.h"

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
  auto d = ParseDistribution(spec, "--arrival", trace_text);
  if (!d.ok()) {
    return InvalidArgument(d.status().message() + " (or exponential, constant, trace:FILE)");
  }
  if (d->fixed()) {
    a.kind = ArrivalSpec::Kind::kConstant;
    a.name = "constant";
    return a;
  }
  a.kind = ArrivalSpec::Kind::kDistribution;
  a.gaps = *std::move(d);
  a.name = a.gaps.name;
  if (a.gaps.kind != Distribution::Kind::kNormal && a.gaps.Lowest() < 0) {
    return InvalidArgument("--arrival '" + a.name + "': its gaps could be negative (lowest " +
                           Fmt("%g", a.gaps.Lowest()) + "); a gap is a time");
  }
  const double mean = a.DrawnMean();
  if (!(mean > 0) || !std::isfinite(mean)) {
    return InvalidArgument("--arrival '" + a.name + "': its gaps' mean is " + Fmt("%g", mean) +
                           "; it must be finite and above 0 to be scaled to a rate");
  }
  return a;
}

double ArrivalSpec::DrawnMean() const {
  if (gaps.kind == Distribution::Kind::kNormal && gaps.b > 0) {
    // E[max(X, 0)] for X ~ N(m, s): m * Phi(m / s) + s * phi(m / s).
    const double m = gaps.a, sd = gaps.b, z = m / sd;
    return m * 0.5 * std::erfc(-z / std::sqrt(2.0)) + sd * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  }
  return gaps.Mean();
}

double ArrivalSpec::UnitCdf(double x) const { return x < 0 ? 0 : gaps.Cdf(x * DrawnMean()); }

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
  if (kind_ == ArrivalSpec::Kind::kDistribution) {
    gaps_ = spec.gaps;
    trace_scale_ = mean_gap_ns_ / spec.DrawnMean();
  }
}

}  // namespace ream
