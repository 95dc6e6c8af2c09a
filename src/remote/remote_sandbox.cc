// A workload on another host, through its agent (remote/remote_sandbox.h).
#include "remote/remote_sandbox.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>

#include "remote/agent_protocol.h"
#include "remote/agent_session.h"
#include "remote/workload_agent.h"
#include "sandbox/state.h"

namespace ream {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// `j[key]` as a T, or `fallback` when it is absent or of another type: what the other host
// sends is read without anything thrown (a different ream, a damaged line).
template <typename T>
T Field(const json& j, const char* key, T fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

// What the agent said of one sandbox's workload, unasked: its output lines and its end.
struct WorkloadEvents {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> lines;  // the last 1000
  size_t total_lines = 0;
  std::optional<ProcessExit> exit;
  std::string exit_description;
  std::vector<std::string> stderr_tail;  // its last stderr lines, sent with its end
  bool ended = false;  // the agent said it ended (every line before it has come)
  std::function<void(const std::string&)> on_line;
};

std::optional<ProcessExit> ExitFromJson(const json& j) {
  if (!j.is_object()) return std::nullopt;
  ProcessExit e;
  e.signaled = Field(j, "signaled", false);
  e.exit_code = Field(j, "exit_code", 0);
  e.signal = Field(j, "signal", 0);
  return e;
}

// The session to the workload's host, shared by the kind and its sandboxes.
class Link {
 public:
  Link(Platform& p, RemoteSandboxOptions o) : p_(p), o_(std::move(o)) {}
  ~Link() {
    if (session_) session_->Close(milliseconds(10000));  // the agent removes the sandbox first
    session_.reset();
    scratch_.reset();  // after the session: its stderr file is in it
  }

  Platform& platform() { return p_; }
  const RemoteSandboxOptions& options() const { return o_; }
  const std::string& what() const { return what_; }

  // Reaches the host once: probe, copy, the agent, its hello and its "host" report. The first
  // failure is kept and returned again.
  Status Connect() {
    std::lock_guard<std::mutex> lock(request_mu_);
    if (tried_) return connected_;
    tried_ = true;
    connected_ = DoConnect();
    if (!connected_.ok() && session_) session_->Kill(p_);
    return connected_;
  }

  // One request and its reply of `reply_type`; an "error" reply is Unavailable with the
  // agent's message, a lost session Unavailable with why. Each names the host.
  Result<json> Request(json m, const std::string& reply_type, milliseconds timeout) {
    REAM_RETURN_IF_ERROR(Connect());
    std::lock_guard<std::mutex> lock(request_mu_);
    Status sent = session_->Send(m);
    if (!sent.ok()) return Unavailable(what_ + ": " + (session_->Alive() ? sent.message() : session_->WhyEnded(p_)));
    auto r = session_->Await(p_, reply_type, p_.MonotonicNanos() + timeout.count() * 1'000'000);
    if (!r.ok()) return Status(r.status().code(), what_ + ": " + r.status().message());
    if (agent::MessageType(*r) == "error") return Unavailable(what_ + ": " + Field(*r, "message", std::string("?")));
    return r;
  }

  bool Alive() { return session_ && session_->Alive(); }
  std::string WhyEnded() { return session_ ? session_->WhyEnded(p_) : "never connected"; }
  const json& host() const { return host_; }

  std::shared_ptr<WorkloadEvents> Events(uint64_t id) {
    std::lock_guard<std::mutex> lock(events_mu_);
    auto& e = events_[id];
    if (!e) e = std::make_shared<WorkloadEvents>();
    return e;
  }
  uint64_t NextId() { return ++next_id_; }

 private:
  Status DoConnect() {
    what_ = "workload host ssh:" + o_.host;
    REAM_ASSIGN_OR_RETURN(scratch_, ScratchDir::Create(p_, o_.ssh.state_dir, o_.ssh.scratch_dir, "ream-workload"));
    REAM_ASSIGN_OR_RETURN(ThisReam self, IdentifyThisReam(p_, o_.ssh.ream_binary));
    REAM_ASSIGN_OR_RETURN(RemoteReam ream, PrepareRemoteReam(p_, o_.ssh, what_, o_.host, self, 0));
    if (!ream.note.empty() && o_.ssh.note) o_.ssh.note(ream.note);
    session_ = std::make_unique<AgentSession>("ssh:" + o_.host, o_.host, scratch_->path() + "/workload-agent.err", "");
    session_->on_event = [this](const json& m) { return OnEvent(m); };
    REAM_RETURN_IF_ERROR(session_->Start(p_, SshArgv(o_.ssh, o_.host, "exec " + ream.command + " agent")));
    REAM_RETURN_IF_ERROR(session_->Send({{"type", "hello"}, {"protocol", agent::kProtocolVersion}}));
    auto hello = session_->Await(p_, "hello", p_.MonotonicNanos() + o_.ssh.connect_timeout.count() * 1'000'000);
    if (!hello.ok()) return Status(hello.status().code(), what_ + ": the agent did not start: " + hello.status().message());
    if (Field(*hello, "protocol", 0) != agent::kProtocolVersion) {
      return Unsupported(what_ + ": its agent speaks protocol " + std::to_string(Field(*hello, "protocol", 0)) +
                         ", this ream " + std::to_string(agent::kProtocolVersion));
    }
    // The host's probes try kernel objects (ream doctor's), which takes a few seconds.
    REAM_RETURN_IF_ERROR(session_->Send({{"type", "host"}, {"user", o_.workload_user}}));
    auto host = session_->Await(p_, "host", p_.MonotonicNanos() + 120'000'000'000LL);
    if (!host.ok()) return Status(host.status().code(), what_ + ": " + host.status().message());
    if (agent::MessageType(*host) == "error") return Unavailable(what_ + ": " + Field(*host, "message", std::string("?")));
    if (!host->contains("topology")) return Corrupt(what_ + ": its host report has no topology: " + host->dump());
    host_ = std::move(host).value();
    return Status::Ok();
  }

  // The workload's lines and end, from the session's reader thread (which nothing may throw
  // out of: a malformed event is dropped).
  bool OnEvent(const json& m) {
    const std::string type = agent::MessageType(m);
    if (type != "workload_line" && type != "workload_exit") return false;
    try {
      TakeEvent(type, m);
    } catch (const json::exception&) {
    }
    return true;
  }
  void TakeEvent(const std::string& type, const json& m) {
    auto e = Events(Field(m, "sandbox", uint64_t{0}));
    std::function<void(const std::string&)> on_line;
    std::string line;
    {
      std::lock_guard<std::mutex> lock(e->mu);
      if (type == "workload_line") {
        line = Field(m, "line", std::string());
        e->lines.push_back(line);
        if (e->lines.size() > 1000) e->lines.pop_front();
        ++e->total_lines;
        on_line = e->on_line;
      } else {
        e->exit = ExitFromJson(Field(m, "exit", json()));
        e->exit_description = Field(m, "description", std::string());
        e->stderr_tail = Field(m, "stderr", std::vector<std::string>());
        e->ended = true;
      }
      e->cv.notify_all();
    }
    if (on_line) on_line(line);
  }

  Platform& p_;
  RemoteSandboxOptions o_;
  std::string what_ = "workload host";
  std::unique_ptr<ScratchDir> scratch_;
  std::mutex request_mu_;  // one request and its reply at a time
  bool tried_ = false;
  Status connected_;
  json host_;
  std::mutex events_mu_;
  std::map<uint64_t, std::shared_ptr<WorkloadEvents>> events_;
  uint64_t next_id_ = 0;
  // Last, so it goes first: its reader thread calls OnEvent.
  std::unique_ptr<AgentSession> session_;
};

// The workload's process as this host sees it: its output and end as the agent forwarded them,
// signals sent through the agent.
class RemoteProcess final : public ChildProcess {
 public:
  RemoteProcess(std::shared_ptr<Link> link, std::shared_ptr<WorkloadEvents> events, int pid)
      : link_(std::move(link)), events_(std::move(events)), pid_(pid) {}
  int pid() const override { return pid_; }  // on its host
  Status Signal(int sig) override {
    auto r = link_->Request({{"type", "sandbox_signal"}, {"signal", sig}}, "signalled", milliseconds(10000));
    return r.ok() ? Status::Ok() : r.status();
  }
  std::optional<ProcessExit> Poll() override {
    std::lock_guard<std::mutex> lock(events_->mu);
    if (events_->exit) return events_->exit;
    if (!events_->ended && !link_->Alive()) {
      // The session is gone, and with it the workload (its agent removes the sandbox).
      events_->ended = true;
      events_->exit = ProcessExit{true, 0, SIGKILL};
      events_->exit_description = "lost with its host's agent: " + link_->WhyEnded();
    }
    return events_->exit;
  }
  Result<ProcessExit> Wait(milliseconds timeout) override {
    Platform& p = link_->platform();
    const int64_t deadline = p.MonotonicNanos() + timeout.count() * 1'000'000;
    for (;;) {
      if (auto e = Poll()) return *e;
      if (p.MonotonicNanos() >= deadline) return Timeout("the workload on " + link_->what() + " still runs");
      std::unique_lock<std::mutex> lock(events_->mu);
      events_->cv.wait_for(lock, milliseconds(20));
    }
  }
  Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                  milliseconds timeout) override {
    Platform& p = link_->platform();
    const int64_t deadline = p.MonotonicNanos() + timeout.count() * 1'000'000;
    size_t next = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(events_->mu);
        const size_t first = events_->total_lines - events_->lines.size();
        if (next < first) next = first;
        for (; next < events_->total_lines; ++next) {
          const std::string& l = events_->lines[next - first];
          if (match(l)) return l;
        }
        if (events_->ended) return Unavailable("the workload on " + link_->what() + " ended without printing the expected line");
        events_->cv.wait_for(lock, milliseconds(20));
      }
      (void)Poll();
      if (p.MonotonicNanos() >= deadline) {
        return Timeout("no matching line from the workload on " + link_->what() + " within " +
                       std::to_string(timeout.count()) + " ms");
      }
    }
  }
  std::vector<std::string> Lines() const override {
    std::lock_guard<std::mutex> lock(events_->mu);
    return {events_->lines.begin(), events_->lines.end()};
  }
  bool WaitForOutputEnd(milliseconds timeout) override { return Wait(timeout).ok(); }

 private:
  std::shared_ptr<Link> link_;
  std::shared_ptr<WorkloadEvents> events_;
  int pid_;
};

class RemoteSandbox final : public Sandbox {
 public:
  RemoteSandbox(std::shared_ptr<Link> link, std::shared_ptr<WorkloadEvents> events, const json& reply,
                const SandboxOptions& o)
      : link_(link),
        events_(events),
        name_(link->options().host + ":" + Field(reply, "name", std::string("?"))),
        process_(link, events, Field(reply, "pid", 0)),
        startup_note_(Field(reply, "startup_note", std::string())),
        keep_awake_note_(Field(reply, "keep_awake_note", std::string())),
        stop_grace_(o.stop_grace),
        partition_(o.partition) {
    for (const auto& c : Field(reply, "cpus", json::array())) {
      if (c.is_number_integer()) cpus_.push_back(c.get<int>());
    }
  }
  ~RemoteSandbox() override { (void)Stop(); }

  const std::string& name() const override { return name_; }
  int pid() const override { return process_.pid(); }
  std::string address() const override { return link_->options().address; }
  const std::vector<int>& cpus() const override { return cpus_; }
  MonitorTarget monitor_target() const override {
    MonitorTarget t;
    t.cpus = cpus_;
    t.cpu_quota = partition_.cpu_quota;
    t.unavailable_reason = "the workload runs on " + link_->what() + ", where its agent samples it";
    return t;
  }
  bool Alive() override { return !stopped_ && !process_.Poll(); }
  Result<ProcessExit> Wait(milliseconds timeout) override { return process_.Wait(timeout); }
  std::string ExitDescription() override {
    if (!process_.Poll()) return "still running";
    std::lock_guard<std::mutex> lock(events_->mu);
    return events_->exit_description.empty() && events_->exit ? events_->exit->Describe() : events_->exit_description;
  }
  Result<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                  milliseconds timeout) override {
    return process_.WaitForLine(match, timeout);
  }
  ChildProcess& process() override { return process_; }
  // What the agent sent with the workload's end (nothing while it runs).
  std::vector<std::string> StderrTail(size_t n) override {
    std::lock_guard<std::mutex> lock(events_->mu);
    std::vector<std::string> lines = events_->stderr_tail;
    if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(n));
    return lines;
  }
  std::string startup_note() const override { return startup_note_; }
  std::string keep_awake_note() const override { return keep_awake_note_; }

  bool monitored_remotely() const override { return true; }
  Status StartMonitorWindow(std::chrono::nanoseconds interval) override {
    auto r = link_->Request({{"type", "monitor_start"}, {"interval_ns", interval.count()}}, "monitor_started",
                            milliseconds(10000));
    return r.ok() ? Status::Ok() : r.status();
  }
  Result<json> StopMonitorWindow() override {
    REAM_ASSIGN_OR_RETURN(json r, link_->Request({{"type", "monitor_stop"}}, "monitor", milliseconds(10000)));
    if (!r.contains("report")) return Corrupt(link_->what() + ": its monitor reply has no report: " + r.dump());
    return r["report"];
  }

  Status Stop() override {
    if (stopped_) return stop_status_;
    stopped_ = true;
    if (!link_->Alive()) {
      (void)process_.Poll();  // says why, if it had not ended
      return stop_status_;
    }
    // The agent's grace, then its removals; give it those and some.
    auto r = link_->Request({{"type", "sandbox_stop"}}, "sandbox_stopped", stop_grace_ + milliseconds(30000));
    std::lock_guard<std::mutex> lock(events_->mu);
    if (!r.ok()) {
      stop_status_ = r.status();
    } else {
      if (!events_->exit) {
        events_->exit = ExitFromJson(Field(*r, "exit", json()));
        if (r->contains("description") && (*r)["description"].is_string()) {
          events_->exit_description = (*r)["description"].get<std::string>();
        }
      }
      if (events_->stderr_tail.empty()) events_->stderr_tail = Field(*r, "stderr", std::vector<std::string>());
      events_->ended = true;
      const std::string error = Field(*r, "error", std::string());
      if (!error.empty()) stop_status_ = Unavailable(link_->what() + ": stopping the workload: " + error);
    }
    events_->cv.notify_all();
    return stop_status_;
  }

 private:
  std::shared_ptr<Link> link_;
  std::shared_ptr<WorkloadEvents> events_;
  std::string name_;
  RemoteProcess process_;
  std::vector<int> cpus_;
  std::string startup_note_, keep_awake_note_;
  milliseconds stop_grace_;
  PartitionSpec partition_;
  bool stopped_ = false;
  Status stop_status_;
};

class RemoteSandboxKind final : public SandboxKind {
 public:
  RemoteSandboxKind(Platform& p, RemoteSandboxOptions o) : link_(std::make_shared<Link>(p, std::move(o))) {}

  std::string_view name() const override { return "remote"; }

  Result<std::unique_ptr<Sandbox>> Start(const SandboxOptions& options, const std::vector<std::string>& argv) override {
    REAM_RETURN_IF_ERROR(link_->Connect());
    if (argv.empty()) return InvalidArgument("no command to start on " + link_->what());
    const uint64_t id = link_->NextId();
    auto events = link_->Events(id);
    {
      std::lock_guard<std::mutex> lock(events->mu);
      events->on_line = options.on_stdout_line;
    }
    json request = {{"type", "sandbox_start"},
                    {"id", id},
                    {"options", SandboxOptionsToJson(options)},
                    {"argv", argv},
                    // A builtin is `ream serve`: the host runs its own ream (the agent's) for it.
                    {"argv0_is_ream", argv[0] == link_->options().ssh.ream_binary}};
    REAM_ASSIGN_OR_RETURN(json reply, link_->Request(request, "sandbox", milliseconds(60000)));
    try {
      return std::unique_ptr<Sandbox>(std::make_unique<RemoteSandbox>(link_, events, reply, options));
    } catch (const json::exception& e) {
      return Corrupt(link_->what() + ": its sandbox reply is malformed (" + e.what() + "): " + reply.dump());
    }
  }

  std::vector<KnobSupport> Support() override {
    std::vector<KnobSupport> out;
    if (!link_->Connect().ok()) return out;
    for (const auto& k : Field(link_->host(), "support", json::array())) {
      out.push_back({Field(k, "flag", std::string()), Field(k, "enforceable", false), Field(k, "detail", std::string())});
    }
    return out;
  }

  std::vector<Capability> Probe() override {
    Status c = link_->Connect();
    if (!c.ok()) return {{"workload.host", Support::kUnsupported, c.message()}};
    auto caps = CapabilitiesFromJson(Field(link_->host(), "capabilities", json::array()));
    std::vector<Capability> out = caps.ok() ? *caps : std::vector<Capability>{};
    out.push_back({"workload.host", Support::kSupported,
                   "ssh:" + link_->options().host + " (hostname " + Field(link_->host(), "hostname", std::string("?")) +
                       ", kernel " + Field(link_->host(), "kernel", std::string("?")) +
                       "): the workload runs there, in a sandbox its ream agent makes; these probes are that host's"});
    return out;
  }

  Result<std::optional<WorkloadHost>> RemoteHost() override {
    REAM_RETURN_IF_ERROR(link_->Connect());
    WorkloadHost h;
    h.name = "ssh:" + link_->options().host;
    auto topology = Topology::FromJson(link_->host()["topology"]);
    if (!topology.ok()) return topology.status().Annotate(link_->what());
    h.topology = std::move(topology).value();
    h.hostname = Field(link_->host(), "hostname", std::string());
    h.kernel = Field(link_->host(), "kernel", std::string());
    return std::optional<WorkloadHost>(std::move(h));
  }

  Status FindProgram(Platform&, const std::string& program) override {
    auto r = link_->Request({{"type", "find_program"}, {"program", program}}, "program", milliseconds(10000));
    if (!r.ok()) return r.status();
    if (Field(*r, "found", false)) return Status::Ok();
    return NotFound(Field(*r, "message", "program '" + program + "' is not found") + " on " + link_->what());
  }

  Result<int> FreePort() override {
    REAM_ASSIGN_OR_RETURN(json r, link_->Request({{"type", "free_port"}}, "free_port", milliseconds(10000)));
    int port = Field(r, "port", 0);
    if (port <= 0) return Corrupt(link_->what() + ": its free port reply has no port: " + r.dump());
    return port;
  }

 private:
  std::shared_ptr<Link> link_;
};

}  // namespace

std::unique_ptr<SandboxKind> MakeRemoteSandboxKind(Platform& platform, RemoteSandboxOptions options) {
  return std::make_unique<RemoteSandboxKind>(platform, std::move(options));
}

}  // namespace ream
