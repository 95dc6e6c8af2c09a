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

#include "analysis/bounded.h"
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
        auto figure = [](const GroupAnalysis& g) {
          return CapacityFigure(g.capacity.qps, g.capacity.lower_bound, g.capacity.upper_bound, g.capacity.status);
        };
        const Bounded ref_fig = ref ? figure(*ref) : Bounded::Withheld("no reference run");
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
          SensitivityPoint rp{ref_label, ref->key, ref->capacity.qps, ref->capacity.lower_bound};
          if (ref_fig.value) rp.relative_change = Bounded::Exact(0);
          s.points.push_back(with_base(rp, *ref));
        }
        // A change is known to exceed the threshold when its figure is exact or an upper bound
        // (the drop at least that large); known to stay within it when exact or a lower bound
        // (the drop at most that large). Anything else leaves the verdict open.
        double worst_sure = 0;  // the largest drop known to have happened
        double worst_bound = 0;  // the largest drop any figure allows (the verdict "insensitive")
        std::string worst_at;
        bool worst_is_bound = false;
        bool open = !ref_fig.value;
        for (const auto* g : varied) {
          SensitivityPoint sp;
          sp.value = Fmt(*get(g->partition), 4) + " " + knob.unit;
          sp.group_key = g->key;
          sp.capacity_qps = g->capacity.qps;
          sp.lower_bound = g->capacity.lower_bound;
          sp.relative_change =
              Add(Divide(figure(*g), ref_fig, "this setting and the reference are bounded from opposite sides",
                         "this setting", "the reference"),
                  Bounded::Exact(-1), "");
          const Bounded& c = sp.relative_change;
          if (c.value) worst_bound = std::max(worst_bound, -*c.value);
          if (c.value && c.bound != Bound::kLower && -*c.value > worst_sure) {
            worst_sure = -*c.value;
            worst_is_bound = c.bound == Bound::kUpper;
            worst_at = sp.value + (!g->capacity.qps ? " (misses QoS at every load)" : "");
          }
          if (!c.value || (c.bound == Bound::kUpper && -*c.value <= kSensitivityThreshold) ||
              (c.bound == Bound::kLower && -*c.value > kSensitivityThreshold)) {
            open = true;
          }
          s.points.push_back(with_base(sp, *g));
        }
        if (!ref) {
          s.status = "undetermined";
          s.explanation = "no unlimited " + sc + " run, nor two settings, to compare with";
        } else if (worst_sure > kSensitivityThreshold) {
          s.status = "sensitive";
          s.explanation = "QPS under QoS drops by " + std::string(worst_is_bound ? "at least " : "") + Pct(worst_sure) +
                          " at " + worst_at + " (threshold " + Pct(kSensitivityThreshold) + ")";
        } else if (open) {
          s.status = "undetermined";
          s.explanation = "a capacity is missing or only bounded, so the change cannot be sized";
        } else {
          s.status = "insensitive";
          s.explanation = "QPS under QoS changes by at most " + Pct(worst_bound) +
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
