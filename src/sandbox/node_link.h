// A node's link: a network namespace of ream's own joined to the host by a veth pair, with an
// address pair of kNodeNetwork, a default route back through the host and, when asked, htb
// shaping of both directions. A sandbox's node (the workload's) and a local client node
// (sandbox/client_node.h) are both made by MakeNodeLink, each object recorded in the caller's
// state file before it is created, so teardown and `ream cleanup` remove what exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "platform/platform.h"
#include "sandbox/state.h"

namespace ream {

// Node links use 10.213.0.0/16, split into /30 pairs: pair k has the host side at
// 10.213.(4k / 256).(4k % 256 + 1) and the node at +2. Traffic only flows between the host
// and namespaces ream created; nothing is routed or NATed beyond them.
inline constexpr char kNodeNetwork[] = "10.213.0.0/16";

struct NodeLink {
  std::string netns;
  std::string host_veth, node_veth;  // at most 15 characters each
  std::string host_ip, node_ip;      // the /30 pair's two ends
};

// Creates namespace `netns` and the veth pair `host_veth` (on the host) / `node_veth` (in the
// namespace) on a free address pair (the search starts at one derived from `pid` and `seq`, so
// concurrent ream processes rarely probe the same pairs), loopback up, the default route via
// the host's end, and with `rate_bps` an htb of that rate on both ends (each direction is
// egress somewhere: host->node leaves the host's veth, node->host the node's). `what` names the
// knob in a shaping failure ("--net-rate").
Result<NodeLink> MakeNodeLink(Platform& p, StateFile& state, const std::string& netns,
                              const std::string& host_veth, const std::string& node_veth, int pid,
                              int seq, std::optional<int64_t> rate_bps, const std::string& what);

}  // namespace ream
