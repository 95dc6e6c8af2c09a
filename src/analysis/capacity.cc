// A group's capacity (the highest load meeting QoS, interpolated), the loads at 20 % and 50 %
// CPU utilization, where it saturates, and the scaling ratios between scenarios.
#include "analysis/capacity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/format.h"
#include "analysis/stats.h"
#include "platform/median.h"

namespace ream::analysis {

Capacity ComputeSessionCapacity(const std::vector<PointAnalysis>& points) {
  Capacity c;
  const std::string rule = "at most " + Fmt(kSessionMaxDeadlineMiss * 100) + " % of chunks missing their play-out deadline";
  std::vector<const PointAnalysis*> valid;
  for (const auto& p : points) {
    if (p.valid && p.session) valid.push_back(&p);
  }
  if (valid.empty()) {
    c.status = "no valid points";
    return c;
  }
  auto meets = [](const PointAnalysis* p) { return p->session->deadline_miss_ratio <= kSessionMaxDeadlineMiss; };
  if (!meets(valid.front())) {
    c.upper_bound = valid.front()->target_load;
    c.status = "below the sweep: the fewest sessions measured (" + Load(valid.front()->target_load, LoadAxis::kSessions) +
               ") already miss " + Fmt(valid.front()->session->deadline_miss_ratio * 100) + " % of their chunks' deadlines (QoS: " +
               rule + ")";
    return c;
  }
  size_t fail = 0;
  while (fail < valid.size() && meets(valid[fail])) ++fail;
  const PointAnalysis* last = valid[fail - 1];
  c.qps = last->target_load;
  c.last_pass_qps = last->target_load;
  c.low = c.high = last->target_load;
  if (fail == valid.size()) {
    c.lower_bound = true;
    c.status = "not reached: every valid level meets QoS (" + rule + "), so at least " +
               Load(last->target_load, LoadAxis::kSessions) + " are sustained";
    return c;
  }
  c.first_fail_qps = valid[fail]->target_load;
  c.high = valid[fail]->target_load;
  c.interval_method = "the levels around the crossing (" + Load(last->target_load, LoadAxis::kSessions) + " to " +
                      Load(valid[fail]->target_load, LoadAxis::kSessions) + ")";
  c.status = "the most sessions meeting QoS (" + rule + "): " + Load(last->target_load, LoadAxis::kSessions) + " (" +
             Fmt(last->session->deadline_miss_ratio * 100) + " % missed); " +
             Load(valid[fail]->target_load, LoadAxis::kSessions) + " miss " +
             Fmt(valid[fail]->session->deadline_miss_ratio * 100) + " %";
  for (size_t i = fail + 1; i < valid.size(); ++i) {
    if (meets(valid[i])) {
      c.status += "; more sessions (" + Load(valid[i]->target_load, LoadAxis::kSessions) +
                  ") meet QoS again — not monotonic, the first failure is kept";
      break;
    }
  }
  return c;
}

// The highest load of the sweep meeting QoS ("max QPS under QoS" on a qps axis), in the
// axis's unit, with how it was obtained in words that name the axis.
Capacity ComputeCapacity(const std::vector<PointAnalysis>& points, std::optional<double> target,
                         LoadAxis axis) {
  Capacity c;
  if (!target) {
    c.status = "no QoS target";
    return c;
  }
  std::vector<XY> mid, lo, hi;
  for (const auto& p : points) {
    if (!p.valid) continue;
    mid.push_back({p.target_load, p.tail_us});
    lo.push_back({p.target_load, p.tail_low_us.value_or(p.tail_us)});
    hi.push_back({p.target_load, p.tail_high_us.value_or(p.tail_us)});
  }
  if (mid.empty()) {
    c.status = "no valid points";
    return c;
  }
  // The lowest loads may miss QoS while higher ones meet it: on a virtual machine both sides'
  // CPUs go idle between requests at low load and every request pays their wake-ups, so the
  // tail there can lie above the tail at moderate load (docs/notes/performance-notes.md). The
  // seed's figure is the most load meeting QoS, so the crossing is read from the first load that
  // meets it, and the analysis says which lower loads missed. Only when none meets is capacity
  // below the sweep.
  size_t first_pass = 0;
  while (first_pass < mid.size() && mid[first_pass].y > *target) ++first_pass;
  if (first_pass == mid.size()) {
    c.upper_bound = mid.front().x;
    c.status = "below the sweep: the lowest valid load (" + Load(mid.front().x, axis) +
               ") already misses QoS";
    if (mid.size() > 1) c.status += ", as does every higher one";
    return c;
  }
  std::string low_miss;
  if (first_pass > 0) {
    low_miss = "; the lowest valid load" + std::string(first_pass > 1 ? "s up to " : " ") +
               Load(mid[first_pass - 1].x, axis) + " missed QoS while " + Load(mid[first_pass].x, axis) +
               " met it: a tail higher at low load than above it (idle CPUs' wake-ups), so the crossing is "
               "read from the first load meeting QoS";
    mid.erase(mid.begin(), mid.begin() + static_cast<std::ptrdiff_t>(first_pass));
    lo.erase(lo.begin(), lo.begin() + static_cast<std::ptrdiff_t>(first_pass));
    hi.erase(hi.begin(), hi.begin() + static_cast<std::ptrdiff_t>(first_pass));
  }
  size_t fail = 0;
  auto x = FirstUpCrossing(mid, *target, &fail);
  if (!x) {
    c.qps = mid.back().x;
    c.lower_bound = true;
    c.last_pass_qps = mid.back().x;
    c.status = "not reached: every valid point" +
               (low_miss.empty() ? std::string() : " from " + Load(mid.front().x, axis) + " on") +
               " meets QoS, so capacity is at least " + Load(mid.back().x, axis) + low_miss;
    // Still an uncertainty from the CI: the upper curve may cross inside the sweep.
    if (auto l = FirstUpCrossing(hi, *target)) {
      c.low = *l;
      c.interval_method = "from where the percentile's upper confidence band crosses QoS; no upper end (a lower bound)";
    }
    return c;
  }
  c.qps = *x;
  c.last_pass_qps = mid[fail - 1].x;
  c.first_fail_qps = mid[fail].x;
  c.status = "interpolated between " + Load(mid[fail - 1].x, axis) + " (meets QoS) and " +
             Load(mid[fail].x, axis) + " (misses it)";
  // The percentile's confidence band moves the crossing: the upper curve crosses earlier,
  // the lower one later. Where a band curve never crosses from below, the sweep's end
  // bounds it.
  auto l = FirstUpCrossing(hi, *target);
  c.low = l ? *l : (hi.front().y > *target ? mid.front().x : *x);
  auto h = FirstUpCrossing(lo, *target);
  c.high = h ? *h : mid.back().x;
  // The interpolation is a guess between two measured levels: the curve may cross anywhere
  // between the last level meeting QoS and the first missing it, so the interval holds that whole
  // bracket (a denser grid or the knee search narrows it by measuring closer levels).
  c.low = std::min(*c.low, *c.last_pass_qps);
  c.high = std::max(*c.high, *c.first_fail_qps);
  c.interval_method = "the levels around the crossing (" + Load(*c.last_pass_qps, axis) + " to " +
                      Load(*c.first_fail_qps, axis) + "), widened where the percentile's confidence band crosses "
                      "outside them";
  for (size_t i = fail + 1; i < mid.size(); ++i) {
    if (mid[i].y <= *target) {
      c.status += "; a higher load (" + Load(mid[i].x, axis) +
                  ") meets QoS again — the curve is not monotonic, the first crossing is kept";
      break;
    }
  }
  c.status += low_miss;
  return c;
}

// QPS at a CPU utilization, interpolated over valid points ordered by utilization.
void QpsAtUtilization(const std::vector<PointAnalysis>& points, double u,
                      std::optional<double>* out, std::string* note) {
  std::vector<XY> s;
  bool any_cpu = false;
  std::string reason;
  for (const auto& p : points) {
    if (!p.cpu_util.has()) {
      if (reason.empty()) reason = p.cpu_util.unavailable;
      continue;
    }
    any_cpu = true;
    if (p.valid) s.push_back({*p.cpu_util.value, p.target_load});
  }
  if (!any_cpu) {
    *note = "unavailable: CPU utilization not measured (" + reason + ")";
    return;
  }
  std::sort(s.begin(), s.end(), [](const XY& a, const XY& b) { return a.x < b.x; });
  if (s.empty()) {
    *note = "unavailable: no valid point";
    return;
  }
  *out = InterpolateY(s, u);
  if (*out) {
    *note = "interpolated";
  } else if (s.back().x < u) {
    *note = "not reached: CPU utilization stays below " + Pct(u) + " (max " + Pct(s.back().x) +
            ")";
  } else {
    *note = "below the sweep: the lowest valid load is already at " + Pct(s.front().x) +
            " utilization";
  }
}

void Saturation(GroupAnalysis& g, LoadAxis axis) {
  const bool rate = axis == LoadAxis::kQps;
  double best = 0;
  bool saturated = false;
  std::string why;
  for (const auto& p : g.points) {
    if (p.failed) continue;
    best = std::max(best, p.throughput_qps);
    // Against what was sent, not the target: a Poisson window at 100 QPS for 4 s may hold 371
    // requests, and a server that answers all 371 has kept up. (Stored before the achieved rate
    // was: the target.)
    const bool sent_known = p.achieved_qps > 0;
    const double offered = sent_known ? p.achieved_qps : p.target_load;
    if (rate && !saturated && offered > 0 && p.throughput_qps < 0.95 * offered) {
      saturated = true;
      why = "throughput " + Qps(p.throughput_qps) + " fell below 95 % of the offered " + Qps(offered) +
            (sent_known ? " sent (target " + Qps(p.target_load) + ")" : "");
    }
    if (!saturated && p.cpu_util.has() && *p.cpu_util.value >= 0.95) {
      saturated = true;
      why = "CPU utilization reached " + Pct(*p.cpu_util.value) + " at " + Load(p.target_load, axis);
    }
  }
  if (saturated) {
    g.saturation_qps = best;
    g.saturation_note = "highest throughput sustained; " + why;
  } else {
    g.saturation_note = rate ? "not reached: throughput followed the offered load up to " +
                                   Qps(g.max_qps)
                             : "not reached: CPU utilization stayed below 95 % up to " +
                                   Load(g.max_qps, axis);
  }
}

Ratio MakeRatio(const GroupAnalysis* num, const GroupAnalysis* den, const std::string& num_name,
                std::optional<double> GroupAnalysis::*field_ptr, bool capacity, const std::string& num_skipped,
                const std::string& den_skipped) {
  Ratio r;
  if (!den) {
    r.status = den_skipped.empty() ? "not measured: no unlimited 1-ST run"
                                   : "not measured — 1-ST skipped: " + den_skipped;
    return r;
  }
  if (!num) {
    r.status = num_skipped.empty() ? "not measured: no unlimited " + num_name + " run"
                                   : "not measured — " + num_name + " skipped: " + num_skipped;
    return r;
  }
  if (num->failed) {
    r.status = "not available: " + num->failure;
    return r;
  }
  std::optional<double> a, b;
  if (capacity) {
    if (num->capacity.lower_bound || den->capacity.lower_bound) {
      r.status = "not available: capacity only bounded (" +
                 (num->capacity.lower_bound ? num->key : den->key) +
                 " meets QoS at every valid load)";
      return r;
    }
    a = num->capacity.qps;
    b = den->capacity.qps;
  } else {
    a = num->*field_ptr;
    b = den->*field_ptr;
  }
  if (!a || !b || *b <= 0) {
    r.status = "not available: " + std::string(!a ? num->key : den->key) + " has no value";
    return r;
  }
  r.value = *a / *b;
  r.status = "measured";
  return r;
}

}  // namespace ream::analysis
