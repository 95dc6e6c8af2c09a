// One load level's measurements merged into one point: which attempts decide a level, and
// the median of their figures.
#include "analysis/merge.h"

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
namespace {

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

}  // namespace

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
// three p95s 79 % high, docs/notes/performance-notes.md). The tail's interval is then the median's
// order-statistics interval across them, with its coverage stated; a single measurement's
// comes from its histogram. An invalid measurement is a failed measurement, not an answer
// (as a sweep's re-measurement treats it): while another is valid it is left out, and
// counted. A measurement whose workload failed is an answer: the level failed.
PointAnalysis MergePoints(const std::vector<const PointData*>& all, const RunData& run,
                          double pct, double confidence) {
  PointAnalysis out;
  if (all.empty()) return out;
  for (const PointData* p : all) {
    if (out.network.is_null() && !p->network.is_null()) out.network = p->network;
  }
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
  std::vector<double> services, late50, late99;
  std::vector<const SessionPoint*> sessions;
  int measurement = 0;
  for (const PointData* p : reps) {
    ++measurement;
    if (p->session) sessions.push_back(&*p->session);
    if (p->lateness_p50_us) late50.push_back(*p->lateness_p50_us);
    if (p->lateness_p99_us) late99.push_back(*p->lateness_p99_us);
    // Means, so the causes' shares still add up to one minus the (mean) timely share.
    for (const auto& [cause, share] : p->late_shares) {
      out.late_shares[cause] += share / static_cast<double>(reps.size());
    }
    if (out.keep_awake_cpus.empty()) out.keep_awake_cpus = p->keep_awake_cpus;
    if (out.keep_awake_workload.empty()) out.keep_awake_workload = p->keep_awake_workload;
    if (out.keep_awake_how.empty()) out.keep_awake_how = p->keep_awake_how;
    for (AgentFigures a : p->agents) {
      a.measurement = measurement;
      out.agents.push_back(std::move(a));
    }
    if (p->reconnections) out.reconnections = out.reconnections.value_or(0) + *p->reconnections;
    if (p->until_decided) {
      out.until_decided.push_back(*p->until_decided);
      if (p->until_measured_s) out.until_measured_s = out.until_measured_s.value_or(0) + *p->until_measured_s;
      if (p->until_interval) out.until_interval = std::max(out.until_interval.value_or(0), *p->until_interval);
    }
    if (p->lost_requests) out.lost_requests = out.lost_requests.value_or(0) + *p->lost_requests;
    for (const auto& [reason, n] : p->lost_reasons) out.lost_reasons[reason] += n;
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
    if (out.membw_method.empty()) out.membw_method = p->membw_method;
    llc.push_back(&p->llc_bytes);
    mem.push_back(&p->memory_bytes);
    if (p->service_mean_us) services.push_back(*p->service_mean_us);
  }
  if (!sessions.empty()) {
    auto med = [&](double SessionPoint::*f) {
      std::vector<double> v;
      for (const SessionPoint* s : sessions) v.push_back(s->*f);
      return Median(v);
    };
    SessionPoint sp;
    for (double SessionPoint::*f : {&SessionPoint::sessions, &SessionPoint::chunk_play_ms,
                                    &SessionPoint::chunks_requested, &SessionPoint::chunks_completed,
                                    &SessionPoint::deadline_miss_ratio, &SessionPoint::throughput_bytes_per_s}) {
      sp.*f = med(f);
    }
    out.session = sp;
  }
  out.achieved_qps = Median(achieved);
  out.throughput_qps = Median(throughput);
  out.timely_ratio = Median(timely);
  if (!late50.empty()) out.lateness_p50_us = Median(late50);
  if (!late99.empty()) out.lateness_p99_us = Median(late99);
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

}  // namespace ream::analysis
