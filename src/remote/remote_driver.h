// The load driver of client nodes: one `ream agent` per host behind
// `ssh -o BatchMode=yes HOST`, or per local namespace node started inside its namespace,
// spoken to over its stdin/stdout only (remote/agent_protocol.h). ream runs no daemon of
// its own, opens no control port and handles no credentials: the user's ssh configuration
// names users, keys and ports.
//
// Before the first level each host is probed (`ream --version`, the per-user cache directory,
// the architecture); when it has no ream of this build, the coordinator's binary is copied
// there with scp, once, and the driver says so. Each level: the clock offset and round trip
// to every agent (several samples, the shortest kept), a common start in the future moved into
// each agent's clock, the rate split evenly, and the agents' histograms merged losslessly into
// one point with the per-agent figures under "agents". An agent that dies, a host that stops
// answering or a session that drops makes the point invalid with the agent named; every wait
// is bounded; an agent exits when its stdin closes, so none is left running.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "load/driver.h"
#include "platform/platform.h"
#include "platform/process.h"

namespace ream {

// A client node on this host (sandbox/client_node.h): its agent is this ream, started in the
// node's namespace, as `run_as` (no capabilities: an agent only opens TCP connections).
struct LocalAgentNode {
  std::string name;                 // "local:a", for messages and the per-agent figures
  std::string netns_path;           // the node's namespace ("/run/netns/ream-...")
  std::string workload_host;        // the workload's address from the node
  std::vector<int> cpus;            // its generator threads pinned to these; empty: unpinned
  std::optional<RunAs> run_as;      // nullopt: ream's own user
};

struct RemoteDriverOptions {
  std::vector<std::string> hosts;  // ssh destinations ("client1", "user@10.0.0.2")
  std::string workload_host;       // the workload's address as the ssh agents reach it
  std::vector<LocalAgentNode> local_nodes;  // agents on this host, after the ssh ones
  std::string ream_binary;         // this ream, copied to hosts that lack it
  std::string version_line;        // "ream 0.x (commit)": what `ream --version` prints here
  std::string ssh_config;          // ssh -F FILE; "" = the user's own configuration
  std::vector<std::string> ssh_options;  // extra ssh/scp arguments ("-o", "Port=2222")
  // An agent lost at one level: the next levels run on the others (true) or fail naming it.
  bool continue_without_lost = false;
  std::vector<int> agent_cpus;  // each agent's generator threads pinned to these; empty: unpinned
  std::chrono::milliseconds connect_timeout{15000};  // ssh login, probe, copy, hello
  // How long past a level's window and response timeout an agent's result may take before the
  // agent is given up (its host stopped answering) and its session killed.
  std::chrono::milliseconds result_grace{15000};
  // The programs run as ssh and scp (tests put stand-ins here).
  std::string ssh_program = "ssh";
  std::string scp_program = "scp";
  // Where the sessions' stderr files go (removed with the driver); "" = /tmp.
  std::string scratch_dir;
  // Where that directory is recorded for `ream cleanup` (sandbox/state.h); "" = /run/ream.
  std::string state_dir;
  // What the driver tells the user (a binary copied); nullptr = nothing.
  std::function<void(const std::string&)> note;
};

std::unique_ptr<LoadDriver> MakeRemoteLoadDriver(Platform& platform, RemoteDriverOptions options);

// The ssh command line for `host` running `remote_command` (BatchMode, keep-alives, connect
// timeout, the config and options given). Pure; exposed for tests.
std::vector<std::string> SshArgv(const RemoteDriverOptions& options, const std::string& host,
                                 const std::string& remote_command);

}  // namespace ream
