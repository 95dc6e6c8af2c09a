#include "experiment/plan.h"

namespace ream {

int Plan::MaxPoints() const {
  int n = 0;
  for (const auto& r : runs) n += static_cast<int>(r.grid_qps.size());
  return n;
}

Result<Plan> MakePlan(const ExperimentSpec& spec, const std::string& only) {
  Plan plan;
  plan.knee = spec.sweep.mode == "knee";
  bool found = only.empty();
  int ordinal = 0;
  for (const auto& scenario : spec.scenarios) {
    if (!only.empty() && scenario != only) continue;
    found = true;
    for (const auto& partition : spec.partitions) {
      for (int rep = 0; rep < spec.repetitions; ++rep) {
        PlannedRun r;
        r.ordinal = ordinal++;
        r.scenario = scenario;
        r.partition = partition;
        r.repetition = rep;
        if (!plan.knee) r.grid_qps = spec.sweep.qps;
        plan.runs.push_back(std::move(r));
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
