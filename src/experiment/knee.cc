#include "experiment/knee.h"

#include <cmath>

namespace ream {

Result<KneeResult> FindKnee(const KneeOptions& o, double target_us, const KneeMeasure& measure) {
  if (!(o.low > 0) || !(o.high > o.low)) {
    return InvalidArgument("knee search needs 0 < low < high");
  }
  if (!(o.precision > 0)) return InvalidArgument("knee search needs precision > 0");
  if (o.max_points < 2) return InvalidArgument("knee search needs max_points >= 2");
  KneeResult r;
  std::optional<KneeProbe> pass_probe, fail_probe;
  auto probe = [&](double qps) -> Result<KneeProbe> {
    REAM_ASSIGN_OR_RETURN(KneeProbe p, measure(qps));
    p.qps = qps;
    r.probes.push_back(p);
    return p;
  };

  REAM_ASSIGN_OR_RETURN(KneeProbe lo, probe(o.low));
  if (!lo.meets_qos) {
    r.below_range = true;
    r.first_fail = o.low;
    return r;
  }
  pass_probe = lo;
  REAM_ASSIGN_OR_RETURN(KneeProbe hi, probe(o.high));
  if (hi.meets_qos) {
    r.above_range = true;
    r.last_pass = o.high;
    r.knee_qps = o.high;
    return r;
  }
  fail_probe = hi;
  while (static_cast<int>(r.probes.size()) < o.max_points) {
    double pass = pass_probe->qps, fail = fail_probe->qps;
    if (fail - pass <= o.precision * pass) break;
    // Bisect; round to a whole request rate so stored levels read well and never repeat.
    double mid = std::round((pass + fail) / 2);
    if (mid <= pass || mid >= fail) break;
    REAM_ASSIGN_OR_RETURN(KneeProbe m, probe(mid));
    if (m.meets_qos) {
      pass_probe = m;
    } else {
      fail_probe = m;
    }
  }
  r.last_pass = pass_probe->qps;
  r.first_fail = fail_probe->qps;
  r.converged = (fail_probe->qps - pass_probe->qps) <= o.precision * pass_probe->qps;
  r.knee_qps = pass_probe->qps;
  double lp = pass_probe->latency_us, lf = fail_probe->latency_us;
  if (target_us > 0 && lp > 0 && lf > lp && target_us >= lp && target_us <= lf) {
    double f = (target_us - lp) / (lf - lp);
    r.knee_qps = pass_probe->qps + f * (fail_probe->qps - pass_probe->qps);
  }
  return r;
}

}  // namespace ream
