// `ream exec`: run a user's command in a sandbox with a partition of the machine, sample
// what it consumes, and remove every kernel object afterwards (also on ^C and SIGTERM).

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "experiment/network_path.h"
#include "monitor/monitor.h"
#include "partition/knobs.h"
#include "partition/placement.h"
#include "partition/spec.h"
#include "platform/signals.h"
#include "sandbox/sandbox.h"
#include "topology/topology.h"

namespace ream::cli {
namespace {

struct ExecArgs {
  std::string cpus, reserve_cpus = "default";
  bool node = false;
  std::map<std::string, std::string> knobs;  // knob key -> flag text (partition/knobs.h)
  std::string sample_interval = "250ms";
  std::string samples;
  std::string state_dir = kDefaultStateDir;
  int relay_port = 0;          // with L, g or G: the port COMMAND listens on
  std::string relay_protocol;  // the relay's framing ("ream"); "" = chunks
  std::string user;            // --user; "" = kDefaultWorkloadUser
  std::vector<std::string> command;
};

std::string Human(double v, const char* unit) {
  const char* prefixes[] = {"", "Ki", "Mi", "Gi", "Ti"};
  int i = 0;
  while (v >= 1024 && i < 4) {
    v /= 1024;
    ++i;
  }
  char b[64];
  std::snprintf(b, sizeof b, "%.1f %s%s", v, prefixes[i], unit);
  return b;
}

// Builds the PartitionSpec from the flags; InvalidArgument naming the flag.
Result<PartitionSpec> ToSpec(const ExecArgs& f) {
  PartitionSpec s;
  s.cpus = f.cpus;
  REAM_RETURN_IF_ERROR(ApplyFlagTexts(BuiltinKnobs(), f.knobs, &s));
  s.node = f.node;
  REAM_RETURN_IF_ERROR(s.Validate());
  return s;
}

std::string SummaryLine(const MonitorReport& r) {
  std::ostringstream o;
  auto mean = [&](const char* k) { return r.Mean(k); };
  if (auto c = mean("cpu_used")) {
    char b[96];
    std::snprintf(b, sizeof b, "cpu %.3f CPUs (%.0f%% of %.2f allotted)", *c,
                  100.0 * mean("cpu_utilization").value_or(0), r.allotted_cpus);
    o << b;
  } else {
    o << "cpu unavailable";
  }
  auto it = r.summary.find("memory_bytes");
  // The kernel's high-water mark first: the sampled maximum misses what falls between samples.
  if (r.memory_peak_bytes) {
    o << ", memory peak " << Human(static_cast<double>(*r.memory_peak_bytes), "B") << " (kernel, "
      << r.memory_peak_scope << ")";
  } else {
    auto why = r.unavailable.find("memory_peak");
    o << ", memory peak unavailable" << (why == r.unavailable.end() ? "" : " (" + why->second + ")");
  }
  if (it != r.summary.end() && it->second.max) o << ", sampled max " << Human(*it->second.max, "B");
  if (auto v = mean("disk_read_bytes_per_s")) o << ", disk read " << Human(*v, "B/s");
  if (auto v = mean("disk_write_bytes_per_s")) o << ", disk write " << Human(*v, "B/s");
  if (auto v = mean("net_rx_bytes_per_s")) {
    char b[64];
    std::snprintf(b, sizeof b, ", net rx %.1f Mbit/s", *v * 8 / 1e6);
    o << b;
  }
  if (auto v = mean("net_tx_bytes_per_s")) {
    char b[64];
    std::snprintf(b, sizeof b, " tx %.1f Mbit/s", *v * 8 / 1e6);
    o << b;
  }
  return o.str();
}

int RunExec(const ExecArgs& f) {
  if (f.command.empty()) {
    std::cerr << "ream exec: no command given (usage: ream exec [flags] -- COMMAND [ARGS...])\n";
    return 2;
  }
  auto spec = ToSpec(f);
  if (!spec.ok()) {
    std::cerr << "ream exec: " << spec.status().message() << "\n";
    return 2;
  }
  auto interval = ParseDuration(f.sample_interval);
  if (!interval.ok() || *interval < std::chrono::milliseconds(10)) {
    std::cerr << "ream exec: --sample-interval: "
              << (interval.ok() ? "must be at least 10ms" : interval.status().message()) << "\n";
    return 2;
  }
  if (spec->NeedsRelay() && (f.relay_port <= 0 || f.relay_port > 65535)) {
    std::cerr << "ream exec: --net-latency, --net-gap and --net-per-byte are applied by ream's relay in front of "
                 "COMMAND: give --relay-port PORT (the port COMMAND listens on)\n";
    return 2;
  }
  auto platform = MakePosixPlatform();
  SandboxOptions o;
  o.partition = *spec;
  // L, g and G are the relay's (below), not the sandbox's.
  o.partition.net_latency.reset();
  o.partition.net_gap.reset();
  o.partition.net_per_byte.reset();
  o.state_dir = f.state_dir;
  o.user = WorkloadUser(*platform, f.user);
  if (!spec->cpus.empty() || f.reserve_cpus != "default") {
    auto topo = ReadTopology(*platform);
    if (!topo.ok()) {
      std::cerr << "ream exec: reading the CPU topology: " << topo.status().message() << "\n";
      return 1;
    }
    auto reserved = ParseReservedCpus(*topo, f.reserve_cpus);
    if (!reserved.ok()) {
      std::cerr << "ream exec: " << reserved.status().message() << "\n";
      return 2;
    }
    o.reserved_cpus = *reserved;
  }
  if (platform->EffectiveUserId() != 0) {
    std::cerr << "ream exec: needs root (it creates cgroups"
              << (spec->node ? ", a network namespace and a veth pair" : "") << ")\n";
    return 2;
  }
  // The monitor's first reading is taken once the command is in its cgroup and before it
  // execs, so its figures cover the command's whole life, however short.
  MonitorOptions mo;
  mo.interval = *interval;
  std::optional<Monitor> monitor;
  Status baseline;
  o.before_exec = [&](Sandbox& b) {
    monitor.emplace(*platform, TargetOf(b), mo);
    baseline = monitor->Baseline();
  };
  // From here on a signal must not kill ream before it removes what it created.
  TerminationSignals::Install();
  auto sb = StartSandbox(*platform, o, f.command);
  if (!sb.ok()) {
    std::cerr << "ream exec: " << sb.status().message() << "\n";
    return ExitCodeFor(sb.status());
  }
  ProcessSandbox& box = **sb;
  std::cerr << "ream exec: sandbox " << box.name() << ", pid " << box.pid() << ", user "
            << (o.user.empty() ? "ream's" : o.user) << ", cpus " << FormatCpuList(box.cpus());
  if (spec->node) std::cerr << ", node address " << box.address() << " (host " << box.host_address() << ")";
  std::cerr << "\n";
  // The relay of L, g, G, on the generator's CPUs (never COMMAND's); it connects to COMMAND when
  // a client connects to it, so COMMAND may still be starting.
  std::optional<StartedRelay> relay;
  nlohmann::json relay_calibration;  // null: no L to calibrate
  if (spec->NeedsRelay()) {
    std::vector<int> relay_cpus;
    if (o.reserved_cpus) {
      relay_cpus = *o.reserved_cpus;
    } else if (auto topo = ReadTopology(*platform); topo.ok()) {
      relay_cpus = DefaultGeneratorCpus(*topo);
    }
    auto kind = MakeProcessSandboxKind(*platform);
    auto self = platform->RealPath("/proc/self/exe");
    auto r = self.ok() ? StartRelay(*platform, *kind, *self, relay_cpus, box.address(), f.relay_port,
                                    RelayParams(*spec), f.relay_protocol, f.state_dir)
                       : Result<StartedRelay>(self.status());
    if (!r.ok()) {
      std::cerr << "ream exec: starting the relay: " << r.status().message() << "\n";
      (void)box.Stop();
      return ExitCodeFor(r.status());
    }
    relay = std::move(*r);
    std::cerr << "ream exec: relay at 127.0.0.1:" << relay->port << " -> " << box.address() << ":" << f.relay_port
              << " (" << NetworkMethods(*spec, f.relay_protocol).methods.begin()->second
              << "): connect clients to 127.0.0.1:" << relay->port << "\n";
    // What L really adds for a client like the user's (one message at a time, asleep while it
    // waits), measured at start as `ream run` measures it before a sweep: on twins of the relay
    // in front of ream's echo, since COMMAND's protocol is not ream's to ping.
    if (const relay::LogGpParams params = RelayParams(*spec); params.latency_ns > 0) {
      auto c = CalibrateRelayByPinging(*platform, *kind, *self, relay_cpus, box.cpus(), params, f.state_dir);
      if (!c.ok()) {
        std::cerr << "ream exec: warning: L could not be calibrated: " << c.status().message() << "\n";
        relay_calibration = {{"net_latency", {{"requested_us", params.latency_ns / 1e3}, {"measured_us", nullptr},
                                              {"note", c.status().message()}}}};
      } else {
        std::cerr << "ream exec: relay calibration (a pinger, every 2 ms): " << c->Describe() << "\n";
        if (c->off()) {
          std::cerr << "ream exec: warning: L is off by more than 10 % of the request here; a client through the "
                       "relay sees the measured figure, not the requested one\n";
        }
        relay_calibration = {{"net_latency",
                              {{"requested_us", c->requested_us},
                               {"measured_us", c->l_us()},
                               {"relay_cost_at_l_us", c->cost_at_l_us()},
                               {"relay_cost_at_zero_us", c->cost_at_zero_us()},
                               {"warning", c->off()},
                               {"method", "median round trip of a pinger (32 B, every 2 ms) through a twin of the relay "
                                          "at L minus the echo's own, halved; the twin in front of ream's echo"},
                               {"note", c->Describe()}}}};
      }
    }
    // The line clients wait for, once the calibration's pings are out of their way.
    std::printf("relay 127.0.0.1:%d\n", relay->port);
    std::fflush(stdout);
  }

  // StartSandbox ran before_exec before it returned the sandbox: the monitor exists.
  Status ms = baseline.ok() ? monitor->Start() : baseline;
  if (!ms.ok()) std::cerr << "ream exec: monitor: " << ms.message() << "\n";

  int signal_received = 0;
  std::optional<ProcessExit> exit;
  while (!exit) {
    auto w = box.Wait(std::chrono::milliseconds(100));
    if (w.ok()) {
      exit = *w;
      break;
    }
    if ((signal_received = TerminationSignals::Received()) != 0) break;
  }
  MonitorReport report = monitor->Stop();
  if (signal_received) {
    std::cerr << "ream exec: " << strsignal(signal_received) << ": stopping the sandbox\n";
  }
  if (relay) {
    Status rs = relay->sandbox->Stop();
    if (!rs.ok()) std::cerr << "ream exec: stopping the relay: " << rs.message() << "\n";
  }
  Status stop = box.Stop();  // SIGTERM/SIGKILL if still running; removes every object
  std::string how = box.ExitDescription();
  bool oom = box.OomKilled();
  auto final_exit = box.Wait(std::chrono::milliseconds(0));

  if (!f.samples.empty()) {
    nlohmann::json j = report.ToJson();
    j["sandbox"] = {{"name", box.name()},
                    {"cpus", box.cpus()},
                    {"address", box.address()},
                    {"partition", spec->ToJson()},
                    {"command", f.command}};
    if (!relay_calibration.is_null()) j["sandbox"]["relay_calibration"] = relay_calibration;
    j["exit"] = {{"description", how},
                 {"oom_killed", oom},
                 {"code", final_exit.ok() ? nlohmann::json(final_exit->ShellCode()) : nlohmann::json(nullptr)}};
    if (!platform->WriteFile(f.samples, j.dump(2) + "\n").ok()) {
      std::cerr << "ream exec: could not write --samples file " << f.samples << "\n";
    }
  }
  std::cerr << "ream exec: " << how << "; " << SummaryLine(report) << "\n";
  if (!stop.ok()) std::cerr << "ream exec: " << stop.message() << "\n";
  TerminationSignals::Restore();
  if (signal_received) return kExitSignalBase + signal_received;
  if (!final_exit.ok()) return kExitCouldNotRun;
  return final_exit->ShellCode();
}

std::string EnforceableFooter() {
  auto platform = MakePosixPlatform();
  std::string out = "Partitions enforceable on this machine:\n";
  for (const auto& k : PartitionSupport(*platform)) {
    char b[64];
    std::snprintf(b, sizeof b, "  %-12s %-4s ", k.flag.c_str(), k.enforceable ? "yes" : "NO");
    out += b + k.detail + "\n";
  }
  auto topo = ReadTopology(*platform);
  if (topo.ok()) {
    out += "Generator CPUs reserved by default (--reserve-cpus): " +
           FormatCpuList(DefaultGeneratorCpus(*topo)) + "; SMT: " +
           (topo->has_smt() ? "yes" : "no (N-SMT scenarios are not available)") + "\n";
  }
  out += "Sizes use binary units (128M = 128 MiB); --cpu-quota is in percent of one CPU.\n"
         "Node links use " + std::string(kNodeNetwork) + " (/30 per node); objects are recorded "
         "in " + kDefaultStateDir + " and removed on exit, ^C, SIGTERM or by 'ream cleanup'.";
  return out;
}

}  // namespace

void AddExecCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<ExecArgs>();
  CLI::App* sub = app.add_subcommand(
      "exec", "Run COMMAND in a sandbox with a partition of the machine, and monitor it");
  sub->add_option("--cpus", f->cpus,
                  "Placement: 1-ST, 2-ST, 2-SMT, N-ST, N-SMT (avoiding the generator's CPUs) or "
                  "a CPU list such as 0,2-3");
  sub->add_option("--reserve-cpus", f->reserve_cpus,
                  "CPUs kept for ream's load generator: default (the last online CPU and its "
                  "siblings), none, or a CPU list");
  // The knobs' flags, from the table; --node comes before the first knob that acts on the node.
  bool node_added = false;
  auto add_node = [&] {
    if (node_added) return;
    sub->add_flag("--node", f->node, "Own network namespace joined to the host by a veth pair (address printed)");
    node_added = true;
  };
  for (const KnobFlag& k : ExecFlags(BuiltinKnobs())) {
    if (k.needs_node) add_node();
    sub->add_option(k.flag, f->knobs[k.key], k.help)->type_name(k.type);
  }
  add_node();
  sub->add_option("--relay-port", f->relay_port,
                  "With --net-latency/--net-gap/--net-per-byte: the port COMMAND listens on; ream's relay "
                  "forwards to it and prints its own address (\"relay 127.0.0.1:PORT\" on stdout)");
  sub->add_option("--relay-protocol", f->relay_protocol,
                  "The relay splits this protocol's messages (ream); otherwise each read is a message");
  sub->add_option("--user", f->user,
                  std::string("Run COMMAND as this account, without capabilities and with no_new_privs "
                              "(default: ") + kDefaultWorkloadUser + "); root keeps ream's privileges");
  sub->add_option("--sample-interval", f->sample_interval, "Monitor interval (default 250ms)");
  sub->add_option("--samples", f->samples, "Write the monitor's timeline and summary (JSON) here");
  sub->add_option("--state-dir", f->state_dir, "Where created objects are recorded")
      ->capture_default_str();
  sub->add_option("command", f->command, "-- COMMAND [ARGS...]")->expected(-1);
  sub->footer([] { return EnforceableFooter(); });
  commands.push_back({sub, [f] { return RunExec(*f); }});
}

}  // namespace ream::cli
