// Sandbox creation and teardown: state file first, then cgroup, resctrl group, node, and
// the workload last; teardown in the reverse order through the state file's entries.
#include "sandbox/sandbox.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include "partition/knobs.h"
#include "partition/placement.h"
#include "platform/executable.h"
#include "platform/keep_awake.h"
#include "platform/net.h"
#include "sandbox/node_link.h"
#include "sandbox/overhead_stats.h"
#include "topology/topology.h"

namespace ream {
namespace {

std::atomic<int> g_sandbox_seq{0};

// The stderr lines a stopped sandbox keeps (keep_stderr): enough for a program's complaint and
// its usage line, few enough for an error message.
constexpr size_t kStderrLinesKept = 20;

std::string Mib(int64_t bytes) {
  char b[64];
  std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return b;
}

// Whether libream-overhead.so can be preloaded into `argv0` (net_overhead): ld.so honours
// LD_PRELOAD only in a dynamically linked program that is not setuid or setgid. A "#!" script
// is judged by its interpreter. Unsupported naming the knob and the program otherwise.
Status CheckPreloadable(Platform& p, const std::string& argv0) {
  std::string what = argv0;
  for (int depth = 0; depth < 2; ++depth) {
    auto exe = p.FindExecutable(what);
    if (!exe.ok()) return Status::Ok();  // Spawn reports a missing program better
    auto info = InspectExecutable(*exe);
    if (!info.ok()) return info.status().Annotate("net_overhead (o)");
    if (!info->interpreter.empty()) {
      what = info->interpreter;
      continue;
    }
    const std::string why =
        "net_overhead (o) is spent by libream-overhead.so, preloaded (LD_PRELOAD) into the "
        "workload, and ";
    if (info->set_id) {
      return Unsupported(why + *exe + " is setuid/setgid, so the loader ignores LD_PRELOAD; run a "
                         "copy without the set-id bits, or leave net_overhead unset");
    }
    if (info->elf && !info->dynamic) {
      return Unsupported(why + *exe + " is statically linked (no ELF interpreter), so nothing can "
                         "be preloaded into it; run a dynamically linked build, or leave "
                         "net_overhead unset");
    }
    return Status::Ok();
  }
  return Status::Ok();
}

}  // namespace

std::string WorkloadUser(Platform& p, const std::string& asked) {
  if (!asked.empty()) return asked;
  return p.EffectiveUserId() == 0 ? kDefaultWorkloadUser : "";
}

Result<std::optional<RunAs>> ResolveWorkloadUser(Platform& p, const std::string& user) {
  const bool root = p.EffectiveUserId() == 0;
  if (user.empty()) return std::optional<RunAs>();
  if (user == "root" && root) return std::optional<RunAs>();
  auto r = p.LookupUser(user);
  if (!r.ok()) {
    if (r.status().code() != StatusCode::kNotFound) return r.status().Annotate("workload user");
    std::string how = user == kDefaultWorkloadUser
                          ? "scripts/install-deps (or installing ream's .deb) creates it"
                          : "create it (useradd --system " + user + ")";
    return NotFound("the workload's user '" + user + "' does not exist on this machine: " + how +
                    ", or name another account with [workload] user / ream exec --user");
  }
  if (!root) {
    if (r->uid == p.EffectiveUserId()) return std::optional<RunAs>();  // already that user
    return Status(StatusCode::kPermissionDenied, "running the workload as user '" + user + "' needs ream to run as root");
  }
  if (r->uid == 0) return std::optional<RunAs>();  // another name of root: ream's privileges
  return std::optional<RunAs>(std::move(*r));
}

Capability WorkloadUserCapability(Platform& p, const std::string& user) {
  Capability c{"workload.user", Support::kSupported, ""};
  auto run_as = ResolveWorkloadUser(p, user);
  if (!run_as.ok()) {
    c.status = Support::kUnsupported;
    c.detail = run_as.status().message();
    return c;
  }
  if (*run_as) {
    c.detail = "user=" + (*run_as)->name + " uid=" + std::to_string((*run_as)->uid) +
               " gid=" + std::to_string((*run_as)->gid) + " no_new_privs=1 capabilities=none";
  } else {
    const int uid = p.EffectiveUserId();
    std::string name = user.empty() ? "" : user;
    if (name.empty()) name = uid == 0 ? "root" : "uid " + std::to_string(uid);
    c.detail = "user=" + name + " uid=" + std::to_string(uid) + " no_new_privs=0 capabilities=ream's (" +
               (user == "root" ? "asked for with user = \"root\"" : "ream's own user") + ")";
  }
  return c;
}

Result<int> FreeLocalPort() {
  REAM_ASSIGN_OR_RETURN(net::Fd fd, net::Listen("127.0.0.1", 0));
  return net::LocalPort(fd.get());
}

Result<int> SandboxKind::FreePort() { return FreeLocalPort(); }

Status Sandbox::Move(const Knob& knob, double /*level*/) {
  return Unsupported("sandbox " + name() + " cannot change " + knob.key +
                     " while its workload runs: its kind writes the partition only when it starts");
}

Status FindProgramOn(Platform& p, const std::string& program) {
  const bool path = program.find('/') != std::string::npos;
  if (path ? p.Exists(program) : p.FindExecutable(program).ok()) return Status::Ok();
  return NotFound("program '" + program + "' is not found" + (path ? "" : " in PATH"));
}

Status SandboxKind::FindProgram(Platform& here, const std::string& program) { return FindProgramOn(here, program); }

std::vector<std::string> LastLines(const std::string& text, size_t n) {
  std::vector<std::string> lines = Split(text, '\n', true);
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(n));
  return lines;
}

std::function<bool(const std::string&)> StartsWith(std::string prefix) {
  return [prefix = std::move(prefix)](const std::string& l) { return l.rfind(prefix, 0) == 0; };
}

Result<std::unique_ptr<ProcessSandbox>> StartSandbox(Platform& p, const SandboxOptions& o,
                                              const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].empty()) return InvalidArgument("no command to run in the sandbox");
  REAM_RETURN_IF_ERROR(o.partition.Validate());
  std::unique_ptr<ProcessSandbox> sb(new ProcessSandbox(p));
  sb->spec_ = o.partition;
  sb->stop_grace_ = o.stop_grace;
  Status s = sb->CreateObjects(o, argv);
  if (!s.ok()) {
    Status r = sb->RemoveObjects();
    if (!r.ok()) return Status(s.code(), s.message() + "; and cleaning up: " + r.message());
    return s;
  }
  return sb;
}

Status ProcessSandbox::CreateObjects(const SandboxOptions& o, const std::vector<std::string>& argv) {
  const PartitionSpec& spec = o.partition;
  // Everything that can be checked without creating objects comes first.
  REAM_ASSIGN_OR_RETURN(std::optional<RunAs> run_as, ResolveWorkloadUser(p_, o.user));
  CgroupLayout layout = DetectCgroups(p_);
  if (layout.version == 0) {
    return Unsupported("no cgroup hierarchy is mounted: a sandbox needs cgroups");
  }
  REAM_ASSIGN_OR_RETURN(Topology topo, ReadTopology(p_));
  if (!spec.cpus.empty()) {
    std::vector<int> reserved =
        o.reserved_cpus ? *o.reserved_cpus : DefaultGeneratorCpus(topo);
    REAM_ASSIGN_OR_RETURN(cpus_, ResolvePlacement(topo, spec.cpus, reserved));
  } else {
    for (const auto& c : topo.cpus) cpus_.push_back(c.id);
  }
  DiskLimits disk_limits{spec.disk_read_bps, spec.disk_write_bps, spec.disk_read_iops,
                         spec.disk_write_iops};
  if (disk_limits.any()) {
    auto dev = ResolveBlockDevice(p_, spec.disk_device);
    if (!dev.ok()) return dev.status().Annotate("disk throttling");
    disk_ = *dev;
  }
  std::optional<ResctrlInfo> resctrl_info;
  std::string schemata;
  const MemBandwidth mem_bw{spec.mem_bw_fraction, spec.mem_bw_mbps};
  std::string resctrl_why;  // why the sandbox has no resctrl group, for the monitor
  if (spec.llc_ways || mem_bw.any()) {
    auto info = ReadResctrl(p_);
    if (!info.ok()) {
      return Status(info.status().code(),
                    std::string(spec.llc_ways ? "--llc-ways" : "--mem-bw") + ": " +
                        info.status().message());
    }
    REAM_ASSIGN_OR_RETURN(schemata, BuildSchemata(*info, spec.llc_ways, mem_bw, spec.llc_masks));
    resctrl_info = *info;
  } else {
    // No partition: a monitoring group still gives LLC occupancy and memory bandwidth.
    auto info = ReadResctrl(p_);
    if (info.ok() && info->monitoring()) {
      resctrl_info = *info;
    } else {
      resctrl_why = info.ok() ? "resctrl at " + info->mount + " has no monitoring (info/L3_MON/mon_features)"
                              : info.status().message();
    }
  }
  if (spec.node) {
    auto ip = p_.FindExecutable("ip");
    if (!ip.ok()) return Unsupported("--node needs the 'ip' tool (iproute2): " + ip.status().message());
  }

  const bool overhead = spec.net_overhead && spec.net_overhead->count() > 0;
  std::string overhead_lib;
  if (overhead) {
    if (!o.overhead_library.empty()) {
      overhead_lib = o.overhead_library;
      if (!p_.Exists(overhead_lib)) {
        return Unsupported("net_overhead (o): " + overhead_lib + " does not exist");
      }
    } else {
      auto lib = FindOverheadLibrary(p_);
      if (!lib.ok()) return Unsupported("net_overhead (o): " + lib.status().message());
      overhead_lib = *lib;
    }
    REAM_RETURN_IF_ERROR(CheckPreloadable(p_, argv[0]));
  }

  if (o.cleanup_dead_runs) (void)CleanupDeadRuns(p_, o.state_dir);
  int seq = ++g_sandbox_seq;
  int pid = p_.ProcessId();
  name_ = "ream-" + std::to_string(pid) + "-" + std::to_string(seq);
  REAM_ASSIGN_OR_RETURN(state_, StateFile::Create(p_, o.state_dir, std::to_string(pid) + "-" +
                                                                     std::to_string(seq)));
  auto record = [this](const char* kind) {
    return [this, kind](const std::string& id) { return state_->Record(kind, id); };
  };

  // cgroup and its knobs.
  REAM_ASSIGN_OR_RETURN(cgroup_, Cgroup::Create(p_, layout, name_, record("cgroup")));
  if (!spec.cpus.empty()) REAM_RETURN_IF_ERROR(ApplyCpuset(*cgroup_, cpus_).Annotate("--cpus"));
  if (spec.cpu_quota) {
    REAM_RETURN_IF_ERROR(ApplyCpuQuota(*cgroup_, *spec.cpu_quota).Annotate("--cpu-quota"));
  }
  if (spec.cpu_weight) {
    REAM_RETURN_IF_ERROR(ApplyCpuWeight(*cgroup_, *spec.cpu_weight).Annotate("cpu weight"));
  }
  if (spec.cpu_idle) REAM_RETURN_IF_ERROR(ApplyCpuIdle(*cgroup_).Annotate("cpu.idle (a best-effort tenant)"));
  if (spec.memory_bytes) {
    REAM_RETURN_IF_ERROR(ApplyMemoryLimit(*cgroup_, *spec.memory_bytes).Annotate("--memory"));
    oom_kills_at_start_ = OomKillCount(*cgroup_).value_or(0);
  }
  if (disk_) {
    REAM_RETURN_IF_ERROR(
        ApplyDiskLimits(*cgroup_, *disk_, disk_limits).Annotate("disk throttling of " + disk_->name));
  }

  // resctrl group: a control group for a partition, else a monitoring group (recorded like
  // every object, so 'ream cleanup' removes it after a crash). Without a partition, failing to
  // get one (RMIDs used up) costs only the monitoring, which then says why.
  if (resctrl_info && (spec.llc_ways || mem_bw.any())) {
    REAM_ASSIGN_OR_RETURN(resctrl_, ResctrlGroup::Create(p_, *resctrl_info, name_, schemata,
                                                         record("resctrl")));
  } else if (resctrl_info) {
    auto mon = ResctrlGroup::CreateMonitoring(p_, *resctrl_info, name_, record("resctrl"));
    if (mon.ok()) {
      resctrl_ = std::move(*mon);
    } else {
      resctrl_why = mon.status().message();
    }
  }
  resctrl_why_ = resctrl_why;

  // Node: namespace, veth pair, addresses, shaping.
  if (spec.node) {
    netns_ = name_;
    host_veth_ = "ream" + std::to_string(pid) + "h" + std::to_string(seq);
    node_veth_ = "ream" + std::to_string(pid) + "n" + std::to_string(seq);
    REAM_ASSIGN_OR_RETURN(NodeLink link, MakeNodeLink(p_, *state_, netns_, host_veth_, node_veth_, pid, seq,
                                                      spec.net_rate_bps, "--net-rate"));
    host_ip_ = link.host_ip;
    node_ip_ = link.node_ip;
  }

  // The overhead o: the library's statistics directory, recorded like every object.
  if (overhead) {
    overhead_dir_ = o.state_dir + "/" + name_ + ".overhead";
    REAM_RETURN_IF_ERROR(state_->Record("statsdir", overhead_dir_));
    REAM_RETURN_IF_ERROR(p_.MakeDir(overhead_dir_).Annotate("net_overhead (o) statistics"));
    // The preloaded library writes its counts here from inside the workload's processes.
    if (run_as) {
      REAM_RETURN_IF_ERROR(
          p_.ChangeOwner(overhead_dir_, run_as->uid, run_as->gid).Annotate("net_overhead (o) statistics"));
    }
  }

  // A private TMPDIR, recorded like every object: what the workload leaves there (xapian's
  // temporary index, stream's nginx run directory, any command's files) goes with the
  // sandbox, also when ream cleanup had to SIGKILL it (systemd's PrivateTmp, as a directory).
  tmp_dir_ = "/tmp/" + name_ + ".tmp";
  REAM_RETURN_IF_ERROR(state_->Record("tmpdir", tmp_dir_));
  REAM_RETURN_IF_ERROR(p_.MakeDir(tmp_dir_).Annotate("the workload's TMPDIR"));
  if (run_as) REAM_RETURN_IF_ERROR(p_.ChangeOwner(tmp_dir_, run_as->uid, run_as->gid).Annotate("the workload's TMPDIR"));

  SpawnOptions so;
  so.argv = argv;
  so.join_files = cgroup_->ProcsFiles();
  if (resctrl_) so.join_files.push_back(resctrl_->TasksFile());
  if (!netns_.empty()) so.netns_path = "/run/netns/" + netns_;
  so.capture_stdout = o.capture_stdout;
  so.on_stdout_line = o.on_stdout_line;
  so.run_as = run_as;
  // Its TMPDIR is also where it starts: a program that writes beside itself ('.') writes where
  // its user may (stress-ng refuses to run in a directory it cannot write).
  so.working_dir = tmp_dir_;
  if (o.keep_stderr) {
    // Opened by ream before the workload runs, in the directory just made: nothing of the
    // workload's can be there yet.
    stderr_path_ = tmp_dir_ + "/ream-stderr";
    so.stderr_path = stderr_path_;
  }
  so.env = o.env;
  if (std::none_of(so.env.begin(), so.env.end(), [](const auto& kv) { return kv.first == "TMPDIR"; })) {
    so.env.emplace_back("TMPDIR", tmp_dir_);  // unless the caller chose one
  }
  so.env.emplace_back("REAM_SANDBOX", name_);
  so.env.emplace_back("REAM_NODE_ADDRESS", address());
  if (overhead) {
    // Ahead of any LD_PRELOAD the caller gave, which still loads after it.
    std::string preload = overhead_lib;
    for (auto it = so.env.begin(); it != so.env.end();) {
      if (it->first == "LD_PRELOAD") {
        if (!it->second.empty()) preload += ":" + it->second;
        it = so.env.erase(it);
      } else {
        ++it;
      }
    }
    so.env.emplace_back("LD_PRELOAD", preload);
    so.env.emplace_back("REAM_NET_OVERHEAD_NS", std::to_string(spec.net_overhead->count()));
    so.env.emplace_back("REAM_NET_OVERHEAD_STATS", overhead_dir_);
  }
  if (o.before_exec) so.before_exec = [this, &o] { o.before_exec(*this); };
  REAM_ASSIGN_OR_RETURN(child_, p_.Spawn(so));
  if (o.keep_awake) StartKeepAwake();
  return Status::Ok();
}

void ProcessSandbox::StartKeepAwake() {
  const std::string cpus = FormatCpuList(cpus_);
  // The kernel's idle polling where every CPU of the workload's allows it: no task runs, so
  // nothing is charged to the workload or competes with it, under either cgroup version and
  // any quota (platform/keep_awake.h). Pollers otherwise, and under REAM_KEEP_AWAKE=pollers.
  bool kernel = KeepAwake::FromEnvironment() == KeepAwake::Via::kBest;
  std::string why_not_kernel = "REAM_KEEP_AWAKE=pollers";
  for (int cpu : cpus_) {
    if (Status can = KeepAwake::KernelCanPoll(cpu); kernel && !can.ok()) {
      kernel = false;
      why_not_kernel = can.message();
    }
  }
  if (kernel) {
    auto k = KeepAwake::Start(cpus_);
    if (k.ok() && (*k)->polled_by_threads().empty()) {
      kernel_awake_ = std::move(*k);
      awake_note_ = "the workload's CPUs " + cpus + " " + kCpusPolledByKernel +
                    " (PM QoS resume latency 0: no task runs, nothing is charged to the workload)";
      return;
    }
    why_not_kernel = k.ok() ? (*k)->Describe() : k.status().message();
  }
  const std::string not_kept =
      "the workload's CPUs " + cpus + " are not kept awake (not by the kernel's idle polling: " + why_not_kernel + "): ";
  // Only where the pollers share the workload's CPU scheduling group and nothing else: in
  // cgroup v1's cpu hierarchy alone, with CPU time counted by a cpuacct hierarchy of its own.
  if (cgroup_->version() != 1) {
    awake_note_ = not_kept + "with cgroup v2 the pollers would share the workload's CPU and memory accounting";
    return;
  }
  const std::string cpu_dir = cgroup_->Dir("cpu");
  if (cpu_dir.empty()) {
    awake_note_ = not_kept + "the workload has no cpu cgroup to put the pollers in";
    return;
  }
  if (cgroup_->Dir("cpuacct").empty() || cgroup_->Dir("cpuacct") == cpu_dir) {
    awake_note_ = not_kept + "cpu and cpuacct share one hierarchy here, so the pollers' time would be counted as the "
                             "workload's";
    return;
  }
  // A quota below the allotment would be spent by the pollers whenever the workload idles (and
  // then throttle it); one of the whole allotment or more limits nothing the CPUs do not.
  if (spec_.cpu_quota && *spec_.cpu_quota < static_cast<double>(cpus_.size()) - 1e-9) {
    awake_note_ = not_kept + "the pollers would spend the workload's CPU quota";
    return;
  }
  auto exe = p_.RealPath("/proc/self/exe");
  if (!exe.ok()) {
    awake_note_ = not_kept + exe.status().message();
    return;
  }
  SpawnOptions so;
  so.argv = {*exe, "keep-awake", "--cpus", cpus};
  so.env = {{"REAM_KEEP_AWAKE", "pollers"}};  // what this note says, on every CPU of the list
  so.join_files = {cpu_dir + "/cgroup.procs"};
  so.capture_stdout = true;
  auto child = p_.Spawn(so);
  if (!child.ok()) {
    awake_note_ = not_kept + child.status().message();
    return;
  }
  auto ready = (*child)->WaitForLine(StartsWith("ready keep-awake"), std::chrono::milliseconds(5000));
  if (!ready.ok()) {
    (void)(*child)->Signal(SIGKILL);
    (void)(*child)->Wait(std::chrono::milliseconds(2000));
    awake_note_ = not_kept + "ream keep-awake did not start: " + ready.status().message();
    return;
  }
  awake_ = std::move(*child);
  awake_note_ = "the workload's CPUs " + cpus + " " + kWorkloadCpusKeptAwake + " in its cpu cgroup (pid " +
                std::to_string(awake_->pid()) + "; their time is not in its cpuacct group; not the kernel's idle polling: " +
                why_not_kernel + ")";
}

ProcessSandbox::~ProcessSandbox() { (void)Stop(); }

bool ProcessSandbox::Alive() {
  if (exit_) return false;
  exit_ = child_->Poll();
  return !exit_;
}

Result<ProcessExit> ProcessSandbox::Wait(std::chrono::milliseconds timeout) {
  if (exit_) return *exit_;
  auto r = child_->Wait(timeout);
  if (r.ok()) exit_ = *r;
  return r;
}

bool ProcessSandbox::OomKilled() {
  if (oom_) return *oom_;
  if (!cgroup_ || !spec_.memory_bytes || cgroup_->dirs().empty()) return false;
  auto n = OomKillCount(*cgroup_);
  bool oom = n.ok() && *n > oom_kills_at_start_;
  if (exit_) oom_ = oom;  // final once the workload has ended
  return oom;
}

std::string ProcessSandbox::ExitDescription() {
  if (!exit_) Alive();
  if (!exit_) return "still running";
  bool oom = OomKilled();
  if (oom && exit_->signaled && exit_->signal == SIGKILL) {
    return "killed by the memory limit (OOM) of " + Mib(*spec_.memory_bytes);
  }
  std::string d = exit_->Describe();
  if (oom) d += "; the memory limit (OOM) of " + Mib(*spec_.memory_bytes) + " killed a process in it";
  return d;
}

Result<std::string> ProcessSandbox::WaitForLine(const std::function<bool(const std::string&)>& match,
                                         std::chrono::milliseconds timeout) {
  return child_->WaitForLine(match, timeout);
}

Status ProcessSandbox::Stop() {
  if (stopped_) return Status::Ok();
  stopped_ = true;
  if (child_ && Alive()) {
    (void)child_->Signal(SIGTERM);
    auto r = child_->Wait(stop_grace_);
    if (r.ok()) {
      exit_ = *r;
    } else {
      (void)child_->Signal(SIGKILL);
      auto k = child_->Wait(std::chrono::milliseconds(5000));
      if (k.ok()) exit_ = *k;
    }
  }
  kernel_awake_.reset();  // the CPUs' PM QoS values put back
  if (awake_) {
    // The pollers hold nothing to save: killed, and reaped before their cgroup goes.
    (void)awake_->Signal(SIGKILL);
    (void)awake_->Wait(std::chrono::milliseconds(2000));
    awake_.reset();
  }
  // The OOM verdict needs the cgroup, so it is read before the cgroup goes; its stderr before
  // its TMPDIR goes.
  if (exit_) (void)OomKilled();
  if (!stderr_path_.empty()) stderr_kept_ = LastLines(p_.ReadFile(stderr_path_).value_or(""), kStderrLinesKept);
  return RemoveObjects();
}

std::vector<std::string> ProcessSandbox::StderrTail(size_t n) {
  if (stderr_path_.empty()) return {};
  std::vector<std::string> lines = stopped_ ? stderr_kept_ : LastLines(p_.ReadFile(stderr_path_).value_or(""), n);
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(n));
  return lines;
}

Status ProcessSandbox::RemoveObjects() {
  if (!state_) return Status::Ok();
  // SIGKILL whatever the workload left behind in its cgroup (daemons, children).
  if (cgroup_) {
    for (int pid : cgroup_->Pids()) (void)p_.Kill(pid, SIGKILL);
  }
  auto errors = RemoveStateObjects(p_, state_->entries());
  // The C++ owners now find their objects gone.
  if (cgroup_) (void)cgroup_->Destroy();
  if (resctrl_) (void)resctrl_->Destroy();
  if (!errors.empty()) {
    std::string msg;
    for (const auto& e : errors) msg += (msg.empty() ? "" : "; ") + e.message();
    return IoError("removing the objects of sandbox " + name_ + ": " + msg +
                   " (recorded in " + state_->path() + "; 'ream cleanup' retries)");
  }
  Status s = state_->Remove();
  state_.reset();
  return s;
}

Status ProcessSandbox::Move(const Knob& knob, double level) {
  if (!knob.moves) return InvalidArgument(knob.key + " is not a knob a manager moves: " + knob.fixed_while_running);
  if (!knob.moves->write) {
    return Unsupported("sandbox " + name_ + " cannot move " + knob.key + " while it runs: " + knob.moves->write_elsewhere);
  }
  if (!cgroup_) return Unsupported("sandbox " + name_ + " has no cgroup to write " + knob.key + " to");
  REAM_RETURN_IF_ERROR(knob.moves->write(*cgroup_, level).Annotate(name_ + ": " + knob.key));
  knob.apply(knob.moves->value(level), &spec_);
  return Status::Ok();
}

MonitorTarget ProcessSandbox::monitor_target() const {
  MonitorTarget t;
  t.cgroup = cgroup_.get();
  t.cpus = cpus_;
  t.cpu_quota = spec_.cpu_quota;
  t.host_veth = host_veth_;
  t.resctrl = resctrl_.get();
  t.resctrl_reason = resctrl_why_;
  t.disk = disk_;
  return t;
}

namespace {

class ProcessSandboxKind final : public SandboxKind {
 public:
  explicit ProcessSandboxKind(Platform& p) : p_(p) {}
  std::string_view name() const override { return "process"; }
  Result<std::unique_ptr<Sandbox>> Start(const SandboxOptions& options,
                                         const std::vector<std::string>& argv) override {
    REAM_ASSIGN_OR_RETURN(std::unique_ptr<ProcessSandbox> sb, StartSandbox(p_, options, argv));
    return std::unique_ptr<Sandbox>(std::move(sb));
  }
  std::vector<KnobSupport> Support() override { return PartitionSupport(p_); }
  std::vector<Capability> Probe() override { return ProbeCapabilities(p_); }

 private:
  Platform& p_;
};

}  // namespace

std::unique_ptr<SandboxKind> MakeProcessSandboxKind(Platform& platform) {
  return std::make_unique<ProcessSandboxKind>(platform);
}

std::vector<KnobSupport> PartitionSupport(Platform& p, const std::vector<Capability>* probed) {
  // One verdict per row of the knob table's support list, by the row's kind of probe.
  const KnobTable& knobs = BuiltinKnobs();
  std::vector<KnobSupport> out;
  CgroupLayout layout = DetectCgroups(p);
  auto cg = [&](const KnobSupportRow& row) {
    KnobSupport k{row.flag, false, ""};
    if (layout.version == 2) {
      std::string ctls = Trim(p.ReadFile(layout.v2_root + "/cgroup.controllers").value_or(""));
      bool has = false;
      for (const auto& c : Split(ctls, ' ')) has = has || c == row.v2_controller;
      k.enforceable = has;
      k.detail = has ? "cgroup v2 " + row.v2_file
                     : "cgroup v2 controller '" + row.v2_controller + "' is not available";
    } else if (layout.version == 1) {
      std::string m = layout.V1Mount(row.v1_controller);
      k.enforceable = !m.empty() && p.Exists(m + "/" + row.v1_file);
      k.detail = k.enforceable ? "cgroup v1 " + m + "/" + row.v1_file
                               : "cgroup v1 controller '" + row.v1_controller + "' is not mounted or lacks " +
                                     row.v1_file;
    } else {
      k.detail = "no cgroup hierarchy is mounted";
    }
    return k;
  };
  auto ip = p.FindExecutable("ip");
  auto tc = p.FindExecutable("tc");
  bool netns_ok = ip.ok() && p.IsDirectory("/proc/self/ns") && p.Exists("/proc/self/ns/net");
  auto rc = ReadResctrl(p);
  for (const KnobSupportRow& row : knobs.support_rows()) {
    KnobSupport k{row.flag, false, ""};
    // What ream doctor established by trying beats what is installed.
    std::vector<const char*> needs;
    switch (row.probe) {
      case KnobProbe::kCgroup:
        k = cg(row);
        break;
      case KnobProbe::kNode:
        k.enforceable = netns_ok;
        k.detail = netns_ok ? "network namespace + veth pair (ip), addresses in " + std::string(kNodeNetwork)
                            : (ip.ok() ? "no network namespaces in this kernel"
                                       : "the 'ip' tool is missing: " + ip.status().message());
        needs = {"net.namespace", "net.veth"};
        break;
      case KnobProbe::kNodeShaping:
        k.enforceable = netns_ok && tc.ok();
        k.detail = !tc.ok() ? "the 'tc' tool is missing"
                            : "tc htb on both ends of the node's veth ('ream doctor' tries htb)";
        needs = {"net.namespace", "net.veth", "tc.htb"};
        break;
      case KnobProbe::kResctrlL3:
        if (!rc.ok()) {
          k.detail = rc.status().message();
        } else {
          k.enforceable = rc->l3;
          k.detail = rc->l3 ? "resctrl L3 CAT, " + std::to_string(rc->cbm_bits) + " ways" +
                                  (rc->cdp ? " (CDP: L3CODE/L3DATA)" : "") +
                                  (rc->sparse_masks ? ", sparse masks" : ", contiguous masks")
                            : "no info/L3 in " + rc->mount;
        }
        break;
      case KnobProbe::kResctrlMba:
        if (!rc.ok()) {
          k.detail = rc.status().message();
        } else {
          k.enforceable = rc->mb;
          k.detail = !rc->mb ? "no info/MB in " + rc->mount
                     : rc->mb_unit == MbUnit::kMBps ? std::string("resctrl MBA in MB/s (mba_MBps mount)")
                     : rc->mb_unit == MbUnit::kAmdEighthGBps
                         ? "resctrl MBA (AMD, 1/8 GB/s units, max " + std::to_string(rc->mb_max) + "; percent or MBps)"
                         : "resctrl MBA in percent, min " + std::to_string(rc->min_bandwidth) +
                               " (MBps needs the mba_MBps mount option)";
        }
        break;
      case KnobProbe::kRelay:
        k.enforceable = true;
        k.detail = "ream's in-path relay (ream relay) between the generator and the workload, on the "
                   "generator's CPUs: L, g, G at message granularity";
        break;
      case KnobProbe::kQdisc: {
        // Only ream doctor's probes (a qdisc added on a throwaway veth) can tell.
        k.enforceable = false;
        k.detail = row.how + " (not tried here: 'ream doctor' tries it)";
        if (probed) {
          std::string missing;
          bool all = true;
          for (const auto& n : row.capabilities) {
            const Capability* c = FindCapability(*probed, n);
            if (!c || c->status != Support::kSupported) {
              all = false;
              missing += (missing.empty() ? "" : "; ") + n + " " +
                         (c ? std::string(SupportName(c->status)) + ": " + c->detail : std::string("not probed"));
            }
          }
          k.enforceable = all;
          k.detail = all ? row.how + " (probed: available)" : missing + " (so: " + row.how + " is not available)";
        }
        break;
      }
    }
    if (probed) {
      for (const char* n : needs) {
        const Capability* c = FindCapability(*probed, n);
        if (c && c->status != Support::kSupported) {
          k.enforceable = false;
          k.detail = std::string(n) + " " + std::string(SupportName(c->status)) + ": " + c->detail;
          break;
        }
      }
    }
    out.push_back(k);
  }
  return out;
}

}  // namespace ream
