// The second seed's queueing model fitted to a group and compared with its measurements.
#include "analysis/model.h"

#include <algorithm>

#include "analysis/stats.h"

namespace ream::analysis {

std::string ResourceOf(const KnobTable& knobs, const std::string& knob) {
  const Knob* k = knobs.Find(knob);
  return k && !k->resource.empty() ? k->resource : knob;
}

std::optional<double> LogGpSeconds(const Partition& p, const KnobTable& knobs, const std::string& knob) {
  const std::string resource = ResourceOf(knobs, knob);
  auto v = p.Limit(resource);
  if (!v) return std::nullopt;
  const LimitedResource* r = knobs.FindResource(resource);
  std::string unit = r ? r->unit : "us";
  if (unit.size() > 2 && unit.substr(unit.size() - 2) == "/B") unit = unit.substr(0, unit.size() - 2);
  double scale;
  if (unit == "us" || unit == "µs") scale = 1e-6;
  else if (unit == "ns") scale = 1e-9;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "s") scale = 1;
  else return std::nullopt;
  return *v * scale;
}

void FitModel(GroupAnalysis& g, const ExperimentData& d, const AnalysisOptions& o, double pct) {
  const KnobTable& knobs = o.knobs ? *o.knobs : BuiltinKnobs();
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
  // The CPUs' worth the group may use: its CPUs, or its CPU quota's (in CPUs) when less. The
  // utilization is of that allotment (monitor), so U × it is the busy CPU time.
  double allotted = static_cast<double>(g.threads);
  if (auto quota = g.partition.Limit("cpu_quota"); quota && *quota > 0 && *quota < allotted) allotted = *quota;
  std::vector<MeasuredLoad> loads;
  for (const auto& p : g.points) {
    if (!p.valid || !p.cpu_util.has()) continue;
    MeasuredLoad l;
    l.qps = p.achieved_qps > 0 ? p.achieved_qps : p.target_load;
    l.mean_s = p.mean_us / 1e6;
    l.p_s = p.tail_us / 1e6;
    l.utilization = *p.cpu_util.value;
    l.cpu_busy_cpus = *p.cpu_util.value * allotted;
    if (p.service_us && p.service_method == "server-reported") l.service_s = *p.service_us / 1e6;
    if (!base.empty()) l.base_mean_s = InterpolateY(base, p.target_load);
    loads.push_back(l);
  }
  ModelInputs in;
  in.servers = g.threads;
  in.capacity_cpus = allotted;
  in.percentile = pct;
  in.messages_per_op = d.model.messages_per_op;
  // The model's per-message CPU cost o and one-way latency L are the LogGP knobs the
  // partition set, if any.
  in.overhead_s = LogGpSeconds(g.partition, knobs, kOverheadKnob).value_or(0);
  in.latency_s = LogGpSeconds(g.partition, knobs, kLatencyKnob).value_or(0);
  in.range_low = d.model.range_low;
  in.range_high = d.model.range_high;
  in.range_source = d.model.range_given ? "[model] range" : "default";
  in.work_scv = d.model.service_scv;
  in.work_scv_source = d.model.service_scv_source;
  std::string why;
  g.model = CompareWithModel(loads, in, &why);
  if (!g.model) g.model_unavailable = why;
}

}  // namespace ream::analysis
