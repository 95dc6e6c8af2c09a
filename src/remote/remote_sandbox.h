// The sandbox kind of a workload on another host ([nodes] workload = "ssh:HOST"): one `ream agent` there, behind `ssh -o BatchMode=yes HOST` (probed, and given a copy
// of this ream when it has none of this build, as client nodes are: remote/agent_session.h),
// creates the sandbox with the run's partition on its own kernel, runs the workload in it,
// forwards its output and its end, and samples it with that host's monitors for each point's
// window (remote/workload_agent.h has the messages). The runner, the store and the
// analysis see an ordinary Sandbox: its address is where the load reaches that host
// ([nodes] workload_address), its monitors report from there (Sandbox::monitored_remotely).
//
// The session lasts as long as the kind; closing it (the kind destroyed, ream ending or killed,
// the connection dropping) makes the agent stop the workload and remove every object.
#pragma once

#include <memory>
#include <string>

#include "remote/remote_driver.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"

namespace ream {

struct RemoteSandboxOptions {
  // The ssh destination, the ream to copy there and the ssh settings (hosts, workload_host,
  // local_nodes and agent_cpus are not used).
  RemoteDriverOptions ssh;
  std::string host;     // "server1", as ssh reaches it
  std::string address;  // where the load reaches the workload there (Sandbox::address)
  // The account the workload runs as (WorkloadUser's result here), for that host's probes.
  std::string workload_user;
};

std::unique_ptr<SandboxKind> MakeRemoteSandboxKind(Platform& platform, RemoteSandboxOptions options);

}  // namespace ream
