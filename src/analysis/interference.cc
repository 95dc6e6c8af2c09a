// The sensitivity profile (interference.h): each pressure source's curve, from the co-location
// comparison of its single-source sets with the subject alone.
#include "analysis/interference.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/format.h"
#include "analysis/merge.h"

namespace ream::analysis {
namespace {

struct SourceSet {
  std::string source;
  double intensity = 0;
  double load = 0;  // [interference] load; 0: chosen here
};

// The sets made of one pressure co-runner, from the runs' stored co-runners.
std::map<std::string, SourceSet> SourceSets(const ExperimentData& d) {
  std::map<std::string, SourceSet> out;
  for (const auto& r : d.runs) {
    if (r.tenants.empty() || !r.corunners.is_object() || !r.corunners.contains("corunners")) continue;
    const auto& cs = r.corunners["corunners"];
    if (!cs.is_array() || cs.size() != 1 || !cs[0].contains("pressure") || !cs[0]["pressure"].is_string()) continue;
    SourceSet s;
    s.source = cs[0]["pressure"].get<std::string>();
    s.intensity = cs[0].value("intensity", 0.0);
    s.load = cs[0].value("interference_load", 0.0);
    out[r.tenants] = s;
  }
  return out;
}

std::string Percent(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g %%", v);
  return b;
}

const ColocationLevel* LevelAt(const ColocationGroup& g, double load) {
  for (const auto& l : g.levels) {
    if (SameLoad(l.load, load)) return &l;
  }
  return nullptr;
}

// The fixed load: the spec's, else the highest level at or below half the QPS under QoS alone
// at which the subject alone meets QoS (a load with room to lose), else the lowest that meets.
void ChooseLoad(const ColocationGroup& g, double given, InterferenceProfile* p) {
  if (given > 0) {
    p->load = given;
    p->load_how = "[interference] load";
    return;
  }
  std::vector<double> meets;
  for (const auto& l : g.levels) {
    if (l.alone_meets.value_or(false)) meets.push_back(l.load);
  }
  std::sort(meets.begin(), meets.end());
  if (meets.empty()) {
    p->load_how = "no level meets QoS alone, so no load to read the curve at";
    return;
  }
  if (g.alone_capacity) {
    const double half = *g.alone_capacity / 2;
    std::optional<double> best;
    for (double l : meets) {
      if (l <= half * (1 + 1e-9)) best = l;
    }
    if (best) {
      p->load = *best;
      p->load_how = "the highest level at or below half the QPS under QoS alone (" + Fmt(*g.alone_capacity, 6) +
                    ") that meets QoS alone";
      return;
    }
  }
  p->load = meets.front();
  p->load_how = "the lowest level that meets QoS alone";
}

void Tolerated(InterferenceProfile* p, std::optional<double> lqos) {
  if (!p->load) {
    p->tolerated_note = p->load_how;
    return;
  }
  const auto& pts = p->points;
  if (pts.empty() || !pts[0].meets.value_or(false)) {
    p->tolerated_note = "the subject alone does not meet QoS at " + Fmt(*p->load, 6);
    return;
  }
  for (size_t k = 1; k < pts.size(); ++k) {
    const InterferencePoint& prev = pts[k - 1];
    const InterferencePoint& cur = pts[k];
    if (cur.meets.value_or(false)) continue;
    if (!cur.meets) {
      p->tolerated = prev.intensity;
      p->at_least = true;
      p->tolerated_note = "at least " + Percent(prev.intensity) + ": at " + Percent(cur.intensity) + " " +
                          (cur.note.empty() ? std::string("the point could not be judged") : cur.note);
      return;
    }
    // Missed at cur: interpolate on the tail where both tails are known.
    if (lqos && prev.tail_us && cur.tail_us && *cur.tail_us > *prev.tail_us) {
      const double f = std::clamp((*lqos - *prev.tail_us) / (*cur.tail_us - *prev.tail_us), 0.0, 1.0);
      p->tolerated = prev.intensity + f * (cur.intensity - prev.intensity);
      p->tolerated_note = "meets QoS at " + Percent(prev.intensity) + ", misses at " + Percent(cur.intensity) +
                          "; interpolated on the tail (" + Fmt(*prev.tail_us, 6) + " → " +
                          Fmt(*cur.tail_us, 6) + " µs against LQoS " + Fmt(*lqos, 6) + " µs)";
    } else {
      p->tolerated = prev.intensity;
      p->tolerated_note = "meets QoS at " + Percent(prev.intensity) + ", misses at " + Percent(cur.intensity) +
                          " (no valid tail there to interpolate on)";
    }
    return;
  }
  p->tolerated = pts.back().intensity;
  p->tolerates_all = true;
  p->tolerated_note = "meets QoS at every intensity up to " + Percent(pts.back().intensity);
}

void Judge(InterferenceProfile* p, const ColocationGroup* at_max) {
  const InterferencePoint& top = p->points.back();
  const std::optional<double> ratio =
      at_max ? (at_max->capacity_ratio ? at_max->capacity_ratio : at_max->capacity_ratio_below) : std::nullopt;
  const bool dropped = ratio && *ratio < 1 - kInterferenceCapacityDrop &&
                       at_max->verdict.rfind("lower beyond both intervals", 0) == 0;
  const std::string drop_text =
      ratio ? "QPS under QoS at " + Percent(top.intensity) + " is " + (at_max->capacity_ratio ? "" : "below ") +
                  Fmt(*ratio * 100) + " % of alone (" + at_max->verdict + ")"
          : "QPS under QoS at " + Percent(top.intensity) + " not compared (" +
                (at_max && !at_max->unavailable.empty() ? at_max->unavailable : std::string("no capacity on a side")) +
                ")";
  if (p->tolerated && !p->tolerates_all && !p->at_least) {
    p->verdict = "sensitive";
    p->evidence = "tolerates " + Percent(*p->tolerated) + " at " + Fmt(*p->load, 6) + " (" + p->tolerated_note +
                  "); " + drop_text;
  } else if (dropped) {
    p->verdict = "sensitive";
    p->evidence = drop_text + ", a drop of more than " + Fmt(kInterferenceCapacityDrop * 100) + " %";
  } else if (p->tolerates_all && at_max && at_max->capacity_ratio) {
    p->verdict = "insensitive";
    p->evidence = "meets QoS at " + Fmt(*p->load, 6) + " over the whole dial; " + drop_text;
  } else {
    p->verdict = "undecided";
    p->evidence = (p->tolerated_note.empty() ? std::string() : p->tolerated_note + "; ") + drop_text;
  }
}

}  // namespace

std::vector<InterferenceProfile> AnalyzeInterference(const ExperimentData& d, const std::vector<ColocationGroup>& groups,
                                                     std::optional<double> lqos) {
  const std::map<std::string, SourceSet> sets = SourceSets(d);
  std::vector<InterferenceProfile> out;
  if (sets.empty()) return out;
  // Sources in the order the runs first name them; group keys in the order of `groups`.
  std::vector<std::string> sources, keys;
  for (const auto& r : d.runs) {
    auto it = sets.find(r.tenants);
    if (it != sets.end() && std::find(sources.begin(), sources.end(), it->second.source) == sources.end()) {
      sources.push_back(it->second.source);
    }
  }
  for (const auto& g : groups) {
    if (std::find(keys.begin(), keys.end(), g.group_key) == keys.end()) keys.push_back(g.group_key);
  }
  for (const std::string& key : keys) {
    for (const std::string& source : sources) {
      std::vector<std::pair<double, const ColocationGroup*>> curve;
      double given_load = 0;
      for (const auto& g : groups) {
        auto it = sets.find(g.set);
        if (g.group_key != key || it == sets.end() || it->second.source != source) continue;
        curve.emplace_back(it->second.intensity, &g);
        given_load = it->second.load;
      }
      if (curve.empty()) continue;
      std::sort(curve.begin(), curve.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      InterferenceProfile p;
      p.source = source;
      p.group_key = key;
      const ColocationGroup& first = *curve.front().second;
      ChooseLoad(first, given_load, &p);
      // 0 %: the subject alone, as every set's comparison holds it.
      InterferencePoint zero;
      zero.capacity = first.alone_capacity;
      zero.low = first.alone_low;
      zero.high = first.alone_high;
      zero.lower_bound = first.alone_lower_bound;
      zero.upper_bound = first.alone_upper_bound;
      if (p.load) {
        if (const ColocationLevel* l = LevelAt(first, *p.load)) {
          zero.tail_us = l->alone_tail_us;
          zero.meets = l->alone_meets;
          if (!l->alone_valid) zero.note = "invalid alone at " + Fmt(*p.load, 6);
        } else {
          zero.note = "no level at " + Fmt(*p.load, 6);
        }
      }
      p.points.push_back(zero);
      for (const auto& [intensity, g] : curve) {
        InterferencePoint q;
        q.intensity = intensity;
        q.set = g->set;
        q.capacity = g->together_capacity;
        q.low = g->together_low;
        q.high = g->together_high;
        q.lower_bound = g->together_lower_bound;
        q.upper_bound = g->together_upper_bound;
        if (p.load) {
          if (const ColocationLevel* l = LevelAt(*g, *p.load)) {
            q.tail_us = l->together_tail_us;
            if (l->together_meets) {
              q.meets = l->together_meets;
            } else if (l->together_certain_miss) {
              q.meets = false;
              q.note = "invalid, but its tail from the send already exceeds LQoS";
            } else if (!l->together_valid) {
              q.note = "invalid" + (l->together_reasons.empty() ? std::string() : ": " + l->together_reasons.front());
            }
          } else {
            q.note = "no level at " + Fmt(*p.load, 6);
          }
        }
        p.points.push_back(q);
      }
      const ColocationGroup* at_max = curve.back().second;
      if (at_max->capacity_ratio) p.capacity_ratio_at_max = at_max->capacity_ratio;
      Tolerated(&p, lqos);
      Judge(&p, at_max);
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace ream::analysis
