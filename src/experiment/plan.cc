#include "experiment/plan.h"

#include <algorithm>
#include <random>

namespace ream {

int Plan::MaxPoints() const {
  int n = 0;
  for (const auto& r : runs) n += auto_levels > 0 ? auto_levels : static_cast<int>(r.grid_loads.size());
  return n;
}

std::vector<std::pair<int, int>> RunOrder(const std::vector<int>& runs, bool interleave, uint64_t seed) {
  std::vector<std::pair<int, int>> order;
  const int n = static_cast<int>(runs.size());
  if (!interleave) {
    for (int e = 0; e < n; ++e) {
      for (int i = 0; i < runs[e]; ++i) order.emplace_back(e, i);
    }
    return order;
  }
  std::mt19937_64 rng(seed);
  const int rounds = n ? *std::max_element(runs.begin(), runs.end()) : 0;
  for (int k = 0; k < rounds; ++k) {
    std::vector<std::pair<int, int>> round;
    for (int e = 0; e < n; ++e) {
      if (k < runs[e]) round.emplace_back(e, k);
    }
    // Fisher-Yates with the generator's raw output (std::shuffle's distribution is not fixed
    // by the standard, and the order must be the same on every build).
    for (size_t i = round.size(); i > 1; --i) std::swap(round[i - 1], round[rng() % i]);
    order.insert(order.end(), round.begin(), round.end());
  }
  return order;
}

Result<Plan> MakePlan(const ExperimentSpec& spec, const std::string& only) {
  Plan plan;
  plan.mode = spec.sweep.mode;
  plan.axis = spec.sweep.axis;
  if (spec.sweep.auto_range) plan.auto_levels = spec.sweep.auto_levels;
  bool found = only.empty();
  int ordinal = 0;
  for (const auto& scenario : spec.scenarios) {
    if (!only.empty() && scenario != only) continue;
    found = true;
    for (const auto& partition : spec.partitions) {
      for (int rep = 0; rep < spec.repetitions; ++rep) {
        // With co-runners, each repetition runs the subject alone and then beside each set, so
        // the alone and shared runs alternate (interleaved, DESIGN.md "Shared servers"): a
        // drift of the host reaches both sides of every comparison.
        const int sets = static_cast<int>(spec.colocation.sets.size());
        const bool alone = spec.corunners.empty() || spec.colocation.alone;
        for (int set = alone ? -1 : 0; set < sets; ++set) {
          PlannedRun r;
          r.ordinal = ordinal++;
          r.scenario = scenario;
          r.partition = partition;
          r.repetition = rep;
          r.tenant_set = set;
          if (set >= 0) r.corunner_set = spec.colocation.Label(static_cast<size_t>(set));
          if (!plan.knee()) r.grid_loads = spec.sweep.qps;
          plan.runs.push_back(std::move(r));
        }
      }
    }
  }
  if (!found) {
    std::string names;
    for (const auto& s : spec.scenarios) names += (names.empty() ? "" : ", ") + s;
    return InvalidArgument("--only " + only + ": the spec has no such scenario (it has " + names + ")");
  }
  return plan;
}

}  // namespace ream
