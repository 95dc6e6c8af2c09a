// The spec's section parsers, one per TOML section, which ParseSpec (spec/spec.cc) calls in
// turn; internal to the spec layer. Each returns InvalidArgument naming the key and its line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "partition/knobs.h"
#include "platform/status.h"
#include "spec/spec.h"
#include "spec/toml_section.h"

namespace ream {

// spec/tenants.cc: the subject and its neighbours.
Status ParseWorkload(const TomlSection& s, WorkloadSpec* w);
// A batch subject: its load is copies, its window [load] warmup and duration; the request
// keys of [load] and the server-only sections have nothing to act on, so they are refused.
Status CheckBatchSubject(const TomlSection& top, const ExperimentSpec& spec);
// [[corunner]] (with its variants and [corunner.load]), [colocation] and [interference].
// Each [[corunner]] of a kind of `kinds` (spec/tenant_kinds.h).
Status ParseCorunners(const TomlSection& top, const KnobTable& knobs, const TenantKindTable& kinds,
                      ExperimentSpec* spec);

// spec/load_sweep.cc: the load, its levels and the judgement of a point.
Status ParseLoad(const TomlSection& s, LoadSpec* l);
Status ParseSweep(const TomlSection& s, SweepSpec* w);
Status ParseQos(const TomlSection& s, QosSpec* q);
Status ParseModel(const TomlSection& s, ModelSpec* m);
// The SCV (variance / mean²) of the work a builtin server's `--service` argument names, with
// where it came from; nullopt when the args name none or it does not parse.
std::optional<double> ServiceScvFromArgs(const WorkloadSpec& w, std::string* source);

// spec/partitions.cc: knob values into partitions.
// A knob's value as TOML gives it: a string, or an integer taken as its decimal text.
std::optional<std::string> KnobText(const toml::node& n);
Status ParsePartitionValues(const TomlSection& s, const KnobTable& knobs, PartitionValues* p);
Status ParsePartitions(const TomlSection& s, const KnobTable& knobs, std::vector<PartitionValues>* out);
// One [sensitivity] table: the knob and its values, each parsed by the knob's own parser.
Status ParseSensitivity(const TomlSection& s, const KnobTable& knobs, SensitivitySpec* out,
                        std::vector<PartitionValues>* values);
// The partitions of a sensitivity sweep: every base with each table's knob at each of its values.
Status ExpandSensitivity(const std::string& source, const std::vector<SensitivitySpec>& tables,
                         const std::vector<std::vector<PartitionValues>>& values,
                         std::vector<PartitionValues>* partitions);

// spec/manager.cc: [manager], after the co-runners (its resources name tenants).
Status ParseManager(const TomlSection& s, const KnobTable& knobs, ExperimentSpec* spec);

// spec/nodes.cc: the client nodes and the workload's node.
Status ParseNodes(const TomlSection& s, const std::vector<PartitionValues>& partitions, bool workload_node,
                  NodesSpec* n);

}  // namespace ream
