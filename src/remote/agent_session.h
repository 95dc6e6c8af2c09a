// One `ream agent` behind its session: an ssh session to another host, or a process of this
// host (a local client node's agent), spoken to over its stdin and stdout only, one JSON line a
// message (remote/agent_protocol.h). Shared by the load driver of client nodes
// (remote_driver.h) and the sandbox kind of a workload on another host (remote_sandbox.h).
//
//   AgentSession s("ssh:server1", "server1", "/tmp/.../agent.err", "");
//   REAM_RETURN_IF_ERROR(s.Start(p, SshArgv(o, "server1", "exec ream agent")));
//   REAM_RETURN_IF_ERROR(s.Send({{"type", "hello"}, {"protocol", agent::kProtocolVersion}}));
//   auto hello = s.Await(p, "hello", deadline_ns);
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "remote/agent_protocol.h"
#include "remote/remote_driver.h"
#include "platform/platform.h"
#include "platform/process.h"

namespace ream {

class AgentSession {
 public:
  // `host`: the ssh destination, or "" for an agent started on this host (named `name`,
  // "local:a"). `workload_host`: where this agent reaches the workload ("" when it drives no
  // load). `stderr_path`: where the session's stderr goes (ssh's refusals are read from it).
  AgentSession(std::string name, std::string host, std::string stderr_path, std::string workload_host);
  // Closes the session (Close with a 3 s grace).
  ~AgentSession();
  AgentSession(const AgentSession&) = delete;
  AgentSession& operator=(const AgentSession&) = delete;

  const std::string& host() const { return host_; }
  const std::string& name() const { return name_; }
  const std::string& workload_host() const { return workload_host_; }
  bool over_ssh() const { return !host_.empty(); }

  // Messages the agent sends unasked (a remote workload's output lines, its exit), taken out of
  // the stream before Await and TryTake see it: the hook returns true for a message it
  // consumed. Called on the session's reader thread; set before Start.
  std::function<bool(const nlohmann::json&)> on_event;

  // Spawns `argv` (ssh, or the agent itself) with piped stdin and captured stdout.
  // `netns_path`, `run_as`: a local node's agent enters its namespace and drops to that user.
  Status Start(Platform& p, const std::vector<std::string>& argv, const std::string& netns_path = "",
               const std::optional<RunAs>& run_as = std::nullopt);
  bool Alive();
  // Why the session ended, from ssh's exit and what it wrote on stderr.
  std::string WhyEnded(Platform& p);
  Status Send(const nlohmann::json& message);
  // The next message of `type` (or "error") before `deadline_ns` (the platform's clock).
  // Timeout past it; Unavailable, saying why, when the session ended first. Other lines are
  // dropped.
  Result<nlohmann::json> Await(Platform& p, const std::string& type, int64_t deadline_ns);
  // Without waiting: the next message of `type` or "error" if one is there now.
  std::optional<nlohmann::json> TryTake(const std::string& type);
  // Ends the session: the agent reads end-of-file and exits; ssh is killed if it lingers.
  void Close(std::chrono::milliseconds grace);
  // ssh and whatever it started (a ProxyCommand; a stand-in's children in tests): the whole
  // process group, which the spawn made ssh the leader of.
  void Kill(Platform& p);

  std::vector<int> cpus;  // the agent's generator CPUs on its host
  // The agent's machine as its kernel names it (/proc/sys/kernel/random/boot_id, from its
  // hello; "" from an agent that does not say): two agents with one boot id share its CPUs.
  std::string boot_id;
  bool lost = false;
  std::string lost_why;
  agent::ClockEstimate clock;

 private:
  // The lines one session's stdout delivered, for the thread that waits on them.
  struct Inbox {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::string> lines;
  };
  std::string name_;
  std::string host_;
  std::string stderr_path_;
  std::string workload_host_;
  std::shared_ptr<Inbox> inbox_ = std::make_shared<Inbox>();
  std::unique_ptr<ChildProcess> ssh_;
};

// The coordinator's own binary, as a remote host would run it: its architecture (`uname -m`,
// "" when unknown) and the name a copy of it takes in a host's cache ("ream-<hash of its
// bytes>"). The error of reading the binary.
struct ThisReam {
  std::string arch;
  std::string cached_name;
};
Result<ThisReam> IdentifyThisReam(Platform& p, const std::string& ream_binary);

// The command that runs ream on `host` (ssh options from `o`): "ream" when the host's own is
// this build, else this binary in the user's cache directory there, copied now with scp when
// absent (to a temporary name, then renamed, so a half copy is never run). `what` names the
// host in messages ("client node ssh:c1"); `copy_seq` keeps the temporary names of hosts that
// share one file system apart. `note` is what to tell the user ("" when nothing was copied).
// Unavailable naming ssh's refusal, Unsupported for another architecture.
struct RemoteReam {
  std::string command;
  std::string note;
};
Result<RemoteReam> PrepareRemoteReam(Platform& p, const RemoteDriverOptions& o, const std::string& what,
                                     const std::string& host, const ThisReam& self, int copy_seq);

// A shell word: `s` in single quotes.
std::string ShellQuote(const std::string& s);

}  // namespace ream
