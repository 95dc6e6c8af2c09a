// The plan of an experiment: the runs (scenario × partition × repetition), in order, each with
// its load levels (grid) or its search range (knee). Pure: no OS access.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spec/spec.h"
#include "load/load_axis.h"

namespace ream {

struct PlannedRun {
  int ordinal = 0;  // position in the plan
  std::string scenario;
  PartitionValues partition;
  int repetition = 0;
  std::vector<double> grid_loads;  // grid mode: the levels on the plan's axis, ascending; empty for knee
  // The co-runner set that runs beside the subject ([colocation] sets: its index and label,
  // the names joined by "+"); -1 and "" for the subject alone.
  int tenant_set = -1;
  std::string corunner_set;
};

struct Plan {
  std::vector<PlannedRun> runs;
  SweepMode mode = SweepMode::kGrid;
  LoadAxis axis = LoadAxis::kQps;  // what the levels are: a rate (QPS) or concurrent sessions
  bool knee() const { return mode == SweepMode::kKnee; }
  // qps = "auto": each run's levels are found by probes at run time; this many of them.
  int auto_levels = 0;
  // Points the plan measures at most (grid: exact; knee: runs × max_points).
  int MaxPoints() const;
};

// The order in which several experiments' runs are run: (experiment, index into its plan's
// runs) pairs, given each plan's number of runs. Without `interleave`, each experiment's runs
// in turn. With it, in rounds: round k holds the k-th run of every experiment that has one, in
// an order shuffled
// per round by `seed` (randomized multiple interleaved trials, Abedi & Brecht, ICPE'17: a
// fixed alternation can fall into step with a periodic disturbance).
std::vector<std::pair<int, int>> RunOrder(const std::vector<int>& runs, bool interleave, uint64_t seed);

// Expands the spec into runs: for each scenario, each partition, each repetition. `only`
// (non-empty) keeps the named scenario; InvalidArgument when the spec has no such scenario.
Result<Plan> MakePlan(const ExperimentSpec& spec, const std::string& only);

}  // namespace ream
