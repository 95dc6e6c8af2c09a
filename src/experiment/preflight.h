// Preflight: everything about an experiment that can be known before any workload starts or
// any load is generated — the placement of every scenario, every partition's knobs and whether
// the sandbox kind can enforce them, the protocol and the generator's options, the workload's
// program — so a bad spec fails at once, naming its line.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiment/placement_plan.h"
#include "experiment/plan.h"
#include "spec/spec.h"
#include "load/generator.h"
#include "partition/spec.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"
#include "topology/topology.h"

namespace ream {

class CorunnerKinds;

// What validation established, for the runs.
struct Prepared {
  Topology topology;  // of the host the workload runs on
  // That host when it is not this one ([nodes] workload = "ssh:HOST"); nullopt: this host.
  std::optional<WorkloadHost> workload_host;
  std::vector<int> generator_cpus;
  std::map<std::string, std::vector<int>> scenario_cpus;
  std::map<std::string, PartitionSpec> partitions;  // by label
  std::string ream;                                 // the ream binary
  // Scenarios this machine cannot place, with why: their runs are stored as skipped.
  std::map<std::string, std::string> skipped_scenarios;
  // What the spec will do that a reader should know before it runs (a sessions sweep whose top
  // levels exceed a partition's net_rate): printed by --dry-run and before the runs.
  std::vector<std::string> notes;
  // Where every tenant of every run goes (experiment/placement_plan.h): the dry run prints it,
  // the runs take each tenant's L3 ways from it.
  PlacementPlan placement;
  // The workload host's resctrl as the plan read it (nullopt: none, or not readable here).
  std::optional<ResctrlInfo> resctrl;
};

// InvalidArgument (a bad value, with the spec's line), Unsupported (a scenario or a knob the
// machine or the sandbox kind cannot honour), NotFound (the workload's program).
// `ream_binary` "" means this process's own executable. A scenario the machine cannot place is
// skipped (Prepared::skipped_scenarios) unless `strict`, where it is Unsupported; Unsupported
// too when no scenario can run.
// The co-runners are checked in the kinds `corunner_kinds` gives them (null: `sandboxes`).
Result<Prepared> Validate(Platform& p, SandboxKind& sandboxes, const ExperimentSpec& spec, const Plan& plan,
                          const std::string& ream_binary, bool strict = false,
                          const CorunnerKinds* corunner_kinds = nullptr);

// The plan on paper for another machine (`ream run --dry-run --topology DIR`): the topology
// and resctrl read from `machine` (a copied sysfs tree: RootedPlatform), the scenarios, the
// generator's CPUs, the partitions and PlanPlacement as Validate places them, with `kind_of`'s
// sandbox kinds. Nothing of this host is asked (its programs, accounts and kernel interfaces
// are the other machine's to have). Errors as Validate's.
Result<Prepared> PrepareOnPaper(Platform& machine, const ExperimentSpec& spec, const Plan& plan, bool strict,
                                const TenantKindOf& kind_of);

// The ream binary the runs start (`ream serve`, `ream load`, agents): `given`, or this process's
// own executable when it is "".
Result<std::string> ReamBinary(Platform& p, const std::string& given);

// "spec.toml:12: " (or "spec.toml: " without a line), the prefix of a spec's messages.
std::string SpecAt(const ExperimentSpec& spec, int line);

// The generator's options for one level of a run, built once from the parsed spec: the local
// driver turns them into `ream load`'s argv, a remote one would send them.
LoadOptions LevelLoadOptions(const ExperimentSpec& spec, double load, uint64_t seed, const std::string& host,
                             int port);

}  // namespace ream
