// Where a tenant runs, one row per place a spec may name, for the subject ([sandbox] kind,
// [nodes] workload) and each co-runner ([[corunner]] sandbox) alike: "process" (a process in a
// cgroup of its own on this host), "node" (the same in a network namespace of its own, joined to
// this host by a veth pair: its own address, its network knobs), "vm" (a libvirt guest) and
// "ssh:HOST" (a sandbox the `ream agent` on HOST makes, over ssh). Each row says what it gives
// (a node, ream's servers only, an address the spec must give) and which sandbox kind holds its
// tenants (SandboxKind::name(): "process", "vm", "remote"); the experiment makes that kind
// (experiment/tenant_sandbox.h). Code asks the row, never tests the place's name.
//
//   REAM_ASSIGN_OR_RETURN(TenantPlace where, ParseTenantPlace("ssh:server1"));
//   if (where.row->own_network) ...   // a node of its own
#pragma once

#include <string>
#include <vector>

#include "platform/status.h"

namespace ream {

struct ExperimentSpec;

struct TenantPlaceRow {
  std::string name;          // "process", "node", "vm", "ssh"
  std::string what;          // for the message listing the rows
  bool takes_host = false;   // written "NAME:HOST"
  bool own_network = false;  // a node: its own network namespace and veth (PartitionSpec::node)
  // Runs only ream's own servers (TenantKind::runs_in_vm): the guest image carries no other
  // program.
  bool ream_servers_only = false;
  // On another host, reached at an address the spec gives, not one the sandbox reports.
  bool needs_address = false;
  // The sandbox kind that holds its tenants (SandboxKind::name()); "process" is this host's.
  std::string sandbox_kind = "process";
};

// One place: a row and, for "ssh:HOST", the host.
struct TenantPlace {
  const TenantPlaceRow* row = nullptr;
  std::string host;
  // As the spec writes it: "node", "ssh:server1".
  std::string Name() const { return row ? (row->takes_host ? row->name + ":" + host : row->name) : "?"; }
};

// The rows, in the order messages list them.
const std::vector<TenantPlaceRow>& TenantPlaceRows();

// "process", "node", "vm" or "ssh:HOST" as a place. InvalidArgument listing the rows otherwise
// ("\"container\" is none of ...").
Result<TenantPlace> ParseTenantPlace(const std::string& text);

// The subject's place from its spec: "ssh:HOST" with [nodes] workload, "vm" with [sandbox] kind
// = "vm", else "process" (its node, when it has one, comes with its partitions).
TenantPlace SubjectPlace(const ExperimentSpec& spec);

}  // namespace ream
