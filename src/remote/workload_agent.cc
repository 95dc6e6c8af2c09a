// The workload side of `ream agent` (remote/workload_agent.h).
#include "remote/workload_agent.h"


#include "monitor/monitor.h"
#include "topology/topology.h"

namespace ream {

using nlohmann::json;
using std::chrono::milliseconds;

namespace {
// The workload's last stderr lines sent with its end (SandboxOptions::keep_stderr).
constexpr size_t kStderrTailLines = 10;
}  // namespace

json SandboxOptionsToJson(const SandboxOptions& o) {
  json env = json::array();
  for (const auto& [k, v] : o.env) env.push_back({k, v});
  return {{"partition", o.partition.ToJson()},
          {"reserved_cpus", o.reserved_cpus ? json(*o.reserved_cpus) : json(nullptr)},
          {"user", o.user},
          {"env", env},
          {"keep_awake", o.keep_awake},
          {"keep_stderr", o.keep_stderr},
          {"stop_grace_ms", o.stop_grace.count()}};
}

namespace {
Result<SandboxOptions> OptionsFromJson(const json& j) {
  if (!j.is_object()) return InvalidArgument("sandbox options are a JSON object, got " + j.dump());
  SandboxOptions o;
  REAM_ASSIGN_OR_RETURN(o.partition, PartitionSpec::FromJson(j.value("partition", json::object())));
  if (auto it = j.find("reserved_cpus"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return InvalidArgument("sandbox option reserved_cpus is not a list: " + it->dump());
    std::vector<int> cpus;
    for (const auto& c : *it) {
      if (!c.is_number_integer()) return InvalidArgument("sandbox option reserved_cpus holds " + c.dump());
      cpus.push_back(c.get<int>());
    }
    o.reserved_cpus = cpus;
  }
  if (auto it = j.find("user"); it != j.end() && !it->is_string()) {
    return InvalidArgument("sandbox option user is not a string: " + it->dump());
  }
  o.user = j.value("user", std::string());
  if (auto it = j.find("env"); it != j.end() && it->is_array()) {
    for (const auto& kv : *it) {
      if (!kv.is_array() || kv.size() != 2 || !kv[0].is_string() || !kv[1].is_string()) {
        return InvalidArgument("sandbox option env holds " + kv.dump());
      }
      o.env.emplace_back(kv[0].get<std::string>(), kv[1].get<std::string>());
    }
  }
  o.keep_awake = j.value("keep_awake", false);
  o.keep_stderr = j.value("keep_stderr", false);
  const auto grace = j.find("stop_grace_ms");
  if (grace != j.end() && !grace->is_number_integer()) {
    return InvalidArgument("sandbox option stop_grace_ms is not a number of milliseconds: " + grace->dump());
  }
  if (grace != j.end()) o.stop_grace = milliseconds(grace->get<int64_t>());
  return o;
}
}  // namespace

Result<SandboxOptions> SandboxOptionsFromJson(const json& j) {
  try {
    return OptionsFromJson(j);
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("sandbox options with a field of the wrong type: ") + e.what());
  }
}

WorkloadAgent::WorkloadAgent(Platform& p, std::function<bool(const json&)> send) : p_(p), send_(std::move(send)) {}

WorkloadAgent::~WorkloadAgent() { (void)StopSandbox(); }

bool WorkloadAgent::Handles(const std::string& type) {
  for (const char* t : {"host", "free_port", "find_program", "sandbox_start", "monitor_start", "monitor_stop",
                        "sandbox_signal", "sandbox_stop"}) {
    if (type == t) return true;
  }
  return false;
}

bool WorkloadAgent::Error(const std::string& message, const json& request) {
  json e = {{"type", "error"}, {"message", message}};
  if (request.is_object() && request.contains("id")) e["id"] = request["id"];
  return Reply(e);
}

bool WorkloadAgent::Handle(const json& m) {
  // A field of the wrong type (another ream on the other end) is refused, not thrown out of
  // the agent.
  try {
    return HandleChecked(m);
  } catch (const json::exception& e) {
    return Error(std::string("a malformed message: ") + e.what(), m);
  }
}

bool WorkloadAgent::HandleChecked(const json& m) {
  const std::string type = m.value("type", std::string());
  if (type == "host") return Host(m);
  if (type == "free_port") {
    auto port = FreeLocalPort();
    if (!port.ok()) return Error("no free TCP port here: " + port.status().message(), m);
    return Reply({{"type", "free_port"}, {"port", *port}});
  }
  if (type == "find_program") {
    Status found = FindProgramOn(p_, m.value("program", std::string()));
    return Reply({{"type", "program"}, {"found", found.ok()}, {"message", found.message()}});
  }
  if (type == "sandbox_start") return StartSandbox(m);
  if (type == "sandbox_stop") {
    json stopped = StopSandbox();
    stopped["type"] = "sandbox_stopped";
    return Reply(stopped);
  }
  if (!sandbox_) return Error("no workload runs here (its sandbox was not started, or is stopped)", m);
  if (type == "monitor_start") {
    const int64_t interval = m.value("interval_ns", int64_t{250'000'000});
    monitor_ = std::make_unique<Monitor>(p_, TargetOf(*sandbox_),
                                         MonitorOptions{.interval = std::chrono::nanoseconds(interval)});
    Status s = monitor_->Start();
    if (!s.ok()) {
      monitor_.reset();
      return Error("the monitor could not start: " + s.message(), m);
    }
    return Reply({{"type", "monitor_started"}});
  }
  if (type == "monitor_stop") {
    if (!monitor_) return Error("no monitor window is open", m);
    MonitorReport r = monitor_->Stop();
    monitor_.reset();
    return Reply({{"type", "monitor"}, {"report", r.ToJson()}});
  }
  if (type == "sandbox_signal") {
    Status s = sandbox_->process().Signal(m.value("signal", SIGTERM));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return Error(s.message(), m);
    return Reply({{"type", "signalled"}});
  }
  return Error("unknown message type '" + type + "'", m);
}

bool WorkloadAgent::Host(const json& m) {
  // Sandboxes need root: refused now, before the coordinator validates anything against this host.
  if (p_.EffectiveUserId() != 0) {
    return Error("the agent runs as uid " + std::to_string(p_.EffectiveUserId()) +
                     " there: a workload's sandbox (cgroups, cpusets) needs root on its host; log in as root "
                     "(User root for that host in the ssh configuration)",
                 m);
  }
  auto topology = ReadTopology(p_);
  if (!topology.ok()) return Error("its CPU topology: " + topology.status().message(), m);
  std::vector<Capability> caps = ProbeCapabilities(p_);
  caps.push_back(WorkloadUserCapability(p_, WorkloadUser(p_, m.value("user", std::string()))));
  json support = json::array();
  for (const KnobSupport& k : PartitionSupport(p_, &caps)) {
    support.push_back({{"flag", k.flag}, {"enforceable", k.enforceable}, {"detail", k.detail}});
  }
  return Reply({{"type", "host"},
                {"topology", topology->ToJson()},
                {"hostname", Trim(p_.ReadFile("/proc/sys/kernel/hostname").value_or(""))},
                {"kernel", Trim(p_.ReadFile("/proc/sys/kernel/osrelease").value_or(""))},
                {"capabilities", CapabilitiesToJson(caps)},
                {"support", support}});
}

bool WorkloadAgent::StartSandbox(const json& m) {
  if (sandbox_) return Error("a workload already runs here; stop it first", m);
  auto options = SandboxOptionsFromJson(m.value("options", json()));
  if (!options.ok()) return Error(options.status().message(), m);
  std::vector<std::string> argv;
  if (auto it = m.find("argv"); it != m.end() && it->is_array()) {
    for (const auto& a : *it) {
      if (a.is_string()) argv.push_back(a.get<std::string>());
    }
  }
  if (argv.empty()) return Error("sandbox_start without a command (argv)", m);
  if (m.value("argv0_is_ream", false)) {
    // A builtin workload is `ream serve ...`: this host's ream, the one running this agent. A
    // co-runner's `ream corun -- ream pressure ...` names the coordinator's ream twice: each
    // is this host's.
    auto self = p_.RealPath("/proc/self/exe");
    if (!self.ok()) return Error("finding this ream: " + self.status().message(), m);
    const std::string theirs = argv[0];
    for (std::string& a : argv) {
      if (a == theirs) a = *self;
    }
  }
  const uint64_t id = m.value("id", uint64_t{0});
  options->capture_stdout = true;
  auto send = send_;
  options->on_stdout_line = [send, id](const std::string& line) {
    (void)send({{"type", "workload_line"}, {"sandbox", id}, {"line", line}});
  };
  auto sb = ream::StartSandbox(p_, *options, argv);
  if (!sb.ok()) {
    std::string why = sb.status().message();
    if (sb.status().code() == StatusCode::kPermissionDenied && m.value("argv0_is_ream", false)) {
      why += " (the workload's account must be able to run this host's ream at " + argv[0] +
             ": install ream there, e.g. the .deb, or run the workload as root)";
    }
    return Error("the workload's sandbox could not start: " + why, m);
  }
  sandbox_ = std::move(sb).value();
  sandbox_id_ = id;
  exit_sent_ = false;
  return Reply({{"type", "sandbox"},
                {"id", id},
                {"name", sandbox_->name()},
                {"pid", sandbox_->pid()},
                {"cpus", sandbox_->cpus()},
                {"startup_note", sandbox_->startup_note()},
                {"keep_awake_note", sandbox_->keep_awake_note()}});
}

bool WorkloadAgent::Tick() {
  if (!sandbox_ || exit_sent_ || sandbox_->Alive()) return true;
  // Every output line is forwarded (from the reader) before the exit is said.
  (void)sandbox_->process().WaitForOutputEnd(milliseconds(500));
  exit_sent_ = true;
  return Reply({{"type", "workload_exit"},
                {"sandbox", sandbox_id_},
                {"exit", ExitJson()},
                {"description", sandbox_->ExitDescription()},
                {"stderr", sandbox_->StderrTail(kStderrTailLines)}});
}

json WorkloadAgent::ExitJson() {
  auto e = sandbox_->Wait(milliseconds(0));
  if (!e.ok()) return nullptr;
  return {{"signaled", e->signaled}, {"exit_code", e->exit_code}, {"signal", e->signal}};
}

json WorkloadAgent::StopSandbox() {
  if (monitor_) {
    (void)monitor_->Stop();
    monitor_.reset();
  }
  json out = {{"error", ""}, {"exit", nullptr}, {"description", nullptr}};
  if (!sandbox_) return out;
  Status s = sandbox_->Stop();
  if (!s.ok()) out["error"] = s.message();
  out["exit"] = ExitJson();
  out["description"] = sandbox_->ExitDescription();
  out["stderr"] = sandbox_->StderrTail(kStderrTailLines);
  sandbox_.reset();
  return out;
}

}  // namespace ream
