#include "experiment/knee.h"

#include <cmath>

namespace ream {

Result<KneeResult> FindKnee(const KneeOptions& o, double target_us, const KneeMeasure& measure) {
  if (!(o.low > 0) || !(o.high > o.low)) {
    return InvalidArgument("knee search needs 0 < low < high");
  }
  if (!(o.precision > 0)) return InvalidArgument("knee search needs precision > 0");
  if (o.max_points < 2) return InvalidArgument("knee search needs max_points >= 2");
  if (o.remeasure_invalid < 0) return InvalidArgument("knee search needs remeasure_invalid >= 0");
  KneeResult r;
  auto points_left = [&] { return o.max_points - static_cast<int>(r.probes.size()); };
  // Measures `qps` until a valid measurement decides it, or its attempts or the points run
  // out; then it counts as a QoS miss with no latency (nothing is interpolated from it).
  // nullopt: no point was left to measure it at all.
  auto decide = [&](double qps) -> Result<std::optional<KneeProbe>> {
    int attempts = 0;
    while (points_left() > 0 && attempts <= o.remeasure_invalid) {
      REAM_ASSIGN_OR_RETURN(KneeProbe p, measure(qps, attempts));
      p.qps = qps;
      p.attempt = attempts++;
      r.probes.push_back(p);
      if (p.valid) return std::optional<KneeProbe>(p);
    }
    if (attempts == 0) return std::optional<KneeProbe>();
    r.invalid_levels.push_back({qps, attempts});
    return std::optional<KneeProbe>(KneeProbe{qps, false, 0, false, attempts - 1});
  };

  // max_points ≥ 2: `low` is always measured.
  REAM_ASSIGN_OR_RETURN(std::optional<KneeProbe> lo, decide(o.low));
  if (!lo->meets_qos) {
    r.below_range = true;
    r.first_fail = o.low;
    return r;
  }
  KneeProbe pass_probe = *lo;
  REAM_ASSIGN_OR_RETURN(std::optional<KneeProbe> hi, decide(o.high));
  if (!hi) {
    // Re-measuring `low` spent every point: it is known to pass, and nothing above it.
    r.last_pass = r.knee_qps = o.low;
    return r;
  }
  if (hi->meets_qos) {
    r.above_range = true;
    r.last_pass = o.high;
    r.knee_qps = o.high;
    return r;
  }
  KneeProbe fail_probe = *hi;
  while (points_left() > 0) {
    double pass = pass_probe.qps, fail = fail_probe.qps;
    if (fail - pass <= o.precision * pass) break;
    // Bisect; round to a whole request rate so stored levels read well and never repeat.
    double mid = std::round((pass + fail) / 2);
    if (mid <= pass || mid >= fail) break;
    REAM_ASSIGN_OR_RETURN(std::optional<KneeProbe> m, decide(mid));
    (m->meets_qos ? pass_probe : fail_probe) = *m;
  }
  r.last_pass = pass_probe.qps;
  r.first_fail = fail_probe.qps;
  r.converged = (fail_probe.qps - pass_probe.qps) <= o.precision * pass_probe.qps;
  r.knee_qps = pass_probe.qps;
  double lp = pass_probe.latency_us, lf = fail_probe.latency_us;
  if (target_us > 0 && lp > 0 && lf > lp && target_us >= lp && target_us <= lf) {
    double f = (target_us - lp) / (lf - lp);
    r.knee_qps = pass_probe.qps + f * (fail_probe.qps - pass_probe.qps);
  }
  return r;
}

}  // namespace ream
