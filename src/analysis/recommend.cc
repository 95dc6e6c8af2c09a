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
  const GroupAnalysis* best_cap = nullptr;
  for (const auto& g : groups) {
    if (g.failed || !g.capacity.qps) continue;
    if (!best_cap || *g.capacity.qps > *best_cap->capacity.qps) best_cap = &g;
    if (*g.capacity.qps >= q) ok.push_back(&g);
  }
  std::stable_sort(ok.begin(), ok.end(),
                   [&knobs](const auto* a, const auto* b) { return Cost(*a, knobs) < Cost(*b, knobs); });
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

}  // namespace ream::analysis
