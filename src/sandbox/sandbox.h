// Where a workload runs: a process in a cgroup of its own with the partition's limits,
// optionally in its own network namespace joined to the host by a veth pair (a "node"),
// optionally in a resctrl group. Every kernel object is recorded in a state file before it
// is created and removed when the sandbox is destroyed, whatever happened.
//
// Typical use (the experiment runner):
//   SandboxOptions o;
//   o.partition.cpus = "1-ST";
//   o.capture_stdout = true;
//   auto sb = StartSandbox(platform, o, {"ream", "serve", "synthetic", "--port", "0"});
//   if (!sb.ok()) return sb.status();
//   auto line = (*sb)->WaitForLine(StartsWith("ream-serve ready"), 10s);
//   ... drive load at (*sb)->address() ...
//   Status s = (*sb)->Stop();   // SIGTERM, SIGKILL after stop_grace; objects removed
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "partition/cgroup.h"
#include "partition/cgroup_knobs.h"
#include "partition/resctrl.h"
#include "partition/spec.h"
#include "platform/platform.h"
#include "sandbox/state.h"

namespace ream {

// Node links use 10.213.0.0/16, split into /30 pairs: pair k has the host side at
// 10.213.(4k / 256).(4k % 256 + 1) and the node at +2. Traffic only flows between the host
// and namespaces ream created; nothing is routed or NATed beyond them.
inline constexpr char kNodeNetwork[] = "10.213.0.0/16";

class Sandbox;

struct SandboxOptions {
  PartitionSpec partition;
  // CPUs kept for ream's load generator when resolving a scenario. nullopt (default):
  // DefaultGeneratorCpus(topology), the last online CPU and its siblings.
  std::optional<std::vector<int>> reserved_cpus;
  // Capture the workload's stdout (WaitForLine); each line is also passed to on_stdout_line.
  // false (default): the workload writes to ream's stdout.
  bool capture_stdout = false;
  std::function<void(const std::string&)> on_stdout_line;
  // Extra environment for the workload.
  std::vector<std::pair<std::string, std::string>> env;
  // Stop(): time between SIGTERM and SIGKILL.
  std::chrono::milliseconds stop_grace{2000};
  // Where the objects are recorded (sandbox/state.h).
  std::string state_dir = kDefaultStateDir;
  // Remove the leftovers of dead ream runs before creating anything.
  bool cleanup_dead_runs = true;
  // Called once every object exists and the workload's process is in its cgroup, just
  // before it execs: a monitor's baseline read here covers the workload's whole life (see
  // Monitor::Baseline). Only reading is safe here; the sandbox is not returned yet and is
  // destroyed if the exec then fails.
  std::function<void(Sandbox&)> before_exec;
};

class Sandbox {
 public:
  // Stops the workload if it still runs and removes every object (errors are dropped; call
  // Stop() to see them).
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  const std::string& name() const { return name_; }  // "ream-<pid>-<n>"
  int pid() const { return child_->pid(); }
  // Where clients reach the workload: the node's address, or 127.0.0.1 without --node.
  std::string address() const { return node_ip_.empty() ? "127.0.0.1" : node_ip_; }
  // The host side of the node link ("10.213.x.1"), "" without a node.
  const std::string& host_address() const { return host_ip_; }
  // The CPUs the workload may run on (resolved placement; every online CPU when unset).
  const std::vector<int>& cpus() const { return cpus_; }
  const PartitionSpec& partition() const { return spec_; }
  const Cgroup* cgroup() const { return cgroup_.get(); }
  const ResctrlGroup* resctrl() const { return resctrl_.get(); }
  // Host-side veth of the node ("ream<pid>h<n>"), "" without a node.
  const std::string& host_veth() const { return host_veth_; }
  const std::string& netns() const { return netns_; }
  // The throttled disk, when disk limits are set.
  const std::optional<BlockDevice>& disk() const { return disk_; }

  bool Alive();
  // Waits for the workload to end (Timeout after `timeout`).
  Result<ProcessExit> Wait(std::chrono::milliseconds timeout);
  // How the workload ended, for people: "exited with status 0", "killed by signal 15
  // (SIGTERM)", or "killed by the memory limit (OOM) of 128.0 MiB" when the kernel's OOM
  // killer ended it (or one of its processes). "still running" before it ends.
  std::string ExitDescription();
  // Whether the cgroup's memory limit OOM-killed any process of the sandbox.
  bool OomKilled();
  // With capture_stdout: the first stdout line `match` accepts (ChildProcess::WaitForLine).
  Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                  std::chrono::milliseconds timeout);
  ChildProcess& process() { return *child_; }

  // SIGTERM to the workload, SIGKILL after stop_grace (to everything left in the cgroup),
  // then removes every kernel object and the state file. Idempotent; the first error.
  Status Stop();

 private:
  friend Result<std::unique_ptr<Sandbox>> StartSandbox(Platform&, const SandboxOptions&,
                                                       const std::vector<std::string>&);
  explicit Sandbox(Platform& p) : p_(p) {}
  Status CreateObjects(const SandboxOptions& o, const std::vector<std::string>& argv);
  Status RemoveObjects();

  Platform& p_;
  std::string name_;
  PartitionSpec spec_;
  std::chrono::milliseconds stop_grace_{2000};
  std::vector<int> cpus_;
  std::optional<BlockDevice> disk_;
  std::unique_ptr<StateFile> state_;
  std::unique_ptr<Cgroup> cgroup_;
  std::unique_ptr<ResctrlGroup> resctrl_;
  std::string netns_, host_veth_, node_veth_, host_ip_, node_ip_;
  std::unique_ptr<ChildProcess> child_;
  std::optional<ProcessExit> exit_;
  int64_t oom_kills_at_start_ = 0;
  std::optional<bool> oom_;
  bool stopped_ = false;
};

// Starts `argv` in a new sandbox. Fails, having removed whatever it created, with
// InvalidArgument (bad spec), Unsupported (a knob this machine cannot enforce, saying why),
// PermissionDenied (not root) or the error of the step that failed.
Result<std::unique_ptr<Sandbox>> StartSandbox(Platform& platform, const SandboxOptions& options,
                                              const std::vector<std::string>& argv);

// `match` for WaitForLine: lines starting with `prefix`.
std::function<bool(const std::string&)> StartsWith(std::string prefix);

// Which partition knobs this machine can enforce, each with the reason, without creating
// anything: "cpus", "cpu-quota", "memory", "disk", "node", "net-rate", "llc-ways", "mem-bw".
struct KnobSupport {
  std::string flag;    // the `ream exec` flag, e.g. "--memory"
  bool enforceable = false;
  std::string detail;  // the interface used, or why not
};
// With `probed` (ream doctor's capabilities, established by trying), the node and net-rate
// verdicts come from the probes (net.namespace, net.veth, tc.htb) instead of tool presence.
std::vector<KnobSupport> PartitionSupport(Platform& platform,
                                          const std::vector<Capability>* probed = nullptr);

}  // namespace ream
