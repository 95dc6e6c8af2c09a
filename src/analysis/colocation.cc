// The co-location section of the analysis (colocation.h): every co-runner set's runs analyzed
// as the subject's alone are, with the alone QoS target, and compared level by level.
#include <algorithm>
#include <set>

#include "analysis/analysis.h"
#include "analysis/merge.h"
#include "analysis/format.h"
#include "platform/median.h"

namespace ream::analysis {
namespace {

std::optional<double> Num(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// The QoS percentile's latency from the send of a point, when the generator stored it.
std::optional<double> FromSendTail(const PointData& p, double percentile) {
  const char* key = percentile == 50 ? "p50" : percentile == 95 ? "p95" : percentile == 99 ? "p99"
                    : percentile == 99.9 ? "p999" : nullptr;
  if (!key) return std::nullopt;
  return Num(p.latency_from_send_us, key);
}

const PointAnalysis* PointAt(const GroupAnalysis& g, double load) {
  for (const auto& p : g.points) {
    if (SameLoad(p.target_load, load)) return &p;
  }
  return nullptr;
}

void CopyCapacity(const Capacity& c, std::optional<double>* value, std::optional<double>* low,
                  std::optional<double>* high, bool* lower_bound, std::optional<double>* upper_bound,
                  std::string* status) {
  *value = c.qps;
  *upper_bound = c.upper_bound;
  *low = c.low;
  *high = c.high;
  *lower_bound = c.lower_bound;
  *status = c.status;
}

// QPS under QoS together / alone, each side exact or a bound.
Bounded RatioTogetherAlone(const ColocationGroup& g) {
  if (!g.unavailable.empty()) return Bounded::Withheld(g.unavailable);
  const Bounded together = g.TogetherCapacity(), alone = g.AloneCapacity();
  const std::string conflict = together.bound == Bound::kLower
                                   ? "both beyond the sweep (every valid level met QoS alone and together)"
                                   : "both below their lowest valid level (even it missed QoS alone and together)";
  return Divide(together, alone, conflict, "together", "alone");
}

std::string Verdict(const ColocationGroup& g) {
  // A side whose every valid level missed QoS has no capacity, only a bound: it lies below its
  // lowest valid level, and nothing below that was measured.
  if (!g.together_capacity && g.together_upper_bound && g.alone_capacity) {
    return g.alone_low.value_or(*g.alone_capacity) >= *g.together_upper_bound
               ? "lower beyond both intervals (together is bounded: below " + Fmt(*g.together_upper_bound, 6) + ")"
               : "cannot be compared: together is bounded (below " + Fmt(*g.together_upper_bound, 6) + "), above the alone capacity's interval";
  }
  if (!g.alone_capacity && g.alone_upper_bound && g.together_capacity) {
    return g.together_low.value_or(*g.together_capacity) >= *g.alone_upper_bound
               ? "higher beyond both intervals (alone, even the lowest level missed QoS)"
               : "cannot be compared: alone, even the lowest level missed QoS";
  }
  if (!g.alone_capacity || !g.together_capacity) return "cannot be compared: a capacity is missing";
  const double alone_low = g.alone_low.value_or(*g.alone_capacity);
  const double alone_high = g.alone_high.value_or(*g.alone_capacity);
  const double together_low = g.together_low.value_or(*g.together_capacity);
  const double together_high = g.together_high.value_or(*g.together_capacity);
  if (g.together_lower_bound && g.alone_lower_bound) return "both beyond the sweep: no difference within it";
  if (together_high < alone_low && !g.together_lower_bound) return "lower beyond both intervals";
  if (together_low > alone_high && !g.alone_lower_bound) return "higher beyond both intervals";
  return "within the intervals";
}

}  // namespace

std::vector<ColocationGroup> AnalyzeColocation(const ExperimentData& d, const ExperimentAnalysis& alone,
                                               const AnalysisOptions& o) {
  std::vector<ColocationGroup> out;
  std::vector<std::string> sets;
  for (const auto& r : d.runs) {
    if (!r.corunner_set.empty() && std::find(sets.begin(), sets.end(), r.corunner_set) == sets.end()) sets.push_back(r.corunner_set);
  }
  const std::optional<double> lqos = alone.qos.target_us;
  for (const std::string& set : sets) {
    ExperimentData shared = d;
    shared.runs.clear();
    for (const auto& r : d.runs) {
      if (r.corunner_set == set) shared.runs.push_back(r);
    }
    // The subject's QoS is its own, measured alone: the shared runs are judged against it.
    if (lqos) shared.qos.fixed_target_us = lqos;
    AnalysisOptions so = o;
    so.target_qps.reset();
    so.baseline = nullptr;
    auto together = AnalyzeSweeps(shared, so);
    for (const GroupAnalysis& ag : alone.groups) {
      ColocationGroup g;
      g.set = set;
      g.group_key = ag.key;
      CopyCapacity(ag.capacity, &g.alone_capacity, &g.alone_low, &g.alone_high, &g.alone_lower_bound,
                   &g.alone_upper_bound, &g.alone_status);
      const GroupAnalysis* tg = together.ok() ? together->Find(ag.key) : nullptr;
      if (!together.ok()) {
        g.unavailable = "no valid point beside the set (each level's reason below)";
      } else if (!tg) {
        g.unavailable = "no shared run of " + ag.key;
      } else {
        CopyCapacity(tg->capacity, &g.together_capacity, &g.together_low, &g.together_high, &g.together_lower_bound,
                     &g.together_upper_bound, &g.together_status);
      }
      // The runs of this group on each side, for the co-runners' raw figures.
      std::vector<const RunData*> runs;
      for (const auto& r : shared.runs) {
        if (GroupKey(r.scenario, r.partition) == ag.key) runs.push_back(&r);
      }
      // Each co-runner: its measure, and its throughput alone (median over the runs' windows).
      std::vector<std::string> names;
      for (const RunData* r : runs) {
        for (const CorunnerRecord& c : r->corunners.corunners) {
          if (std::find(names.begin(), names.end(), c.name) != names.end()) continue;
          names.push_back(c.name);
          CorunnerComparison f;
          f.name = c.name;
          f.sched = c.sched;
          f.cpus = c.cpu_list.empty() ? c.cpus : c.cpu_list;
          if (c.load) {
            f.loaded = true;
            f.load_qps = c.load->qps;
          }
          g.corunners.push_back(f);
        }
      }
      for (auto& f : g.corunners) {
        std::vector<const TenantFigures*> windows;
        for (const RunData* r : runs) {
          const CorunnerRecord* c = r->corunners.Find(f.name);
          if (c && c->alone) windows.push_back(&*c->alone);
        }
        bool completes = !windows.empty();
        for (const TenantFigures* w : windows) completes = completes && w->completions > 0;
        f.unit = f.loaded ? ThroughputUnit::kQps
                 : completes ? ThroughputUnit::kCompletionsPerSecond
                             : ThroughputUnit::kCpuSecondsPerSecond;
        if (f.loaded) {
          std::vector<double> tails;
          for (const TenantFigures* w : windows) {
            if (auto v = w->ValidLoadP95Us()) tails.push_back(*v);
          }
          if (!tails.empty()) f.alone_p95_us = Median(tails);
          // Beside the subject: every window of the shared runs' points.
          std::vector<double> together;
          for (const RunData* r : runs) {
            for (const auto& p : r->points) {
              auto it = p.corunners.find(f.name);
              if (it == p.corunners.end() || !it->second.load) continue;
              const TenantLoadFigures& load = *it->second.load;
              ++f.together_windows;
              if (auto v = it->second.ValidLoadP95Us()) {
                together.push_back(*v);
                ++f.together_valid_windows;
              } else if (load.measured()) {
                auto& rs = f.together_invalid_reasons;
                for (const std::string& why : load.invalid_reasons) {
                  if (std::find(rs.begin(), rs.end(), why) == rs.end()) rs.push_back(why);
                }
              } else {
                f.together_invalid_reasons.push_back(load.unavailable);
              }
            }
          }
          if (!together.empty()) f.together_p95_us = Median(together);
        }
        std::vector<double> values;
        for (const TenantFigures* w : windows) {
          if (auto v = w->Throughput(f.unit)) values.push_back(*v);
        }
        f.alone_windows = static_cast<int>(values.size());
        if (!values.empty()) {
          f.alone = Median(values);
        } else {
          f.note = windows.empty() ? "not measured alone ([colocation] alone = false, or the run was cut short)"
                                   : "its alone windows have no " + ToString(f.unit) +
                                         " (the CPU monitor was unavailable)";
        }
      }

      // Level by level: the loads the shared runs measured (from their points, so a set whose
      // every point was invalid still shows them), with the alone figures there.
      std::vector<double> loads;
      for (const RunData* r : runs) {
        for (const auto& p : r->points) {
          if (std::none_of(loads.begin(), loads.end(), [&](double l) { return SameLoad(l, p.target_load); })) {
            loads.push_back(p.target_load);
          }
        }
      }
      std::sort(loads.begin(), loads.end());
      std::map<std::string, std::vector<double>> together_values;
      const Bounded alone_capacity = g.AloneCapacity();
      for (double load : loads) {
        ColocationLevel l;
        l.load = load;
        const PointAnalysis* tp = tg ? PointAt(*tg, load) : nullptr;
        std::vector<double> from_send;
        std::vector<std::string> reasons;
        for (const RunData* r : runs) {
          for (const PointData* p : DecidingPoints(*r, load)) {
            if (p->failed) continue;
            if (auto v = FromSendTail(*p, d.qos.percentile)) from_send.push_back(*v);
            if (reasons.empty()) reasons = p->invalid_reasons;
          }
        }
        if (tp) {
          l.together_valid = tp->valid;
          if (tp->valid) {
            l.together_tail_us = tp->tail_us;
            l.together_p99_us = tp->p99_us;
          }
          l.together_meets = tp->meets_qos;
          if (!tp->valid) l.together_reasons = tp->reasons;
        } else {
          l.together_reasons = reasons;
        }
        if (!l.together_valid && !from_send.empty()) {
          l.together_from_send_tail_us = Median(from_send);
          l.together_certain_miss = lqos && *l.together_from_send_tail_us > *lqos;
        }
        if (const PointAnalysis* ap = PointAt(ag, load)) {
          l.alone_valid = ap->valid;
          if (ap->valid) {
            l.alone_tail_us = ap->tail_us;
            l.alone_p99_us = ap->p99_us;
          }
          l.alone_meets = ap->meets_qos;
        }
        if (lqos && l.together_tail_us && *lqos > 0) l.slack = (*lqos - *l.together_tail_us) / *lqos;
        // The co-runners at this level: the median of the shared runs' points there. The
        // subject's term divides by its capacity alone, so it is a bound when that is one.
        std::string missing;
        Bounded emu = Divide(Bounded::Exact(l.load), alone_capacity, "", "the load", "the subject's capacity alone");
        if (!emu.value) missing = "the subject's capacity alone is unknown";
        for (const auto& f : g.corunners) {
          std::vector<double> vs;
          for (const RunData* r : runs) {
            for (const PointData* p : DecidingPoints(*r, load)) {
              auto it = p->corunners.find(f.name);
              if (it == p->corunners.end()) continue;
              if (auto v = it->second.Throughput(f.unit)) vs.push_back(*v);
            }
          }
          if (vs.empty()) {
            missing = "co-runner '" + f.name + "' has no " + ToString(f.unit) + " at this level";
            continue;
          }
          const double v = Median(vs);
          l.corunner_throughput[f.name] = v;
          together_values[f.name].push_back(v);
          if (f.alone && *f.alone > 0) {
            emu = Add(emu, Bounded::Exact(v / *f.alone), "");
          } else {
            missing = "co-runner '" + f.name + "' has no throughput alone";
          }
        }
        l.emu = missing.empty() ? emu : Bounded::Withheld(missing);
        g.levels.push_back(std::move(l));
      }
      // Without a capacity together (no valid crossing): the levels from the top down that all
      // missed QoS — validly, or certainly (the tail from the send alone, a lower bound, is above
      // LQoS) — put it below the lowest of them, whatever the generator's lateness did to the
      // invalid ones and whatever the levels below them would have shown.
      // A capacity together that is only a lower bound (every *valid* level met QoS) gets the
      // same upper end: the levels above it that certainly missed put it between the two.
      if ((!g.together_capacity || g.together_lower_bound) && !g.levels.empty() && lqos) {
        int valid_misses = 0, certain = 0;
        std::optional<double> lowest_miss;
        for (auto it = g.levels.rbegin(); it != g.levels.rend(); ++it) {
          if (it->together_meets && !*it->together_meets) {
            ++valid_misses;
          } else if (it->together_certain_miss) {
            ++certain;
          } else {
            break;
          }
          lowest_miss = it->load;
        }
        const std::string why = "every level from there up missed QoS beside the set (" + std::to_string(valid_misses) +
                                " valid, " + std::to_string(certain) +
                                " invalid whose tail from the send alone, a lower bound of the tail, is above LQoS)";
        if (lowest_miss && g.together_capacity && g.together_lower_bound) {
          if (*lowest_miss > *g.together_capacity) {
            // Between the highest valid level that met QoS and the lowest certain miss: no
            // longer a bound beyond the sweep, but a range whose upper end bounds the ratio.
            g.together_low = g.together_capacity;
            g.together_high.reset();
            g.together_upper_bound = lowest_miss;
            g.together_status = "at least " + Fmt(*g.together_capacity, 6) + " and below " + Fmt(*lowest_miss, 6) +
                                ": every valid level up to " + Fmt(*g.together_capacity, 6) + " met QoS, and " + why;
            g.together_capacity.reset();
            g.together_lower_bound = false;
          }
        } else if (lowest_miss && (!g.together_upper_bound || *lowest_miss < *g.together_upper_bound)) {
          g.together_upper_bound = lowest_miss;
          g.together_status = "below " + Fmt(*lowest_miss, 6) + ": " + why;
          g.unavailable.clear();
        }
      }
      g.capacity_ratio = RatioTogetherAlone(g);
      g.verdict = g.unavailable.empty() ? Verdict(g) : "cannot be compared: " + g.unavailable;
      for (auto& f : g.corunners) {
        auto it = together_values.find(f.name);
        if (it == together_values.end() || it->second.empty()) continue;
        double sum = 0;
        for (double v : it->second) sum += v;
        f.together = sum / static_cast<double>(it->second.size());
        if (f.alone && *f.alone > 0) f.ratio = *f.together / *f.alone;
      }
      out.push_back(std::move(g));
    }
  }
  return out;
}

}  // namespace ream::analysis
