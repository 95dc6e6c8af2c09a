// ClientNode (sandbox/client_node.h).
#include "sandbox/client_node.h"

#include <atomic>

namespace ream {
namespace {
std::atomic<int> g_client_node_seq{0};
}  // namespace

Result<std::unique_ptr<ClientNode>> ClientNode::Create(Platform& p, const std::string& label,
                                                       std::optional<int64_t> rate_bps,
                                                       const std::string& state_dir) {
  const int pid = p.ProcessId();
  const int k = ++g_client_node_seq;
  if (k > 99) return InvalidArgument("at most 99 local client nodes per ream process");
  std::unique_ptr<ClientNode> node(new ClientNode(p));
  const std::string name = "ream-" + std::to_string(pid) + "-c" + std::to_string(k);
  REAM_ASSIGN_OR_RETURN(node->state_,
                        StateFile::Create(p, state_dir, std::to_string(pid) + "-c" + std::to_string(k)));
  const std::string veth = "ream" + std::to_string(pid) + "c" + std::to_string(k);
  // The pair search starts away from the sandboxes' (seq 100 + k), which count from 1.
  auto link = MakeNodeLink(p, *node->state_, name, veth + "h", veth + "n", pid, 100 + k, rate_bps,
                           "[nodes] link_rate");
  if (!link.ok()) {
    // The destructor removes whatever was recorded before the failure.
    return link.status().Annotate("local client node " + label);
  }
  node->link_ = *link;
  return node;
}

ClientNode::~ClientNode() {
  if (state_ && RemoveStateObjects(p_, state_->entries()).empty()) (void)state_->Remove();
}

}  // namespace ream
