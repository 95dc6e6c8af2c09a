// The plan of an experiment: the runs (scenario × partition × repetition), in order, each with
// its load levels (grid) or its search range (knee). Pure: no OS access.
#pragma once

#include <string>
#include <vector>

#include "experiment/spec.h"

namespace ream {

struct PlannedRun {
  int ordinal = 0;  // position in the plan
  std::string scenario;
  PartitionValues partition;
  int repetition = 0;
  std::vector<double> grid_qps;  // grid mode: the levels, ascending; empty for knee
};

struct Plan {
  std::vector<PlannedRun> runs;
  bool knee = false;
  // Points the plan measures at most (grid: exact; knee: runs × max_points).
  int MaxPoints() const;
};

// Expands the spec into runs: for each scenario, each partition, each repetition. `only`
// (non-empty) keeps the named scenario; InvalidArgument when the spec has no such scenario.
Result<Plan> MakePlan(const ExperimentSpec& spec, const std::string& only);

}  // namespace ream
