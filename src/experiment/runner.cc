#include "experiment/runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "cli/version.h"
#include "experiment/knee.h"
#include "experiment/plan.h"
#include "load/arrival.h"
#include "load/generator.h"
#include "load/key_chooser.h"
#include "monitor/monitor.h"
#include "partition/placement.h"
#include "partition/spec.h"
#include "platform/capabilities.h"
#include "platform/signals.h"
#include "platform/net.h"
#include "protocol/registry.h"
#include "sandbox/sandbox.h"
#include "store/store.h"
#include "topology/topology.h"

namespace ream {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string Fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string HumanSeconds(double s) {
  if (s < 0) s = 0;
  int t = static_cast<int>(std::lround(s));
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%dh%02dm", t / 3600, (t / 60) % 60);
  else if (t >= 60) std::snprintf(b, sizeof b, "%dm%02ds", t / 60, t % 60);
  else std::snprintf(b, sizeof b, "%ds", t);
  return b;
}

// Seconds one load level takes before any has been measured: `ream load` spends its response
// timeout and about a second more after every window.
double EstimatedSecondsPerPoint(const LoadSpec& l) {
  return std::chrono::duration<double>(l.warmup + l.duration + l.response_timeout).count() + 1.5;
}

std::string SpecAt(const ExperimentSpec& spec, int line) {
  return spec.source + (line > 0 ? ":" + std::to_string(line) : "") + ": ";
}

// FNV-1a of the spec text: --resume refuses to continue an experiment whose spec changed.
std::string HashText(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char b[24];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

std::string Join(const std::vector<std::string>& v, const std::string& sep = " ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// A failed measurement: the generator could not keep its schedule. (A failed point, where the
// workload died, is an answer: it misses QoS.) Such a load may be measured again.
bool InvalidMeasurement(const PointRecord& p) { return p.status == "ok" && !p.valid.value_or(false); }

// Why a point is invalid, as the generator said.
std::string InvalidWhy(const PointRecord& p) {
  return p.invalid_reasons.empty() ? std::string("the generator gave no reason") : Join(p.invalid_reasons, "; ");
}

// The `ream exec` flag whose enforceability covers a spec knob (sandbox/PartitionSupport).
std::string FlagOfKnob(const std::string& knob) {
  if (knob == "cpu_quota") return "--cpu-quota";
  if (knob == "memory") return "--memory";
  if (knob.rfind("disk_", 0) == 0) return "--disk-*";
  if (knob == "net_rate") return "--net-rate";
  if (knob == "llc_ways") return "--llc-ways";
  if (knob == "mem_bw") return "--mem-bw";
  return "";
}

// One partition's knobs as the sandbox takes them, each value parsed by partition/'s parsers.
Result<PartitionSpec> BuildPartition(const ExperimentSpec& spec, const PartitionValues& pv) {
  PartitionSpec p;
  p.node = spec.node;
  for (const auto& [knob, text] : pv.knobs) {
    Status bad;
    if (knob == "cpu_quota") {
      auto v = ParsePercent(text, "cpu_quota");
      if (!v.ok()) bad = v.status(); else p.cpu_quota = *v;
    } else if (knob == "memory") {
      auto v = ParseBytes(text);
      if (!v.ok()) bad = v.status(); else p.memory_bytes = *v;
    } else if (knob == "disk_read_bps" || knob == "disk_write_bps") {
      auto v = ParseBytesPerSecond(text);
      if (!v.ok()) bad = v.status();
      else (knob == "disk_read_bps" ? p.disk_read_bps : p.disk_write_bps) = *v;
    } else if (knob == "disk_read_iops" || knob == "disk_write_iops") {
      char* end = nullptr;
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (end == text.c_str() || *end != '\0' || v <= 0) bad = InvalidArgument("must be a positive integer");
      else (knob == "disk_read_iops" ? p.disk_read_iops : p.disk_write_iops) = v;
    } else if (knob == "disk_device") {
      p.disk_device = text;
    } else if (knob == "net_rate") {
      auto v = ParseBitRate(text);
      if (!v.ok()) bad = v.status(); else p.net_rate_bps = *v;
      p.node = true;  // shaping acts on the node's veth
    } else if (knob == "llc_ways") {
      char* end = nullptr;
      long v = std::strtol(text.c_str(), &end, 10);
      if (end == text.c_str() || *end != '\0' || v <= 0) bad = InvalidArgument("must be a positive number of ways");
      else p.llc_ways = static_cast<int>(v);
    } else if (knob == "mem_bw") {
      auto v = ParsePercent(text, "mem_bw");
      if (!v.ok()) bad = v.status(); else p.mem_bw_fraction = *v;
    }
    if (!bad.ok()) {
      int line = pv.lines.count(knob) ? pv.lines.at(knob) : 0;
      return InvalidArgument(SpecAt(spec, line) + "partitions." + knob + " = \"" + text + "\": " + bad.message());
    }
  }
  Status s = p.Validate();
  if (!s.ok()) return InvalidArgument(SpecAt(spec, 0) + "partition " + pv.Label() + ": " + s.message());
  return p;
}

// What validation established, for the runs.
struct Prepared {
  Topology topology;
  std::vector<int> generator_cpus;
  std::map<std::string, std::vector<int>> scenario_cpus;
  std::map<std::string, PartitionSpec> partitions;  // by label
  std::string ream;                                 // the ream binary
  std::vector<Capability> capabilities;             // `ream doctor`'s probes (for the store)
};

// Everything that can be known before any load is generated.
Result<Prepared> Validate(Platform& p, const ExperimentSpec& spec, const Plan& plan,
                          const RunnerOptions& o) {
  Prepared out;
  REAM_ASSIGN_OR_RETURN(out.topology, ReadTopology(p));
  auto gen = ParseReservedCpus(out.topology, spec.generator_cpus);
  if (!gen.ok()) return InvalidArgument(SpecAt(spec, 0) + "generator_cpus: " + gen.status().message());
  out.generator_cpus = *gen;
  for (const auto& run : plan.runs) {
    if (out.scenario_cpus.count(run.scenario)) continue;
    auto cpus = ResolvePlacement(out.topology, run.scenario, out.generator_cpus);
    int line = spec.scenario_lines.count(run.scenario) ? spec.scenario_lines.at(run.scenario) : 0;
    if (!cpus.ok()) {
      return Status(cpus.status().code(), SpecAt(spec, line) + "scenario \"" + run.scenario +
                                              "\" cannot run on this machine: " + cpus.status().message());
    }
    out.scenario_cpus[run.scenario] = *cpus;
  }
  std::vector<KnobSupport> support = PartitionSupport(p);
  auto enforceable = [&](const std::string& flag) -> const KnobSupport* {
    for (const auto& k : support) {
      if (k.flag == flag) return &k;
    }
    return nullptr;
  };
  for (const auto& pv : spec.partitions) {
    REAM_ASSIGN_OR_RETURN(PartitionSpec ps, BuildPartition(spec, pv));
    for (const auto& [knob, text] : pv.knobs) {
      std::string flag = FlagOfKnob(knob);
      const KnobSupport* k = flag.empty() ? nullptr : enforceable(flag);
      if (k && !k->enforceable) {
        int line = pv.lines.count(knob) ? pv.lines.at(knob) : 0;
        return Unsupported(SpecAt(spec, line) + "partitions." + knob + ": this machine cannot enforce it (" +
                           k->detail + ")");
      }
    }
    if (ps.node) {
      const KnobSupport* k = enforceable("--node");
      if (k && !k->enforceable) return Unsupported(SpecAt(spec, 0) + "node = true: " + k->detail);
    }
    out.partitions[pv.Label()] = ps;
  }
  auto names = ClientCodecNames();
  if (std::find(names.begin(), names.end(), spec.workload.protocol) == names.end()) {
    return InvalidArgument(SpecAt(spec, spec.workload.line) + "workload.protocol \"" + spec.workload.protocol +
                           "\" is not one ream speaks (" + Join(names, ", ") + ")");
  }
  // The generator's own options, as `ream load` will check them.
  LoadOptions lo;
  lo.port = 1;
  lo.protocol = spec.workload.protocol;
  lo.qps = plan.knee ? spec.sweep.low : (spec.sweep.qps.empty() ? 1 : spec.sweep.qps.front());
  auto arrival = ParseArrival(spec.load.arrival, "");
  if (!arrival.ok()) return InvalidArgument(SpecAt(spec, 0) + "load.arrival: " + arrival.status().message());
  lo.arrival = *arrival;
  auto kd = ParseKeyDist(spec.load.key_dist);
  if (!kd.ok()) return InvalidArgument(SpecAt(spec, 0) + "load.key_dist: " + kd.status().message());
  lo.key_dist = *kd;
  lo.connections = spec.load.connections;
  lo.threads = spec.load.threads;
  lo.keys = static_cast<uint64_t>(spec.load.keys);
  lo.get_ratio = spec.load.get_ratio;
  Status ls = ValidateLoadOptions(lo);
  if (!ls.ok()) return InvalidArgument(SpecAt(spec, 0) + "[load]: " + ls.message());
  // The client codec, as `ream load` will build it: an unknown protocol, a malformed HTTP
  // path, or a get/set mix the protocol cannot send fails here, before any workload starts.
  lo.codec.value_bytes = static_cast<size_t>(spec.load.value_bytes);
  lo.codec.http_path = spec.load.http_path;
  lo.codec.http_method = spec.load.http_method;
  auto codec = MakeClientCodec(spec.workload.protocol, lo.codec);
  if (!codec.ok()) {
    return InvalidArgument(SpecAt(spec, spec.workload.line) + "workload.protocol / [load]: " + codec.status().message());
  }
  if (CodecCapabilities caps = (*codec)->capabilities(); !caps.supports_set && spec.load.get_ratio < 1) {
    return InvalidArgument(SpecAt(spec, 0) + "load.get_ratio = " + Fmt("%g", spec.load.get_ratio) + ": protocol \"" +
                           spec.workload.protocol + "\" cannot send sets: " + caps.no_sets_because +
                           "; use get_ratio = 1");
  }
  if (!spec.workload.command.empty()) {
    const std::string& prog = spec.workload.command[0];
    bool found = prog.find('/') != std::string::npos ? p.Exists(prog) : p.FindExecutable(prog).ok();
    if (!found) {
      return NotFound(SpecAt(spec, spec.workload.line) + "workload.command: program '" + prog +
                      "' is not found" + (prog.find('/') == std::string::npos ? " in PATH" : ""));
    }
  }
  if (!o.ream_binary.empty()) {
    out.ream = o.ream_binary;
  } else {
    REAM_ASSIGN_OR_RETURN(out.ream, p.RealPath("/proc/self/exe"));
  }
  return out;
}

// The generator's JSON document out of `ream load --json /dev/stdout`'s captured output: the
// lines from a line "{" to the first line "}" (the summary may come before or after it).
Result<nlohmann::json> ExtractJson(const std::string& text) {
  size_t start = text.rfind("\n{\n") != std::string::npos ? text.find("\n{\n") + 1 : std::string::npos;
  if (text.rfind("{\n", 0) == 0) start = 0;
  if (start == std::string::npos) return Corrupt("the generator printed no JSON result");
  size_t end = text.find("\n}", start);
  if (end == std::string::npos) return Corrupt("the generator's JSON result is truncated");
  auto j = nlohmann::json::parse(text.substr(start, end + 2 - start), nullptr, false);
  if (j.is_discarded()) return Corrupt("the generator's JSON result does not parse");
  return j;
}

std::optional<double> OptNum(const nlohmann::json& j, const char* a, const char* b = nullptr) {
  const nlohmann::json* v = j.contains(a) ? &j[a] : nullptr;
  if (v && b) v = (v->is_object() && v->contains(b)) ? &(*v)[b] : nullptr;
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}
std::optional<int64_t> OptInt(const nlohmann::json& j, const char* a) {
  if (!j.contains(a) || !j[a].is_number()) return std::nullopt;
  return j[a].get<int64_t>();
}

// Fills the client-side columns and histograms from the generator's JSON.
void FillFromGenerator(const nlohmann::json& g, PointData* d) {
  PointRecord& p = d->point;
  p.generator = g;
  p.generator.erase("histograms");  // stored decoded-ready in the histograms table
  p.issued = OptInt(g, "issued");
  p.completed = OptInt(g, "completed");
  p.errors = OptInt(g, "errors");
  p.achieved_qps = OptNum(g, "achieved_qps");
  p.throughput_qps = OptNum(g, "throughput_qps");
  p.timely_ratio = OptNum(g, "timely_ratio");
  p.timely_tolerance_us = OptNum(g, "timely_tolerance_us");
  if (g.contains("valid") && g["valid"].is_boolean()) p.valid = g["valid"].get<bool>();
  if (g.contains("invalid_reasons") && g["invalid_reasons"].is_array()) {
    for (const auto& r : g["invalid_reasons"]) {
      if (r.is_string()) p.invalid_reasons.push_back(r.get<std::string>());
    }
  }
  p.latency_mean_us = OptNum(g, "latency_us", "mean");
  p.latency_stddev_us = OptNum(g, "latency_us", "stddev");
  p.latency_p50_us = OptNum(g, "latency_us", "p50");
  p.latency_p95_us = OptNum(g, "latency_us", "p95");
  p.latency_p99_us = OptNum(g, "latency_us", "p99");
  p.latency_p999_us = OptNum(g, "latency_us", "p999");
  p.latency_max_us = OptNum(g, "latency_us", "max");
  bool server_times = g.contains("service_us") && g["service_us"].is_object();
  p.service_reported = server_times;
  if (server_times) {
    p.service_mean_us = OptNum(g, "service_us", "mean");
    p.service_p50_us = OptNum(g, "service_us", "p50");
    p.service_p95_us = OptNum(g, "service_us", "p95");
    p.service_p99_us = OptNum(g, "service_us", "p99");
    p.queue_mean_us = OptNum(g, "queue_us", "mean");
    p.queue_p95_us = OptNum(g, "queue_us", "p95");
  } else {
    std::string why = g.value("server_times_unavailable", std::string("the protocol does not report service time"));
    for (const char* c : {"service_mean_us", "service_p50_us", "service_p95_us", "service_p99_us",
                          "queue_mean_us", "queue_p95_us"}) {
      p.unavailable[c] = why;
    }
  }
  p.lateness_p50_us = OptNum(g, "lateness_us", "p50");
  p.lateness_p99_us = OptNum(g, "lateness_us", "p99");
  p.lateness_max_us = OptNum(g, "lateness_us", "max");
  p.generator_cpu_s = OptNum(g, "generator_cpu_s");
  p.duration_s = OptNum(g, "duration_s");
  if (g.contains("histograms") && g["histograms"].is_object()) {
    const std::pair<const char*, const char*> kinds[] = {
        {"latency_ns", kHistSojourn}, {"latency_from_send_ns", kHistSojournFromSend},
        {"service_ns", kHistService}, {"queue_ns", kHistQueue}, {"lateness_ns", kHistLateness}};
    for (const auto& [src, dst] : kinds) {
      if (!server_times && (std::string(dst) == kHistService || std::string(dst) == kHistQueue)) continue;
      const auto& h = g["histograms"];
      if (!h.contains(src) || !h[src].is_string()) continue;
      auto decoded = Histogram::Decode(h[src].get<std::string>());
      if (decoded.ok()) d->histograms[dst] = std::move(decoded).value();
    }
  }
}

// Fills the server-side columns from the monitor's report; a metric it could not measure is
// NULL with the monitor's reason.
void FillFromMonitor(const MonitorReport& r, PointData* d) {
  PointRecord& p = d->point;
  nlohmann::json j = r.ToJson();
  d->timeline = {{"interval_s", j.value("interval_s", 0.0)}, {"timeline", j["timeline"]}};
  j.erase("timeline");
  p.monitor = j;
  struct Map {
    std::optional<double> PointRecord::*column;
    const char* name;
    const char* metric;
    const char* family;
  };
  const Map maps[] = {
      {&PointRecord::cpu_util, "cpu_util", "cpu_utilization", "cpu"},
      {&PointRecord::net_rx_bps, "net_rx_bps", "net_rx_bytes_per_s", "net"},
      {&PointRecord::net_tx_bps, "net_tx_bps", "net_tx_bytes_per_s", "net"},
      {&PointRecord::disk_read_bps, "disk_read_bps", "disk_read_bytes_per_s", "disk"},
      {&PointRecord::disk_write_bps, "disk_write_bps", "disk_write_bytes_per_s", "disk"},
      {&PointRecord::disk_read_iops, "disk_read_iops", "disk_read_iops", "disk"},
      {&PointRecord::disk_write_iops, "disk_write_iops", "disk_write_iops", "disk"},
      {&PointRecord::mem_bytes, "mem_bytes", "memory_bytes", "memory"},
      {&PointRecord::mem_bw_bps, "mem_bw_bps", "mem_bandwidth_bytes_per_s", "mem_bandwidth"},
      {&PointRecord::llc_occupancy_bytes, "llc_occupancy_bytes", "llc_occupancy_bytes", "llc_occupancy"},
  };
  auto reason = [&](const char* family) {
    auto it = r.unavailable.find(family);
    if (it != r.unavailable.end()) return it->second;
    for (const auto& [k, v] : r.unavailable) {
      if (k.find(family) != std::string::npos) return v;
    }
    return std::string("the monitor took no sample of it in this window");
  };
  for (const auto& m : maps) {
    p.*(m.column) = r.Mean(m.metric);
    if (!(p.*(m.column))) p.unavailable[m.name] = reason(m.family);
  }
  if (auto used = r.Mean("cpu_used")) {
    p.server_cpu_s = *used * r.duration_s;
  } else {
    p.unavailable["server_cpu_s"] = reason("cpu");
  }
}

class Runner {
 public:
  Runner(Platform& p, const ExperimentSpec& spec, const RunnerOptions& o, Prepared prep, Store store,
         std::ostream& out)
      : p_(p), spec_(spec), o_(o), prep_(std::move(prep)), store_(std::move(store)), out_(out) {}

  // Finds the plan's runs still to do (--resume skips the complete ones).
  Status Begin(const Plan& plan, int64_t experiment_id);
  // Runs the plan's i-th run unless it is complete. Cancelled when interrupted.
  Status RunPlanned(size_t i, RunOutcome& outcome) {
    auto it = todo_.find(i);
    return it == todo_.end() ? Status::Ok() : RunOne(*it->second.first, it->second.second, outcome);
  }
  // Whether every run of Begin's list ended (complete, or failed), as RunOne recorded it.
  bool Finished() const {
    return std::all_of(todo_.begin(), todo_.end(), [](const auto& t) {
      return t.second.second.status == "complete" || t.second.second.status == "failed";
    });
  }
  // Prefixes the run headers and progress lines (several experiments in one call).
  void SetLabel(std::string label) { label_ = std::move(label); }

 private:
  struct Workload {
    std::unique_ptr<Sandbox> sandbox;
    int port = 0;
  };

  bool Interrupted() const { return TerminationSignals::Received() != 0; }
  Result<Workload> StartWorkload(const PlannedRun& run);
  Result<PointData> MeasureLevel(Workload& wl, const PlannedRun& run, int64_t run_id, double qps, int64_t seq);
  Status RunOne(const PlannedRun& run, RunRecord& rec, RunOutcome& outcome);
  std::vector<std::string> WorkloadArgv(const PlannedRun& run, int port) const;
  void Progress(const PlannedRun& run, const PointRecord& p, double pct_latency_us);
  // Whether a point meets QoS (valid, and its QoS percentile within the target).
  bool MeetsQos(const PointData& d, double target_us) const;
  double PercentileUs(const PointData& d) const;
  Result<double> DeriveTarget(const PointData& first, const PlannedRun& run) const;

  Platform& p_;
  const ExperimentSpec& spec_;
  RunnerOptions o_;
  Prepared prep_;
  Store store_;
  std::ostream& out_;
  int planned_points_ = 0;
  int done_points_ = 0;
  double measured_seconds_ = 0;
  int measured_points_ = 0;
  std::map<size_t, std::pair<const PlannedRun*, RunRecord>> todo_;  // by plan index
  std::string label_;
};

std::vector<std::string> Runner::WorkloadArgv(const PlannedRun& run, int port) const {
  const WorkloadSpec& w = spec_.workload;
  std::vector<std::string> argv;
  if (!w.builtin.empty()) {
    int threads = w.threads > 0 ? w.threads : static_cast<int>(prep_.scenario_cpus.at(run.scenario).size());
    argv = {prep_.ream, "serve", w.builtin, "--port", "0", "--threads", std::to_string(std::max(threads, 1))};
    if (prep_.partitions.at(run.partition.Label()).node) {
      argv.push_back("--bind");
      argv.push_back("0.0.0.0");
    }
    argv.insert(argv.end(), w.args.begin(), w.args.end());
    return argv;
  }
  for (std::string a : w.command) {
    for (size_t at; (at = a.find("{port}")) != std::string::npos;) a.replace(at, 6, std::to_string(port));
    argv.push_back(a);
  }
  return argv;
}

Result<Runner::Workload> Runner::StartWorkload(const PlannedRun& run) {
  const WorkloadSpec& w = spec_.workload;
  Workload wl;
  wl.port = w.port;
  if (w.builtin.empty() && wl.port == 0) {
    // A free port for "{port}": bind port 0, read it back, release it for the workload.
    REAM_ASSIGN_OR_RETURN(net::Fd fd, net::Listen("127.0.0.1", 0));
    REAM_ASSIGN_OR_RETURN(wl.port, net::LocalPort(fd.get()));
  }
  SandboxOptions so;
  so.partition = prep_.partitions.at(run.partition.Label());
  so.partition.cpus = FormatCpuList(prep_.scenario_cpus.at(run.scenario));
  so.reserved_cpus = prep_.generator_cpus;
  so.capture_stdout = true;
  if (!o_.state_dir.empty()) so.state_dir = o_.state_dir;
  std::vector<std::string> argv = WorkloadArgv(run, wl.port);
  REAM_ASSIGN_OR_RETURN(wl.sandbox, StartSandbox(p_, so, argv));
  Sandbox& sb = *wl.sandbox;
  auto deadline = Clock::now() + w.ready_timeout;
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
    if (Interrupted()) {
      (void)sb.Stop();
      return Cancelled("interrupted while waiting for the workload to become ready");
    }
    if (!sb.Alive()) return not_ready("exited before becoming ready: " + sb.ExitDescription());
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left <= milliseconds(0)) {
      std::string how = !w.builtin.empty() ? "printed no 'ready HOST:PORT' line"
                        : w.ready == "line" ? "printed no line containing \"" + w.ready_line + "\""
                                            : "accepted no connection on " + sb.address() + ":" + std::to_string(wl.port);
      (void)sb.Stop();
      return Timeout("workload " + what + " never became ready within " +
                     HumanSeconds(std::chrono::duration<double>(w.ready_timeout).count()) + " (it " + how +
                     "; raise workload.ready_timeout if it is only slow)");
    }
    milliseconds step = std::min(left, milliseconds(100));
    if (!w.builtin.empty() || w.ready == "line") {
      std::string needle = w.builtin.empty() ? w.ready_line : "";
      auto line = sb.WaitForLine(
          [&](const std::string& l) {
            return w.builtin.empty() ? l.find(needle) != std::string::npos : l.rfind("ready ", 0) == 0;
          },
          step);
      if (line.ok()) {
        if (!w.builtin.empty()) {
          // "ready HOST:PORT ...": the port the builtin picked.
          std::string hp = line->substr(6, line->find(' ', 6) - 6);
          wl.port = std::atoi(hp.substr(hp.rfind(':') + 1).c_str());
          if (wl.port <= 0) return not_ready("printed a readiness line without a port: " + *line);
        }
        break;
      }
      if (line.status().code() == StatusCode::kUnavailable) continue;  // exited: reported above
    } else {
      auto fd = net::Connect(sb.address(), wl.port, std::chrono::duration_cast<std::chrono::nanoseconds>(step).count());
      if (fd.ok()) break;
      std::this_thread::sleep_for(std::min(step, milliseconds(50)));
    }
  }
  return wl;
}

double Runner::PercentileUs(const PointData& d) const {
  auto it = d.histograms.find(kHistSojourn);
  if (it != d.histograms.end() && it->second.count() > 0) {
    return static_cast<double>(it->second.ValueAtQuantile(spec_.qos.percentile / 100.0)) / 1000.0;
  }
  if (spec_.qos.percentile == 95.0 && d.point.latency_p95_us) return *d.point.latency_p95_us;
  return 0;
}

bool Runner::MeetsQos(const PointData& d, double target_us) const {
  if (d.point.status != "ok" || !d.point.valid.value_or(false)) return false;
  double pct = PercentileUs(d);
  return pct > 0 && pct <= target_us;
}

Result<double> Runner::DeriveTarget(const PointData& first, const PlannedRun& run) const {
  if (spec_.qos.target_us) return *spec_.qos.target_us;
  const PointRecord& p = first.point;
  double service_us = 0;
  if (p.service_mean_us && *p.service_mean_us > 0) {
    service_us = *p.service_mean_us;
  } else if (p.cpu_util && p.throughput_qps && *p.throughput_qps > 0) {
    // Service demand law: S = U / X over the allotted CPUs.
    double allotted = static_cast<double>(prep_.scenario_cpus.at(run.scenario).size());
    const PartitionSpec& ps = prep_.partitions.at(run.partition.Label());
    if (ps.cpu_quota) allotted = std::min(allotted, *ps.cpu_quota);
    service_us = *p.cpu_util * allotted / *p.throughput_qps * 1e6;
  }
  if (!(service_us > 0)) {
    return InvalidArgument(SpecAt(spec_, 0) + "the knee search needs a QoS target: set [qos] target, "
                           "because the service time could not be measured at the lowest load");
  }
  return spec_.qos.service_multiplier * service_us;
}

Result<PointData> Runner::MeasureLevel(Workload& wl, const PlannedRun& run, int64_t run_id, double qps,
                                       int64_t seq) {
  PointData d;
  PointRecord& p = d.point;
  p.run_id = run_id;
  p.seq = seq;
  p.target_qps = qps;
  p.started_ns = p_.WallNanos();
  const LoadSpec& l = spec_.load;
  auto ms = [](auto dur) { return std::to_string(std::chrono::duration_cast<milliseconds>(dur).count()) + "ms"; };
  std::vector<std::string> argv = {
      prep_.ream, "load", "--target", wl.sandbox->address() + ":" + std::to_string(wl.port),
      "--protocol", spec_.workload.protocol, "--qps", Fmt("%.6g", qps),
      "--duration", ms(l.duration), "--warmup", ms(l.warmup),
      "--arrival", l.arrival, "--keys", std::to_string(l.keys), "--key-dist", l.key_dist,
      "--get-ratio", Fmt("%.6g", l.get_ratio), "--connections", std::to_string(l.connections),
      "--threads", std::to_string(l.threads),
      "--timely-tolerance", std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(l.timely_tolerance).count()) + "us",
      "--seed", std::to_string(spec_.seed + 7919ull * static_cast<uint64_t>(run.ordinal) + static_cast<uint64_t>(seq)),
      "--value-bytes", std::to_string(l.value_bytes),
      "--min-timely", Fmt("%.6g", spec_.qos.min_timely_ratio),
      "--max-rate-error", Fmt("%.6g", spec_.qos.max_rate_error),
      "--response-timeout", ms(l.response_timeout),
      "--http-path", l.http_path, "--http-method", l.http_method, "--wait", l.wait,
      "--json", "/dev/stdout"};
  // The generator runs in a sandbox of its own whose cpuset is the generator's CPUs: it never
  // competes with the workload for a CPU.
  SandboxOptions go;
  go.partition.cpus = FormatCpuList(prep_.generator_cpus);
  go.reserved_cpus = std::vector<int>{};
  go.capture_stdout = true;
  auto captured = std::make_shared<std::pair<std::mutex, std::string>>();
  go.on_stdout_line = [captured](const std::string& line) {
    std::lock_guard<std::mutex> lock(captured->first);
    captured->second += line + "\n";
  };
  if (!o_.state_dir.empty()) go.state_dir = o_.state_dir;
  if (prep_.generator_cpus.empty()) go.partition.cpus.clear();

  Monitor monitor(p_, TargetOf(*wl.sandbox), {.interval = spec_.sample_interval});
  auto t0 = Clock::now();
  REAM_ASSIGN_OR_RETURN(auto gen, StartSandbox(p_, go, argv));
  // Sample the measured window only: from the end of the warm-up to the end of the duration.
  auto window_start = t0 + l.warmup;
  auto window_end = window_start + l.duration;
  bool monitoring = false;
  std::optional<MonitorReport> report;
  std::optional<ProcessExit> gen_exit;
  auto give_up = window_end + l.response_timeout + milliseconds(15000);
  while (true) {
    auto now = Clock::now();
    if (Interrupted()) {
      (void)gen->Stop();
      if (monitoring) monitor.Stop();
      return Cancelled("interrupted during the load level at " + Fmt("%.6g", qps) + " QPS");
    }
    if (!monitoring && !report && now >= window_start) {
      Status s = monitor.Start();
      if (!s.ok()) {
        p.unavailable["monitor"] = s.message();
        report = MonitorReport{};
      } else {
        monitoring = true;
      }
    }
    if (monitoring && now >= window_end) {
      report = monitor.Stop();
      monitoring = false;
    }
    if (!gen->Alive()) {
      auto e = gen->Wait(milliseconds(0));
      if (e.ok()) gen_exit = *e;
      break;
    }
    if (now > give_up) {
      (void)gen->Stop();
      p.status = "failed";
      p.failure = "the generator did not finish within 15 s of its response timeout after its window";
      break;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  if (monitoring) {
    report = monitor.Stop();
    monitoring = false;
  }
  // The generator prints its JSON just before it exits; the pipe may still hold it when the
  // exit is seen (seen: "printed no JSON result" from a generator that exited with status 0).
  if (gen_exit) (void)gen->process().WaitForOutputEnd(milliseconds(2000));
  (void)gen->Stop();
  if (report) FillFromMonitor(*report, &d);

  std::string text;
  {
    std::lock_guard<std::mutex> lock(captured->first);
    text = captured->second;
  }
  auto gj = ExtractJson(text);
  if (gj.ok()) FillFromGenerator(*gj, &d);
  // The workload's fate decides first: a workload that died makes the point failed whatever
  // the generator measured.
  if (!wl.sandbox->Alive()) {
    auto e = wl.sandbox->Wait(milliseconds(0));
    p.status = "failed";
    p.workload_exit = wl.sandbox->ExitDescription();
    if (e.ok()) p.workload_exit_code = e->ShellCode();
    p.failure = "the workload " + p.workload_exit + " during this load level";
  } else if (p.status == "ok" && !gj.ok()) {
    p.status = "failed";
    p.failure = "the generator failed (" + (gen_exit ? gen_exit->Describe() : std::string("no exit status")) +
                "): " + gj.status().message();
  } else if (p.status == "ok" && gen_exit && gen_exit->ShellCode() != 0 && gen_exit->ShellCode() != 3) {
    // 3: the measurement happened but some requests failed (counted in `errors`).
    p.status = "failed";
    p.failure = "the generator " + gen_exit->Describe();
  }
  if (p.status != "ok") p.valid = std::nullopt;
  return d;
}

void Runner::Progress(const PlannedRun& run, const PointRecord& p, double pct_latency_us) {
  ++done_points_;
  int left = std::max(planned_points_ - done_points_, 0);
  double per = measured_points_ ? measured_seconds_ / measured_points_ : EstimatedSecondsPerPoint(spec_.load);
  std::string line = label_ + "[" + std::to_string(done_points_) + "/" + std::to_string(planned_points_) +
                     (spec_.sweep.mode == "knee" ? " max" : "") + "] " + run.scenario + " " +
                     run.partition.Label() + " rep" + std::to_string(run.repetition) + "  " +
                     Fmt("%.0f", p.target_qps) + " QPS  " +
                     (p.attempt > 0 ? "(attempt " + std::to_string(p.attempt + 1) + ")  " : "");
  if (p.status != "ok") {
    line += "FAILED: " + p.failure;
  } else {
    line += "p" + Fmt("%g", spec_.qos.percentile) + " " +
            (pct_latency_us > 0 ? Fmt("%.0f", pct_latency_us) + " us" : std::string("n/a (no response)")) + "  timely " +
            (p.timely_ratio ? Fmt("%.1f%%", *p.timely_ratio * 100) : std::string("n/a")) + "  cpu " +
            (p.cpu_util ? Fmt("%.0f%%", *p.cpu_util * 100) : std::string("n/a")) + "  " +
            (p.valid.value_or(false) ? "valid" : "INVALID (" + InvalidWhy(p) + ")");
  }
  line += "  | " + std::to_string(left) + " left, ETA " + HumanSeconds(left * per);
  out_ << line << std::endl;
}

Status Runner::RunOne(const PlannedRun& run, RunRecord& rec, RunOutcome& outcome) {
  REAM_ASSIGN_OR_RETURN(auto stored, store_.ListPoints(rec.id));
  // (target, attempt) → stored point (with its sojourn histogram). A knee search measures a
  // level again when its point was invalid; on --resume it asks for the same (level,
  // attempt) pairs in the same order, so every stored attempt is reused, none repeated.
  std::map<std::pair<double, int64_t>, PointData> have;
  for (auto& sp : stored) {
    PointData d;
    d.point = sp;
    auto hs = store_.GetHistograms(sp.id);
    if (hs.ok()) d.histograms = std::move(hs).value();
    have.emplace(std::make_pair(sp.target_qps, sp.attempt), std::move(d));
  }
  int64_t next_seq = 0;
  for (const auto& [q, d] : have) next_seq = std::max(next_seq, d.point.seq + 1);

  rec.workload_cpus = FormatCpuList(prep_.scenario_cpus.at(run.scenario));
  rec.generator_cpus = FormatCpuList(prep_.generator_cpus);
  rec.status = "running";
  if (!rec.started_ns) rec.started_ns = p_.WallNanos();
  REAM_RETURN_IF_ERROR(store_.UpdateRun(rec));
  out_ << label_ << "run " << run.ordinal + 1 << ": scenario " << run.scenario << " (workload on CPU "
       << rec.workload_cpus << ", generator on CPU " << (rec.generator_cpus.empty() ? "any" : rec.generator_cpus)
       << "), partition " << run.partition.Label() << ", repetition " << run.repetition
       << (have.empty() ? "" : " — resuming, " + std::to_string(have.size()) + " point(s) already stored") << "\n";

  std::optional<Workload> wl;
  bool run_failed = false;
  std::string run_failure;
  // Measures one level (or returns the stored one), keeping the workload up as the spec says.
  auto level = [&](double qps, int attempt) -> Result<PointData> {
    if (auto it = have.find({qps, attempt}); it != have.end()) {
      ++outcome.points_skipped;
      return it->second;
    }
    if (wl && (spec_.workload.restart == "point" || !wl->sandbox->Alive())) {
      if (!wl->sandbox->Alive()) {
        out_ << "  workload " << wl->sandbox->ExitDescription() << " between load levels; restarting it\n";
      }
      (void)wl->sandbox->Stop();
      wl.reset();
    }
    if (!wl) {
      REAM_ASSIGN_OR_RETURN(Workload w, StartWorkload(run));
      wl = std::move(w);
    }
    auto started = Clock::now();
    REAM_ASSIGN_OR_RETURN(PointData d, MeasureLevel(*wl, run, rec.id, qps, next_seq));
    d.point.attempt = attempt;
    auto id = store_.InsertPoint(d);
    if (!id.ok()) return id.status();
    d.point.id = *id;
    ++next_seq;
    measured_seconds_ += std::chrono::duration<double>(Clock::now() - started).count();
    ++measured_points_;
    ++outcome.points_stored;
    if (d.point.status != "ok") ++outcome.points_failed;
    Progress(run, d.point, PercentileUs(d));
    have.emplace(std::make_pair(qps, int64_t{attempt}), d);
    return d;
  };

  // The reasons the last attempt at a level was invalid.
  auto why_invalid = [&](double qps, int attempt) {
    auto it = have.find({qps, attempt});
    return it == have.end() ? std::string("no point stored") : InvalidWhy(it->second.point);
  };
  // Says that a level is measured again (attempt ≥ 1) because its last point was invalid.
  // The re-measurements follow the level's last valid measurement (a knee confirming an end
  // measures a level again after a valid one), or its first attempt.
  auto say_again = [&](double qps, int attempt) {
    int chain_start = attempt - 1;
    while (chain_start > 0) {
      auto it = have.find({qps, chain_start - 1});
      if (it == have.end() || !InvalidMeasurement(it->second.point)) break;
      --chain_start;
    }
    out_ << "  measuring " << Fmt("%.6g", qps) << " QPS again (attempt " << attempt + 1 << " of at most "
         << chain_start + spec_.sweep.remeasure_invalid + 1 << "): the last point there was invalid ("
         << why_invalid(qps, attempt - 1) << "), a failed measurement that says nothing about QoS (sweep.remeasure_invalid)\n";
  };

  // A repeat at a level after a valid measurement there is a knee confirming an end of its
  // bracket (sweep.confirm); after an invalid one, a re-measurement (sweep.remeasure_invalid).
  auto confirms = [&](double qps, int attempt) {
    auto last = have.find({qps, attempt - 1});
    return attempt > 0 && last != have.end() && !InvalidMeasurement(last->second.point);
  };

  Status result;
  if (spec_.sweep.mode == "grid") {
    int invalid_streak = 0;
    bool seen_valid = false;
    for (double qps : run.grid_qps) {
      // An invalid point is a failed measurement (as in the knee search): the level is measured
      // again, up to sweep.remeasure_invalid more times, and the first valid attempt stands.
      // Without this, two late bursts of a noisy machine in a row end the sweep as "past
      // saturation" far below it.
      Result<PointData> d = level(qps, 0);
      for (int attempt = 1; d.ok() && attempt <= spec_.sweep.remeasure_invalid && InvalidMeasurement(d->point);
           ++attempt) {
        if (!have.count({qps, attempt})) {
          ++planned_points_;  // one more point than the grid's levels
          say_again(qps, attempt);
        }
        d = level(qps, attempt);
      }
      if (!d.ok()) {
        result = d.status();
        break;
      }
      bool ok = d->point.status == "ok";
      if (!ok && spec_.sweep.on_failure == "stop") {
        run_failed = true;
        run_failure = "stopped at " + Fmt("%.6g", qps) + " QPS (sweep.on_failure = \"stop\"): " + d->point.failure;
        break;
      }
      // Invalid points count towards the stop rule only after a valid one: invalid points
      // from the first level on say the generator or the machine cannot hold the schedule,
      // not that the workload saturated, and the sweep goes on.
      bool valid = ok && d->point.valid.value_or(false);
      seen_valid = seen_valid || valid;
      invalid_streak = valid ? 0 : (seen_valid ? invalid_streak + 1 : 0);
      if (spec_.sweep.stop_after_invalid > 0 && invalid_streak >= spec_.sweep.stop_after_invalid) {
        int skipped = 0;
        for (double q : run.grid_qps) skipped += q > qps && !have.count({q, 0});
        planned_points_ -= skipped;
        out_ << "  " << invalid_streak << " invalid point(s) in a row after valid ones: the workload is "
             << "past saturation; " << skipped << " higher level(s) skipped (sweep.stop_after_invalid)\n";
        break;
      }
    }
  } else {
    std::optional<double> target;
    KneeOptions ko{spec_.sweep.low, spec_.sweep.high, spec_.sweep.precision, spec_.sweep.max_points,
                   spec_.sweep.remeasure_invalid, spec_.sweep.confirm};
    auto measure = [&](double qps, int attempt) -> Result<KneeProbe> {
      if (attempt > 0 && !have.count({qps, attempt})) {
        if (confirms(qps, attempt)) {
          out_ << "  measuring " << Fmt("%.6g", qps) << " QPS again (attempt " << attempt + 1
               << "): an end of the knee's bracket is confirmed by a second valid measurement, a third "
                  "when two disagree (sweep.confirm)\n";
        } else {
          say_again(qps, attempt);
        }
      }
      REAM_ASSIGN_OR_RETURN(PointData d, level(qps, attempt));
      if (InvalidMeasurement(d.point)) {
        return KneeProbe{qps, false, PercentileUs(d), /*valid=*/false};
      }
      if (!target) {
        REAM_ASSIGN_OR_RETURN(double t, DeriveTarget(d, run));
        target = t;
        out_ << "  QoS target " << Fmt("%.1f", t) << " us"
             << (spec_.qos.target_us ? " (fixed by the spec)" : " (" + Fmt("%g", spec_.qos.service_multiplier) +
                                                                   " x the service time at the lowest load)")
             << "\n";
      }
      return KneeProbe{qps, MeetsQos(d, *target), PercentileUs(d)};
    };
    auto knee = FindKnee(ko, 0, measure);
    if (!knee.ok()) {
      result = knee.status();
    } else {
      // Interpolate now that the target is known.
      const KneeResult& k = *knee;
      planned_points_ -= spec_.sweep.max_points - static_cast<int>(k.probes.size());
      bool low_unmeasured = false;
      for (const auto& l : k.invalid_levels) {
        low_unmeasured = low_unmeasured || l.qps == spec_.sweep.low;
        out_ << "  knee: " << Fmt("%.6g", l.qps) << " QPS could not be measured validly after " << l.attempts
             << " attempt(s) (last: " << why_invalid(l.qps, l.attempts - 1)
             << "); counted as not meeting QoS, so no capacity is claimed from it\n";
      }
      int again = 0, confirmations = 0;
      for (const auto& p : k.probes) {
        if (p.attempt > 0) ++(confirms(p.qps, p.attempt) ? confirmations : again);
      }
      std::string points = std::to_string(k.probes.size()) + " points" +
                           (again ? ", " + std::to_string(again) + " of them re-measurements of invalid ones" : "") +
                           (confirmations ? ", " + std::to_string(confirmations) + " confirmations of the ends" : "");
      if (k.below_range && low_unmeasured) {
        out_ << "  knee: not found: sweep.low (" << Fmt("%.6g", spec_.sweep.low)
             << " QPS) was never measured validly, so no load in range is claimed to meet QoS\n";
      } else if (k.below_range) {
        out_ << "  knee: even " << Fmt("%.6g", spec_.sweep.low) << " QPS misses QoS (below sweep.low)\n";
      } else if (k.above_range) {
        out_ << "  knee: " << Fmt("%.6g", spec_.sweep.high) << " QPS still meets QoS (above sweep.high)\n";
      } else if (!k.first_fail) {
        out_ << "  knee: " << Fmt("%.6g", *k.last_pass) << " QPS meets QoS; max_points reached before sweep.high "
             << "was measured (" << points << ")\n";
      } else {
        out_ << "  knee: highest load meeting QoS " << Fmt("%.6g", *k.last_pass) << " QPS, first failing "
             << Fmt("%.6g", *k.first_fail) << " QPS (" << points
             << (k.converged ? ", within " + Fmt("%g", spec_.sweep.precision * 100) + " %" : ", max_points reached")
             << (!spec_.sweep.confirm ? ""
                 : k.confirmed        ? ", both ends confirmed"
                                      : ", ends not confirmed: max_points reached or an end never measured validly again")
             << (k.reopened ? ", re-opened " + std::to_string(k.reopened) + " time(s) by a confirmation" : "")
             << ")\n";
      }
    }
  }
  if (wl) {
    Status s = wl->sandbox->Stop();
    if (!s.ok()) out_ << "  stopping the workload: " << s.message() << "\n";
    wl.reset();
  }
  if (!result.ok()) {
    if (result.code() == StatusCode::kCancelled) {
      rec.status = "interrupted";
      (void)store_.UpdateRun(rec);
      return result;
    }
    run_failed = true;
    run_failure = result.message();
  }
  rec.status = run_failed ? "failed" : "complete";
  rec.failure = run_failure;
  rec.finished_ns = p_.WallNanos();
  REAM_RETURN_IF_ERROR(store_.UpdateRun(rec));
  if (!result.ok()) return result;
  return Status::Ok();
}

Status Runner::Begin(const Plan& plan, int64_t experiment_id) {
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    const PlannedRun& run = plan.runs[i];
    RunRecord r;
    r.experiment_id = experiment_id;
    r.key = {run.scenario, run.partition.Label(), run.repetition};
    r.partition = run.partition.ToJson();
    r.ordinal = run.ordinal;
    REAM_ASSIGN_OR_RETURN(RunRecord rec, store_.EnsureRun(r));
    if (rec.status == "complete") continue;
    REAM_ASSIGN_OR_RETURN(auto pts, store_.ListPoints(rec.id));
    int stored = static_cast<int>(pts.size());
    int remeasured = 0;  // a grid's stored extra attempts at invalid levels
    for (const auto& p : pts) remeasured += p.attempt > 0;
    planned_points_ += plan.knee ? spec_.sweep.max_points : static_cast<int>(run.grid_qps.size()) + remeasured;
    done_points_ += plan.knee ? 0 : stored;
    todo_[i] = {&run, rec};
  }
  return Status::Ok();
}

Status RecordEnvironment(Platform& p, Store& store, int64_t id, const Prepared& prep) {
  EnvironmentRecord env;
  env.ream_version = kVersion;
  env.ream_commit = kGitCommit;
  env.hostname = Trim(p.ReadFile("/proc/sys/kernel/hostname").value_or(""));
  env.kernel = Trim(p.ReadFile("/proc/sys/kernel/osrelease").value_or(""));
  env.cpu_model = prep.topology.cpu_model;
  env.topology = prep.topology.ToJson();
  std::vector<Capability> caps = ProbeCapabilities(p);
  caps.push_back(SmtCapability(Result<Topology>(prep.topology)));
  env.doctor = CapabilitiesToJson(caps);
  env.recorded_ns = p.WallNanos();
  return store.RecordEnvironment(id, env);
}

std::string WorkloadLabel(const ExperimentSpec& spec) {
  if (!spec.workload.builtin.empty()) {
    return spec.workload.builtin + (spec.workload.args.empty() ? "" : " " + Join(spec.workload.args));
  }
  return Join(spec.workload.command);
}

}  // namespace

namespace {

// One experiment of a RunExperiments call, from validation to its final status.
struct Session {
  const ExperimentSpec* spec = nullptr;
  Plan plan;
  std::optional<Prepared> prep;
  int64_t id = 0;
  bool resumed = false;
  std::unique_ptr<Runner> runner;
  RunOutcome outcome;
};

void PrintDryRun(std::ostream& out, const Session& s) {
  const ExperimentSpec& spec = *s.spec;
  const Prepared& prep = *s.prep;
  out << "spec " << spec.source << " is valid: experiment '" << spec.name << "', workload " << WorkloadLabel(spec)
      << " (" << spec.workload.protocol << "), generator on CPU "
      << (prep.generator_cpus.empty() ? "any" : FormatCpuList(prep.generator_cpus)) << "\n";
  for (const auto& r : s.plan.runs) {
    out << "  run " << r.ordinal + 1 << ": " << r.scenario << " (CPU " << FormatCpuList(prep.scenario_cpus.at(r.scenario))
        << "), partition " << r.partition.Label() << ", repetition " << r.repetition << ": ";
    if (s.plan.knee) {
      out << "knee search in [" << spec.sweep.low << ", " << spec.sweep.high << "] QPS to "
          << spec.sweep.precision * 100 << " %, at most " << spec.sweep.max_points
          << " points (an invalid point's load measured again up to " << spec.sweep.remeasure_invalid
          << " time(s))\n";
    } else {
      std::vector<std::string> q;
      for (double v : r.grid_qps) q.push_back(Fmt("%.6g", v));
      out << q.size() << " levels: " << Join(q) << " QPS\n";
    }
  }
}

// How long the plan's load takes at most, and its points.
std::pair<int, double> PlanSize(const Session& s) {
  int points = s.plan.knee ? static_cast<int>(s.plan.runs.size()) * s.spec->sweep.max_points : s.plan.MaxPoints();
  return {points, points * EstimatedSecondsPerPoint(s.spec->load)};
}

}  // namespace

Result<std::vector<RunOutcome>> RunExperiments(Platform& p, const std::vector<ExperimentSpec>& specs,
                                               const RunnerOptions& o) {
  std::ostream& out = o.out ? *o.out : std::cerr;
  if (specs.empty()) return InvalidArgument("no experiment spec given");
  const bool several = specs.size() > 1;
  std::vector<Session> sessions(specs.size());
  std::set<std::string> names;
  // Every spec is validated before anything is stored or any load generated.
  for (size_t i = 0; i < specs.size(); ++i) {
    Session& s = sessions[i];
    s.spec = &specs[i];
    if (!names.insert(specs[i].name).second) {
      return InvalidArgument(specs[i].source + ": experiment name '" + specs[i].name +
                             "' is also another spec's; each experiment needs its own name");
    }
    REAM_ASSIGN_OR_RETURN(s.plan, MakePlan(specs[i], o.only));
    REAM_ASSIGN_OR_RETURN(Prepared prep, Validate(p, specs[i], s.plan, o));
    s.prep = std::move(prep);
  }
  std::vector<int> runs;  // each plan's number of runs, for the order
  for (const auto& s : sessions) runs.push_back(static_cast<int>(s.plan.runs.size()));
  if (o.dry_run) {
    int points = 0;
    double seconds = 0;
    for (const auto& s : sessions) {
      PrintDryRun(out, s);
      auto [n, t] = PlanSize(s);
      points += n;
      seconds += t;
    }
    bool knee = false;
    for (const auto& s : sessions) knee = knee || s.plan.knee;
    if (several) {
      out << (o.interleave ? "interleaved, in rounds shuffled with order seed " + std::to_string(o.order_seed) + ":"
                           : "one after another:");
      for (auto [e, i] : RunOrder(runs, o.interleave, o.order_seed)) {
        out << " " << specs[e].name << "/" << sessions[e].plan.runs[i].ordinal + 1;
      }
      out << "\n";
    }
    out << (knee ? "at most " : "") << points << " points, about " << HumanSeconds(seconds) << " of load\n";
    return std::vector<RunOutcome>{};
  }

  // Every name is checked against the database before any experiment is created.
  {
    REAM_ASSIGN_OR_RETURN(Store store, Store::Open(o.db_path, true));
    for (auto& s : sessions) {
      const ExperimentSpec& spec = *s.spec;
      REAM_ASSIGN_OR_RETURN(auto existing, store.FindExperiment(spec.name));
      if (!existing) continue;
      if (!o.resume) {
        return Status(StatusCode::kAlreadyExists,
                      "experiment '" + spec.name + "' is already in " + o.db_path + " (status " + existing->status +
                          "); use --resume to continue it, or another name or --db");
      }
      if (existing->spec_hash != HashText(spec.text)) {
        return InvalidArgument("--resume: the spec of experiment '" + spec.name + "' changed since it started; "
                               "resume with the same spec, or give the experiment a new name");
      }
      s.id = existing->id;
      s.resumed = true;
    }
  }
  for (auto& s : sessions) {
    const ExperimentSpec& spec = *s.spec;
    REAM_ASSIGN_OR_RETURN(Store store, Store::Open(o.db_path, true));
    if (s.resumed) {
      REAM_RETURN_IF_ERROR(store.SetExperimentStatus(s.id, "running", "", std::nullopt));
      out << "resuming experiment '" << spec.name << "' in " << o.db_path << "\n";
    } else {
      ExperimentRecord e;
      e.name = spec.name;
      e.spec_text = spec.text;
      e.spec = spec.ToJson();
      e.spec_hash = HashText(spec.text);
      e.status = "running";
      e.created_ns = p.WallNanos();
      e.workload = WorkloadLabel(spec);
      e.protocol = spec.workload.protocol;
      e.qos.percentile = spec.qos.percentile;
      e.qos.fixed_target_us = spec.qos.target_us;
      e.qos.service_multiplier = spec.qos.service_multiplier;
      e.qos.at_utilization = spec.qos.at_utilization;
      e.qos.min_timely_ratio = spec.qos.min_timely_ratio;
      e.qos.max_rate_error = spec.qos.max_rate_error;
      REAM_ASSIGN_OR_RETURN(s.id, store.CreateExperiment(e));
      auto [points, seconds] = PlanSize(s);
      out << "experiment '" << spec.name << "' in " << o.db_path << ": " << s.plan.runs.size() << " run(s), "
          << (s.plan.knee ? "at most " : "") << points << " points, about " << HumanSeconds(seconds) << "\n";
    }
    REAM_ASSIGN_OR_RETURN(auto env, store.GetEnvironment(s.id));
    if (!env) REAM_RETURN_IF_ERROR(RecordEnvironment(p, store, s.id, *s.prep));
    s.outcome.experiment = spec.name;
    s.runner = std::make_unique<Runner>(p, spec, o, std::move(*s.prep), std::move(store), out);
    if (several) s.runner->SetLabel(spec.name + ": ");
    REAM_RETURN_IF_ERROR(s.runner->Begin(s.plan, s.id));
  }

  // The order is the whole plans', so a resumed call keeps it; complete runs are skipped.
  if (several) {
    out << (o.interleave ? "running the experiments interleaved: in rounds of one run each, in an order "
                           "shuffled per round (order seed " + std::to_string(o.order_seed) + ")\n"
                         : "running the experiments one after another\n");
  }
  TerminationSignals::Install();
  Status failure;
  int failed = -1;
  bool interrupted = false;
  for (auto [e, i] : RunOrder(runs, o.interleave, o.order_seed)) {
    Status st = sessions[e].runner->RunPlanned(static_cast<size_t>(i), sessions[e].outcome);
    if (st.code() == StatusCode::kCancelled) {
      interrupted = true;
      break;
    }
    if (!st.ok()) {
      failure = several ? Status(st.code(), "experiment '" + specs[e].name + "': " + st.message()) : st;
      failed = e;
      break;
    }
  }
  // Record how each ended (a fresh connection: each runner's store was moved into it).
  auto s2 = Store::Open(o.db_path, false);
  std::vector<RunOutcome> outcomes;
  for (int e = 0; e < static_cast<int>(sessions.size()); ++e) {
    Session& s = sessions[e];
    s.outcome.interrupted = !s.runner->Finished() && failed != e && (interrupted || failed >= 0);
    if (s2.ok()) {
      if (failed == e) {
        (void)s2->SetExperimentStatus(s.id, "failed", failure.message(), p.WallNanos());
      } else if (s.outcome.interrupted) {
        std::string why = interrupted ? "interrupted by signal " + std::to_string(TerminationSignals::Received())
                                      : "stopped when experiment '" + specs[failed].name + "' failed";
        (void)s2->SetExperimentStatus(s.id, "interrupted", why + "; continue with --resume", std::nullopt);
      } else if (!o.only.empty() && s.spec->scenarios.size() > 1) {
        (void)s2->SetExperimentStatus(s.id, "partial", "only scenario " + o.only +
                                                           " was run (--only); run the rest with --resume",
                                      std::nullopt);
      } else {
        (void)s2->SetExperimentStatus(s.id, "complete", "", p.WallNanos());
      }
    }
    outcomes.push_back(s.outcome);
  }
  TerminationSignals::Restore();
  if (failed >= 0) return failure;
  return outcomes;
}

}  // namespace ream
