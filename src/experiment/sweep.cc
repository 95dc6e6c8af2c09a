#include "experiment/sweep.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "search/knee.h"
#include "platform/text.h"

namespace ream {
namespace {

// The attempts a level gets at most when `attempt` re-measures an invalid point: the
// re-measurements follow the level's last valid measurement (a knee confirming an end measures
// a level again after a valid one), or its first attempt.
int MaxAttempts(const SweepContext& ctx, double load, int attempt, int remeasure_invalid, int host_attempts = 1) {
  int chain_start = attempt - 1;
  while (chain_start > 0) {
    const PointData* d = ctx.Stored(load, chain_start - 1);
    if (!d || !InvalidMeasurement(d->point)) break;
    --chain_start;
  }
  return chain_start + std::max(remeasure_invalid + 1, host_attempts);
}

std::string WhyInvalid(const SweepContext& ctx, double load, int attempt) {
  const PointData* d = ctx.Stored(load, attempt);
  return d ? InvalidWhy(d->point) : std::string("no point stored");
}

// Says that a level is measured again (attempt ≥ 1) because its last point was invalid.
// `host`: the host spoiled the attempt before (WhoSpoiled), `spoiled` says how.
void SayAgain(SweepContext& ctx, double load, int attempt, int remeasure_invalid, int host_attempts = 1,
              const Spoiled* host = nullptr) {
  MeasuringAgain e;
  e.run = ctx.Where();
  e.load = load;
  e.attempt = attempt;
  e.why = host ? MeasuringAgain::Why::kHost : MeasuringAgain::Why::kInvalid;
  e.max_attempts = MaxAttempts(ctx, load, attempt, remeasure_invalid, host_attempts);
  e.last_invalid_reason = WhyInvalid(ctx, load, attempt - 1);
  if (host) e.spoiled_by = host->why;
  ctx.Emit(e);
}

uint64_t CauseRequests(const nlohmann::json& causes, const char* name) {
  const auto it = causes.find(name);
  if (it == causes.end() || !it->is_object()) return 0;
  return it->value("requests", uint64_t{0});
}

// A repeat at a level after a valid measurement there is a knee confirming an end of its
// bracket (sweep.confirm); after an invalid one, a re-measurement (sweep.remeasure_invalid).
bool Confirms(const SweepContext& ctx, double load, int attempt) {
  const PointData* last = attempt > 0 ? ctx.Stored(load, attempt - 1) : nullptr;
  return last && !InvalidMeasurement(last->point);
}

}  // namespace

bool InvalidMeasurement(const PointRecord& p) { return p.status == PointStatus::kOk && !p.valid.value_or(false); }

std::string InvalidWhy(const PointRecord& p) {
  if (p.invalid_reasons.empty()) return "the generator gave no reason";
  std::string s;
  for (const auto& r : p.invalid_reasons) s += (s.empty() ? "" : "; ") + r;
  return s;
}

bool MeetsQos(const PointData& d, double percentile_us, double target_us) {
  if (d.point.status != PointStatus::kOk || !d.point.valid.value_or(false)) return false;
  return percentile_us > 0 && percentile_us <= target_us;
}

Spoiled WhoSpoiled(const PointRecord& p) {
  Spoiled s;
  if (!InvalidMeasurement(p)) {
    s.why = "the point is not an invalid measurement";
    return s;
  }
  const nlohmann::json& g = p.generator;
  if (!g.is_object()) {
    s.why = "the generator's document is missing";
    return s;
  }
  // Reasons the level added to the generator's (a co-runner that ended) are not lateness.
  const size_t generator_reasons = g.contains("invalid_reasons") ? g["invalid_reasons"].size() : 0;
  if (p.invalid_reasons.size() > generator_reasons) {
    s.why = "not lateness alone: " + p.invalid_reasons.back();
    return s;
  }
  if (p.errors.value_or(0) > 0 || (g.contains("connection_failures") && !g["connection_failures"].empty()) ||
      g.value("cancelled", false)) {
    s.why = "requests or connections failed";
    return s;
  }
  if (std::string signs = SaturationSigns(p); !signs.empty()) {
    s.why = "the point shows saturation (" + signs + ")";
    return s;
  }
  const nlohmann::json causes = g.contains("lateness_causes") && g["lateness_causes"].is_object()
                                    ? g["lateness_causes"].value("causes", nlohmann::json::object())
                                    : nlohmann::json::object();
  const uint64_t stall = CauseRequests(causes, "stall"), slow = CauseRequests(causes, "slow_syscall"),
                 wake = CauseRequests(causes, "late_wakeup"), busy = CauseRequests(causes, "busy"),
                 reconnect = CauseRequests(causes, "reconnecting");
  const uint64_t late = stall + slow + wake + busy + reconnect;
  if (late == 0) {
    s.why = "no request was late: the invalidity is not the schedule's";
    return s;
  }
  const double issued = static_cast<double>(std::max<int64_t>(p.issued.value_or(0), 1));
  auto pct = [&](uint64_t n) { return Fmt("%.2f %%", 100.0 * static_cast<double>(n) / issued); };
  std::string shares;
  for (auto [name, n] : {std::pair{"stall", stall}, {"slow syscall", slow}, {"late wake-up", wake}, {"busy", busy},
                         {"reconnecting", reconnect}}) {
    if (n > 0) shares += (shares.empty() ? "" : ", ") + std::string(name) + " " + pct(n);
  }
  s.why = shares + " of the requests late";
  // Within a point of what a bare sender reached at this rate here (load/send_floor.h), the
  // generator lost nothing of its own: whatever the causes say, the host's send path set it.
  const nlohmann::json floor = g.value("send_floor", nlohmann::json());
  if (floor.is_object() && floor.value("available", false) && p.timely_ratio &&
      *p.timely_ratio >= floor.value("timely_ratio", 1.0) - kHostLimitSlack) {
    s.who = Spoiler::kHost;
    s.why += "; within a point of this host's limit (a bare sender " +
             Fmt("%.2f %%", 100 * floor.value("timely_ratio", 1.0)) + " timely at this rate)";
    return s;
  }
  if (2 * (stall + slow + wake) > late) {
    s.who = Spoiler::kHost;
  } else if (2 * busy > late) {
    s.who = Spoiler::kOwn;
  }
  return s;
}

std::string SaturationSigns(const PointRecord& p) {
  if (p.status != PointStatus::kOk) return "the workload failed";
  std::vector<std::string> signs;
  if (p.cpu_util && *p.cpu_util >= kSaturatedCpu) {
    signs.push_back("the CPU at " + Fmt("%.0f", 100 * *p.cpu_util) + " % of its allotment");
  }
  if (p.throughput_qps && p.achieved_qps && *p.achieved_qps > 0 &&
      *p.throughput_qps < kFollowedLoad * *p.achieved_qps) {
    signs.push_back("throughput " + Fmt("%.0f", 100 * *p.throughput_qps / *p.achieved_qps) +
                    " % of the offered load (the queue grows)");
  }
  return Join(signs, "; ");
}

bool GridStopRule::Stop(bool valid, bool saturated) {
  seen_valid = seen_valid || valid;
  if (valid) {
    invalid_streak = 0;
  } else if (!saturated) {
    unsaturated_invalid += seen_valid;
  } else if (seen_valid) {
    ++invalid_streak;
  }
  return stop_after_invalid > 0 && invalid_streak >= stop_after_invalid;
}

SweepEnd RunGrid(const SweepSpec& sweep, const std::vector<double>& levels, SweepContext& ctx,
                 int host_attempts) {
  SweepEnd end;
  GridStopRule rule{sweep.stop_after_invalid};
  std::string last_signs;  // the saturation the last counted level showed
  for (double load : levels) {
    // An invalid point is a failed measurement (as in the knee search): the level is measured
    // again, up to sweep.remeasure_invalid more times whatever spoiled it, and up to
    // `host_attempts` in all when the host did (WhoSpoiled); the first valid attempt stands.
    // Without this, two late bursts of a noisy machine in a row end the sweep as "past
    // saturation" far below it. Lateness of ream's own loop is not retried: it would recur.
    Result<PointData> d = ctx.Level(load, 0);
    for (int attempt = 1; d.ok() && InvalidMeasurement(d->point); ++attempt) {
      const Spoiled spoiled = WhoSpoiled(d->point);
      const bool host = spoiled.who == Spoiler::kHost && attempt < host_attempts;
      if (attempt > sweep.remeasure_invalid && !host) {
        if (spoiled.who != Spoiler::kOther && host_attempts > 1) {
          ctx.Emit(NotMeasuredAgain{ctx.Where(), load, attempt,
                                    spoiled.who == Spoiler::kOwn
                                        ? "the lateness was ream's own loop's (" + spoiled.why +
                                              "): another attempt would be as late"
                                        : "the host spoiled every attempt (last: " + spoiled.why +
                                              "; [load] attempts = " + std::to_string(host_attempts) + ")"});
        }
        break;
      }
      if (!ctx.Stored(load, attempt)) {
        ctx.AddPlanned(1);  // one more point than the grid's levels
        SayAgain(ctx, load, attempt, sweep.remeasure_invalid, host_attempts, host ? &spoiled : nullptr);
      }
      d = ctx.Level(load, attempt);
    }
    if (!d.ok()) {
      end.status = d.status();
      return end;
    }
    bool ok = d->point.status == PointStatus::kOk;
    if (!ok && sweep.on_failure == "stop") {
      end.stopped = true;
      end.failure = "stopped at " + Fmt("%.6g", load) + " QPS (sweep.on_failure = \"stop\"): " + d->point.failure;
      return end;
    }
    const bool valid = ok && d->point.valid.value_or(false);
    const std::string signs = valid ? std::string() : SaturationSigns(d->point);
    if (!valid && !signs.empty()) last_signs = signs;
    if (rule.Stop(valid, !signs.empty())) {
      int skipped = 0;
      for (double q : levels) skipped += q > load && !ctx.Stored(q, 0);
      ctx.AddPlanned(-skipped);
      ctx.Emit(GridStopped{ctx.Where(), rule.invalid_streak, skipped, last_signs, rule.unsaturated_invalid});
      return end;
    }
  }
  return end;
}

SweepEnd RunKnee(const SweepSpec& sweep, const QosSpec& qos, SweepContext& ctx) {
  SweepEnd end;
  std::optional<double> target;
  KneeOptions ko{sweep.low, sweep.high, sweep.precision, sweep.max_points, sweep.remeasure_invalid, sweep.confirm};
  auto measure = [&](double load, int attempt) -> Result<KneeProbe> {
    if (attempt > 0 && !ctx.Stored(load, attempt)) {
      if (Confirms(ctx, load, attempt)) {
        MeasuringAgain e;
        e.run = ctx.Where();
        e.load = load;
        e.attempt = attempt;
        e.why = MeasuringAgain::Why::kConfirm;
        ctx.Emit(e);
      } else {
        SayAgain(ctx, load, attempt, sweep.remeasure_invalid);
      }
    }
    REAM_ASSIGN_OR_RETURN(PointData d, ctx.Level(load, attempt));
    double pct = ctx.PercentileUs(d);
    if (InvalidMeasurement(d.point)) return KneeProbe{load, false, pct, /*valid=*/false};
    if (!target) {
      REAM_ASSIGN_OR_RETURN(double t, ctx.DeriveTarget(d));
      target = t;
      ctx.Emit(QosTargetSet{ctx.Where(), t, qos.target_us.has_value(), qos.service_multiplier});
    }
    return KneeProbe{load, MeetsQos(d, pct, *target), pct};
  };
  auto knee = FindKnee(ko, 0, measure);
  if (!knee.ok()) {
    end.status = knee.status();
    return end;
  }
  const KneeResult& k = *knee;
  ctx.AddPlanned(-(sweep.max_points - static_cast<int>(k.probes.size())));
  KneeEnded e;
  e.run = ctx.Where();
  e.low = sweep.low;
  e.high = sweep.high;
  e.precision = sweep.precision;
  for (const auto& l : k.invalid_levels) {
    e.low_never_valid = e.low_never_valid || l.load == sweep.low;
    const PointData* last = ctx.Stored(l.load, l.attempts - 1);
    e.invalid_levels.push_back({l.load, l.attempts, WhyInvalid(ctx, l.load, l.attempts - 1),
                                last ? SaturationSigns(last->point) : std::string()});
  }
  for (const auto& p : k.probes) {
    if (p.attempt > 0) ++(Confirms(ctx, p.load, p.attempt) ? e.confirmations : e.remeasurements);
  }
  e.points = static_cast<int>(k.probes.size());
  e.below_range = k.below_range;
  e.above_range = k.above_range;
  e.converged = k.converged;
  e.last_pass = k.last_pass;
  e.first_fail = k.first_fail;
  e.confirm_enabled = sweep.confirm;
  e.confirmed = k.confirmed;
  e.reopened = k.reopened;
  ctx.Emit(e);
  return end;
}

}  // namespace ream
