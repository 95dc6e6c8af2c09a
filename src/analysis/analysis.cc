#include "analysis/analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/stats.h"
#include "platform/median.h"

namespace ream::analysis {
namespace {

std::string Fmt(double v, int prec = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", prec, v);
  return b;
}
std::string Pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", v * 100);
  return b;
}
std::string Qps(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f QPS", v);
  return b;
}
// A load on `axis`, "5000 QPS" or "16 sessions".
std::string Load(double v, LoadAxis axis) {
  char b[48];
  std::snprintf(b, sizeof b, "%.0f %s", v, std::string(LoadAxisUnit(axis)).c_str());
  return b;
}

// The median of a metric over repetitions; unavailable when no repetition measured it (the
// first reason given is kept).
Metric MedianMetric(const std::vector<const Metric*>& ms) {
  std::vector<double> values;
  std::string reason;
  for (const Metric* m : ms) {
    if (m->has()) {
      values.push_back(*m->value);
    } else if (reason.empty()) {
      reason = m->unavailable.empty() ? "not measured" : m->unavailable;
    }
  }
  if (values.empty()) return Metric::Unavailable(reason.empty() ? "not measured" : reason);
  return Metric::Of(Median(values));
}

Metric SumMetric(const Metric& a, const Metric& b) {
  if (a.has() && b.has()) return Metric::Of(*a.value + *b.value);
  if (a.has()) return a;
  if (b.has()) return b;
  return Metric::Unavailable(a.unavailable.empty() ? b.unavailable : a.unavailable);
}

// The stored percentile nearest the asked one, when no histogram is stored.
std::optional<double> StoredPercentile(const PointData& p, double pct) {
  if (std::abs(pct - 50) < 1e-9) return p.p50_us;
  if (std::abs(pct - 95) < 1e-9) return p.p95_us;
  if (std::abs(pct - 99) < 1e-9) return p.p99_us;
  if (std::abs(pct - 99.9) < 1e-9) return p.p999_us;
  return std::nullopt;
}

bool SameLoad(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(a)); }

// The points that stand for `load` in run `r`: its valid measurements (a sweep measures a
// load again when its point was invalid, sweep.remeasure_invalid, and a knee search measures
// its bracket's ends again to confirm them, sweep.confirm). When no attempt was valid, the
// last one stands for the load (invalid, with its reasons).
std::vector<const PointData*> DecidingPoints(const RunData& r, double load) {
  std::vector<const PointData*> valid;
  const PointData* last = nullptr;
  for (const auto& p : r.points) {
    if (!SameLoad(p.target_load, load)) continue;
    if (p.valid && !p.failed) valid.push_back(&p);
    last = &p;
  }
  if (valid.empty() && last) valid.push_back(last);
  return valid;
}

// One load level's measurements (its repetitions, and a knee's confirmations) merged into one
// point. Every figure is the median of the measurements' figures: they were taken at
// different times, and a median is not moved by one of them having been disturbed (a host
// stall, a neighbour), where a mean is (measured: one disturbed 2 s window made a mean of
// three p95s 79 % high, docs/performance.md). The tail's interval is then the median's
// order-statistics interval across them, with its coverage stated; a single measurement's
// comes from its histogram. An invalid measurement is a failed measurement, not an answer
// (as a sweep's re-measurement treats it): while another is valid it is left out, and
// counted. A measurement whose workload failed is an answer: the level failed.
PointAnalysis MergePoints(const std::vector<const PointData*>& all, const RunData& run,
                          double pct, double confidence) {
  PointAnalysis out;
  if (all.empty()) return out;
  std::vector<const PointData*> reps;
  bool any_failed = std::any_of(all.begin(), all.end(), [](const PointData* p) { return p->failed; });
  if (!any_failed) {
    for (const PointData* p : all) {
      if (p->valid) reps.push_back(p);
    }
  }
  if (reps.empty()) {
    reps = all;  // no repetition is usable on its own: the point is invalid or failed
  } else {
    for (const PointData* p : all) {
      if (p->valid) continue;
      ++out.repetitions_left_out;
      for (const auto& r : p->invalid_reasons) out.left_out_reasons.push_back(r);
    }
  }
  out.repetitions = static_cast<int>(reps.size());
  out.valid = true;
  std::vector<double> achieved, throughput, timely, mean, p50, p95, p99, p999, tails;
  std::vector<const Metric*> cpu, rx, tx, dr, dw, mb, llc, mem;
  std::vector<double> services;
  for (const PointData* p : reps) {
    out.target_load = p->target_load;
    achieved.push_back(p->achieved_qps);
    throughput.push_back(p->throughput_qps);
    timely.push_back(p->timely_ratio);
    mean.push_back(p->latency_mean_us);
    p50.push_back(p->p50_us);
    p95.push_back(p->p95_us);
    p99.push_back(p->p99_us);
    p999.push_back(p->p999_us);
    out.clients = std::max(out.clients, p->clients);
    out.valid = out.valid && p->valid && !p->failed;
    out.failed = out.failed || p->failed;
    for (const auto& r : p->invalid_reasons) {
      if (std::find(out.reasons.begin(), out.reasons.end(), r) == out.reasons.end()) {
        out.reasons.push_back(r);
      }
    }
    if (!p->valid && !p->failed && p->invalid_reasons.empty()) {
      out.reasons.push_back("marked invalid by the runner");
    }
    if (p->latency_hist_ns && p->latency_hist_ns->count() > 0) {
      tails.push_back(p->latency_hist_ns->ValueAtQuantile(pct / 100) / 1e3);
    } else if (auto s = StoredPercentile(*p, pct)) {
      tails.push_back(*s);
    }
    cpu.push_back(&p->cpu_util);
    rx.push_back(&p->net_rx_bps);
    tx.push_back(&p->net_tx_bps);
    dr.push_back(&p->disk_read_bps);
    dw.push_back(&p->disk_write_bps);
    mb.push_back(&p->membw_bps);
    llc.push_back(&p->llc_bytes);
    mem.push_back(&p->memory_bytes);
    if (p->service_mean_us) services.push_back(*p->service_mean_us);
  }
  out.achieved_qps = Median(achieved);
  out.throughput_qps = Median(throughput);
  out.timely_ratio = Median(timely);
  out.mean_us = Median(mean);
  out.p50_us = Median(p50);
  out.p95_us = Median(p95);
  out.p99_us = Median(p99);
  out.p999_us = Median(p999);
  out.cpu_util = MedianMetric(cpu);
  out.net_rx_bps = MedianMetric(rx);
  out.net_tx_bps = MedianMetric(tx);
  out.disk_bps = SumMetric(MedianMetric(dr), MedianMetric(dw));
  out.membw_bps = MedianMetric(mb);
  out.llc_bytes = MedianMetric(llc);
  out.memory_bytes = MedianMetric(mem);

  if (reps.size() >= 2 && !tails.empty()) {
    // Across measurements the run-to-run spread dominates the sampling error of one.
    auto ci = MedianConfidence(tails, confidence);
    out.tail_us = ci->median;
    out.tail_low_us = ci->low;
    out.tail_high_us = ci->high;
    char coverage[16];
    std::snprintf(coverage, sizeof coverage, "%.1f", ci->coverage * 100);
    out.tail_ci_method = "median of " + std::to_string(tails.size()) +
                         " measurements, order statistics across them (covers " + coverage + " %)";
  } else if (const auto& h = reps[0]->latency_hist_ns; h && h->count() > 0) {
    // One measurement: the percentile's own interval, from its histogram.
    auto ci = PercentileConfidence(*h, pct / 100, confidence);
    out.tail_us = ci->value / 1e3;
    out.tail_low_us = ci->low / 1e3;
    out.tail_high_us = ci->high / 1e3;
    out.tail_ci_method = "order statistics of " + std::to_string(ci->n) + " samples (ranks " +
                         std::to_string(ci->rank_low) + ".." + std::to_string(ci->rank_high) + ")";
  } else if (!tails.empty()) {
    out.tail_us = tails.front();
    out.tail_ci_method = "unavailable: no histogram stored for this point";
  }
  if (out.repetitions_left_out > 0) {
    out.tail_ci_method += "; " + std::to_string(out.repetitions_left_out) + " invalid measurement" +
                          (out.repetitions_left_out > 1 ? "s" : "") + " left out";
  }
  if (!services.empty() && services.size() == reps.size()) {
    out.service_us = Median(services);
    out.service_method = "server-reported";
  } else if (out.cpu_util.has() && out.throughput_qps > 0) {
    // Service demand law: U = X · S / c, so S = U · c / X.
    out.service_us = *out.cpu_util.value * run.threads / out.throughput_qps * 1e6;
    out.service_method = "service demand law S = U·c/X";
  }
  return out;
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
  if (mid.front().y > *target) {
    c.upper_bound = mid.front().x;
    c.status = "below the sweep: the lowest valid load (" + Load(mid.front().x, axis) +
               ") already misses QoS";
    return c;
  }
  size_t fail = 0;
  auto x = FirstUpCrossing(mid, *target, &fail);
  if (!x) {
    c.qps = mid.back().x;
    c.lower_bound = true;
    c.last_pass_qps = mid.back().x;
    c.status = "not reached: every valid point meets QoS, so capacity is at least " +
               Load(mid.back().x, axis);
    // Still an uncertainty from the CI: the upper curve may cross inside the sweep.
    if (auto l = FirstUpCrossing(hi, *target)) c.low = *l;
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
  c.low = std::min(*c.low, *x);
  c.high = std::max(*c.high, *x);
  for (size_t i = fail + 1; i < mid.size(); ++i) {
    if (mid[i].y <= *target) {
      c.status += "; a higher load (" + Load(mid[i].x, axis) +
                  ") meets QoS again — the curve is not monotonic, the first crossing is kept";
      break;
    }
  }
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

void Saturation(GroupAnalysis& g) {
  double best = 0;
  bool saturated = false;
  std::string why;
  for (const auto& p : g.points) {
    if (p.failed) continue;
    best = std::max(best, p.throughput_qps);
    if (!saturated && p.target_load > 0 && p.throughput_qps < 0.95 * p.target_load) {
      saturated = true;
      why = "throughput " + Qps(p.throughput_qps) + " fell below 95 % of the offered " +
            Qps(p.target_load);
    }
    if (!saturated && p.cpu_util.has() && *p.cpu_util.value >= 0.95) {
      saturated = true;
      why = "CPU utilization reached " + Pct(*p.cpu_util.value) + " at " + Qps(p.target_load);
    }
  }
  if (saturated) {
    g.saturation_qps = best;
    g.saturation_note = "highest throughput sustained; " + why;
  } else {
    g.saturation_note = "not reached: throughput followed the offered load up to " +
                        Qps(g.max_qps);
  }
}

const GroupAnalysis* ReferenceGroup(const std::vector<GroupAnalysis>& groups) {
  const GroupAnalysis* best = nullptr;
  auto rank = [](const GroupAnalysis& g) {
    return std::make_tuple(g.failed ? 1 : 0, g.partition.unlimited() ? 0 : 1,
                           g.scenario == "1-ST" ? 0 : 1, g.threads, g.valid_points > 0 ? 0 : 1);
  };
  for (const auto& g : groups) {
    if (!best || rank(g) < rank(*best)) best = &g;
  }
  return best;
}

QosTarget ComputeQos(const ExperimentData& d, const std::vector<GroupAnalysis>& groups) {
  QosTarget q;
  if (d.qos.fixed_target_us) {
    q.target_us = *d.qos.fixed_target_us;
    q.method = "fixed target from the experiment spec";
    return q;
  }
  const GroupAnalysis* ref = ReferenceGroup(groups);
  if (!ref) {
    q.unavailable = "no run to derive it from";
    return q;
  }
  q.reference = ref->key;
  std::vector<XY> s;
  bool reported = true;
  for (const auto& p : ref->points) {
    if (!p.valid || !p.cpu_util.has() || !p.service_us) continue;
    s.push_back({*p.cpu_util.value, *p.service_us});
    reported = reported && p.service_method == "server-reported";
  }
  std::sort(s.begin(), s.end(), [](const XY& a, const XY& b) { return a.x < b.x; });
  double u = d.qos.at_utilization;
  char rule[128];
  std::snprintf(rule, sizeof rule, "%g × mean service time at %g %% CPU utilization",
                d.qos.service_multiple, u * 100);
  if (s.empty()) {
    q.unavailable = std::string("cannot apply ") + rule + ": no valid point of " + ref->key +
                    " has both CPU utilization and a service time (CPU utilization: " +
                    (ref->points.empty() || ref->points[0].cpu_util.has()
                         ? "measured"
                         : ref->points[0].cpu_util.unavailable) +
                    "); set a fixed target in the spec";
    return q;
  }
  q.service_method = reported ? "server-reported" : "service demand law S = U·c/X";
  auto svc = InterpolateY(s, u);
  if (svc) {
    q.service_time_us = *svc;
  } else if (s.back().x < u) {
    q.unavailable = std::string("cannot apply ") + rule + ": CPU utilization of " + ref->key +
                    " stays below " + Pct(u) + " (max " + Pct(s.back().x) +
                    "), as the seed found for shore; set a fixed target in the spec";
    return q;
  } else {
    q.service_time_us = s.front().y;
    q.note = "no valid point at or below " + Pct(u) + " utilization; the lowest (" +
             Pct(s.front().x) + ") was used";
  }
  q.target_us = d.qos.service_multiple * *q.service_time_us;
  q.method = std::string(rule) + " (" + q.service_method + "), interpolated along the sweep of " +
             ref->key;
  // A server whose own work per request is far shorter than a round trip over the network
  // gets a target no request can meet: say so instead of leaving "capacity below the sweep"
  // unexplained.
  const PointAnalysis* floor = nullptr;
  for (const auto& p : ref->points) {
    if (p.valid && (!floor || p.tail_us < floor->tail_us)) floor = &p;
  }
  if (floor && *q.target_us < floor->tail_us) {
    if (!q.note.empty()) q.note += "; ";
    q.note += "the target (" + Fmt(*q.target_us) + " us) is below the lowest p" + Fmt(d.qos.percentile) +
              " measured at any valid load of " + ref->key + " (" + Fmt(floor->tail_us) + " us at " +
              Qps(floor->target_load) + "): the service time excludes the network and the server's I/O, "
              "so no load can meet it. The seed set a fixed LQoS where its rule did not apply (shore); "
              "set [qos] target in the spec";
  }
  return q;
}

Ratio MakeRatio(const GroupAnalysis* num, const GroupAnalysis* den, const std::string& num_name,
                std::optional<double> GroupAnalysis::*field_ptr, bool capacity) {
  Ratio r;
  if (!den) {
    r.status = "not measured: no unlimited 1-ST run";
    return r;
  }
  if (!num) {
    r.status = "not measured: no unlimited " + num_name + " run";
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

struct Knob {
  const char* name;
  std::function<std::optional<double>(const Partition&)> get;
  const char* unit;
  bool lower_is_tighter;  // a smaller value gives the workload less
};

std::vector<Knob> Knobs() {
  return {
      {"llc_ways", [](const Partition& p) -> std::optional<double> {
         if (p.llc_ways) return *p.llc_ways;
         return std::nullopt;
       }, "ways", true},
      {"mem_bw", [](const Partition& p) { return p.mem_bw_percent; }, "%", true},
      {"disk_bw", [](const Partition& p) { return p.disk_bps; }, "B/s", true},
      {"net_bw", [](const Partition& p) { return p.net_bps; }, "B/s", true},
      {"cpu_quota", [](const Partition& p) { return p.cpu_quota; }, "of the CPUs", true},
      {"memory", [](const Partition& p) { return p.memory_bytes; }, "bytes", true},
      {"net_latency_L", [](const Partition& p) { return p.net_latency_us; }, "us", false},
      {"net_overhead_o", [](const Partition& p) { return p.net_overhead_us; }, "us", false},
      {"net_gap_g", [](const Partition& p) { return p.net_gap_us; }, "us", false},
      {"net_gap_per_byte_G", [](const Partition& p) { return p.net_gap_per_byte_us; }, "us",
       false},
  };
}

int KnobsSet(const Partition& p) {
  int n = 0;
  for (const auto& k : Knobs()) n += k.get(p).has_value() ? 1 : 0;
  return n + static_cast<int>(p.other.size());
}

std::vector<Sensitivity> ComputeSensitivity(const std::vector<GroupAnalysis>& groups) {
  std::vector<Sensitivity> out;
  std::set<std::string> scenarios;
  for (const auto& g : groups) scenarios.insert(g.scenario);
  for (const auto& knob : Knobs()) {
    bool any = false;
    for (const auto& sc : scenarios) {
      const GroupAnalysis* ref = nullptr;
      std::vector<const GroupAnalysis*> varied;
      for (const auto& g : groups) {
        if (g.scenario != sc || g.failed) continue;
        if (g.partition.unlimited()) ref = &g;
        if (knob.get(g.partition) && KnobsSet(g.partition) == 1) varied.push_back(&g);
      }
      if (varied.empty()) continue;
      any = true;
      Sensitivity s;
      s.resource = knob.name;
      s.scenario = sc;
      std::sort(varied.begin(), varied.end(), [&](auto* a, auto* b) {
        return *knob.get(a->partition) < *knob.get(b->partition);
      });
      // Without an unlimited run, the most generous setting measured is the reference.
      std::string ref_label = "unlimited";
      if (!ref && knob.lower_is_tighter && varied.size() >= 2) {
        ref = varied.back();
        varied.pop_back();
        ref_label = Fmt(*knob.get(ref->partition), 4) + " " + knob.unit + " (reference)";
      }
      std::optional<double> ref_cap;
      if (ref) ref_cap = ref->capacity.qps;
      const double ref_qps = ref_cap.value_or(0);
      if (ref) {
        s.points.push_back({ref_label, ref->key, ref->capacity.qps, ref->capacity.lower_bound,
                            ref_cap ? std::optional<double>(0.0) : std::nullopt});
      }
      double worst = 0;
      std::string worst_at;
      bool undetermined = !ref_cap;
      for (const auto* g : varied) {
        SensitivityPoint sp;
        sp.value = Fmt(*knob.get(g->partition), 4) + " " + knob.unit;
        sp.group_key = g->key;
        sp.capacity_qps = g->capacity.qps;
        sp.lower_bound = g->capacity.lower_bound;
        if (ref_qps > 0 && g->capacity.qps) {
          sp.relative_change = *g->capacity.qps / ref_qps - 1;
          if (*sp.relative_change < worst) {
            worst = *sp.relative_change;
            worst_at = sp.value;
          }
        } else if (!g->capacity.qps && g->capacity.upper_bound && ref_qps > 0) {
          // The constrained run misses QoS even at its lowest load: the change is at least
          // this large.
          double change = *g->capacity.upper_bound / ref_qps - 1;
          if (change < worst) {
            worst = change;
            worst_at = sp.value + " (misses QoS at every load)";
          }
          sp.relative_change = change;
        } else {
          undetermined = true;
        }
        s.points.push_back(sp);
      }
      if (!ref) {
        s.status = "undetermined";
        s.explanation = "no unlimited " + sc + " run, nor two settings, to compare with";
      } else if (-worst > kSensitivityThreshold) {
        s.status = "sensitive";
        s.explanation = "QPS under QoS drops by " + Pct(-worst) + " at " + worst_at +
                        " (threshold " + Pct(kSensitivityThreshold) + ")";
      } else if (undetermined) {
        s.status = "undetermined";
        s.explanation = "a capacity is missing or only bounded, so the change cannot be sized";
      } else {
        s.status = "insensitive";
        s.explanation = "QPS under QoS changes by at most " + Pct(-worst) +
                        " over the settings measured: a candidate for a reduced share";
      }
      out.push_back(std::move(s));
    }
    if (!any) {
      Sensitivity s;
      s.resource = knob.name;
      s.status = "not measured";
      s.explanation = "no partition of this experiment limited it alone";
      out.push_back(std::move(s));
    }
  }
  return out;
}

// Per-request figures and trends for the classifier, over the reference group.
Category Classify(const GroupAnalysis* ref, const std::vector<GroupAnalysis>& groups) {
  Category c;
  if (!ref) {
    c.name = "unclassified";
    c.explanation = "no run to classify";
    return c;
  }
  std::optional<double> peak_tx, peak_rx, peak_cpu, peak_disk;
  std::string tx_why, disk_why, cpu_why;
  std::vector<XY> disk_vs_qps, cpu_vs_qps;
  std::optional<double> tx_per_req, disk_per_req;
  for (const auto& p : ref->points) {
    if (p.failed) continue;
    double x = p.throughput_qps;
    if (p.net_tx_bps.has()) {
      peak_tx = std::max(peak_tx.value_or(0), *p.net_tx_bps.value);
      if (x > 0) tx_per_req = std::max(tx_per_req.value_or(0), *p.net_tx_bps.value / x);
    } else if (tx_why.empty()) {
      tx_why = p.net_tx_bps.unavailable;
    }
    if (p.net_rx_bps.has()) peak_rx = std::max(peak_rx.value_or(0), *p.net_rx_bps.value);
    if (p.disk_bps.has()) {
      peak_disk = std::max(peak_disk.value_or(0), *p.disk_bps.value);
      disk_vs_qps.push_back({x, *p.disk_bps.value});
      if (x > 0) disk_per_req = std::max(disk_per_req.value_or(0), *p.disk_bps.value / x);
    } else if (disk_why.empty()) {
      disk_why = p.disk_bps.unavailable;
    }
    if (p.cpu_util.has()) {
      peak_cpu = std::max(peak_cpu.value_or(0), *p.cpu_util.value);
      cpu_vs_qps.push_back({x, *p.cpu_util.value});
    } else if (cpu_why.empty()) {
      cpu_why = p.cpu_util.unavailable;
    }
  }
  std::optional<double> low_load_tail;
  std::optional<double> qos_qps;  // QPS measured under QoS (capacity or its bound)
  for (const auto& p : ref->points) {
    if (p.valid) {
      low_load_tail = p.tail_us / 1e6;
      break;
    }
  }
  if (ref->capacity.qps) {
    qos_qps = *ref->capacity.qps;
  } else {
    double best = 0;
    for (const auto& g : groups) best = std::max(best, g.capacity.qps.value_or(0));
    if (best > 0) qos_qps = best;
  }
  auto ev = [&](const std::string& cat, const std::string& name, std::optional<double> v,
                const std::string& unit, const std::string& rule, bool holds,
                const std::string& why) {
    c.evidence.push_back({cat, name, v, unit, rule, v.has_value() && holds,
                          v ? "" : "unavailable: " + (why.empty() ? "not measured" : why)});
    return v.has_value() && holds;
  };
  auto corr = [](const std::vector<XY>& s) { return Correlation(s); };

  // Network / streaming.
  bool tx_big = ev("network-streaming", "peak network transmit", peak_tx, "B/s",
                   "≥ " + Fmt(kStreamingTxBytesPerSec / 1e6) + " MB/s",
                   peak_tx && *peak_tx >= kStreamingTxBytesPerSec, tx_why);
  bool tx_req = ev("network-streaming", "transmit per request", tx_per_req, "B/req",
                   "≥ " + Fmt(kStreamingTxBytesPerReq / 1e3) + " kB/req",
                   tx_per_req && *tx_per_req >= kStreamingTxBytesPerReq, tx_why);
  std::optional<double> tx_rx;
  if (peak_tx && peak_rx && *peak_rx > 0) tx_rx = *peak_tx / *peak_rx;
  bool tx_dom = ev("network-streaming", "transmit / receive", tx_rx, "×",
                   "≥ " + Fmt(kStreamingTxOverRx), tx_rx && *tx_rx >= kStreamingTxOverRx, tx_why);
  bool streaming = (tx_big || tx_req) && tx_dom;

  // Disk-bound.
  bool disk_req = ev("disk-bound", "disk I/O per request", disk_per_req, "B/req",
                     "≥ " + Fmt(kDiskBytesPerReq / 1024) + " KiB/req",
                     disk_per_req && *disk_per_req >= kDiskBytesPerReq, disk_why);
  auto disk_r = corr(disk_vs_qps);
  bool disk_grows = ev("disk-bound", "disk bandwidth vs QPS correlation", disk_r, "r",
                       "≥ " + Fmt(kDiskLoadCorrelation), disk_r && *disk_r >= kDiskLoadCorrelation,
                       disk_vs_qps.size() < 2 ? "fewer than two points with disk I/O"
                                              : "no variation");
  std::optional<double> peak_cpu_pct;
  if (peak_cpu) peak_cpu_pct = *peak_cpu * 100;
  bool cpu_moderate = ev("disk-bound", "peak CPU utilization", peak_cpu_pct, "%",
                         "< " + Fmt(kDiskBoundMaxCpu * 100) + " %",
                         peak_cpu && *peak_cpu < kDiskBoundMaxCpu, cpu_why);
  bool disk_bound = disk_req && disk_grows && cpu_moderate;

  // CPU-intensive.
  bool slow = ev("cpu-intensive", "low-load tail latency",
                 low_load_tail, "s", "≥ " + Fmt(kCpuIntensiveLatencyS) + " s",
                 low_load_tail && *low_load_tail >= kCpuIntensiveLatencyS, "no valid point");
  bool few = ev("cpu-intensive", "QPS under QoS", qos_qps, "QPS",
                "< " + Fmt(kCpuIntensiveMaxQps) + " QPS",
                qos_qps && *qos_qps < kCpuIntensiveMaxQps, "no capacity");
  bool cpu_sat = ev("cpu-intensive", "peak CPU utilization", peak_cpu_pct, "%",
                    "≥ " + Fmt(kCpuSaturated * 100) + " %", peak_cpu && *peak_cpu >= kCpuSaturated,
                    cpu_why);
  bool cpu_intensive = slow || (few && cpu_sat);

  // Fast / latency-critical.
  bool quick = ev("fast", "low-load tail latency", low_load_tail, "s",
                  "≤ " + Fmt(kFastMaxLatencyS) + " s",
                  low_load_tail && *low_load_tail <= kFastMaxLatencyS, "no valid point");
  bool many = ev("fast", "QPS under QoS", qos_qps, "QPS", "≥ " + Fmt(kFastMinQps, 6) + " QPS",
                 qos_qps && *qos_qps >= kFastMinQps, "no capacity");
  auto cpu_r = corr(cpu_vs_qps);
  bool follows = ev("fast", "CPU utilization vs QPS correlation", cpu_r, "r",
                    "≥ " + Fmt(kFastCpuCorrelation), cpu_r && *cpu_r >= kFastCpuCorrelation,
                    cpu_why.empty() ? "fewer than two points" : cpu_why);
  bool fast = quick && many && follows;

  if (streaming) {
    c.name = "network-streaming";
    c.explanation = "network transmit bandwidth dominates (peak " + Fmt(peak_tx.value_or(0)) +
                    " B/s, " + Fmt(tx_rx.value_or(0)) + " × the receive bandwidth)";
  } else if (disk_bound) {
    c.name = "disk-bound";
    c.explanation = "disk I/O grows with load (r = " + Fmt(*disk_r) + ", " +
                    Fmt(*disk_per_req) + " B/request) while CPU stays moderate (peak " +
                    Pct(*peak_cpu) + ")";
  } else if (cpu_intensive) {
    c.name = "cpu-intensive";
    c.explanation = slow ? "tail latency is in seconds at low load (" +
                               Fmt(*low_load_tail) + " s)"
                         : "CPU saturates (" + Pct(*peak_cpu) + ") below " +
                               Fmt(kCpuIntensiveMaxQps) + " QPS";
  } else if (fast) {
    c.name = "fast";
    c.explanation = "tail latency " + Fmt(*low_load_tail * 1e3) + " ms at low load, " +
                    Qps(*qos_qps) + " under QoS, CPU utilization follows load (r = " +
                    Fmt(*cpu_r) + ")";
  } else {
    c.name = "unclassified";
    c.explanation = "no category's rules all hold on the measured profile (see the evidence)";
  }
  return c;
}

// Resource cost of a group, cheapest first: physical cores, then logical CPUs, then cache
// ways, then bandwidths (an unlimited resource costs the most).
auto Cost(const GroupAnalysis& g) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Partition& p = g.partition;
  return std::make_tuple(g.physical_cores, g.threads, p.cpu_quota.value_or(1.0),
                         p.llc_ways ? static_cast<double>(*p.llc_ways) : kInf,
                         p.mem_bw_percent.value_or(kInf), p.disk_bps.value_or(kInf),
                         p.net_bps.value_or(kInf));
}

Recommendation Recommend(const std::vector<GroupAnalysis>& groups, double q) {
  Recommendation r;
  r.target_qps = q;
  std::vector<const GroupAnalysis*> ok;
  const GroupAnalysis* best_cap = nullptr;
  for (const auto& g : groups) {
    if (g.failed || !g.capacity.qps) continue;
    if (!best_cap || *g.capacity.qps > *best_cap->capacity.qps) best_cap = &g;
    if (*g.capacity.qps >= q) ok.push_back(&g);
  }
  std::stable_sort(ok.begin(), ok.end(),
                   [](const auto* a, const auto* b) { return Cost(*a) < Cost(*b); });
  for (const auto* g : ok) r.candidates.push_back(g->key);
  if (ok.empty()) {
    r.explanation = "no measured allocation meets QoS at " + Qps(q);
    if (best_cap) {
      r.explanation += "; the highest QPS under QoS is " + Qps(*best_cap->capacity.qps) +
                       (best_cap->capacity.lower_bound ? " (at least)" : "") + " with " +
                       best_cap->key;
    }
    return r;
  }
  const auto* g = ok.front();
  r.group_key = g->key;
  r.explanation = g->key + " meets QoS at " + Qps(q) + " with the fewest resources (" +
                  std::to_string(g->physical_cores) + " physical core(s), " +
                  std::to_string(g->threads) + " thread(s)); its QPS under QoS is " +
                  (g->capacity.lower_bound ? "at least " : "") + Qps(*g->capacity.qps);
  if (g->capacity.low && *g->capacity.low < q) {
    r.explanation += ", but the lower end of its uncertainty (" + Qps(*g->capacity.low) +
                     ") is below the target: little margin";
  }
  return r;
}

void FitModel(GroupAnalysis& g, const ExperimentData& d, const AnalysisOptions& o, double pct) {
  // The baseline's mean round trip at each load, from its group with the same scenario (or
  // its only group).
  std::vector<XY> base;
  if (o.baseline) {
    const RunData* best = nullptr;
    for (const auto& r : o.baseline->runs) {
      if (r.failed) continue;
      if (!best || (r.scenario == g.scenario && best->scenario != g.scenario)) best = &r;
    }
    if (best) {
      for (const auto& p : best->points) {
        if (p.valid && !p.failed) base.push_back({p.target_load, p.latency_mean_us / 1e6});
      }
      std::sort(base.begin(), base.end(), [](const XY& a, const XY& b) { return a.x < b.x; });
    }
  }
  std::vector<MeasuredLoad> loads;
  for (const auto& p : g.points) {
    if (!p.valid || !p.cpu_util.has()) continue;
    MeasuredLoad l;
    l.qps = p.achieved_qps > 0 ? p.achieved_qps : p.target_load;
    l.mean_s = p.mean_us / 1e6;
    l.p_s = p.tail_us / 1e6;
    l.cpu_busy_cpus = *p.cpu_util.value * g.threads;
    if (!base.empty()) l.base_mean_s = InterpolateY(base, p.target_load);
    loads.push_back(l);
  }
  std::string why;
  double overhead_s = g.partition.net_overhead_us.value_or(0) / 1e6;
  g.model = CompareWithModel(loads, g.threads, pct, o.messages_per_op, overhead_s, &why);
  if (!g.model) g.model_unavailable = why;
  (void)d;
}

}  // namespace

std::string Partition::Label() const {
  if (!label.empty()) return label;
  if (unlimited()) return "unlimited";
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ",") + part; };
  if (llc_ways) add("llc=" + std::to_string(*llc_ways));
  if (mem_bw_percent) add("membw=" + Fmt(*mem_bw_percent) + "%");
  if (disk_bps) add("disk=" + Fmt(*disk_bps) + "B/s");
  if (net_bps) add("net=" + Fmt(*net_bps) + "B/s");
  if (cpu_quota) add("quota=" + Fmt(*cpu_quota * 100) + "%");
  if (memory_bytes) add("mem=" + Fmt(*memory_bytes) + "B");
  if (net_latency_us) add("L=" + Fmt(*net_latency_us) + "us");
  if (net_overhead_us) add("o=" + Fmt(*net_overhead_us) + "us");
  if (net_gap_us) add("g=" + Fmt(*net_gap_us) + "us");
  if (net_gap_per_byte_us) add("G=" + Fmt(*net_gap_per_byte_us) + "us");
  for (const auto& [k, v] : other) add(k + "=" + v);
  return s;
}

std::string GroupKey(const std::string& scenario, const Partition& p) {
  return scenario + " / " + p.Label();
}

const GroupAnalysis* ExperimentAnalysis::Find(const std::string& key) const {
  for (const auto& g : groups) {
    if (g.key == key) return &g;
  }
  return nullptr;
}

Result<ExperimentAnalysis> Analyze(const ExperimentData& d, const AnalysisOptions& o) {
  if (d.runs.empty()) {
    return InvalidArgument("experiment '" + d.name + "' has no runs to analyze");
  }
  if (d.qos.percentile <= 0 || d.qos.percentile >= 100) {
    return InvalidArgument("experiment '" + d.name + "': QoS percentile " +
                           Fmt(d.qos.percentile) + " is outside (0, 100)");
  }
  ExperimentAnalysis a;
  a.experiment = d.name;
  a.workload = d.workload;
  a.percentile = d.qos.percentile;
  a.confidence = o.confidence;
  a.load_axis = d.load_axis;
  double pct = d.qos.percentile;

  // Group runs by scenario × partition; repetitions merge point by point.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RunData*>> by_key;
  for (const auto& r : d.runs) {
    std::string key = GroupKey(r.scenario, r.partition);
    if (!by_key.count(key)) order.push_back(key);
    by_key[key].push_back(&r);
  }
  int total_points = 0, valid_points = 0;
  std::map<std::string, int> reasons;
  for (const auto& key : order) {
    const auto& runs = by_key[key];
    GroupAnalysis g;
    g.key = key;
    g.scenario = runs[0]->scenario;
    g.threads = runs[0]->threads;
    g.physical_cores = runs[0]->physical_cores;
    g.partition = runs[0]->partition;
    g.repetitions = static_cast<int>(runs.size());
    g.failed = std::all_of(runs.begin(), runs.end(), [](const RunData* r) { return r->failed; });
    if (g.failed) g.failure = runs[0]->failure;
    std::vector<double> loads;
    for (const RunData* r : runs) {
      for (const auto& p : r->points) {
        if (std::none_of(loads.begin(), loads.end(),
                         [&](double l) { return SameLoad(l, p.target_load); })) {
          loads.push_back(p.target_load);
        }
      }
    }
    std::sort(loads.begin(), loads.end());
    for (double load : loads) {
      std::vector<const PointData*> reps;
      for (const RunData* r : runs) {
        for (const PointData* p : DecidingPoints(*r, load)) reps.push_back(p);
      }
      PointAnalysis pa = MergePoints(reps, *runs[0], pct, o.confidence);
      ++total_points;
      if (pa.valid) {
        ++valid_points;
        ++g.valid_points;
      } else {
        ++g.invalid_points;
        for (const auto& reason : pa.reasons) ++reasons[reason];
      }
      g.points.push_back(std::move(pa));
    }
    if (!g.points.empty()) {
      g.min_qps = g.points.front().target_load;
      g.max_qps = g.points.back().target_load;
      g.min_clients = g.max_clients = g.points.front().clients;
      for (const auto& p : g.points) {
        g.min_clients = std::min(g.min_clients, p.clients);
        g.max_clients = std::max(g.max_clients, p.clients);
      }
    }
    a.groups.push_back(std::move(g));
  }
  if (valid_points == 0) {
    // The most frequent reasons first, a few of them: enough to say what went wrong.
    std::vector<std::pair<int, std::string>> ranked;
    for (const auto& [r, n] : reasons) ranked.push_back({n, r});
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string why;
    constexpr size_t kShown = 4;
    for (size_t i = 0; i < ranked.size() && i < kShown; ++i) {
      why += (why.empty() ? "" : "; ") + ranked[i].second + " (" +
             std::to_string(ranked[i].first) + " point(s))";
    }
    if (ranked.size() > kShown) {
      why += "; and " + std::to_string(ranked.size() - kShown) + " other reason(s)";
    }
    std::string failures;
    for (const auto& r : d.runs) {
      if (r.failed && failures.find(r.failure) == std::string::npos) {
        failures += (failures.empty() ? "" : "; ") + r.scenario + ": " + r.failure;
      }
    }
    return InvalidArgument("experiment '" + d.name + "' has no valid point (" +
                           std::to_string(total_points) + " point(s)" +
                           (why.empty() ? "" : ", invalid because: " + why) +
                           (failures.empty() ? "" : "; failed runs: " + failures) +
                           "); nothing to analyze — rerun with lower loads or more generator "
                           "threads");
  }

  a.qos = ComputeQos(d, a.groups);
  if (!a.qos.target_us) a.warnings.push_back("no QoS target: " + a.qos.unavailable);
  for (auto& g : a.groups) {
    for (auto& p : g.points) {
      if (a.qos.target_us && p.valid) p.meets_qos = p.tail_us <= *a.qos.target_us;
    }
    g.capacity = ComputeCapacity(g.points, a.qos.target_us, d.load_axis);
    QpsAtUtilization(g.points, 0.20, &g.qps_at_20, &g.qps_at_20_note);
    QpsAtUtilization(g.points, 0.50, &g.qps_at_50, &g.qps_at_50_note);
    Saturation(g);
    FitModel(g, d, o, pct);
  }

  auto unlimited = [&](const std::string& sc) -> const GroupAnalysis* {
    for (const auto& g : a.groups) {
      if (g.scenario == sc && g.partition.unlimited()) return &g;
    }
    return nullptr;
  };
  const GroupAnalysis* st1 = unlimited("1-ST");
  const GroupAnalysis* st2 = unlimited("2-ST");
  const GroupAnalysis* smt2 = unlimited("2-SMT");
  if (st1 && st1->failed) st1 = nullptr;
  a.scaling.capacity_2st = MakeRatio(st2, st1, "2-ST", nullptr, true);
  a.scaling.capacity_2smt = MakeRatio(smt2, st1, "2-SMT", nullptr, true);
  a.scaling.qps20_2st = MakeRatio(st2, st1, "2-ST", &GroupAnalysis::qps_at_20, false);
  a.scaling.qps20_2smt = MakeRatio(smt2, st1, "2-SMT", &GroupAnalysis::qps_at_20, false);
  a.scaling.qps50_2st = MakeRatio(st2, st1, "2-ST", &GroupAnalysis::qps_at_50, false);
  a.scaling.qps50_2smt = MakeRatio(smt2, st1, "2-SMT", &GroupAnalysis::qps_at_50, false);

  a.category = Classify(ReferenceGroup(a.groups), a.groups);
  a.sensitivity = ComputeSensitivity(a.groups);
  if (o.target_qps) a.recommendation = Recommend(a.groups, *o.target_qps);
  for (const auto& g : a.groups) {
    if (g.failed) a.warnings.push_back(g.key + " failed: " + g.failure);
  }
  return a;
}

}  // namespace ream::analysis
