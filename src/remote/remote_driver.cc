// The remote load driver: agents behind ssh sessions (remote/remote_driver.h).
#include "remote/remote_driver.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "remote/agent_protocol.h"
#include "remote/agent_session.h"
#include "sandbox/state.h"

namespace ream {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class RemoteLoadDriver final : public LoadDriver {
 public:
  RemoteLoadDriver(Platform& p, RemoteDriverOptions o) : p_(p), o_(std::move(o)) {}
  ~RemoteLoadDriver() override {
    for (auto& s : sessions_) s->Close(milliseconds(3000));
    sessions_.clear();
    scratch_.reset();  // after the sessions: their stderr files are in it
  }
  std::string_view name() const override { return "agents"; }

  Result<DriverResult> Measure(const LoadOptions& lo, const DriverHooks& hooks) override {
    // The agents' protocol carries one rate and one document at the end: a schedule would need
    // each agent's share of it, and windows a stream of each agent's merged as they end.
    if (lo.schedule) {
      return Unsupported("[load] schedule runs on this host's generator only: the client nodes' agents ([nodes]) are "
                         "given one rate each");
    }
    if (lo.window_ns > 0) {
      return Unsupported("[load] window runs on this host's generator only: the client nodes' agents ([nodes]) report "
                         "their run once it is over, not window by window");
    }
    if (!started_) {
      REAM_RETURN_IF_ERROR(StartAll());
      started_ = true;
    }
    std::vector<AgentSession*> active;
    for (auto& s : sessions_) {
      if (!s->lost) {
        active.push_back(s.get());
      } else if (!o_.continue_without_lost) {
        return Unavailable("agent " + s->name() + " was lost at an earlier level (" + s->lost_why +
                           "); [nodes] on_agent_loss = \"continue\" runs on with the other agents");
      }
    }
    if (active.empty()) return Unavailable("no agent is left to drive the load (every client node was lost)");

    std::vector<agent::AgentOutcome> outcomes(active.size());
    int64_t max_rtt = 0;
    for (size_t i = 0; i < active.size(); ++i) {
      outcomes[i].name = active[i]->name();
      Status st = SyncClock(*active[i]);
      if (!st.ok()) Lose(*active[i], st.message());
      outcomes[i].clock = active[i]->clock;
      max_rtt = std::max(max_rtt, active[i]->clock.rtt_ns);
    }
    // A common start far enough ahead for every run message to arrive and every agent to
    // connect (it wakes 300 ms before it to connect): 600 ms and 4 round trips.
    const int64_t lead_ns = 600'000'000 + 4 * max_rtt;
    const int64_t start_ns = p_.MonotonicNanos() + lead_ns;
    const int n = static_cast<int>(active.size());
    for (int i = 0; i < n; ++i) {
      AgentSession& s = *active[static_cast<size_t>(i)];
      agent::AgentOutcome& out = outcomes[static_cast<size_t>(i)];
      LoadOptions share = agent::AgentShare(lo, i, n, s.workload_host(), start_ns + s.clock.offset_ns);
      share.cpus = s.cpus;
      if (share.wait == Wait::kAuto && SharesItsMachine(active, static_cast<size_t>(i))) {
        // Each agent would find its CPUs its own and spin; on one machine's CPUs the spinning
        // generators would take turns and be late for each other.
        share.wait = Wait::kSleep;
      }
      out.target_qps = share.qps;
      out.seed = share.seed;
      out.start_at_ns = share.start_at_ns;
      if (s.lost) {
        out.failure = s.lost_why;
        continue;
      }
      Status st = s.Send({{"type", "run"}, {"id", ++run_id_}, {"options", agent::LoadOptionsToJson(share)}});
      if (!st.ok()) {
        Lose(s, "the run request could not be sent: " + st.message());
        out.failure = s.lost_why;
      }
    }
    const int64_t window_start = start_ns + lo.warmup_ns;
    const int64_t window_end = window_start + lo.duration_ns;
    const int64_t give_up = window_end + lo.response_timeout_ns + o_.result_grace.count() * 1'000'000;
    DriverWindow window(hooks, window_start, window_end);
    std::vector<bool> done(active.size(), false);
    for (size_t i = 0; i < active.size(); ++i) done[i] = active[i]->lost;
    while (true) {
      const int64_t now = p_.MonotonicNanos();
      if (hooks.interrupted()) {
        for (AgentSession* s : active) (void)s->Send({{"type", "stop"}});
        window.Close();
        return Cancelled("interrupted during the load level at " + std::to_string(lo.qps) + " QPS");
      }
      window.Advance(now);
      bool all = true;
      for (size_t i = 0; i < active.size(); ++i) {
        if (done[i]) continue;
        AgentSession& s = *active[i];
        if (auto m = s.TryTake("result")) {
          done[i] = true;
          if (agent::MessageType(*m) == "error") {
            outcomes[i].failure = "the agent could not run the level: " + m->value("message", std::string("?"));
          } else {
            outcomes[i].result = std::move(*m);
          }
          continue;
        }
        if (!s.Alive()) {
          // Its last words may still be in the pipe.
          if (auto m = s.TryTake("result"); m && agent::MessageType(*m) == "result") {
            outcomes[i].result = std::move(*m);
            done[i] = true;
            continue;
          }
          Lose(s, "it ended during the level: " + s.WhyEnded(p_));
          outcomes[i].failure = s.lost_why;
          done[i] = true;
          continue;
        }
        if (now > give_up) {
          Lose(s, "it returned no result within " + std::to_string(o_.result_grace.count()) +
                      " ms after the level's response timeout (the host stopped answering?)");
          s.Kill(p_);
          outcomes[i].failure = s.lost_why;
          done[i] = true;
          continue;
        }
        all = false;
      }
      if (all) break;
      p_.SleepFor(milliseconds(10));
    }
    window.Close(/*open_if_never=*/true);
    DriverResult out;
    out.SetGenerator(agent::MergeAgentResults(lo, outcomes));
    return out;
  }

 private:
  void Lose(AgentSession& s, const std::string& why) {
    if (s.lost) return;
    s.lost = true;
    s.lost_why = why;
    s.Kill(p_);
    if (o_.note) o_.note("agent " + s.name() + " lost: " + why);
  }

  Status SyncClock(AgentSession& s) {
    std::vector<agent::ClockSample> samples;
    for (int k = 0; k < 7; ++k) {
      agent::ClockSample c;
      c.sent_ns = p_.MonotonicNanos();
      REAM_RETURN_IF_ERROR(s.Send({{"type", "clock"}}));
      auto m = s.Await(p_, "clock", c.sent_ns + 5'000'000'000);
      if (!m.ok()) return m.status().Annotate("clock sample");
      c.received_ns = p_.MonotonicNanos();
      if (!m->contains("mono_ns")) return Corrupt("the agent's clock reply has no mono_ns: " + m->dump());
      c.agent_ns = (*m)["mono_ns"].get<int64_t>();
      samples.push_back(c);
    }
    s.clock = agent::BestClock(samples);
    return Status::Ok();
  }

  Status StartAll() {
    if (o_.hosts.empty() && o_.local_nodes.empty()) return InvalidArgument("[nodes] names no client node");
    if (!o_.hosts.empty() && o_.workload_host.empty()) {
      return InvalidArgument("[nodes] workload_address is required with remote client nodes (the address at "
                             "which they reach the workload)");
    }
    REAM_ASSIGN_OR_RETURN(scratch_, ScratchDir::Create(p_, o_.state_dir, o_.scratch_dir, "ream-agents"));
    REAM_ASSIGN_OR_RETURN(ThisReam self, IdentifyThisReam(p_, o_.ream_binary));
    // The hosts are probed (and given a copy) side by side, each in a thread of its own; the
    // sessions are then started from this thread, which outlives them (a child gets SIGKILL
    // when the thread that spawned it exits), and their hellos awaited together. The first
    // failure in host order is reported.
    const size_t n = o_.hosts.size();
    std::vector<Result<RemoteReam>> commands(n, Result<RemoteReam>(Internal("not probed")));
    {
      std::vector<std::thread> threads;
      for (size_t i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
          commands[i] = PrepareRemoteReam(p_, o_, "client node ssh:" + o_.hosts[i], o_.hosts[i], self,
                                          static_cast<int>(i));
        });
      }
      for (auto& t : threads) t.join();
    }
    for (size_t i = 0; i < n; ++i) {
      if (commands[i].ok() && !commands[i]->note.empty() && o_.note) o_.note(commands[i]->note);
    }
    for (size_t i = 0; i < n; ++i) REAM_RETURN_IF_ERROR(commands[i].status());
    for (size_t i = 0; i < n; ++i) {
      auto session = std::make_unique<AgentSession>("ssh:" + o_.hosts[i], o_.hosts[i],
                                                    scratch_->path() + "/agent" + std::to_string(i) + ".err", o_.workload_host);
      AgentSession& s = *session;
      s.cpus = o_.agent_cpus;
      sessions_.push_back(std::move(session));
      REAM_RETURN_IF_ERROR(s.Start(p_, SshArgv(o_, o_.hosts[i], "exec " + commands[i]->command + " agent")));
      REAM_RETURN_IF_ERROR(s.Send({{"type", "hello"}, {"protocol", agent::kProtocolVersion}}));
    }
    // Local nodes run this very binary in their namespace: nothing to probe or copy.
    for (size_t i = 0; i < o_.local_nodes.size(); ++i) {
      const LocalAgentNode& node = o_.local_nodes[i];
      auto session = std::make_unique<AgentSession>(node.name, "", scratch_->path() + "/local" + std::to_string(i) + ".err",
                                                    node.workload_host);
      AgentSession& s = *session;
      s.cpus = node.cpus;
      sessions_.push_back(std::move(session));
      REAM_RETURN_IF_ERROR(s.Start(p_, {o_.ream_binary, "agent"}, node.netns_path, node.run_as));
      REAM_RETURN_IF_ERROR(s.Send({{"type", "hello"}, {"protocol", agent::kProtocolVersion}}));
    }
    const int64_t deadline = p_.MonotonicNanos() + o_.connect_timeout.count() * 1'000'000;
    for (auto& s : sessions_) REAM_RETURN_IF_ERROR(AwaitHello(*s, deadline));
    return Status::Ok();
  }

  // Another agent of this level runs on the same machine (its boot id) on CPUs that may be the
  // same: no CPU list on either side, or one in common.
  static bool SharesItsMachine(const std::vector<AgentSession*>& active, size_t i) {
    const AgentSession& a = *active[i];
    if (a.boot_id.empty()) return false;
    for (size_t j = 0; j < active.size(); ++j) {
      const AgentSession& b = *active[j];
      if (j == i || b.lost || b.boot_id != a.boot_id) continue;
      if (a.cpus.empty() || b.cpus.empty()) return true;
      for (int c : a.cpus) {
        if (std::find(b.cpus.begin(), b.cpus.end(), c) != b.cpus.end()) return true;
      }
    }
    return false;
  }

  // The agent's hello: its protocol must be this ream's.
  Status AwaitHello(AgentSession& session, int64_t deadline_ns) {
    const std::string& name = session.name();
    auto hello = session.Await(p_, "hello", deadline_ns);
    if (!hello.ok()) {
      Status st = hello.status();
      session.Kill(p_);
      return Status(st.code(), "client node " + name + ": the agent did not start: " + st.message());
    }
    if (hello->value("protocol", 0) != agent::kProtocolVersion) {
      session.Kill(p_);
      return Unsupported("client node " + name + ": its agent speaks protocol " +
                         std::to_string(hello->value("protocol", 0)) + ", this ream " +
                         std::to_string(agent::kProtocolVersion));
    }
    session.boot_id = hello->value("boot_id", std::string());
    return Status::Ok();
  }

  Platform& p_;
  RemoteDriverOptions o_;
  bool started_ = false;
  uint64_t run_id_ = 0;
  std::unique_ptr<ScratchDir> scratch_;
  std::vector<std::unique_ptr<AgentSession>> sessions_;
};

}  // namespace

std::vector<std::string> SshArgv(const RemoteDriverOptions& o, const std::string& host,
                                 const std::string& remote_command) {
  // BatchMode: a host that would ask for a password or a passphrase fails at once, with the
  // reason on stderr. The keep-alives end a session whose host stopped answering in ~6 s.
  std::vector<std::string> argv = {o.ssh_program, "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
                                   "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3"};
  if (!o.ssh_config.empty()) argv.insert(argv.end(), {"-F", o.ssh_config});
  argv.insert(argv.end(), o.ssh_options.begin(), o.ssh_options.end());
  argv.push_back(host);
  argv.push_back(remote_command);
  return argv;
}

std::unique_ptr<LoadDriver> MakeRemoteLoadDriver(Platform& platform, RemoteDriverOptions options) {
  return std::make_unique<RemoteLoadDriver>(platform, std::move(options));
}

}  // namespace ream
