// The second seed's queueing model fitted to a group and compared with its measurements.
#include "analysis/model.h"

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
  // The model's per-message CPU cost o is the LogGP overhead the partition added, if any.
  double overhead_s = g.partition.Limit("net_overhead").value_or(0) / 1e6;
  g.model = CompareWithModel(loads, g.threads, pct, o.messages_per_op, overhead_s, &why);
  if (!g.model) g.model_unavailable = why;
  (void)d;
}

}  // namespace ream::analysis
