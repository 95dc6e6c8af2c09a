#include "experiment/sweep.h"

#include <cstdio>

#include "experiment/knee.h"
#include "experiment/text.h"

namespace ream {
namespace {

// The attempts a level gets at most when `attempt` re-measures an invalid point: the
// re-measurements follow the level's last valid measurement (a knee confirming an end measures
// a level again after a valid one), or its first attempt.
int MaxAttempts(const SweepContext& ctx, double load, int attempt, int remeasure_invalid) {
  int chain_start = attempt - 1;
  while (chain_start > 0) {
    const PointData* d = ctx.Stored(load, chain_start - 1);
    if (!d || !InvalidMeasurement(d->point)) break;
    --chain_start;
  }
  return chain_start + remeasure_invalid + 1;
}

std::string WhyInvalid(const SweepContext& ctx, double load, int attempt) {
  const PointData* d = ctx.Stored(load, attempt);
  return d ? InvalidWhy(d->point) : std::string("no point stored");
}

// Says that a level is measured again (attempt ≥ 1) because its last point was invalid.
void SayAgain(SweepContext& ctx, double load, int attempt, int remeasure_invalid) {
  MeasuringAgain e;
  e.run = ctx.Where();
  e.load = load;
  e.attempt = attempt;
  e.why = MeasuringAgain::Why::kInvalid;
  e.max_attempts = MaxAttempts(ctx, load, attempt, remeasure_invalid);
  e.last_invalid_reason = WhyInvalid(ctx, load, attempt - 1);
  ctx.Emit(e);
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

bool GridStopRule::Stop(bool valid) {
  seen_valid = seen_valid || valid;
  invalid_streak = valid ? 0 : (seen_valid ? invalid_streak + 1 : 0);
  return stop_after_invalid > 0 && invalid_streak >= stop_after_invalid;
}

SweepEnd RunGrid(const SweepSpec& sweep, const std::vector<double>& levels, SweepContext& ctx) {
  SweepEnd end;
  GridStopRule rule{sweep.stop_after_invalid};
  for (double load : levels) {
    // An invalid point is a failed measurement (as in the knee search): the level is measured
    // again, up to sweep.remeasure_invalid more times, and the first valid attempt stands.
    // Without this, two late bursts of a noisy machine in a row end the sweep as "past
    // saturation" far below it.
    Result<PointData> d = ctx.Level(load, 0);
    for (int attempt = 1; d.ok() && attempt <= sweep.remeasure_invalid && InvalidMeasurement(d->point); ++attempt) {
      if (!ctx.Stored(load, attempt)) {
        ctx.AddPlanned(1);  // one more point than the grid's levels
        SayAgain(ctx, load, attempt, sweep.remeasure_invalid);
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
    if (rule.Stop(ok && d->point.valid.value_or(false))) {
      int skipped = 0;
      for (double q : levels) skipped += q > load && !ctx.Stored(q, 0);
      ctx.AddPlanned(-skipped);
      ctx.Emit(GridStopped{ctx.Where(), rule.invalid_streak, skipped});
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
    e.invalid_levels.push_back({l.load, l.attempts, WhyInvalid(ctx, l.load, l.attempts - 1)});
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
