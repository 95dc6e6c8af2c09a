// The generator's options checked, and a point's validity judged by the rule it was asked for.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "load/generator.h"
#include "platform/text.h"

namespace ream {

const char* ValidityRuleName(ValidityRule r) { return r == ValidityRule::kSeed ? "seed" : "distortion"; }

Status ValidateLoadOptions(const LoadOptions& o) {
  if (o.port < 1 || o.port > 65535) return InvalidArgument("--target: the port must be in 1..65535");
  if (o.session.enabled() && o.until) {
    return InvalidArgument("--until judges a percentile of request latencies; session load (--sessions) is measured "
                           "by deadline misses over its fixed --duration");
  }
  if (o.session.enabled()) {
    // Session load (load/session_load.h): its rate is the schedule's, one thread drives it.
    REAM_RETURN_IF_ERROR(ValidateSessionLoad(o.session, o.duration_ns));
    if (o.threads != 1) return InvalidArgument("--threads: session load runs on one generator thread (got " +
                                               std::to_string(o.threads) + ")");
  }
  if (o.schedule) {
    const RateSchedule& s = *o.schedule;
    if (s.knots.size() < 2 || s.cum.size() != s.knots.size() || !(s.cum.back() > 0)) {
      return InvalidArgument("--schedule '" + s.text + "': holds no stretch with a rate above 0 QPS");
    }
    if (o.until) {
      return InvalidArgument("--schedule with --until: until ends the window once one rate's percentile is known; "
                             "a schedule's rates each last as long as it says. Use one or the other");
    }
    if (o.session.enabled()) {
      return InvalidArgument("--schedule: session load's rate is its sessions' (--sessions); a schedule applies to "
                             "request load only");
    }
    if (std::abs(o.qps - s.Mean()) > 1e-9 * s.Mean() || o.duration_ns != s.duration_ns()) {
      return InvalidArgument("--schedule '" + s.text + "': qps must be its mean (" + Fmt("%.6g", s.Mean()) +
                             ") and duration its length (ApplySchedule sets both)");
    }
  }
  if (o.window_ns < 0) return InvalidArgument("--window must be >= 0");
  if (o.window_ns > 0) {
    if (o.until) {
      return InvalidArgument("--window with --until: until measures in windows of its own and ends the point when its "
                             "percentile is known; windows reported as they end need the window's fixed length");
    }
    if (o.session.enabled()) {
      return InvalidArgument("--window: session load is judged by deadline misses over its whole --duration; windows "
                             "apply to request load only");
    }
    if (o.window_ns < 10'000'000) return InvalidArgument("--window must be at least 10ms (the windows are collected every 25 ms at most)");
  }
  if (!(o.qps > 0) || !std::isfinite(o.qps)) return InvalidArgument("--qps must be a number > 0");
  if (o.qps > 50e6) return InvalidArgument("--qps above 50 000 000 is not something one host can send");
  if (o.duration_ns <= 0) return InvalidArgument("--duration must be > 0");
  if (o.warmup_ns < 0) return InvalidArgument("--warmup must be >= 0");
  if (o.threads < 1 || o.threads > 256) return InvalidArgument("--threads must be in 1..256");
  if (o.connections < o.threads || o.connections > 65536) {
    return InvalidArgument("--connections must be >= --threads (each thread needs one) and <= 65536");
  }
  if (o.keys < 1) return InvalidArgument("--keys must be >= 1");
  for (int cpu : o.cpus) {
    if (cpu < 0) return InvalidArgument("--cpus: " + std::to_string(cpu) + " is not a CPU number");
  }
  if (!(o.get_ratio >= 0 && o.get_ratio <= 1)) return InvalidArgument("--get-ratio must be in [0, 1]");
  if (o.timely_tolerance_ns < 0) return InvalidArgument("--timely-tolerance must be >= 0");
  if (!(o.min_timely_ratio >= 0 && o.min_timely_ratio <= 1)) {
    return InvalidArgument("the timely-ratio threshold must be in [0, 1]");
  }
  if (!(o.max_rate_error >= 0)) return InvalidArgument("the rate-error threshold must be >= 0");
  if (!(o.validity_percentile > 0 && o.validity_percentile < 100)) {
    return InvalidArgument("the validity percentile must be in (0, 100)");
  }
  if (!(o.max_distortion >= 0)) return InvalidArgument("--max-distortion must be >= 0");
  if (o.arrival.kind == ArrivalSpec::Kind::kTrace && o.arrival.trace_gaps.empty()) {
    return InvalidArgument("--arrival trace: the trace holds no gaps");
  }
  if (o.session.enabled() && !(o.key_sizes.fixed() && o.key_sizes.a == 16 && o.value_sizes.fixed() &&
                               o.multiget.fixed() && o.multiget.a == 1)) {
    return InvalidArgument("--sessions: session load fetches videos by range; --key-bytes, --value-bytes "
                           "distributions and --multiget apply to request load only");
  }
  const uint64_t shortest = MinKeyBytes(o.keys);
  if (o.key_sizes.fixed() && !(o.key_sizes.a >= static_cast<double>(shortest) &&
                               o.key_sizes.a <= static_cast<double>(kMaxSentKeyBytes) &&
                               o.key_sizes.a == std::floor(o.key_sizes.a))) {
    return InvalidArgument("--key-bytes " + o.key_sizes.name + ": a fixed key size must be a whole number from " +
                           std::to_string(shortest) + " (\"key\" and the digits of " + std::to_string(o.keys) +
                           " keys) to " + std::to_string(kMaxSentKeyBytes));
  }
  if (o.multiget.fixed() && !(o.multiget.a >= 1 && o.multiget.a <= static_cast<double>(kMaxMultigetKeys) &&
                              o.multiget.a == std::floor(o.multiget.a))) {
    return InvalidArgument("--multiget " + o.multiget.name + ": keys per get must be a whole number from 1 to " +
                           std::to_string(kMaxMultigetKeys));
  }
  return Status::Ok();
}

uint64_t MinKeyBytes(uint64_t keys) {
  uint64_t digits = 1;
  for (uint64_t largest = keys > 0 ? keys - 1 : 0; largest >= 10; largest /= 10) ++digits;
  return 3 + digits;
}

void MeasureDistortion(LoadResult* r, double percentile) {
  Distortion& dist = r->distortion;
  dist.percentile = percentile;
  if (r->latency.count() > 0 && r->latency_from_send.count() > 0) {
    dist.applicable = true;
    dist.from_schedule_ns = static_cast<double>(r->latency.ValueAtQuantile(percentile / 100));
    dist.from_send_ns = static_cast<double>(r->latency_from_send.ValueAtQuantile(percentile / 100));
    dist.share = dist.from_schedule_ns > 0 ? (dist.from_schedule_ns - dist.from_send_ns) / dist.from_schedule_ns : 0;
  }
}

void JudgeValidity(LoadResult* r) {
  const LoadOptions& o = r->options;
  double window_s = static_cast<double>(o.duration_ns) / 1e9;
  r->achieved_qps = static_cast<double>(r->issued) / window_s;
  r->throughput_qps = static_cast<double>(r->completed) / window_s;
  r->timely_ratio = r->issued ? static_cast<double>(r->timely) / static_cast<double>(r->issued) : 0;
  r->invalid_reasons.clear();
  char b[512];
  if (r->cancelled) r->invalid_reasons.push_back("the run was cancelled before its end");
  if (r->issued == 0) {
    r->invalid_reasons.push_back("no request was sent in the measured window");
  }
  const bool seed = o.validity == ValidityRule::kSeed;
  std::vector<std::string> soft;  // checks of the other rule: reported, not deciding
  if (seed) {
    std::snprintf(b, sizeof b, "seed: timely ratio >= %.2f %% at a tolerance of %.0f us", 100 * o.min_timely_ratio,
                  static_cast<double>(o.timely_tolerance_ns) / 1e3);
  } else {
    std::snprintf(b, sizeof b,
                  "distortion: lateness moves p%g by < %.0f %% (or < the %.0f us tolerance) and the sent gaps pass the "
                  "Anderson-Darling test",
                  o.validity_percentile, 100 * o.max_distortion, static_cast<double>(o.timely_tolerance_ns) / 1e3);
  }
  r->validity_rule = b;
  // The host's limit: where the simplest sender itself misses the threshold at this rate
  // (load/send_floor.h), the point is judged against what that sender reached, less one point:
  // a generator as timely as the host lets anything be is not what failed.
  const SendFloor& f = r->send_floor;
  const bool host_short = f.available && f.timely_ratio < o.min_timely_ratio;
  const bool host_limited =
      host_short && 1 - f.timely_ratio <= kHostLimitMaxLateFactor * (1 - o.min_timely_ratio) + 1e-12;
  if (r->issued > 0 && r->timely_ratio < o.min_timely_ratio) {
    if (host_limited && r->timely_ratio >= f.timely_ratio - kHostLimitSlack) {
      std::snprintf(b, sizeof b,
                    "timely ratio %.2f %% is below %.2f %% (tolerance %.0f us), as this host's limit is: a bare sender "
                    "was %s; judged against it (within %.0f point)",
                    100 * r->timely_ratio, 100 * o.min_timely_ratio, static_cast<double>(o.timely_tolerance_ns) / 1e3,
                    f.Describe().c_str(), 100 * kHostLimitSlack);
      soft.push_back(b);
    } else if (host_limited) {
      std::snprintf(b, sizeof b,
                    "%stimely ratio %.2f %% is below this host's limit (tolerance %.0f us): a bare sender was %s, and "
                    "the generator lost more than %.0f point beyond it",
                    seed ? "rule seed: " : "", 100 * r->timely_ratio, static_cast<double>(o.timely_tolerance_ns) / 1e3,
                    f.Describe().c_str(), 100 * kHostLimitSlack);
      (seed ? r->invalid_reasons : soft).push_back(b);
    } else if (host_short) {
      std::snprintf(b, sizeof b,
                    "%stimely ratio %.2f %% is below %.2f %% (tolerance %.0f us), and this host cannot stand in for "
                    "the threshold: a bare sender was %s, more than %.0f times the late share the rule allows",
                    seed ? "rule seed: " : "", 100 * r->timely_ratio, 100 * o.min_timely_ratio,
                    static_cast<double>(o.timely_tolerance_ns) / 1e3, f.Describe().c_str(), kHostLimitMaxLateFactor);
      (seed ? r->invalid_reasons : soft).push_back(b);
    } else {
      std::snprintf(b, sizeof b, "%stimely ratio %.2f %% is below %.2f %% (tolerance %.0f us): the generator could not keep its schedule",
                    seed ? "rule seed: " : "", 100 * r->timely_ratio, 100 * o.min_timely_ratio,
                    static_cast<double>(o.timely_tolerance_ns) / 1e3);
      (seed ? r->invalid_reasons : soft).push_back(b);
    }
  }
  // Lateness may move the percentile by max_distortion of it, or by the timely tolerance when
  // that is more: a few microseconds of ordinary lateness are 5-12 % of a 30-40 us figure
  // (docs/notes/performance-notes.md, "The validity rule"), and a send that late is timely by the
  // seed's own measure, so it cannot be what makes a point unrepresentative. The tolerance counts
  // up to the seed's 20 us (one send and one wake-up on an ordinary host) and no further: a spec
  // that widens it for a slow workload's timely ratio (200 us for a 0.8 ms p95) must not thereby
  // let lateness move the figure by a quarter.
  const Distortion& d = r->distortion;
  const double moved_ns = d.from_schedule_ns - d.from_send_ns;
  const double floor_ns = static_cast<double>(std::min<int64_t>(o.timely_tolerance_ns, kDistortionFloorNs));
  const double allowed_ns = std::max(o.max_distortion * d.from_schedule_ns, floor_ns);
  if (d.applicable && moved_ns > allowed_ns) {
    std::snprintf(b, sizeof b,
                  "%slateness moved p%g by %.1f %%: %.1f us from the schedule, %.1f us from the send (at most %.0f %% "
                  "of it or %.0f us, whichever is more)",
                  seed ? "" : "rule distortion: ", d.percentile, 100 * d.share, d.from_schedule_ns / 1e3,
                  d.from_send_ns / 1e3, 100 * o.max_distortion, floor_ns / 1e3);
    std::string why = b;
    // Lateness the host imposes on any sender still moves the figure; the reason says so.
    if (host_limited) why += " (this host's limit at this rate: a bare sender was " + f.Describe() + ")";
    (seed ? soft : r->invalid_reasons).push_back(why);
  }
  double rate_err = std::abs(r->achieved_qps - o.qps) / o.qps;
  // A Poisson schedule's own count in a window of T seconds has a standard deviation of
  // sqrt(qps * T): at 2 000 QPS for 2 s that is 1.6 %, so a fixed 2 % limit would reject
  // a perfect generator one time in five. The limit is therefore widened to three of those
  // standard deviations when that is larger; the figure and the limit used are reported.
  // Any schedule's count is whole: a window due 1.6 requests (0.4 QPS for 4 s) holds 1 or 2,
  // 37.5 % off whatever the generator does, so one request either way is always allowed.
  double rate_limit = o.max_rate_error;
  if (o.qps * window_s > 0) rate_limit = std::max(rate_limit, 1.0 / (o.qps * window_s));
  if (o.arrival.kind == ArrivalSpec::Kind::kExponential && o.qps * window_s > 0) {
    rate_limit = std::max(rate_limit, 3.0 / std::sqrt(o.qps * window_s));
  }
  r->rate_error_limit = rate_limit;
  if (rate_err > rate_limit) {
    std::snprintf(b, sizeof b, "achieved rate %.1f QPS is %.2f %% off the target %.1f QPS (limit %.2f %%)",
                  r->achieved_qps, 100 * rate_err, o.qps, 100 * rate_limit);
    r->invalid_reasons.push_back(b);
  }
  r->warnings.clear();
  if (r->interarrival.applicable && !r->interarrival.passed) {
    // Under the seed's rule a warning with its figure: the seed defines a valid point by its
    // timely ratio and rate. Under the distortion rule it decides: sends that are not the
    // intended process do not measure the workload under that process.
    std::snprintf(b, sizeof b, "%ssend gaps fail the %s (A2 = %.3f > critical %.3f, n = %zu)",
                  seed ? "" : "rule distortion: ", r->interarrival.method.c_str(), r->interarrival.statistic,
                  r->interarrival.critical, r->interarrival.sample_size);
    (seed ? soft : r->invalid_reasons).push_back(b);
  }
  for (auto& w : soft) r->warnings.push_back(std::move(w));
  if (!r->connection_failures.empty()) {
    std::string all;
    for (const auto& f : r->connection_failures) all += (all.empty() ? "" : "; ") + f;
    r->invalid_reasons.push_back(std::to_string(r->connection_failures.size()) +
                                 " connection(s) failed: " + all);
  }
  if (r->errors > 0) {
    std::string top;
    for (const auto& [reason, n] : r->error_reasons) {
      if (!top.empty()) top += "; ";
      top += std::to_string(n) + " × " + reason;
    }
    std::snprintf(b, sizeof b, "%llu requests failed (%llu were sent): ",
                  static_cast<unsigned long long>(r->errors), static_cast<unsigned long long>(r->issued));
    r->invalid_reasons.push_back(b + top);
  }
  r->valid = r->invalid_reasons.empty();
}

}  // namespace ream
