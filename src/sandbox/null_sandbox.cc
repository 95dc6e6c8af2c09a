#include "sandbox/null_sandbox.h"

#include <mutex>

#include "partition/knobs.h"

namespace ream {
namespace {

std::mutex moves_mu;
std::vector<NullMove>& Moves() {
  static std::vector<NullMove> moves;
  return moves;
}

constexpr char kWhy[] = "the null sandbox creates no cgroup: nothing accounts the workload's consumption";

class NullSandbox final : public Sandbox {
 public:
  NullSandbox(Platform& p, std::string name, std::unique_ptr<ChildProcess> child, std::chrono::milliseconds grace,
              std::vector<int> cpus, std::string stderr_path)
      : p_(p),
        name_(std::move(name)),
        child_(std::move(child)),
        grace_(grace),
        cpus_(std::move(cpus)),
        stderr_path_(std::move(stderr_path)) {}
  ~NullSandbox() override { (void)Stop(); }

  const std::string& name() const override { return name_; }
  int pid() const override { return child_->pid(); }
  std::string address() const override { return "127.0.0.1"; }
  const std::vector<int>& cpus() const override { return cpus_; }
  MonitorTarget monitor_target() const override {
    MonitorTarget t;
    t.unavailable_reason = kWhy;
    return t;
  }
  bool Alive() override {
    if (!exit_) exit_ = child_->Poll();
    return !exit_;
  }
  Result<ProcessExit> Wait(std::chrono::milliseconds timeout) override {
    if (exit_) return *exit_;
    auto r = child_->Wait(timeout);
    if (r.ok()) exit_ = *r;
    return r;
  }
  std::string ExitDescription() override {
    if (!exit_) Alive();
    return exit_ ? exit_->Describe() : "still running";
  }
  Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                  std::chrono::milliseconds timeout) override {
    return child_->WaitForLine(match, timeout);
  }
  ChildProcess& process() override { return *child_; }
  std::vector<std::string> StderrTail(size_t n) override {
    if (!stderr_path_.empty()) kept_ = LastLines(p_.ReadFile(stderr_path_).value_or(""), 20);
    std::vector<std::string> lines = kept_;
    if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(n));
    return lines;
  }
  Status Move(const Knob& knob, double level) override {
    std::lock_guard<std::mutex> l(moves_mu);
    Moves().push_back({name_, argv_, knob.key, level});
    return Status::Ok();
  }
  Status Stop() override {
    if (!stderr_path_.empty()) {
      (void)StderrTail(0);
      (void)p_.RemoveFile(stderr_path_);
      stderr_path_.clear();
    }
    if (!Alive()) return Status::Ok();
    (void)child_->Signal(SIGTERM);
    auto r = child_->Wait(grace_);
    if (!r.ok()) {
      (void)child_->Signal(SIGKILL);
      r = child_->Wait(std::chrono::milliseconds(5000));
    }
    if (r.ok()) exit_ = *r;
    return r.ok() ? Status::Ok() : r.status();
  }

 private:
  Platform& p_;
  std::string name_;
  std::unique_ptr<ChildProcess> child_;
  std::chrono::milliseconds grace_;
  std::vector<int> cpus_;  // as asked: recorded, not enforced
  std::string stderr_path_;  // keep_stderr: a file in /tmp, removed by Stop() ("" after)
  std::vector<std::string> kept_;

 public:
  std::vector<std::string> argv_;  // as started, for NullSandboxMoves
  std::optional<ProcessExit> exit_;
};

class NullSandboxKind final : public SandboxKind {
 public:
  explicit NullSandboxKind(Platform& p) : p_(p) {}
  std::string_view name() const override { return "null"; }
  Result<std::unique_ptr<Sandbox>> Start(const SandboxOptions& o, const std::vector<std::string>& argv) override {
    // Placement is the one thing it takes, and only to report it: the runner always names the
    // scenario's CPUs. Every other knob is refused rather than silently not applied.
    PartitionSpec rest = o.partition;
    rest.cpus.clear();
    if (!rest.empty()) {
      return Unsupported("the null sandbox enforces no partition (asked for " + rest.ToJson().dump() + ")");
    }
    std::vector<int> cpus;
    if (!o.partition.cpus.empty()) {
      auto parsed = ParseCpuList(o.partition.cpus);
      if (!parsed.ok()) return parsed.status();
      cpus = *parsed;
    }
    SpawnOptions so;
    so.argv = argv;
    // The user is honoured like the process kind's: it needs no kernel object.
    REAM_ASSIGN_OR_RETURN(so.run_as, ResolveWorkloadUser(p_, o.user));
    so.capture_stdout = o.capture_stdout;
    so.on_stdout_line = o.on_stdout_line;
    so.env = o.env;
    std::string name = "ream-null-" + std::to_string(p_.ProcessId()) + "-" + std::to_string(++started_);
    so.env.emplace_back("REAM_SANDBOX", name);
    so.env.emplace_back("REAM_NODE_ADDRESS", "127.0.0.1");
    if (o.keep_stderr) so.stderr_path = "/tmp/" + name + ".stderr";
    auto child = p_.Spawn(so);
    if (!child.ok()) {
      if (o.keep_stderr) (void)p_.RemoveFile(so.stderr_path);
      return child.status();
    }
    auto sb = std::make_unique<NullSandbox>(p_, std::move(name), std::move(child).value(), o.stop_grace,
                                            std::move(cpus), so.stderr_path);
    sb->argv_ = argv;
    if (o.before_exec) o.before_exec(*sb);  // after the fact: nothing to join before exec here
    return std::unique_ptr<Sandbox>(std::move(sb));
  }
  std::vector<KnobSupport> Support() override {
    std::vector<KnobSupport> out;
    // Every row of the knob table's support list, none enforceable; the placement row says why.
    for (const KnobSupportRow& row : BuiltinKnobs().support_rows()) {
      out.push_back({row.flag, false,
                     row.flag == "--cpus" ? "the null sandbox records the CPUs it is given but does not pin to them"
                                          : "the null sandbox enforces no partition"});
    }
    return out;
  }
  std::vector<Capability> Probe() override { return {}; }

 private:
  Platform& p_;
  int started_ = 0;
};

}  // namespace

std::unique_ptr<SandboxKind> MakeNullSandboxKind(Platform& platform) {
  return std::make_unique<NullSandboxKind>(platform);
}

std::vector<NullMove> NullSandboxMoves() {
  std::lock_guard<std::mutex> l(moves_mu);
  return Moves();
}

}  // namespace ream
