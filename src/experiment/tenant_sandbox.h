// The sandbox kinds a tenant's place (spec/tenant_places.h) runs it in, made for the subject and
// for each co-runner alike: this host's kind for "process" and "node", a vm kind of its own
// (sandbox/vm_sandbox.h), or an ssh host's (remote/remote_sandbox.h: its own agent, which holds
// one sandbox). Each maker is registered by the sandbox kind's name that the place's row names.
//
//   auto kind = MakeTenantSandboxKind(p, settings, where, address, user);
//   // null: the tenant runs in this host's kind (the runner's)
#pragma once

#include <memory>
#include <string>

#include "platform/platform.h"
#include "remote/remote_driver.h"
#include "sandbox/sandbox.h"
#include "spec/spec.h"
#include "spec/tenant_places.h"

namespace ream {

// What the makers need.
struct TenantSandboxSettings {
  std::string ream_binary;  // this ream: the vm image's, and the one copied to an ssh host
  RemoteDriverOptions ssh;  // the spec's ssh settings ([nodes] ssh_config, ssh_options)
  SandboxSpec vm;           // [sandbox]'s libvirt settings (accel, uri, image, boot timeout)
};

// The kind `where` runs a tenant in, made for that tenant (reached at `address`, running as
// `user`), or null when its row's kind is this host's. The maker's error otherwise (libvirt does
// not answer), or Unsupported for a row whose kind no maker is registered for.
Result<std::unique_ptr<SandboxKind>> MakeTenantSandboxKind(Platform& p, const TenantSandboxSettings& s,
                                                           const TenantPlace& where, const std::string& address,
                                                           const std::string& user);

}  // namespace ream
