// The placement plan of an experiment: for every scenario × partition × co-runner set, where
// each tenant (the subject, each co-runner of the set) runs on the workload's host — its CPUs
// (a guest's vCPU -> host CPU, as its sandbox kind pins them), its L3 ways (disjoint among the
// tenants that ask for ways: partition/resctrl.h AllocateL3Ways) and its memory bandwidth — and
// where the load generator runs; refused, naming why, where that machine could not place it.
// Pure: the topology and resctrl come in, so `ream run --dry-run --topology DIR` plans on
// another machine's copied sysfs (docs/spec.md "Planning on another machine"), and the real run
// takes its ways from the same plan.
//
//   REAM_ASSIGN_OR_RETURN(PlacementPlan pp, PlanPlacement(spec, plan, prep, &resctrl, "", kind_of));
//   std::cout << FormatPlacement(pp, prep.topology, &resctrl);
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiment/plan.h"
#include "spec/spec.h"
#include "partition/resctrl.h"
#include "sandbox/sandbox.h"
#include "topology/topology.h"

namespace ream {

struct Prepared;

struct PlacedTenant {
  std::string name;        // "subject" or the co-runner's name
  std::string workload;    // what runs: "builtin xapian", "batch mcf", "command memcached"
  std::string sandbox;     // its sandbox kind's name: "process", "vm"
  std::string cpus_asked;  // the subject's scenario ("2-SMT"), or a co-runner's cpus ("others")
  std::vector<int> cpus;   // host CPUs, sorted
  std::vector<VcpuPin> vcpus;  // a guest's vCPUs on `cpus`; empty: threads float over `cpus`
  std::optional<int> llc_ways;
  // Its ways per L3 domain (cache id -> capacity bitmask); empty without llc_ways (the default
  // group's, every way, shared) or when the host's resctrl is not known here.
  std::map<int, uint64_t> llc_masks;
  std::string mem_bw_asked;        // as the spec wrote it ("50%", "4000MBps"); "" : none
  std::optional<int64_t> mem_bw;   // the MB schemata value the mount takes for it
};

struct PlacedRun {
  std::string scenario;
  std::string partition;  // the subject's partition label
  int tenant_set = -1;    // the co-runner set ([colocation] sets), -1: the subject alone
  std::string set_label;  // the set's names joined by "+"; "" alone
  std::vector<PlacedTenant> tenants;  // the subject first, then the set's co-runners in order
  // The co-runner `name` (never the subject, whatever a co-runner is called); nullptr if absent.
  const PlacedTenant* FindCorunner(const std::string& name) const;
};

struct PlacementPlan {
  std::vector<int> generator_cpus;  // on this host; empty when the load comes from elsewhere
  std::string generator_note;       // where the load comes from when it is not those CPUs
  std::string resctrl_note;         // why ways could not be chosen here ("" : they were)
  std::vector<PlacedRun> runs;      // one per scenario × partition × set (repetitions alike)
  const PlacedRun* Find(const std::string& scenario, const std::string& partition, int tenant_set) const;
  // The ways a tenant holds in `run`'s placement (`corunner` nullptr: the subject's); empty
  // when it asks for none or they are chosen where the workload runs.
  std::map<int, uint64_t> MasksOf(const PlannedRun& run, const CorunnerSpec* corunner) const;
};

// The sandbox kind a tenant runs in: nullptr asks for the subject's.
using TenantKindOf = std::function<const SandboxKind&(const CorunnerSpec* corunner)>;

// Places every run of `plan` on `prep`'s machine (prep.topology, its scenario CPUs, its
// generator CPUs and its partitions, as Validate or PrepareOnPaper established them), with
// that machine's resctrl (`resctrl`; nullptr when unknown, `resctrl_why` saying why).
// Refuses, naming the run, the tenants and the CPUs or ways: two tenants on different SMT
// threads of one physical core (unless a co-runner asked for the subject's siblings,
// cpus = "siblings"; tenants on the very same CPUs time-share them, as asked), a tenant on an
// SMT sibling of the generator's CPUs, ways that add up to more than the L3 has or leave no
// valid mask (InvalidArgument), more resctrl groups than CLOSIDs, or a bandwidth the mount
// cannot take (Unsupported / InvalidArgument); a co-runner's CPUs as CorunnerCpus refuses them.
Result<PlacementPlan> PlanPlacement(const ExperimentSpec& spec, const Plan& plan, const Prepared& prep,
                                    const ResctrlInfo* resctrl, const std::string& resctrl_why,
                                    const TenantKindOf& kind_of);

// The plan as `ream run --dry-run` prints it: the machine in one line, then per run a table
// of its tenants (CPUs or vCPU -> CPU, physical cores as package:core, L3 ways as a mask and a
// count, memory bandwidth) and the generator.
std::string FormatPlacement(const PlacementPlan& plan, const Topology& topology, const ResctrlInfo* resctrl);

}  // namespace ream
