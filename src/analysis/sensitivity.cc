// Sensitivity to resource partitions: how QPS under QoS changes over the partitions that
// limit one resource of the knob table alone (partition/knobs.h), the other knobs fixed.
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

// The other knobs of `p` (every limit but `resource`, and the limits without an amount), as a
// key: partitions with the same key differ in `resource` alone.
std::string RestKey(const Partition& p, const std::string& resource) {
  std::string key;
  for (const auto& [name, v] : p.limits) {
    if (name != resource) key += name + "=" + Fmt(v, 12) + ";";
  }
  for (const auto& [name, v] : p.other) key += name + ":" + v + ";";
  return key;
}

std::optional<double> BaseMeanUs(const GroupAnalysis& g, double load, std::string* note) {
  std::vector<XY> curve;
  for (const auto& p : g.points) {
    if (p.valid) curve.push_back({p.target_load, p.mean_us});
  }
  auto v = InterpolateY(curve, load);
  if (!v && note) {
    *note = curve.empty() ? "no valid point" : "the base load " + Fmt(load, 6) + " lies outside its valid points";
  }
  return v;
}

}  // namespace

// One entry per resource of the knob table (in its order), scenario and fixed setting of the
// other knobs: how QPS under QoS changes over the partitions that vary that resource alone.
std::vector<Sensitivity> ComputeSensitivity(const std::vector<GroupAnalysis>& groups, const KnobTable& knobs) {
  std::vector<Sensitivity> out;
  std::vector<std::string> scenarios;
  for (const auto& g : groups) {
    if (std::find(scenarios.begin(), scenarios.end(), g.scenario) == scenarios.end()) scenarios.push_back(g.scenario);
  }
  std::sort(scenarios.begin(), scenarios.end());
  for (const LimitedResource& knob : knobs.resources()) {
    auto get = [&knob](const Partition& p) { return p.Limit(knob.name); };
    bool any = false;
    for (const auto& sc : scenarios) {
      // The families: partitions of this scenario varying this resource, keyed by the rest.
      std::vector<std::string> rests;
      for (const auto& g : groups) {
        if (g.scenario != sc || g.failed || !get(g.partition)) continue;
        std::string rest = RestKey(g.partition, knob.name);
        if (std::find(rests.begin(), rests.end(), rest) == rests.end()) rests.push_back(rest);
      }
      for (const auto& rest : rests) {
        const GroupAnalysis* ref = nullptr;
        std::vector<const GroupAnalysis*> varied;
        std::string rest_label;
        for (const auto& g : groups) {
          if (g.scenario != sc || g.failed) continue;
          if (!get(g.partition) && RestKey(g.partition, knob.name) == rest) ref = &g;
          if (get(g.partition) && RestKey(g.partition, knob.name) == rest) varied.push_back(&g);
        }
        if (varied.empty()) continue;
        any = true;
        Sensitivity s;
        s.resource = knob.name;
        s.scenario = sc;
        if (!rest.empty()) {
          // The fixed knobs, as the first varied partition's label names them.
          s.scenario = sc + " (other knobs fixed: " + rest + ")";
          if (!s.scenario.empty() && s.scenario[s.scenario.size() - 2] == ';') s.scenario.erase(s.scenario.size() - 2, 1);
        }
        std::sort(varied.begin(), varied.end(),
                  [&](auto* a, auto* b) { return *get(a->partition) < *get(b->partition); });
        // Without an unlimited run, the most generous setting measured is the reference.
        std::string ref_label = "unlimited";
        if (!ref && varied.size() >= 2) {
          if (knob.lower_is_tighter) {
            ref = varied.back();
            varied.pop_back();
          } else {
            ref = varied.front();
            varied.erase(varied.begin());
          }
          ref_label = Fmt(*get(ref->partition), 4) + " " + knob.unit + " (reference)";
        }
        std::optional<double> ref_cap;
        if (ref) ref_cap = ref->capacity.qps;
        const double ref_qps = ref_cap.value_or(0);
        // Base latency of each setting at one load: the reference's lowest valid one.
        const GroupAnalysis* first = ref ? ref : varied.front();
        for (const auto& p : first->points) {
          if (p.valid) {
            s.base_load = p.target_load;
            break;
          }
        }
        auto with_base = [&](SensitivityPoint sp, const GroupAnalysis& g) {
          if (s.base_load > 0) sp.base_mean_us = BaseMeanUs(g, s.base_load, &sp.base_note);
          sp.saturation_qps = g.saturation_qps;
          return sp;
        };
        if (ref) {
          s.points.push_back(with_base({ref_label, ref->key, ref->capacity.qps, ref->capacity.lower_bound,
                                        ref_cap ? std::optional<double>(0.0) : std::nullopt},
                                       *ref));
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
          s.points.push_back(with_base(sp, *g));
        }
        if (!ref) {
          s.status = "undetermined";
          s.explanation = "no unlimited " + sc + " run, nor two settings, to compare with";
        } else if (-worst > kSensitivityThreshold) {
          s.status = "sensitive";
          s.explanation = "QPS under QoS drops by " + Pct(-worst) + " at " + worst_at + " (threshold " +
                          Pct(kSensitivityThreshold) + ")";
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
