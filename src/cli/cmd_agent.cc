// `ream agent`: the generator as a remote worker behind the load-driver seam, and the keeper of a
// workload on its host (remote/workload_agent.h). The coordinator starts it with
// `ssh HOST ream agent` and speaks to it over stdin/stdout only, one JSON object per line
// (remote/agent_protocol.h); it exits when stdin closes, removing any sandbox it made, so
// an agent never outlives its session. Nothing but protocol lines goes to stdout; notes go to
// stderr.
#include <iostream>
#include <memory>
#include <mutex>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/version.h"
#include "remote/agent_protocol.h"
#include "remote/workload_agent.h"
#include "load/generator.h"
#include "platform/clock.h"
#include "platform/platform.h"
#include "platform/stdio_lines.h"
#include "platform/text.h"

namespace ream::cli {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// How long before its start an agent connects to the workload (RunLoad connects, then waits
// for start_at_ns): a few round trips on any network a client node is on.
constexpr int64_t kConnectAheadNs = 300'000'000;

int RunAgent() {
  StdinLines in;
  // One whole line at a time: a remote workload's output lines are sent from its reader thread.
  std::mutex out_mu;
  auto reply = [&out_mu](const json& m) {
    std::lock_guard<std::mutex> lock(out_mu);
    return WriteStdoutLine(m.dump()).ok();
  };
  std::unique_ptr<Platform> platform = MakePosixPlatform();
  // The workload side ([nodes] workload = "ssh:HOST"), made at its first message; destroyed
  // (its sandbox stopped and removed) when the session ends, whichever way this returns.
  std::unique_ptr<WorkloadAgent> workload;
  for (;;) {
    // With a workload running, look at it between messages, to say when it ends.
    auto next = in.Next(milliseconds(workload && workload->has_sandbox() ? 50 : 3'600'000));
    if (workload && !workload->Tick()) return kExitCouldNotRun;
    if (!next.ok()) {
      if (next.status().code() == StatusCode::kTimeout) continue;
      std::cerr << "ream agent: " << next.status().message() << "\n";
      return kExitCouldNotRun;
    }
    if (!*next) return kExitDone;  // the session closed
    json m = json::parse(**next, nullptr, false);
    if (m.is_discarded() || !m.is_object()) {
      if (!reply({{"type", "error"}, {"message", "not a JSON object: " + **next}})) return kExitCouldNotRun;
      continue;
    }
    const std::string type = agent::MessageType(m);
    if (WorkloadAgent::Handles(type)) {
      if (!workload) workload = std::make_unique<WorkloadAgent>(*platform, reply);
      if (!workload->Handle(m)) return kExitCouldNotRun;
    } else if (type == "hello") {
      if (!reply({{"type", "hello"},
                  {"protocol", agent::kProtocolVersion},
                  {"version", std::string("ream ") + kVersion + " (" + kGitCommit + ")"},
                  {"pid", platform->ProcessId()},
                  // Which machine this is: agents that share one share its CPUs.
                  {"boot_id", Trim(platform->ReadFile("/proc/sys/kernel/random/boot_id").value_or(""))}})) {
        return kExitCouldNotRun;
      }
    } else if (type == "clock") {
      if (!reply({{"type", "clock"}, {"mono_ns", MonotonicNowNs()}, {"real_ns", RealtimeNowNs()}})) {
        return kExitCouldNotRun;
      }
    } else if (type == "run") {
      const uint64_t id = agent::MessageId(m);
      auto options = agent::LoadOptionsFromJson(m.value("options", json()));
      if (!options.ok()) {
        if (!reply({{"type", "error"}, {"id", id}, {"message", options.status().message()}})) return kExitCouldNotRun;
        continue;
      }
      // Wait for the start on stdin: a line stops the level, end-of-file ends the agent.
      int64_t wake = options->start_at_ns - kConnectAheadNs;
      bool stopped = false;
      while (MonotonicNowNs() < wake) {
        auto line = in.Next(milliseconds(std::max<int64_t>(1, (wake - MonotonicNowNs()) / 1'000'000)));
        if (line.ok() && !*line) return kExitDone;
        if (line.ok()) {
          stopped = true;
          break;
        }
      }
      if (stopped) {
        if (!reply({{"type", "error"}, {"id", id}, {"message", "stopped by the coordinator before its start"}})) {
          return kExitCouldNotRun;
        }
        continue;
      }
      // During the run stdin becoming readable (a line, or the session's end) cancels it.
      if (!in.buffered()) options->cancel_fd = in.fd();
      auto result = RunLoad(*options);
      if (!result.ok()) {
        if (!reply({{"type", "error"}, {"id", id}, {"message", result.status().message()}})) return kExitCouldNotRun;
        continue;
      }
      if (!reply(agent::ResultMessage(id, *result))) return kExitCouldNotRun;
    } else if (type == "stop") {
      // Nothing is running between levels; a late stop is harmless.
    } else if (type == "bye") {
      return kExitDone;
    } else {
      if (!reply({{"type", "error"}, {"message", "unknown message type '" + type + "'"}})) return kExitCouldNotRun;
    }
  }
}

}  // namespace

void AddAgentCommand(CLI::App& app, CommandList& commands) {
  CLI::App* sub = app.add_subcommand(
      "agent",
      "Remote load agent: speaks ream's agent protocol on stdin/stdout (started by `ream run` over ssh for a "
      "[nodes] client; exits when stdin closes)");
  commands.push_back({sub, [] { return RunAgent(); }});
}

}  // namespace ream::cli
