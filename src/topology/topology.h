// The machine's CPU topology read from sysfs: logical CPUs, physical cores and their SMT
// siblings, caches (the LLC in particular), NUMA nodes. Placement scenarios are resolved
// against it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/capabilities.h"
#include "platform/platform.h"

namespace ream {

struct LogicalCpu {
  int id = 0;
  int core_id = 0;     // topology/core_id (unique only within a package)
  int package_id = 0;  // topology/physical_package_id
  int node = 0;        // NUMA node, 0 when the kernel exposes none
  int core_index = 0;  // index into Topology::cores
  std::vector<int> siblings;  // logical CPUs on the same physical core, self included
};

struct PhysicalCore {
  int package_id = 0;
  int core_id = 0;
  std::vector<int> cpus;  // its logical CPUs (SMT siblings), sorted
};

struct CacheInfo {
  int level = 0;
  std::string type;  // Data, Instruction, Unified
  int64_t size_bytes = 0;
  int ways = 0;  // ways_of_associativity, 0 when unknown
  std::vector<int> shared_cpus;
};

struct NumaNode {
  int id = 0;
  std::vector<int> cpus;
};

struct Topology {
  std::string cpu_model;  // "model name" from /proc/cpuinfo, empty when unknown
  std::vector<LogicalCpu> cpus;  // online CPUs, by id
  std::vector<PhysicalCore> cores;
  std::vector<CacheInfo> caches;  // distinct cache instances
  std::vector<NumaNode> nodes;

  int threads_per_core() const;  // the maximum number of siblings on a core
  bool has_smt() const { return threads_per_core() > 1; }
  // The highest-level unified cache instance(s); nullptr when none is exposed.
  const CacheInfo* llc() const;
  const LogicalCpu* cpu(int id) const;

  nlohmann::json ToJson() const;
  // The inverse of ToJson: what a remote workload's agent reports of its host, against which
  // the coordinator resolves that host's placements. InvalidArgument naming what is malformed.
  static Result<Topology> FromJson(const nlohmann::json& j);
};

// Reads the topology via `platform`. Fails (NotFound) only when no online CPUs can be read;
// caches and NUMA nodes missing from sysfs are left empty.
Result<Topology> ReadTopology(Platform& platform);

// Parses cache sizes as sysfs writes them ("32K", "16896K", "1M").
Result<int64_t> ParseCacheSize(std::string_view s);

// The "cpu.smt" capability as `ream doctor` reports it.
Capability SmtCapability(const Result<Topology>& topology);

}  // namespace ream
