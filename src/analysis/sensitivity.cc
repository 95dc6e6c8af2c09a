// Sensitivity to resource partitions: how QPS under QoS changes over the partitions that
// limit one resource of the knob table alone (partition/knobs.h).
#include "analysis/sensitivity.h"

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

int KnobsSet(const Partition& p) {
  return static_cast<int>(p.limits.size()) + static_cast<int>(p.other.size());
}

}  // namespace

// One entry per resource of the knob table (in its order) and scenario: how QPS under QoS
// changes over the partitions that limit that resource alone.
std::vector<Sensitivity> ComputeSensitivity(const std::vector<GroupAnalysis>& groups, const KnobTable& knobs) {
  std::vector<Sensitivity> out;
  std::set<std::string> scenarios;
  for (const auto& g : groups) scenarios.insert(g.scenario);
  for (const LimitedResource& knob : knobs.resources()) {
    auto get = [&knob](const Partition& p) { return p.Limit(knob.name); };
    bool any = false;
    for (const auto& sc : scenarios) {
      const GroupAnalysis* ref = nullptr;
      std::vector<const GroupAnalysis*> varied;
      for (const auto& g : groups) {
        if (g.scenario != sc || g.failed) continue;
        if (g.partition.unlimited()) ref = &g;
        if (get(g.partition) && KnobsSet(g.partition) == 1) varied.push_back(&g);
      }
      if (varied.empty()) continue;
      any = true;
      Sensitivity s;
      s.resource = knob.name;
      s.scenario = sc;
      std::sort(varied.begin(), varied.end(), [&](auto* a, auto* b) {
        return *get(a->partition) < *get(b->partition);
      });
      // Without an unlimited run, the most generous setting measured is the reference.
      std::string ref_label = "unlimited";
      if (!ref && knob.lower_is_tighter && varied.size() >= 2) {
        ref = varied.back();
        varied.pop_back();
        ref_label = Fmt(*get(ref->partition), 4) + " " + knob.unit + " (reference)";
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
        sp.value = Fmt(*get(g->partition), 4) + " " + knob.unit;
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

}  // namespace ream::analysis
