// Thread-to-core placement: scenarios ("1-ST", "2-ST", "2-SMT", "N-ST", "N-SMT") resolved
// against the topology, never onto the CPUs reserved for ream's own load generator.
#pragma once

#include <string_view>
#include <vector>

#include "platform/status.h"
#include "topology/topology.h"

namespace ream {

// The CPUs reserved for ream's load generator by default: the last online logical CPU and
// its SMT siblings (so the generator never shares a core with the workload). On a 1-CPU
// machine nothing is reserved. The experiment runner pins the generator to these.
std::vector<int> DefaultGeneratorCpus(const Topology& topology);

// Parses `--reserve-cpus`: "default" (DefaultGeneratorCpus), "none" (nothing reserved), or a
// CPU list of online CPUs. InvalidArgument naming the cause otherwise.
Result<std::vector<int>> ParseReservedCpus(const Topology& topology, std::string_view spec);

// Resolves a placement spec to sorted logical CPU ids:
//  "N-ST"  N threads on N different physical cores (one logical CPU each, the first sibling),
//  "N-SMT" N threads packed on the SMT siblings of ceil(N / threads_per_core) cores,
//  "0,2-3" an explicit list of online CPUs (taken as given, reserved or not).
// Scenarios use only cores with no reserved CPU. Fails with InvalidArgument for a malformed
// spec and Unsupported, saying why, when the machine cannot honour it (no SMT siblings, too
// few free cores) — never a silent substitute.
Result<std::vector<int>> ResolvePlacement(const Topology& topology, std::string_view spec,
                                          const std::vector<int>& reserved_for_generator);

}  // namespace ream
