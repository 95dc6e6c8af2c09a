#include "search/knee.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "platform/median.h"

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
  std::map<double, int> attempts_at;                  // measurements made at each level
  std::map<double, std::vector<KneeProbe>> valid_at;  // the valid ones among them
  auto note_invalid_level = [&](double load) {
    for (auto& l : r.invalid_levels) {
      if (l.load == load) {
        l.attempts = attempts_at[load];
        return;
      }
    }
    r.invalid_levels.push_back({load, attempts_at[load]});
  };
  // A level never measured validly: a QoS miss with no latency (nothing is interpolated
  // from it), standing as its last attempt.
  auto never_valid = [&](double load) { return KneeProbe{load, false, 0, false, attempts_at[load] - 1}; };
  // Measures `load` until a valid measurement decides it, or its attempts or the points run
  // out; a level never measured validly counts as a QoS miss with no latency (nothing is
  // interpolated from it). nullopt: no point was left to measure it at all.
  auto decide = [&](double load) -> Result<std::optional<KneeProbe>> {
    int tries = 0;
    while (points_left() > 0 && tries <= o.remeasure_invalid) {
      int attempt = attempts_at[load]++;
      ++tries;
      REAM_ASSIGN_OR_RETURN(KneeProbe p, measure(load, attempt));
      p.load = load;
      p.attempt = attempt;
      r.probes.push_back(p);
      if (p.valid) {
        valid_at[load].push_back(p);
        return std::optional<KneeProbe>(p);
      }
    }
    if (tries == 0) return std::optional<KneeProbe>();
    if (valid_at[load].empty()) note_invalid_level(load);
    return std::optional<KneeProbe>(never_valid(load));
  };
  // A level's verdict over its valid measurements: the majority, with the median latency; a
  // level never measured validly is a miss. nullopt on a tie.
  auto verdict = [&](double load) -> std::optional<KneeProbe> {
    const auto& v = valid_at[load];
    if (v.empty()) return never_valid(load);
    size_t pass = std::count_if(v.begin(), v.end(), [](const KneeProbe& p) { return p.meets_qos; });
    if (2 * pass == v.size()) return std::nullopt;
    std::vector<double> lat;
    for (const auto& p : v) lat.push_back(p.latency_us);
    KneeProbe k = v.back();
    k.meets_qos = 2 * pass > v.size();
    k.latency_us = Median(lat);
    return k;
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
    r.last_pass = r.knee_load = o.low;
    return r;
  }
  if (hi->meets_qos) {
    r.above_range = true;
    r.last_pass = o.high;
    r.knee_load = o.high;
    return r;
  }
  KneeProbe fail_probe = *hi;
  auto bisect = [&]() -> Status {
    while (points_left() > 0) {
      double pass = pass_probe.load, fail = fail_probe.load;
      if (fail - pass <= o.precision * pass) break;
      // Bisect; round to a whole request rate so stored levels read well and never repeat.
      double mid = std::round((pass + fail) / 2);
      if (mid <= pass || mid >= fail) break;
      REAM_ASSIGN_OR_RETURN(std::optional<KneeProbe> m, decide(mid));
      (m->meets_qos ? pass_probe : fail_probe) = *m;
    }
    return Status::Ok();
  };
  REAM_RETURN_IF_ERROR(bisect());

  while (o.confirm) {
    // Each end needs at least two valid measurements and a majority among them.
    bool out_of_points = false;  // max_points spent
    bool unconfirmable = false;  // an end could not be measured validly (again)
    for (double end : {pass_probe.load, fail_probe.load}) {
      while (true) {
        const auto& v = valid_at[end];
        if (v.empty()) {  // never measured validly: a miss, its attempts already spent
          unconfirmable = true;
          break;
        }
        if (v.size() >= 2 && verdict(end)) break;
        if (points_left() == 0) {
          out_of_points = true;
          break;
        }
        size_t before = v.size();
        REAM_RETURN_IF_ERROR(decide(end).status());
        if (valid_at[end].size() == before) {
          unconfirmable = true;
          break;
        }
      }
    }
    // The bracket from every level's verdict: the lowest failing level and the highest
    // passing one below it (a tie counts as a miss: capacity is not claimed from it).
    std::optional<double> fail_at, pass_at;
    for (const auto& [load, n] : attempts_at) {
      auto v = verdict(load);
      if (!v || !v->meets_qos) {
        fail_at = load;
        break;
      }
    }
    if (!fail_at) {  // every level passes now, `high` included
      r.above_range = true;
      r.last_pass = r.knee_load = o.high;
      return r;
    }
    for (const auto& [load, n] : attempts_at) {
      if (load >= *fail_at) break;
      pass_at = load;
    }
    if (!pass_at) {  // `low` itself turned out to miss
      r.below_range = true;
      r.first_fail = *fail_at;
      return r;
    }
    bool same = *pass_at == pass_probe.load && *fail_at == fail_probe.load;
    auto fail_verdict = verdict(*fail_at);
    pass_probe = *verdict(*pass_at);
    fail_probe = fail_verdict ? *fail_verdict : never_valid(*fail_at);
    if (same) {
      r.confirmed = !out_of_points && !unconfirmable && fail_verdict.has_value();
      break;
    }
    // An end turned over: bisect the new bracket and confirm its ends in turn. Every turn
    // either measures something or finds the same bracket, so this ends.
    ++r.reopened;
    if (points_left() == 0) break;
    REAM_RETURN_IF_ERROR(bisect());
  }

  r.last_pass = pass_probe.load;
  r.first_fail = fail_probe.load;
  r.converged = (fail_probe.load - pass_probe.load) <= o.precision * pass_probe.load;
  r.knee_load = pass_probe.load;
  double lp = pass_probe.latency_us, lf = fail_probe.latency_us;
  if (target_us > 0 && lp > 0 && lf > lp && target_us >= lp && target_us <= lf) {
    double f = (target_us - lp) / (lf - lp);
    r.knee_load = pass_probe.load + f * (fail_probe.load - pass_probe.load);
  }
  return r;
}

}  // namespace ream
