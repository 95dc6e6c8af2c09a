// An agent behind its session (remote/agent_session.h).
#include "remote/agent_session.h"

namespace ream {

using nlohmann::json;
using std::chrono::milliseconds;

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

AgentSession::AgentSession(std::string name, std::string host, std::string stderr_path, std::string workload_host)
    : name_(std::move(name)),
      host_(std::move(host)),
      stderr_path_(std::move(stderr_path)),
      workload_host_(std::move(workload_host)) {}

AgentSession::~AgentSession() { Close(milliseconds(3000)); }

Status AgentSession::Start(Platform& p, const std::vector<std::string>& argv, const std::string& netns_path,
                           const std::optional<RunAs>& run_as) {
  SpawnOptions so;
  so.argv = argv;
  so.netns_path = netns_path;
  so.run_as = run_as;
  so.pipe_stdin = true;
  so.capture_stdout = true;
  so.stderr_path = stderr_path_;
  auto inbox = inbox_;
  auto hook = on_event;
  so.on_stdout_line = [inbox, hook](const std::string& line) {
    if (hook) {
      json m = json::parse(line, nullptr, false);
      if (!m.is_discarded() && m.is_object() && hook(m)) return;
    }
    std::lock_guard<std::mutex> lock(inbox->mu);
    inbox->lines.push_back(line);
    inbox->cv.notify_all();
  };
  auto child = p.Spawn(so);
  if (!child.ok()) {
    return child.status().Annotate(over_ssh() ? "starting ssh to " + host_ : "starting the agent of " + name_);
  }
  ssh_ = std::move(child).value();
  return Status::Ok();
}

bool AgentSession::Alive() { return ssh_ && !ssh_->Poll(); }

std::string AgentSession::WhyEnded(Platform& p) {
  if (!ssh_) return over_ssh() ? "no ssh session" : "no agent process";
  auto e = ssh_->Poll();
  std::string err;
  if (auto text = p.ReadFile(stderr_path_); text.ok()) err = *text;
  if (!e) return over_ssh() ? "the ssh session is still running" : "the agent is still running";
  std::string tail = Trim(err);
  if (tail.size() > 300) tail = tail.substr(tail.size() - 300);
  const std::string said = tail.empty() ? "" : " (stderr: " + tail + ")";
  if (!over_ssh()) return "its agent process " + e->Describe() + said;
  if (e->signaled) return "its ssh session was " + e->Describe() + said;
  return "its ssh session ended (" + e->Describe() + "): " + agent::DescribeSshFailure(host_, e->exit_code, err);
}

Status AgentSession::Send(const json& message) {
  if (!ssh_) return Unavailable("no session to " + name_);
  return ssh_->WriteStdin(message.dump() + "\n", milliseconds(5000));
}

Result<json> AgentSession::Await(Platform& p, const std::string& type, int64_t deadline_ns) {
  for (;;) {
    std::optional<std::string> line;
    {
      std::unique_lock<std::mutex> lock(inbox_->mu);
      if (inbox_->lines.empty()) inbox_->cv.wait_for(lock, milliseconds(20));
      if (!inbox_->lines.empty()) {
        line = std::move(inbox_->lines.front());
        inbox_->lines.pop_front();
      }
    }
    if (line) {
      json m = json::parse(*line, nullptr, false);
      if (m.is_discarded() || !m.is_object()) continue;  // not a protocol line
      std::string t = agent::MessageType(m);
      if (t == type || t == "error") return m;
      continue;
    }
    if (!Alive()) {
      // What it printed before ending is still in the pipe: read it, then say why.
      if (ssh_) (void)ssh_->WaitForOutputEnd(milliseconds(500));
      std::lock_guard<std::mutex> lock(inbox_->mu);
      if (!inbox_->lines.empty()) continue;
      return Unavailable(WhyEnded(p));
    }
    if (p.MonotonicNanos() > deadline_ns) return Timeout("no '" + type + "' message from the agent in time");
  }
}

std::optional<json> AgentSession::TryTake(const std::string& type) {
  std::lock_guard<std::mutex> lock(inbox_->mu);
  while (!inbox_->lines.empty()) {
    std::string line = std::move(inbox_->lines.front());
    inbox_->lines.pop_front();
    json m = json::parse(line, nullptr, false);
    if (m.is_discarded() || !m.is_object()) continue;
    std::string t = agent::MessageType(m);
    if (t == type || t == "error") return m;
  }
  return std::nullopt;
}

void AgentSession::Close(milliseconds grace) {
  if (!ssh_) return;
  ssh_->CloseStdin();
  if (!ssh_->Poll()) (void)ssh_->Wait(grace);
  if (!ssh_->Poll()) {
    (void)ssh_->Signal(SIGKILL);
    (void)ssh_->Wait(milliseconds(2000));
  }
}

void AgentSession::Kill(Platform& p) {
  if (ssh_ && !ssh_->Poll()) {
    (void)p.Kill(-ssh_->pid(), SIGKILL);
    (void)ssh_->Signal(SIGKILL);
    (void)ssh_->Wait(milliseconds(2000));
  }
}

Result<ThisReam> IdentifyThisReam(Platform& p, const std::string& ream_binary) {
  ThisReam self;
  auto local_arch = p.Run({"uname", "-m"}, milliseconds(5000));
  self.arch = local_arch.ok() ? Trim(local_arch->out) : "";
  auto bytes = p.ReadFile(ream_binary);
  if (!bytes.ok()) return bytes.status().Annotate("reading this ream binary (" + ream_binary + ") to identify it");
  self.cached_name = "ream-" + Fnv1aHex(*bytes);
  return self;
}

Result<RemoteReam> PrepareRemoteReam(Platform& p, const RemoteDriverOptions& o, const std::string& what,
                                     const std::string& host, const ThisReam& self, int copy_seq) {
  auto probe_run = p.Run(SshArgv(o, host, agent::ProbeScript(self.cached_name)), o.connect_timeout);
  if (!probe_run.ok()) {
    return Status(probe_run.status().code(), what + ": probing it over ssh: " + probe_run.status().message());
  }
  if (probe_run->exit_code != 0) {
    return Unavailable(what + ": " + agent::DescribeSshFailure(host, probe_run->exit_code, probe_run->err));
  }
  auto probe = agent::ParseProbe(probe_run->out);
  if (!probe.ok()) return probe.status().Annotate(what);
  if (!self.arch.empty() && !probe->arch.empty() && probe->arch != self.arch) {
    return Unsupported(what + " is " + probe->arch + ", this ream is built for " + self.arch +
                       ": install a ream of version '" + o.version_line + "' built for " + probe->arch +
                       " on its PATH");
  }
  if (!probe->version.empty() && probe->version == o.version_line) return RemoteReam{"ream", ""};
  const std::string path = probe->cache_dir + "/" + self.cached_name;
  if (probe->cached) return RemoteReam{ShellQuote(path), ""};
  // Copy this binary: to a temporary name, then renamed, so a half copy is never run.
  const std::string tmp = path + ".part" + std::to_string(p.ProcessId()) + "." + std::to_string(copy_seq);
  std::vector<std::string> scp = {o.scp_program, "-q", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"};
  if (!o.ssh_config.empty()) scp.insert(scp.end(), {"-F", o.ssh_config});
  scp.insert(scp.end(), o.ssh_options.begin(), o.ssh_options.end());
  scp.push_back(o.ream_binary);
  scp.push_back(host + ":" + tmp);
  auto cp = p.Run(scp, milliseconds(120000));
  if (!cp.ok() || cp->exit_code != 0) {
    return Unavailable(what + ": copying this ream there with scp failed: " +
                       (cp.ok() ? agent::DescribeSshFailure(host, cp->exit_code, cp->err) : cp.status().message()));
  }
  auto mv = p.Run(SshArgv(o, host, "chmod 755 " + ShellQuote(tmp) + " && mv -f " + ShellQuote(tmp) + " " +
                                       ShellQuote(path) + " && " + ShellQuote(path) + " --version"),
                  o.connect_timeout);
  if (!mv.ok() || mv->exit_code != 0) {
    return Unavailable(what + ": the copied ream does not run there (" +
                       (mv.ok() ? Trim(mv->err) : mv.status().message()) +
                       "); it needs the same architecture and the same shared libraries (docs/nodes.md)");
  }
  return RemoteReam{ShellQuote(path),
                    what + ": " +
                        (probe->version.empty() ? std::string("has no ream on its PATH")
                                                : "has '" + probe->version + "', not '" + o.version_line + "'") +
                        "; copied this ream to " + path + " (once: later runs reuse it)"};
}

}  // namespace ream
