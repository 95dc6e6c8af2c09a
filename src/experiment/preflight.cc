#include "experiment/preflight.h"

#include <algorithm>
#include <cstdio>

#include "load/arrival.h"
#include "load/key_chooser.h"
#include "partition/placement.h"
#include "protocol/registry.h"

namespace ream {

std::string SpecAt(const ExperimentSpec& spec, int line) {
  return spec.source + (line > 0 ? ":" + std::to_string(line) : "") + ": ";
}

namespace {

std::string Fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string Join(const std::vector<std::string>& v, const std::string& sep = " ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
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

}  // namespace

Result<Prepared> Validate(Platform& p, SandboxKind& sandboxes, const ExperimentSpec& spec, const Plan& plan,
                          const std::string& ream_binary) {
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
  std::vector<KnobSupport> support = sandboxes.Support();
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
  // The generator's own options, as `ream load` will check them: the same options every level
  // runs with (LevelLoadOptions), at the first level.
  auto arrival = ParseArrival(spec.load.arrival, "");
  if (!arrival.ok()) return InvalidArgument(SpecAt(spec, 0) + "load.arrival: " + arrival.status().message());
  out.arrival = *arrival;
  auto kd = ParseKeyDist(spec.load.key_dist);
  if (!kd.ok()) return InvalidArgument(SpecAt(spec, 0) + "load.key_dist: " + kd.status().message());
  out.key_dist = *kd;
  double first = plan.knee ? spec.sweep.low : (spec.sweep.qps.empty() ? 1 : spec.sweep.qps.front());
  LoadOptions lo = LevelLoadOptions(spec, out, first, spec.seed, "127.0.0.1", 1);
  Status ls = ValidateLoadOptions(lo);
  if (!ls.ok()) return InvalidArgument(SpecAt(spec, 0) + "[load]: " + ls.message());
  // The client codec, as `ream load` will build it: an unknown protocol, a malformed HTTP
  // path, or a get/set mix the protocol cannot send fails here, before any workload starts.
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
  if (!ream_binary.empty()) {
    out.ream = ream_binary;
  } else {
    REAM_ASSIGN_OR_RETURN(out.ream, p.RealPath("/proc/self/exe"));
  }
  return out;
}


LoadOptions LevelLoadOptions(const ExperimentSpec& spec, const Prepared& prep, double load, uint64_t seed,
                             const std::string& host, int port) {
  const LoadSpec& l = spec.load;
  auto ns = [](auto d) { return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()); };
  LoadOptions o;
  o.host = host;
  o.port = port;
  o.protocol = spec.workload.protocol;
  o.codec.value_bytes = static_cast<size_t>(l.value_bytes);
  o.codec.http_path = l.http_path;
  o.codec.http_method = l.http_method;
  o.qps = load;
  o.duration_ns = ns(l.duration);
  o.warmup_ns = ns(l.warmup);
  o.arrival = prep.arrival;
  o.keys = static_cast<uint64_t>(l.keys);
  o.key_dist = prep.key_dist;
  o.get_ratio = l.get_ratio;
  o.connections = l.connections;
  o.threads = l.threads;
  o.timely_tolerance_ns = ns(l.timely_tolerance);
  o.min_timely_ratio = spec.qos.min_timely_ratio;
  o.max_rate_error = spec.qos.max_rate_error;
  o.seed = seed;
  o.response_timeout_ns = ns(l.response_timeout);
  o.spin_wait = l.wait == "spin";
  return o;
}

}  // namespace ream
