// MakeNodeLink and the commands it runs (sandbox/node_link.h).
#include "sandbox/node_link.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace ream {
namespace {

// One ip or tc command (kSandboxCommandTimeout); an error naming the command line and its
// output when it fails or exits non-zero.
Status RunSandboxCommand(Platform& p, const std::vector<std::string>& argv) {
  auto r = p.Run(argv, kSandboxCommandTimeout);
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  if (!r.ok()) return r.status().Annotate("'" + cmd + "'");
  if (r->exit_code != 0) return IoError("'" + cmd + "': " + r->Describe());
  return Status::Ok();
}

// The /30 pair `k` of kNodeNetwork: {host side, node side}.
std::pair<std::string, std::string> NodePairAddresses(int k) {
  int base = 4 * k;
  std::string net = "10.213." + std::to_string(base / 256) + ".";
  return {net + std::to_string(base % 256 + 1), net + std::to_string(base % 256 + 2)};
}

// A pair no interface on the host uses yet, starting from one derived from pid and seq so
// concurrent ream processes rarely probe the same pairs.
Result<int> FreePair(Platform& p, int pid, int seq) {
  auto r = p.Run({"ip", "-o", "-4", "addr", "show"}, kSandboxCommandTimeout);
  if (!r.ok()) return r.status().Annotate("listing addresses");
  const int kPairs = 16384;
  int start = static_cast<int>((static_cast<int64_t>(pid) * 8 + seq) % kPairs);
  for (int i = 0; i < kPairs; ++i) {
    int k = (start + i) % kPairs;
    if (k == 0) continue;
    auto [host, node] = NodePairAddresses(k);
    if (r->out.find(" " + host + "/") == std::string::npos &&
        r->out.find(" " + node + "/") == std::string::npos)
      return k;
  }
  return Unavailable("every /30 pair of " + std::string(kNodeNetwork) + " is in use");
}

// The htb root qdisc and class of `rate_bps` on `dev` (in `netns`, "" for the host's).
Status ApplyHtb(Platform& p, const std::string& netns, const std::string& dev, int64_t rate_bps) {
  // A burst of ~10 ms at the rate (at least 64 KiB, for segmentation-offloaded packets)
  // keeps htb accurate without letting long bursts through.
  std::string rate = std::to_string(rate_bps) + "bit";
  std::string burst = std::to_string(std::max<int64_t>(rate_bps / 8 / 100, 64 * 1024));
  std::vector<std::string> tc = {"tc"};
  if (!netns.empty()) tc = {"tc", "-n", netns};
  auto cmd = [&](std::vector<std::string> rest) {
    std::vector<std::string> argv = tc;
    argv.insert(argv.end(), rest.begin(), rest.end());
    return argv;
  };
  REAM_RETURN_IF_ERROR(RunSandboxCommand(p, cmd({"qdisc", "add", "dev", dev, "root", "handle", "1:", "htb",
                                     "default", "1"})));
  return RunSandboxCommand(p, cmd({"class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb",
                       "rate", rate, "ceil", rate, "burst", burst, "cburst", burst}));
}

}  // namespace

Result<NodeLink> MakeNodeLink(Platform& p, StateFile& state, const std::string& netns,
                              const std::string& host_veth, const std::string& node_veth, int pid,
                              int seq, std::optional<int64_t> rate_bps, const std::string& what) {
  for (const std::string* dev : {&host_veth, &node_veth}) {
    if (dev->size() > 15) return Internal("interface name " + *dev + " exceeds 15 characters");
  }
  NodeLink l;
  l.netns = netns;
  l.host_veth = host_veth;
  l.node_veth = node_veth;
  REAM_RETURN_IF_ERROR(state.Record("netns", netns));
  REAM_RETURN_IF_ERROR(RunSandboxCommand(p, {"ip", "netns", "add", netns}));
  REAM_ASSIGN_OR_RETURN(int k, FreePair(p, pid, seq));
  std::tie(l.host_ip, l.node_ip) = NodePairAddresses(k);
  REAM_RETURN_IF_ERROR(state.Record("veth", host_veth));
  REAM_RETURN_IF_ERROR(RunSandboxCommand(
      p, {"ip", "link", "add", host_veth, "type", "veth", "peer", "name", node_veth, "netns", netns}));
  REAM_RETURN_IF_ERROR(RunSandboxCommand(p, {"ip", "addr", "add", l.host_ip + "/30", "dev", host_veth}));
  REAM_RETURN_IF_ERROR(RunSandboxCommand(p, {"ip", "link", "set", host_veth, "up"}));
  REAM_RETURN_IF_ERROR(
      RunSandboxCommand(p, {"ip", "-n", netns, "addr", "add", l.node_ip + "/30", "dev", node_veth}));
  REAM_RETURN_IF_ERROR(RunSandboxCommand(p, {"ip", "-n", netns, "link", "set", node_veth, "up"}));
  REAM_RETURN_IF_ERROR(RunSandboxCommand(p, {"ip", "-n", netns, "link", "set", "lo", "up"}));
  REAM_RETURN_IF_ERROR(RunSandboxCommand(p, {"ip", "-n", netns, "route", "add", "default", "via", l.host_ip}));
  if (rate_bps) {
    // Both directions are egress somewhere: host->node leaves the host veth, node->host
    // leaves the node veth inside the namespace.
    REAM_RETURN_IF_ERROR(state.Record("qdisc", host_veth));
    REAM_RETURN_IF_ERROR(ApplyHtb(p, "", host_veth, *rate_bps).Annotate(what));
    REAM_RETURN_IF_ERROR(state.Record("qdisc", netns + "/" + node_veth));
    REAM_RETURN_IF_ERROR(ApplyHtb(p, netns, node_veth, *rate_bps).Annotate(what));
  }
  return l;
}

}  // namespace ream
