#include "experiment/tenant_sandbox.h"

#include <map>

#include "remote/remote_sandbox.h"
#include "sandbox/vm_sandbox.h"

namespace ream {
namespace {

using Maker = Result<std::unique_ptr<SandboxKind>> (*)(Platform&, const TenantSandboxSettings&, const TenantPlace&,
                                                       const std::string& address, const std::string& user);

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
Result<std::unique_ptr<SandboxKind>> MakeRemote(Platform& p, const TenantSandboxSettings& s, const TenantPlace& where,
                                                const std::string& address, const std::string& user) {
  RemoteSandboxOptions ro;
  ro.host = where.host;
  ro.address = address;
  ro.workload_user = user;
  ro.ssh = s.ssh;
  ro.ssh.ream_binary = s.ream_binary;
  return MakeRemoteSandboxKind(p, std::move(ro));
}

// The sandbox kinds a place may name, by SandboxKind::name(); "process" is this host's (none made).
const std::map<std::string, Maker>& Makers() {
  static const std::map<std::string, Maker> makers = {{"process", nullptr}, {"vm", MakeVm}, {"remote", MakeRemote}};
  return makers;
}

}  // namespace

Result<std::unique_ptr<SandboxKind>> MakeTenantSandboxKind(Platform& p, const TenantSandboxSettings& s,
                                                           const TenantPlace& where, const std::string& address,
                                                           const std::string& user) {
  if (!where.row) return InvalidArgument("no place to run in");
  auto it = Makers().find(where.row->sandbox_kind);
  if (it == Makers().end()) {
    return Unsupported("sandbox \"" + where.Name() + "\": no sandbox kind \"" + where.row->sandbox_kind + "\" here");
  }
  if (!it->second) return std::unique_ptr<SandboxKind>();
  return it->second(p, s, where, address, user);
}

}  // namespace ream
