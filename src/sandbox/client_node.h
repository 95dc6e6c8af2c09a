// A local client node (`[nodes] clients = ["local:NAME"]`): a network namespace that
// ream creates for a `ream agent`, joined to the host by a veth pair of its own
// (sandbox/node_link.h) and shaped to a bandwidth per link when one is given. Its objects are
// recorded in a state file of their own, like a sandbox's, so the destructor removes them and
// `ream cleanup` does after a SIGKILL. The agent reaches a workload on the host at host_ip().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "platform/platform.h"
#include "sandbox/node_link.h"
#include "sandbox/state.h"

namespace ream {

class ClientNode {
 public:
  // `label`: the node's name in the spec ("a" of "local:a"), for messages. `rate_bps`: the
  // link's bandwidth, each way; nullopt: unshaped.
  static Result<std::unique_ptr<ClientNode>> Create(Platform& p, const std::string& label,
                                                    std::optional<int64_t> rate_bps,
                                                    const std::string& state_dir = kDefaultStateDir);
  // Removes the node's objects; when one cannot be removed, the state file stays for
  // `ream cleanup`.
  ~ClientNode();
  ClientNode(const ClientNode&) = delete;
  ClientNode& operator=(const ClientNode&) = delete;

  const NodeLink& link() const { return link_; }
  // The host's end of the link: where a program in the node reaches the host's listeners.
  const std::string& host_ip() const { return link_.host_ip; }
  // The namespace file a process enters to run in the node (SpawnOptions::netns_path).
  std::string netns_path() const { return "/run/netns/" + link_.netns; }

 private:
  explicit ClientNode(Platform& p) : p_(p) {}
  Platform& p_;
  std::unique_ptr<StateFile> state_;
  NodeLink link_;
};

}  // namespace ream
