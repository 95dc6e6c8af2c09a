// Where a tenant runs, one row per sandbox kind a spec may name, for the subject ([sandbox]
// kind, [nodes] workload) and each co-runner ([[corunner]] sandbox) alike: "process" (a process
// in a cgroup of its own on this host), "node" (the same in a network namespace of its own,
// joined to this host by a veth pair: its own address, its network knobs), "vm" (a libvirt
// guest: sandbox/vm_sandbox.h) and "ssh:HOST" (a sandbox the `ream agent` on HOST makes, over
// ssh: experiment/remote_sandbox.h). The runner asks the row what it needs (its own kind, a
// node, an address), never tests the name.
//
//   REAM_ASSIGN_OR_RETURN(TenantPlace where, ParseTenantPlace("ssh:server1"));
//   REAM_ASSIGN_OR_RETURN(auto kind, MakeTenantSandboxKind(p, settings, where, address, user));
//   // kind is null for rows that run in this host's kind (settings.here)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiment/remote_driver.h"
#include "experiment/spec.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"

namespace ream {

// What rows need to make their kind.
struct TenantSandboxSettings {
  std::string ream_binary;  // this ream: the vm image's, and the one copied to an ssh host
  RemoteDriverOptions ssh;  // the spec's ssh settings ([nodes] ssh_config, ssh_options)
  SandboxSpec vm;           // [sandbox]'s libvirt settings (accel, uri, image, boot timeout)
};

struct TenantPlace;

struct TenantSandboxRow {
  std::string name;          // "process", "node", "vm", "ssh"
  std::string what;          // for the message listing the rows
  bool takes_host = false;   // written "NAME:HOST"
  bool own_network = false;  // a node: its own network namespace and veth (PartitionSpec::node)
  // Runs only ream's own servers (TenantKind::runs_in_vm): the guest image carries no other
  // program.
  bool ream_servers_only = false;
  // Reached at an address the spec gives (the host's), not at one the sandbox reports.
  bool needs_address = false;
  // Makes a kind of the tenant's own; null: the tenant runs in this host's kind, shared. The
  // error says why the kind cannot be had (libvirt does not answer).
  Result<std::unique_ptr<SandboxKind>> (*make)(Platform& p, const TenantSandboxSettings& s, const TenantPlace& where,
                                               const std::string& address, const std::string& user) = nullptr;
};

// One place: a row and, for "ssh:HOST", the host.
struct TenantPlace {
  const TenantSandboxRow* row = nullptr;
  std::string host;
  std::string Name() const { return row ? (row->takes_host ? row->name + ":" + host : row->name) : "?"; }
};

// The rows, in the order messages list them.
const std::vector<TenantSandboxRow>& TenantSandboxRows();

// "process", "node", "vm" or "ssh:HOST" as a place. InvalidArgument listing the rows otherwise
// ("\"container\" is none of ...").
Result<TenantPlace> ParseTenantPlace(const std::string& text);

// The subject's place from its spec: "ssh:HOST" with [nodes] workload, "vm" with [sandbox] kind
// = "vm", else "process" (its node, when it has one, comes with its partitions).
TenantPlace SubjectPlace(const ExperimentSpec& spec);

// The kind `where` runs tenants in, made for one tenant (reached at `address`, running as
// `user`), or null when the row runs them in this host's kind. The row's error otherwise.
Result<std::unique_ptr<SandboxKind>> MakeTenantSandboxKind(Platform& p, const TenantSandboxSettings& s,
                                                           const TenantPlace& where, const std::string& address,
                                                           const std::string& user);

}  // namespace ream
