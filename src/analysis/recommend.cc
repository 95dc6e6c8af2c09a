// The cheapest measured allocation that meets QoS at a target load.
#include "analysis/recommend.h"

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
#include "platform/text.h"

namespace ream::analysis {
namespace {

// Resource cost of a group, cheapest first: physical cores, then logical CPUs, then the
// knob table's resources in their cost rank (CPU quota, cache ways, then bandwidths; an
// unlimited resource costs its LimitedResource::unlimited_cost, most often the most).
std::vector<double> Cost(const GroupAnalysis& g, const KnobTable& knobs) {
  std::vector<std::pair<int, double>> ranked;
  for (const LimitedResource& r : knobs.resources()) {
    if (r.cost_rank) ranked.push_back({*r.cost_rank, g.partition.Limit(r.name).value_or(r.unlimited_cost)});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<double> cost = {static_cast<double>(g.physical_cores), static_cast<double>(g.threads)};
  for (const auto& [rank, amount] : ranked) cost.push_back(amount);
  return cost;
}

}  // namespace

Recommendation Recommend(const std::vector<GroupAnalysis>& groups, double q, const KnobTable& knobs) {
  Recommendation r;
  r.target_qps = q;
  std::vector<const GroupAnalysis*> ok;
  // Groups that met QoS at every level they measured, all below the target: whether they meet
  // it is not known, so they are neither a candidate nor ruled out.
  std::vector<const GroupAnalysis*> unjudged;
  const GroupAnalysis* best_cap = nullptr;
  for (const auto& g : groups) {
    if (g.failed || !g.capacity.qps) continue;
    if (!best_cap || *g.capacity.qps > *best_cap->capacity.qps) best_cap = &g;
    if (*g.capacity.qps >= q) {
      ok.push_back(&g);
    } else if (g.capacity.lower_bound) {
      unjudged.push_back(&g);
    }
  }
  auto cheaper = [&knobs](const auto* a, const auto* b) { return Cost(*a, knobs) < Cost(*b, knobs); };
  std::stable_sort(ok.begin(), ok.end(), cheaper);
  std::stable_sort(unjudged.begin(), unjudged.end(), cheaper);
  for (const auto* g : ok) r.candidates.push_back(g->key);
  // The unjudged groups cheaper than the choice (all of them without one), named with how far
  // their sweep went.
  auto not_judged = [&](const GroupAnalysis* chosen) {
    std::vector<std::string> names;
    for (const auto* g : unjudged) {
      if (chosen && !cheaper(g, chosen)) break;
      names.push_back(g->key + " (QoS met up to " + Qps(*g->capacity.qps) + ", its sweep's top)");
    }
    if (names.empty()) return std::string();
    return "; not judged, their sweeps ended below the target: " + Join(names, ", ");
  };
  if (ok.empty()) {
    r.explanation = "no measured allocation is known to meet QoS at " + Qps(q);
    if (best_cap) {
      r.explanation += "; the highest QPS under QoS is " + Qps(*best_cap->capacity.qps) +
                       (best_cap->capacity.lower_bound ? " (at least)" : "") + " with " +
                       best_cap->key;
    }
    r.explanation += not_judged(nullptr);
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
  r.explanation += not_judged(g);
  return r;
}

}  // namespace ream::analysis
