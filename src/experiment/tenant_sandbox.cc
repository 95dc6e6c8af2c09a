#include "experiment/tenant_sandbox.h"

#include "experiment/remote_sandbox.h"
#include "experiment/text.h"
#include "sandbox/vm_sandbox.h"

namespace ream {
namespace {

Result<std::unique_ptr<SandboxKind>> MakeVm(Platform& p, const TenantSandboxSettings& s, const TenantPlace&,
                                            const std::string&, const std::string&) {
  VmKindOptions vo;
  vo.ream_binary = s.ream_binary;
  vo.accel = s.vm.accel;
  vo.uri = s.vm.uri;
  vo.image = s.vm.image;
  vo.boot_timeout = s.vm.boot_timeout;
  std::unique_ptr<SandboxKind> kind = MakeVmSandboxKind(p, vo);
  // Before anything is stored or any load generated: libvirt must answer.
  for (const Capability& c : kind->Probe()) {
    if ((c.name == "vm.libvirt" || c.name == "vm.image") && c.status != Support::kSupported) {
      return Unavailable("sandbox \"vm\": " + c.detail);
    }
  }
  return kind;
}

// Its own agent for each tenant: an agent holds one sandbox.
Result<std::unique_ptr<SandboxKind>> MakeSsh(Platform& p, const TenantSandboxSettings& s, const TenantPlace& where,
                                             const std::string& address, const std::string& user) {
  RemoteSandboxOptions ro;
  ro.host = where.host;
  ro.address = address;
  ro.workload_user = user;
  ro.ssh = s.ssh;
  ro.ssh.ream_binary = s.ream_binary;
  return MakeRemoteSandboxKind(p, std::move(ro));
}

}  // namespace

const std::vector<TenantSandboxRow>& TenantSandboxRows() {
  static const std::vector<TenantSandboxRow> rows = {
      {.name = "process", .what = "a process in a cgroup of its own on this host"},
      {.name = "node",
       .what = "the same in a network namespace of its own, joined to this host by a veth pair",
       .own_network = true},
      {.name = "vm", .what = "a libvirt guest (ream's servers only)", .ream_servers_only = true, .make = MakeVm},
      {.name = "ssh",
       .what = "a sandbox the ream agent on HOST makes, over ssh",
       .takes_host = true,
       .needs_address = true,
       .make = MakeSsh},
  };
  return rows;
}

Result<TenantPlace> ParseTenantPlace(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  std::vector<std::string> known;
  for (const TenantSandboxRow& row : TenantSandboxRows()) {
    known.push_back("\"" + row.name + (row.takes_host ? ":HOST" : "") + "\" (" + row.what + ")");
    if (row.name != name) continue;
    if (row.takes_host != (colon != std::string::npos)) break;
    TenantPlace at{&row, row.takes_host ? text.substr(colon + 1) : std::string()};
    if (row.takes_host && (at.host.empty() || at.host.find_first_of(" \t\n'\"") != std::string::npos)) {
      return InvalidArgument("\"" + text + "\" needs a host as ssh reaches it after \"" + row.name + ":\"");
    }
    return at;
  }
  return InvalidArgument("\"" + text + "\" is none of " + Join(known, ", "));
}

TenantPlace SubjectPlace(const ExperimentSpec& spec) {
  auto row = [](const std::string& name) {
    for (const TenantSandboxRow& r : TenantSandboxRows()) {
      if (r.name == name) return &r;
    }
    return static_cast<const TenantSandboxRow*>(nullptr);
  };
  if (!spec.nodes.workload_host.empty()) return {row("ssh"), spec.nodes.workload_host};
  return {row(spec.sandbox.kind), ""};
}

Result<std::unique_ptr<SandboxKind>> MakeTenantSandboxKind(Platform& p, const TenantSandboxSettings& s,
                                                           const TenantPlace& where, const std::string& address,
                                                           const std::string& user) {
  if (!where.row) return InvalidArgument("no sandbox kind");
  if (!where.row->make) return std::unique_ptr<SandboxKind>();
  return where.row->make(p, s, where, address, user);
}

}  // namespace ream
