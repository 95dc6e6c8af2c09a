// Where a workload runs. Sandbox is the interface every kind implements (a process in a
// cgroup today, a plain child for tests: sandbox/null_sandbox.h, a VM next); SandboxKind
// starts them. ProcessSandbox is a process in a cgroup of its own with the partition's limits,
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
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partition/cgroup.h"
#include "partition/cgroup_knobs.h"
#include "partition/knobs.h"
#include "partition/resctrl.h"
#include "partition/spec.h"
#include "platform/capabilities.h"
#include "platform/keep_awake.h"
#include "platform/platform.h"
#include "platform/process.h"
#include "sandbox/node_link.h"
#include "sandbox/state.h"
#include "topology/topology.h"

namespace ream {

class Sandbox;

// The account workloads run as when neither the spec ([workload] user) nor `ream exec --user`
// names one and ream runs as root: a system user of ream's own, which scripts/install-deps and
// the .deb create, rather than nobody — the data sets and caches the built-in servers write
// are then owned by an account nothing else runs as (nobody, by convention, owns no files),
// and /var/cache/ream can be made its own at install time.
inline constexpr char kDefaultWorkloadUser[] = "ream";

// The user a workload runs as for what was asked (`asked`: the spec's or --user's text, ""
// when not given): `asked` when given; kDefaultWorkloadUser when ream runs as root; "" (ream's
// own user, which holds no privilege to drop) otherwise.
std::string WorkloadUser(Platform& p, const std::string& asked);

// SandboxOptions::user as the spawn's run_as: nullopt for "" and for "root" when ream is root
// (ream's own user and privileges), the account otherwise. NotFound saying how to create it
// when it does not exist; PermissionDenied when ream is not root and the account is another.
Result<std::optional<RunAs>> ResolveWorkloadUser(Platform& p, const std::string& user);

// The stored environment's line on the workload's user (a Capability "workload.user"):
// supported with "user=ream uid=999 gid=999 no_new_privs=1 capabilities=none", or
// "user=root uid=0 ... capabilities=ream's" when root was asked; unsupported with the reason
// when the account cannot be resolved.
Capability WorkloadUserCapability(Platform& p, const std::string& user);

struct SandboxOptions {
  PartitionSpec partition;
  // CPUs kept for ream's load generator when resolving a scenario. nullopt (default):
  // DefaultGeneratorCpus(topology), the last online CPU and its siblings.
  std::optional<std::vector<int>> reserved_cpus;
  // Capture the workload's stdout (WaitForLine); each line is also passed to on_stdout_line.
  // false (default): the workload writes to ream's stdout.
  bool capture_stdout = false;
  std::function<void(const std::string&)> on_stdout_line;
  // Keep the workload's stderr in a file of its sandbox instead of ream's stderr, so that
  // Sandbox::StderrTail can say in ream's own error what the workload said when it failed (a
  // co-runner that ended at once). false (default): its stderr is ream's.
  bool keep_stderr = false;
  // Extra environment for the workload.
  std::vector<std::pair<std::string, std::string>> env;
  // Who the workload runs as (ResolveWorkloadUser): "" (default) ream's own user and
  // privileges, for ream's own helpers (the generator, the relay); an account name: that
  // account with no capabilities and PR_SET_NO_NEW_PRIVS (WorkloadUser gives the default);
  // "root": ream's privileges, when asked for.
  std::string user;
  // libream-overhead.so, preloaded into the workload when partition.net_overhead > 0. ""
  // (default): the one next to the ream binary (FindOverheadLibrary).
  std::string overhead_library;
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
  // Keep the workload's CPUs out of idle while it runs (ream run --keep-awake): by the kernel's
  // idle polling where the CPUs' idle driver can poll (platform/keep_awake.h), else by `ream
  // keep-awake` (SCHED_IDLE pollers) in the workload's CPU cgroup only, where the workload's
  // threads preempt a poller at once. Kinds that cannot do it without charging the pollers to
  // the workload say why in keep_awake_note() and run without.
  bool keep_awake = false;
};

// What a monitor watches in a sandbox (monitor/monitor.h samples it). Pointers are the
// sandbox's own and live as long as it does.
struct MonitorTarget {
  const Cgroup* cgroup = nullptr;  // CPU, memory and disk accounting; null: unavailable
  std::vector<int> cpus;           // the allotted CPUs (utilization's denominator, per CPU)
  std::optional<double> cpu_quota;  // in CPUs; caps the allotment when below cpus.size()
  // The node's host-side veth ("" : the host's interfaces, which the report says are not
  // the sandbox's alone).
  std::string host_veth;
  const ResctrlGroup* resctrl = nullptr;  // LLC occupancy and memory bandwidth
  std::string resctrl_reason;             // why `resctrl` is null ("" : not said)
  std::optional<BlockDevice> disk;        // count this disk only; nullopt: every device
  // Why nothing can be watched (a kind without kernel objects says so); "" otherwise.
  std::string unavailable_reason;
  // Figures ("cpu", "memory", "memory_peak", "disk", "net") this kind cannot give whatever its
  // cgroup holds, with why (a guest without a disk: "disk").
  std::map<std::string, std::string> unavailable;
  // The workload's CPU time in ns from elsewhere than a cgroup (a vm's, from libvirt), with
  // what it reads; used instead of the cgroup's when set. nullopt: not readable now.
  std::function<std::optional<int64_t>()> cpu_ns_reader;
  std::string cpu_source;
};

// A running workload, whatever holds it: a process in a cgroup (ProcessSandbox, below), a
// plain child (the null sandbox), later a VM. The runner and `ream exec` use this interface
// only; what a kind created is removed by Stop() or the destructor, whatever happened.
class Sandbox {
 public:
  virtual ~Sandbox() = default;

  virtual const std::string& name() const = 0;
  virtual int pid() const = 0;
  // Where clients reach the workload ("127.0.0.1", or a node's address).
  virtual std::string address() const = 0;
  // The CPUs the workload may run on (every online CPU when unrestricted).
  virtual const std::vector<int>& cpus() const = 0;
  // What the monitors sample for this workload.
  virtual MonitorTarget monitor_target() const = 0;

  virtual bool Alive() = 0;
  // Waits for the workload to end (Timeout after `timeout`).
  virtual Result<ProcessExit> Wait(std::chrono::milliseconds timeout) = 0;
  // How the workload ended, for people: "exited with status 0", "killed by signal 15
  // (SIGTERM)", "killed by the memory limit (OOM) of 128.0 MiB"; "still running" before.
  virtual std::string ExitDescription() = 0;
  // With capture_stdout: the first stdout line `match` accepts (ChildProcess::WaitForLine).
  virtual Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                          std::chrono::milliseconds timeout) = 0;
  virtual ChildProcess& process() = 0;
  // With SandboxOptions::keep_stderr: the last `n` lines the workload wrote to its stderr, also
  // after Stop() (which keeps them); empty when it wrote none or the kind keeps none.
  virtual std::vector<std::string> StderrTail(size_t /*n*/) { return {}; }
  // Where the workload's processes write what the LogGP overhead o cost them
  // (sandbox/overhead_stats.h: ReadOverheadStats); "" when o is not applied. Read it before
  // Stop(), which removes it; while messages flow its counts are at most 100 ms old (their
  // ratio, the CPU per message, is always of one moment).
  virtual std::string overhead_stats_dir() const { return ""; }
  // How the sandbox came up, for people, when a kind has something to say ("vm sandbox (TCG):
  // guest ... restored from its saved state in 9.2 s; its cold boot ... took 14.9 s"); "" else.
  virtual std::string startup_note() const { return ""; }
  // What SandboxOptions::keep_awake did: the CPUs kept awake, or why they are not.
  virtual std::string keep_awake_note() const {
    return "the workload's CPUs are not kept awake: this sandbox kind cannot place pollers beside it";
  }
  // Whether the workload's consumption is sampled where it runs, by the agent of the host that
  // holds it (a workload on another host), rather than here from monitor_target(). The runner
  // then opens each point's window with StartMonitorWindow and closes it with
  // StopMonitorWindow, whose result is the window's MonitorReport as its JSON document
  // (monitor/monitor.h: MonitorReport::FromJson). Kinds monitored here leave these alone.
  virtual bool monitored_remotely() const { return false; }
  virtual Status StartMonitorWindow(std::chrono::nanoseconds /*interval*/) {
    return Unsupported("this sandbox is monitored on this host");
  }
  virtual Result<nlohmann::json> StopMonitorWindow() { return Unsupported("this sandbox is monitored on this host"); }
  // A manager's move of one knob of the running workload to `level` (partition/knobs.h
  // KnobMoves: a number in the knob's own unit), written where the kind made the partition.
  // Unsupported naming the sandbox, the knob and why, for a kind or knob that cannot change while
  // its workload runs; the error of the write otherwise.
  virtual Status Move(const Knob& knob, double level);
  // Ends the workload (SIGTERM, SIGKILL after the grace) and removes what the kind created.
  // Idempotent; the first error.
  virtual Status Stop() = 0;
};

// Which partition knobs a machine can enforce, each with the reason (see PartitionSupport).
struct KnobSupport {
  std::string flag;    // the `ream exec` flag, e.g. "--memory"
  bool enforceable = false;
  std::string detail;  // the interface used, or why not
};

// One vCPU of a guest and the host CPU it is pinned to.
struct VcpuPin {
  int vcpu = 0;
  int host_cpu = 0;
};

// The host a kind's workloads run on when it is not this one (sandbox kinds of a remote host).
struct WorkloadHost {
  std::string name;   // as the user named it: "ssh:server1"
  Topology topology;  // that host's, which the scenarios are placed on
  std::string hostname, kernel;  // for the stored environment
};

// A kind of sandbox: how workloads are started, which knobs it can enforce, and what is
// recorded about the machine with an experiment. The runner takes one (default: the process
// kind); a test passes the null kind to run the runner without root.
class SandboxKind {
 public:
  virtual ~SandboxKind() = default;
  virtual std::string_view name() const = 0;
  // Starts `argv`; on failure nothing the kind created is left.
  virtual Result<std::unique_ptr<Sandbox>> Start(const SandboxOptions& options,
                                                 const std::vector<std::string>& argv) = 0;
  // The knobs this kind can enforce on this machine, without creating anything.
  virtual std::vector<KnobSupport> Support() = 0;
  // What `ream doctor` would establish, for the stored environment.
  virtual std::vector<Capability> Probe() = 0;
  // The host the workloads run on when it is not this one: its topology places the scenarios,
  // with no CPU of it kept for ream's generator (the generator is not there). nullopt: this
  // host. The error of reaching that host.
  virtual Result<std::optional<WorkloadHost>> RemoteHost() { return std::optional<WorkloadHost>(); }
  // A TCP port free now on the workload's host, for a command's "{port}" (FreeLocalPort on
  // this host by default); the error of finding one.
  virtual Result<int> FreePort();
  // Whether `program` (a path, or a name looked up in PATH) can be started on the workload's
  // host: this one (`here`) by default. NotFound naming it otherwise.
  virtual Status FindProgram(Platform& here, const std::string& program);
  // How a tenant allotted `cpus` occupies them: a guest's vCPUs, each pinned to one host CPU
  // (what the placement plan shows, from the kind that will pin them). Empty for a kind whose
  // threads the kernel schedules over the whole cpuset (a process). Pure.
  virtual std::vector<VcpuPin> VcpuPins(const std::vector<int>& /*cpus*/) const { return {}; }
};

// FindProgram on `p`'s file system.
Status FindProgramOn(Platform& p, const std::string& program);

// A TCP port free now on this host (bound to port 0 on 127.0.0.1, read back, released).
Result<int> FreeLocalPort();

// Today's kind: a process in a cgroup of its own with the partition's limits, optionally in
// its own network namespace and resctrl group.
class ProcessSandbox final : public Sandbox {
 public:
  // Stops the workload if it still runs and removes every object (errors are dropped; call
  // Stop() to see them).
  ~ProcessSandbox() override;
  ProcessSandbox(const ProcessSandbox&) = delete;
  ProcessSandbox& operator=(const ProcessSandbox&) = delete;

  const std::string& name() const override { return name_; }  // "ream-<pid>-<n>"
  int pid() const override { return child_->pid(); }
  // The node's address, or 127.0.0.1 without --node.
  std::string address() const override { return node_ip_.empty() ? "127.0.0.1" : node_ip_; }
  // The host side of the node link ("10.213.x.1"), "" without a node.
  const std::string& host_address() const { return host_ip_; }
  const std::vector<int>& cpus() const override { return cpus_; }
  MonitorTarget monitor_target() const override;
  const PartitionSpec& partition() const { return spec_; }
  const Cgroup* cgroup() const { return cgroup_.get(); }
  const ResctrlGroup* resctrl() const { return resctrl_.get(); }
  // Writes the knob to the sandbox's cgroup and keeps the partition as it now is (the monitors'
  // allotment follows a quota from the next window on).
  Status Move(const Knob& knob, double level) override;
  // Host-side veth of the node ("ream<pid>h<n>"), "" without a node.
  const std::string& host_veth() const { return host_veth_; }
  const std::string& netns() const { return netns_; }
  // The throttled disk, when disk limits are set.
  const std::optional<BlockDevice>& disk() const { return disk_; }

  bool Alive() override;
  Result<ProcessExit> Wait(std::chrono::milliseconds timeout) override;
  std::string ExitDescription() override;
  // Whether the cgroup's memory limit OOM-killed any process of the sandbox.
  bool OomKilled();
  Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                  std::chrono::milliseconds timeout) override;
  ChildProcess& process() override { return *child_; }
  std::vector<std::string> StderrTail(size_t n) override;
  std::string overhead_stats_dir() const override { return overhead_dir_; }
  std::string startup_note() const override { return awake_note_; }
  std::string keep_awake_note() const override { return awake_note_; }

  // SIGTERM to the workload, SIGKILL after stop_grace (to everything left in the cgroup),
  // then removes every kernel object and the state file. Idempotent; the first error.
  Status Stop() override;

 private:
  friend Result<std::unique_ptr<ProcessSandbox>> StartSandbox(Platform&, const SandboxOptions&,
                                                              const std::vector<std::string>&);
  explicit ProcessSandbox(Platform& p) : p_(p) {}
  Status CreateObjects(const SandboxOptions& o, const std::vector<std::string>& argv);
  // keep_awake: starts the pollers, or says in awake_note_ why not (the run goes on).
  void StartKeepAwake();
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
  std::string overhead_dir_;  // libream-overhead.so's statistics, "" without net_overhead
  std::string tmp_dir_;       // the workload's TMPDIR (/tmp/ream-PID-N.tmp), its working directory
  std::string stderr_path_;   // keep_stderr: its stderr, in tmp_dir_ ("" otherwise)
  std::vector<std::string> stderr_kept_;  // its last lines, read when it is stopped
  std::string resctrl_why_;  // why there is no resctrl group (monitoring unavailable)
  std::unique_ptr<ChildProcess> child_;
  std::unique_ptr<ChildProcess> awake_;  // `ream keep-awake` in the CPU cgroup (keep_awake)
  std::unique_ptr<KeepAwake> kernel_awake_;  // or the kernel's idle polling (keep_awake)
  std::string awake_note_;               // what keep_awake did, for startup_note()
  std::optional<ProcessExit> exit_;
  int64_t oom_kills_at_start_ = 0;
  std::optional<bool> oom_;
  bool stopped_ = false;
};

// Starts `argv` in a new sandbox. Fails, having removed whatever it created, with
// InvalidArgument (bad spec), Unsupported (a knob this machine cannot enforce, saying why),
// PermissionDenied (not root) or the error of the step that failed.
Result<std::unique_ptr<ProcessSandbox>> StartSandbox(Platform& platform,
                                                     const SandboxOptions& options,
                                                     const std::vector<std::string>& argv);

// The process kind (StartSandbox, PartitionSupport, ProbeCapabilities) on `platform`.
std::unique_ptr<SandboxKind> MakeProcessSandboxKind(Platform& platform);

// The last `n` non-empty lines of `text` (a workload's stderr), oldest first.
std::vector<std::string> LastLines(const std::string& text, size_t n);

// `match` for WaitForLine: lines starting with `prefix`.
std::function<bool(const std::string&)> StartsWith(std::string prefix);

// Which partition knobs this machine can enforce, each with the reason, without creating
// anything: "cpus", "cpu-quota", "memory", "disk", "node", "net-rate", "llc-ways", "mem-bw".
// With `probed` (ream doctor's capabilities, established by trying), the node and net-rate
// verdicts come from the probes (net.namespace, net.veth, tc.htb) instead of tool presence.
std::vector<KnobSupport> PartitionSupport(Platform& platform,
                                          const std::vector<Capability>* probed = nullptr);

}  // namespace ream
