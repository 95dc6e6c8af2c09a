#include "experiment/workload_launch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "experiment/run_events.h"
#include "platform/text.h"
#include "platform/net.h"

namespace ream {
namespace {

using std::chrono::milliseconds;

}  // namespace

int BuiltinReadyPort(const std::string& line) {
  if (line.rfind("ready ", 0) != 0) return 0;
  const std::string hp = line.substr(6, line.find(' ', 6) - 6);
  const size_t colon = hp.rfind(':');
  return colon == std::string::npos ? 0 : std::atoi(hp.c_str() + colon + 1);
}

std::vector<std::string> WorkloadArgv(const ExperimentSpec& spec, const Prepared& prep, const PlannedRun& run,
                                      int port) {
  const WorkloadSpec& w = spec.workload;
  const std::vector<int>& cpus = prep.scenario_cpus.at(run.scenario);
  // The scenario's thread count: the seed's scenarios differ in "the number of threads spawned
  // by the server application and the logical core where each thread is pinned".
  const int threads = std::max(w.threads > 0 ? w.threads : static_cast<int>(cpus.size()), 1);
  std::vector<std::string> argv;
  if (!w.builtin.empty()) {
    argv = {prep.ream, "serve", w.builtin, "--port", "0", "--threads", std::to_string(threads)};
    // In a node, reached by client nodes, or on another host: on every address, not loopback only.
    if (prep.partitions.at(run.partition.Label()).node || spec.nodes.remote() || !spec.nodes.workload_host.empty()) {
      argv.push_back("--bind");
      argv.push_back("0.0.0.0");
    }
    argv.insert(argv.end(), w.args.begin(), w.args.end());
    return argv;
  }
  // "{port}", "{threads}" and "{cpus}" follow the run: `memcached -t {threads}`,
  // `nginx -g "worker_processes {threads};"`, `taskset -c {cpus} ...`.
  const std::vector<std::pair<std::string, std::string>> fills = {
      {"{port}", std::to_string(port)}, {"{threads}", std::to_string(threads)}, {"{cpus}", FormatCpuList(cpus)}};
  for (const std::string& a : w.command) argv.push_back(FillPlaceholders(a, fills));
  return argv;
}

Result<LaunchedWorkload> StartWorkload(Platform& p, SandboxKind& sandboxes, const ExperimentSpec& spec,
                                       const Prepared& prep, const PlannedRun& run, const std::string& state_dir,
                                       const std::function<bool()>& interrupted) {
  const WorkloadSpec& w = spec.workload;
  LaunchedWorkload wl;
  wl.port = w.port;
  if (w.builtin.empty() && wl.port == 0) {
    // A free port for "{port}" on the host the workload runs on (this one, or a remote
    // workload's host, asked through its agent).
    REAM_ASSIGN_OR_RETURN(wl.port, sandboxes.FreePort());
  }
  SandboxOptions so;
  so.partition = prep.partitions.at(run.partition.Label());
  const PartitionSpec knobs = so.partition;
  // L, g and G are the relay's, not the sandbox's: the workload's own partition has none of them.
  so.partition.net_latency.reset();
  so.partition.net_gap.reset();
  so.partition.net_per_byte.reset();
  so.partition.cpus = FormatCpuList(prep.scenario_cpus.at(run.scenario));
  so.partition.llc_masks = prep.placement.MasksOf(run, nullptr);
  // On another host no CPU is the generator's.
  so.reserved_cpus = prep.workload_host ? std::vector<int>{} : prep.generator_cpus;
  so.capture_stdout = true;
  so.user = WorkloadUser(p, w.user);
  so.keep_awake = spec.load.KeepsWorkloadAwake();
  if (!state_dir.empty()) so.state_dir = state_dir;
  std::vector<std::string> argv = WorkloadArgv(spec, prep, run, wl.port);
  REAM_ASSIGN_OR_RETURN(wl.sandbox, sandboxes.Start(so, argv));
  Sandbox& sb = *wl.sandbox;
  const int64_t deadline_ns = p.MonotonicNanos() + std::chrono::nanoseconds(w.ready_timeout).count();
  std::string what = "'" + Join(argv) + "'";
  auto not_ready = [&](const std::string& why) -> Status {
    std::string tail;
    if (!sb.Alive()) (void)sb.process().WaitForOutputEnd(milliseconds(500));
    auto lines = sb.process().Lines();
    for (size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i) tail += "\n    " + lines[i];
    (void)sb.Stop();
    return Unavailable("workload " + what + " " + why + (tail.empty() ? "" : "; its last output:" + tail));
  };
  while (true) {
    if (interrupted()) {
      (void)sb.Stop();
      return Cancelled("interrupted while waiting for the workload to become ready");
    }
    if (!sb.Alive()) return not_ready("exited before becoming ready: " + sb.ExitDescription());
    auto left = std::chrono::duration_cast<milliseconds>(std::chrono::nanoseconds(deadline_ns - p.MonotonicNanos()));
    if (left <= milliseconds(0)) {
      std::string how = !w.builtin.empty() ? "printed no 'ready HOST:PORT' line"
                        : w.ready == ReadyBy::kLine ? "printed no line containing \"" + w.ready_line + "\""
                                            : "accepted no connection on " + sb.address() + ":" + std::to_string(wl.port);
      (void)sb.Stop();
      return Timeout("workload " + what + " never became ready within " +
                     HumanSeconds(std::chrono::duration<double>(w.ready_timeout).count()) + " (it " + how +
                     "; raise workload.ready_timeout if it is only slow)");
    }
    milliseconds step = std::min(left, milliseconds(100));
    if (!w.builtin.empty() || w.ready == ReadyBy::kLine) {
      std::string needle = w.builtin.empty() ? w.ready_line : "";
      auto line = sb.WaitForLine(
          [&](const std::string& l) {
            return w.builtin.empty() ? l.find(needle) != std::string::npos : l.rfind("ready ", 0) == 0;
          },
          step);
      if (line.ok()) {
        if (!w.builtin.empty()) {
          wl.port = BuiltinReadyPort(*line);
          if (wl.port <= 0) return not_ready("printed a readiness line without a port: " + *line);
        }
        break;
      }
      if (line.status().code() == StatusCode::kUnavailable) continue;  // exited: reported above
    } else {
      auto fd = net::Connect(sb.address(), wl.port, std::chrono::duration_cast<std::chrono::nanoseconds>(step).count());
      if (fd.ok()) break;
      p.SleepFor(std::min(step, milliseconds(50)));
    }
  }
  wl.network = NetworkMethods(knobs, spec.workload.protocol);
  if (knobs.NeedsRelay()) {
    // Client nodes' agents connect to the relay from their own hosts or namespaces.
    const std::string listen = spec.nodes.remote() ? "0.0.0.0" : "127.0.0.1";
    auto r = StartRelay(p, sandboxes, prep.ream, prep.generator_cpus, sb.address(), wl.port, RelayParams(knobs),
                        spec.workload.protocol, state_dir, listen);
    if (!r.ok()) {
      (void)sb.Stop();
      return r.status();
    }
    wl.relay = std::move(r->sandbox);
    wl.relay_port = r->port;
    wl.relay_what = r->what;
    wl.network.target = "relay " + net::JoinHostPort(listen, r->port);
  }
  return wl;
}

Status LaunchedWorkload::Stop() {
  Status first;
  if (relay) first = relay->Stop().Annotate("stopping the relay");
  if (sandbox) {
    Status s = sandbox->Stop();
    if (first.ok()) first = s;
  }
  return first;
}

}  // namespace ream
