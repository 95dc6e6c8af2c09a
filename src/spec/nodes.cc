// The spec's [nodes] section: the client nodes that drive the load and the node the workload
// runs on.
#include <algorithm>

#include <toml++/toml.h>

#include "partition/spec.h"
#include "spec/sections.h"
#include "spec/spec.h"
#include "spec/toml_section.h"

namespace ream {

namespace {

// The HOST of "ssh:HOST", or "" when `text` is not that or names a host that ssh would read as
// an option or a shell would split.
std::string SshHost(const std::string& text) {
  std::string host = text.rfind("ssh:", 0) == 0 ? text.substr(4) : "";
  if (host.empty() || host[0] == '-' || host.find_first_of(" \t'\"$;&|<>`\\") != std::string::npos) return "";
  return host;
}

}  // namespace

Status ParseNodes(const TomlSection& s, const std::vector<PartitionValues>& partitions, bool workload_node,
                  NodesSpec* n) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  n->line = s.Line("clients");
  std::vector<int> lines;
  REAM_RETURN_IF_ERROR(s.StringList("clients", &n->clients, &lines));
  for (size_t i = 0; i < n->clients.size(); ++i) {
    const std::string& c = n->clients[i];
    if (std::find(n->clients.begin(), n->clients.begin() + static_cast<std::ptrdiff_t>(i), c) !=
        n->clients.begin() + static_cast<std::ptrdiff_t>(i)) {
      return InvalidArgument(s.source() + ":" + std::to_string(lines[i]) + ": nodes.clients lists '" + c + "' twice");
    }
    if (c.rfind("local:", 0) == 0) {
      std::string name = c.substr(6);
      bool ok = !name.empty() && name.size() <= 32;
      for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_');
      if (!ok) {
        return InvalidArgument(s.source() + ":" + std::to_string(lines[i]) + ": nodes.clients: '" + c +
                               "': a local node's NAME is 1-32 letters, digits, '-' or '_' (\"local:a\")");
      }
      n->local_nodes.push_back(name);
      continue;
    }
    const std::string host = SshHost(c);
    if (host.empty()) {
      return InvalidArgument(s.source() + ":" + std::to_string(lines[i]) + ": nodes.clients: '" + c +
                             "' is not \"ssh:HOST\" (HOST as your ssh configuration knows it: \"ssh:client1\", "
                             "\"ssh:user@10.0.0.2\") or \"local:NAME\" (a namespace node ream creates here)");
    }
    n->client_hosts.push_back(host);
  }
  REAM_RETURN_IF_ERROR(s.String("workload_address", &n->workload_address));
  std::string workload;
  REAM_RETURN_IF_ERROR(s.String("workload", &workload));
  if (!workload.empty()) {
    const std::string at = s.source() + ":" + std::to_string(s.Line("workload")) + ": nodes.workload: ";
    const std::string host = SshHost(workload);
    if (host.empty()) {
      return InvalidArgument(at + "'" + workload +
                             "' is not \"ssh:HOST\" (the workload's host as your ssh configuration knows it, "
                             "reached as root: \"ssh:server1\", \"ssh:root@10.0.0.1\")");
    }
    n->workload_host = host;
    n->workload_line = s.Line("workload");
    if (n->workload_address.empty()) {
      return InvalidArgument(at + "nodes.workload_address is required with a workload on another host: the "
                             "address at which the load reaches it there");
    }
    if (!n->local_nodes.empty()) {
      return InvalidArgument(at + "local client nodes reach a workload on this host only; with the workload on " +
                             host + " drive the load from this host or from ssh client nodes");
    }
    // What the workload's host cannot be given yet: a node of its own there (only that host
    // could reach it), and the LogGP knobs, whose relay and statistics live on this host.
    for (const PartitionValues& p : partitions) {
      const PartitionSpec ps = p.ToPartitionSpec(workload_node);
      std::string why;
      if (ps.node) why = "puts the workload in a network namespace of its own, which only its host could reach";
      if (ps.NeedsRelay() || ps.net_overhead) {
        why = "sets a LogGP knob (net_latency, net_overhead, net_gap, net_per_byte), which ream applies on this "
              "host only so far";
      }
      if (!why.empty()) {
        return InvalidArgument(at + "partition " + p.Label() + " " + why + "; a workload on " + host +
                               " runs with the other knobs (docs/nodes.md)");
      }
    }
  }
  REAM_RETURN_IF_ERROR(s.String("ssh_config", &n->ssh_config));
  REAM_RETURN_IF_ERROR(s.StringList("ssh_options", &n->ssh_options));
  REAM_RETURN_IF_ERROR(s.OneOf("on_agent_loss", &n->on_agent_loss, {"fail", "continue"}));
  std::string cpus;
  REAM_RETURN_IF_ERROR(s.String("client_cpus", &cpus));
  if (!cpus.empty()) {
    auto list = ParseCpuList(cpus);
    if (!list.ok()) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.Line("client_cpus")) + ": nodes.client_cpus: " +
                             list.status().message());
    }
    n->client_cpus = *list;
  }
  std::string link_rate;
  REAM_RETURN_IF_ERROR(s.String("link_rate", &link_rate));
  if (!link_rate.empty()) {
    auto rate = ParseBitRate(link_rate);
    if (!rate.ok() || *rate <= 0) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.Line("link_rate")) + ": nodes.link_rate: " +
                             (rate.ok() ? "'" + link_rate + "' must be above 0" : rate.status().message()));
    }
    if (n->local_nodes.empty()) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.Line("link_rate")) +
                             ": nodes.link_rate shapes the links of local client nodes, and clients names none "
                             "(\"local:NAME\"); an ssh client's network is its own");
    }
    n->link_rate_bps = *rate;
  }
  if (!n->local_nodes.empty()) {
    // A local node reaches the host at its link's host end; a workload in a namespace of its
    // own would need the host to forward between the two namespaces, which ream does not turn on.
    std::string in_node = workload_node ? "node = true" : "";
    for (const PartitionValues& p : partitions) {
      for (const auto& [key, parsed] : p.values) {
        if (parsed.knob && parsed.knob->needs_node && in_node.empty()) in_node = "partition knob " + key;
      }
    }
    if (!in_node.empty()) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.Line("clients")) +
                             ": local client nodes reach the workload on this host; " + in_node +
                             " puts the workload in a node of its own, and the host would have to forward "
                             "between the two namespaces (ream does not turn that on); shape the clients' links "
                             "with nodes.link_rate instead");
    }
  }
  if (!n->client_hosts.empty() && n->workload_address.empty()) {
    return InvalidArgument(s.source() + ":" + std::to_string(s.Line("clients")) +
                           ": nodes.workload_address is required with client nodes: the address at which they "
                           "reach the workload (this host's address on their network)");
  }
  return Status::Ok();
}

}  // namespace ream
