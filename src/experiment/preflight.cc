#include "experiment/preflight.h"

#include "experiment/corunners.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "batch/batch.h"
#include "experiment/run_events.h"
#include "spec/tenant_kinds.h"
#include "experiment/tenant_sandbox.h"
#include "load/arrival.h"
#include "load/key_chooser.h"
#include "partition/placement.h"
#include "partition/resctrl.h"
#include "protocol/registry.h"

namespace ream {

std::string SpecAt(const ExperimentSpec& spec, int line) {
  return spec.source + (line > 0 ? ":" + std::to_string(line) : "") + ": ";
}

namespace {

// One partition's knobs as the sandbox takes them: the spec parsed their values already.
Result<PartitionSpec> BuildPartition(const ExperimentSpec& spec, const PartitionValues& pv) {
  PartitionSpec p = pv.ToPartitionSpec(spec.node);
  Status s = p.Validate();
  if (!s.ok()) return InvalidArgument(SpecAt(spec, 0) + "partition " + pv.Label() + ": " + s.message());
  return p;
}

// Each scenario of the plan on `out->topology`, keeping `reserved` (the generator's CPUs)
// apart: into out->scenario_cpus, or out->skipped_scenarios with why.
Status PlaceScenarios(const ExperimentSpec& spec, const Plan& plan, const std::vector<int>& reserved,
                      const std::string& machine, bool strict, Prepared* out) {
  Status first_unavailable;
  for (const auto& run : plan.runs) {
    if (out->scenario_cpus.count(run.scenario) || out->skipped_scenarios.count(run.scenario)) continue;
    auto cpus = ResolvePlacement(out->topology, run.scenario, reserved);
    int line = spec.scenario_lines.count(run.scenario) ? spec.scenario_lines.at(run.scenario) : 0;
    if (!cpus.ok()) {
      Status why(cpus.status().code(), SpecAt(spec, line) + "scenario \"" + run.scenario +
                                           "\" cannot run on " + machine + ": " +
                                           cpus.status().message());
      // A scenario this machine cannot place (no SMT siblings, too few cores) is skipped and
      // said, so the rest of the seed's spec still runs; --strict refuses the spec instead. A
      // malformed scenario is always an error.
      if (strict || cpus.status().code() != StatusCode::kUnsupported) return why;
      if (first_unavailable.ok()) first_unavailable = why;
      out->skipped_scenarios[run.scenario] = cpus.status().message();
      continue;
    }
    out->scenario_cpus[run.scenario] = *cpus;
  }
  if (out->scenario_cpus.empty() && !first_unavailable.ok()) {
    return Status(first_unavailable.code(), first_unavailable.message() + " (and no other scenario of the spec can)");
  }
  return Status::Ok();
}

// The machine's resctrl, nullopt with why when it has none mounted.
std::optional<ResctrlInfo> ResctrlFor(Platform& machine, std::string* why) {
  auto info = ReadResctrl(machine);
  if (!info.ok()) {
    *why = info.status().message();
    return std::nullopt;
  }
  return *info;
}

// What a run needs to drive [manager] (docs/manager.md): a fixed QoS target (a window's slack is
// against it), a subject under load, one report per period, and every resource written to a
// cgroup of a tenant whose sandbox changes a running partition. Refused before anything runs,
// naming the key, otherwise.
Status CheckManager(const ExperimentSpec& spec) {
  const ManagerSpec& m = spec.manager;
  const std::string at = SpecAt(spec, m.line) + "[manager] ";
  if (!spec.qos.target_us) {
    return InvalidArgument(at + "needs a fixed [qos] target: a window's slack is (target - tail) / target");
  }
  if (spec.workload.kind && spec.workload.kind->completes) {
    return InvalidArgument(at + "needs a subject under load: this one runs to completion, and has no tail per window");
  }
  if (m.window != m.period) {
    return Unsupported(at + "window (" + std::to_string(m.window.count()) + " ms) differs from period (" +
                       std::to_string(m.period.count()) +
                       " ms): the generator reports one window per period, so each decision reads the last "
                       "period; give them equal");
  }
  for (const auto& r : m.resources) {
    const std::string what = SpecAt(spec, r.line) + "[[manager.resource]] " + r.tenant + "'s " + r.knob->key;
    if (!r.knob->moves->write) return Unsupported(what + ": " + r.knob->moves->write_elsewhere);
    std::string kind = r.tenant == "subject" ? spec.sandbox.kind : spec.FindCorunner(r.tenant)->sandbox;
    if (r.tenant == "subject" && !spec.nodes.workload_host.empty()) kind = spec.nodes.workload_host;
    if (kind != "process" && kind != "node") {
      return Unsupported(what + ": the tenant runs in the " + kind +
                         " sandbox, which writes its partition only when it starts (a manager moves tenants in a "
                         "process or node sandbox)");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Prepared> Validate(Platform& p, SandboxKind& sandboxes, const ExperimentSpec& spec, const Plan& plan,
                          const std::string& ream_binary, bool strict, const CorunnerKinds* corunner_kinds) {
  Prepared out;
  if (spec.manager.given) REAM_RETURN_IF_ERROR(CheckManager(spec));
  // The workload's account must exist before anything runs (a typo fails here, with its line).
  // (A platform without a user database, a fixture tree, cannot say: the sandbox decides then.)
  // (On another host its agent resolves the account when the sandbox starts, and says so.)
  if (spec.nodes.workload_host.empty()) {
    auto user = ResolveWorkloadUser(p, WorkloadUser(p, spec.workload.user));
    if (!user.ok() && user.status().code() != StatusCode::kUnsupported) {
      return Status(user.status().code(), SpecAt(spec, spec.workload.line) + user.status().message());
    }
  }
  REAM_ASSIGN_OR_RETURN(Topology here, ReadTopology(p));
  auto gen = ParseReservedCpus(here, spec.generator_cpus);
  if (!gen.ok()) return InvalidArgument(SpecAt(spec, 0) + "generator_cpus: " + gen.status().message());
  out.generator_cpus = *gen;
  // The scenarios are placed on the host the workload runs on: this one, keeping the
  // generator's CPUs apart; or another host ([nodes] workload), whose topology its agent
  // reports and none of whose CPUs the generator uses.
  auto remote = sandboxes.RemoteHost();
  if (!remote.ok()) return Status(remote.status().code(), SpecAt(spec, spec.nodes.line) + remote.status().message());
  std::vector<int> reserved = out.generator_cpus;
  if (*remote) {
    out.workload_host = **remote;
    out.topology = (*remote)->topology;
    reserved.clear();
  } else {
    out.topology = std::move(here);
  }
  const std::string machine = out.workload_host ? "the workload's host " + out.workload_host->name : "this machine";
  REAM_RETURN_IF_ERROR(PlaceScenarios(spec, plan, reserved, machine, strict, &out));
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
      std::string flag = pv.SupportOf(knob);
      // The relay's knobs (L, g, G) are applied by the runner, beside any sandbox kind.
      bool by_relay = false;
      for (const auto& row : BuiltinKnobs().support_rows()) by_relay = by_relay || (row.flag == flag && row.probe == KnobProbe::kRelay);
      const KnobSupport* k = flag.empty() || by_relay ? nullptr : enforceable(flag);
      if (k && !k->enforceable) {
        int line = pv.lines.count(knob) ? pv.lines.at(knob) : 0;
        return Unsupported(SpecAt(spec, line) + "partitions." + knob + ": " + machine + " cannot enforce it (" +
                           k->detail + ")");
      }
    }
    // The LogGP refusals that need the run: before any workload starts or any load is offered.
    auto knob_line = [&](const char* knob) { return pv.lines.count(knob) ? pv.lines.at(knob) : 0; };
    if (ps.net_gap && *ps.net_gap > spec.load.duration) {
      return InvalidArgument(SpecAt(spec, knob_line("net_gap")) + "partitions.net_gap = " + pv.knobs.at("net_gap") +
                             " is longer than a load level (load.duration = " +
                             HumanSeconds(std::chrono::duration<double>(spec.load.duration).count()) +
                             "): no two messages of a level could be that far apart");
    }
    if (ps.net_per_byte && ps.net_per_byte->count() > 0 && ps.net_rate_bps) {
      // The link's own time per byte: 8 bits at net_rate.
      double link_ns_per_byte = 8e9 / static_cast<double>(*ps.net_rate_bps);
      if (static_cast<double>(ps.net_per_byte->count()) < link_ns_per_byte) {
        char b[64];
        std::snprintf(b, sizeof b, "%.3g", link_ns_per_byte);
        return InvalidArgument(SpecAt(spec, knob_line("net_per_byte")) + "partitions.net_per_byte = " +
                               pv.knobs.at("net_per_byte") + " is less time per byte than net_rate = " +
                               pv.knobs.at("net_rate") + " already takes (" + b +
                               " ns/B): the link rate, not G, would limit; raise net_per_byte or drop net_rate");
      }
    }
    if (spec.sweep.axis == LoadAxis::kSessions && ps.NeedsRelay()) {
      // The relay's calibration drives a request load at 200 QPS (network_path.h), which a
      // sessions sweep has no options for; net_rate (the kernel's shaper) is its bandwidth knob.
      return InvalidArgument(SpecAt(spec, 0) + "partition " + pv.Label() +
                             ": net_latency, net_gap and net_per_byte (the relay) do not apply to a sessions sweep "
                             "yet; shape its link with net_rate");
    }
    if (ps.net_rate_bps && spec.sweep.axis == LoadAxis::kSessions && !spec.sweep.qps.empty()) {
      // Session load through a shaped link: the sessions' bitrate must fit. When even the
      // fewest sessions swept need more than the link carries, every level would measure only
      // the shaper: refused here, before any run. Levels above the link's rate are what a
      // net_rate sensitivity measures (their chunks miss their deadlines): said, not refused.
      const double rate = static_cast<double>(*ps.net_rate_bps);
      const double bitrate = static_cast<double>(spec.load.bitrate_bps);
      const double fewest = spec.sweep.qps.front();
      if (fewest * bitrate > rate) {
        char b[512];
        std::snprintf(b, sizeof b,
                      "partitions.net_rate = %s carries %.4g Mbit/s, less than the fewest sessions swept need: %.0f "
                      "x load.bitrate = %s is %.4g Mbit/s (before HTTP's headers), so the link cannot carry the "
                      "bitrate; lower the sessions or the bitrate, or raise net_rate",
                      pv.knobs.at("net_rate").c_str(), rate / 1e6, fewest, spec.load.bitrate.c_str(),
                      fewest * bitrate / 1e6);
        return InvalidArgument(SpecAt(spec, knob_line("net_rate")) + b);
      }
      const double most = std::floor(rate / bitrate);
      if (spec.sweep.qps.back() > most) {
        char b[384];
        std::snprintf(b, sizeof b,
                      "partition %s: net_rate = %s carries at most %.0f sessions at load.bitrate = %s; the levels "
                      "above offer more than the link carries, and their chunks will miss their deadlines",
                      pv.Label().c_str(), pv.knobs.at("net_rate").c_str(), most, spec.load.bitrate.c_str());
        out.notes.push_back(b);
      }
    }
    if (ps.node) {
      const KnobSupport* k = enforceable("--node");
      if (k && !k->enforceable) return Unsupported(SpecAt(spec, 0) + "node = true: " + k->detail);
    }
    out.partitions[pv.Label()] = ps;
  }
  // The generator's own options, as `ream load` will check them: the same options every level
  // runs with (LevelLoadOptions), at the first level.
  double first = plan.knee() ? spec.sweep.low : (spec.sweep.qps.empty() ? 1 : spec.sweep.qps.front());
  LoadOptions lo = LevelLoadOptions(spec, first, spec.seed, "127.0.0.1", 1);
  Status ls = ValidateLoadOptions(lo);
  if (!ls.ok()) return InvalidArgument(SpecAt(spec, 0) + "[load]: " + ls.message());
  if (!spec.workload.command.empty()) {
    // On the host the workload runs on: this one, or another's, asked through its agent.
    Status found = sandboxes.FindProgram(p, spec.workload.command[0]);
    if (!found.ok()) {
      return Status(found.code(), SpecAt(spec, spec.workload.line) + "workload.command: " + found.message());
    }
  }
  if (!spec.workload.batch.empty()) {
    // A program missing here is found before any run, with the package that holds it.
    if (const batch::BatchProgram* prog = batch::FindBatchProgram(spec.workload.batch)) {
      auto found = batch::ResolveProgram(p, *prog);
      if (!found.ok()) {
        return Status(found.status().code(),
                      SpecAt(spec, spec.workload.line) + "workload.batch: " + found.status().message());
      }
    }
  }
  REAM_ASSIGN_OR_RETURN(out.ream, ReamBinary(p, ream_binary));
  // The co-runners, each as the subject's workload is checked: its account, its program, its
  // knobs (enforceable by its sandbox kind, valid together) and its CPUs in every scenario. Each
  // in the kind its place gives (CorunnerKinds), else the subject's.
  for (const CorunnerSpec& c : spec.corunners) {
    const std::string at = SpecAt(spec, c.line) + "[[corunner]] '" + c.name + "' ";
    SandboxKind& kind = corunner_kinds ? corunner_kinds->For(c) : sandboxes;
    const bool remote = corunner_kinds && corunner_kinds->Remote(c);
    auto where = ParseTenantPlace(c.sandbox);
    if (!where.ok()) return InvalidArgument(at + where.status().message());
    if (where->row->ream_servers_only && !c.kind->runs_in_vm) {
      return InvalidArgument(at + "sandbox = \"" + c.sandbox + "\" runs ream's own servers only ('builtin'): its "
                                  "guest image carries no other program; give this '" + c.kind->key +
                                  "' co-runner another sandbox (\"process\", \"node\", \"ssh:HOST\")");
    }
    if (where->row->needs_address && c.load && c.address.empty()) {
      return InvalidArgument(at + "sandbox = \"" + c.sandbox + "\" with [corunner.load] needs 'address', the host's "
                                  "address as this host's generator reaches it");
    }
    if (!where->row->needs_address) {
      // (On another host its agent resolves the account when the sandbox starts, and says so.)
      auto user = ResolveWorkloadUser(p, WorkloadUser(p, c.user));
      if (!user.ok() && user.status().code() != StatusCode::kUnsupported) {
        return Status(user.status().code(), at + "user: " + user.status().message());
      }
    }
    if (c.kind->finds_program) {
      Status found = kind.FindProgram(p, c.command[0]);
      if (!found.ok()) return Status(found.code(), at + c.kind->key + ": " + found.message());
    }
    if (c.kind->check) {
      Status ok = c.kind->check(p, c);
      if (!ok.ok()) return Status(ok.code(), at + c.kind->key + ": " + ok.message());
    }
    PartitionSpec ps = c.partition.ToPartitionSpec(where->row->own_network);
    if (Status v = ps.Validate(); !v.ok()) return InvalidArgument(at + v.message());
    if (ps.NeedsRelay() || ps.net_overhead) {
      return InvalidArgument(at + "the LogGP knobs are the subject's: the relay and the overhead sit on its path");
    }
    if (ps.node && !where->row->own_network) {
      return InvalidArgument(at + "net_rate shapes a node's link: give the co-runner sandbox = \"node\" (a network "
                                  "namespace of its own), or leave its network the host's");
    }
    std::vector<KnobSupport> own_support = &kind == &sandboxes ? support : kind.Support();
    for (const auto& [knob, text] : c.partition.knobs) {
      const KnobSupport* k = nullptr;
      for (const auto& row : own_support) {
        if (row.flag == c.partition.SupportOf(knob)) k = &row;
      }
      if (k && !k->enforceable) {
        int line = c.partition.lines.count(knob) ? c.partition.lines.at(knob) : c.line;
        return Unsupported(SpecAt(spec, line) + "[[corunner]] '" + c.name + "' " + knob + ": " +
                           (where->row->needs_address ? "its host " + where->Name() : machine) +
                           " cannot enforce it (" + k->detail + ")");
      }
    }
    if (ps.node) {
      for (const auto& row : own_support) {
        if (row.flag == "--node" && !row.enforceable) return Unsupported(at + "sandbox = \"node\": " + row.detail);
      }
    }
    for (const auto& [scenario, cpus] : out.scenario_cpus) {
      REAM_RETURN_IF_ERROR(CorunnerCpus(spec, c, out, scenario, remote).status());
    }
  }
  // Every tenant of every run placed together: cores, ways, bandwidth, CLOSIDs. The workload's
  // host's resctrl is read there when it is another host.
  std::string resctrl_why = "read on the workload's host when it runs";
  if (!out.workload_host) out.resctrl = ResctrlFor(p, &resctrl_why);
  auto kind_of = [&sandboxes](const CorunnerSpec*) -> const SandboxKind& { return sandboxes; };
  REAM_ASSIGN_OR_RETURN(out.placement, PlanPlacement(spec, plan, out, out.resctrl ? &*out.resctrl : nullptr,
                                                     resctrl_why, kind_of));
  return out;
}

Result<Prepared> PrepareOnPaper(Platform& machine, const ExperimentSpec& spec, const Plan& plan, bool strict,
                                const TenantKindOf& kind_of) {
  Prepared out;
  auto topo = ReadTopology(machine);
  if (!topo.ok()) return Status(topo.status().code(), SpecAt(spec, 0) + "--topology: " + topo.status().message());
  out.topology = std::move(topo).value();
  auto gen = ParseReservedCpus(out.topology, spec.generator_cpus);
  if (!gen.ok()) return InvalidArgument(SpecAt(spec, 0) + "generator_cpus: " + gen.status().message());
  out.generator_cpus = *gen;
  // A workload on another host ([nodes] workload): the tree is that host's, and no CPU of it
  // is the generator's.
  if (!spec.nodes.workload_host.empty()) {
    out.workload_host = WorkloadHost{"ssh:" + spec.nodes.workload_host, out.topology, "(on paper)", "(on paper)"};
  }
  const std::string name = out.topology.cpu_model.empty() ? "that machine" : "that machine (" + out.topology.cpu_model + ")";
  REAM_RETURN_IF_ERROR(PlaceScenarios(spec, plan, out.workload_host ? std::vector<int>{} : out.generator_cpus, name,
                                      strict, &out));
  for (const auto& pv : spec.partitions) {
    REAM_ASSIGN_OR_RETURN(PartitionSpec ps, BuildPartition(spec, pv));
    out.partitions[pv.Label()] = ps;
  }
  for (const CorunnerSpec& c : spec.corunners) {
    PartitionSpec ps = c.partition.ToPartitionSpec(false);
    if (Status v = ps.Validate(); !v.ok()) {
      return InvalidArgument(SpecAt(spec, c.line) + "[[corunner]] '" + c.name + "' " + v.message());
    }
  }
  std::string resctrl_why;
  out.resctrl = ResctrlFor(machine, &resctrl_why);
  REAM_ASSIGN_OR_RETURN(out.placement, PlanPlacement(spec, plan, out, out.resctrl ? &*out.resctrl : nullptr,
                                                     resctrl_why, kind_of));
  return out;
}

Result<std::string> ReamBinary(Platform& p, const std::string& given) {
  if (!given.empty()) return given;
  return p.RealPath("/proc/self/exe");
}


LoadOptions LevelLoadOptions(const ExperimentSpec& spec, double load, uint64_t seed, const std::string& host,
                             int port) {
  const LoadSpec& l = spec.load;
  auto ns = [](auto d) { return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()); };
  LoadOptions o;
  o.host = host;
  o.port = port;
  o.protocol = spec.workload.protocol;
  // A fixed value size is the codec's; a drawn one is value_sizes' (the codec's then unused).
  o.codec.value_bytes = l.value_sizes.fixed() ? static_cast<size_t>(l.value_sizes.a) : o.codec.value_bytes;
  o.value_sizes = l.value_sizes;
  o.key_sizes = l.key_sizes;
  o.multiget = l.multiget;
  o.preset = l.preset;
  o.codec.http_path = l.http_path;
  o.codec.http_method = l.http_method;
  o.qps = load;
  o.duration_ns = ns(l.duration);
  o.until = l.until;
  // A schedule is the run's load whatever the level says: its mean and length (spec.h).
  o.schedule = l.schedule;
  ApplySchedule(&o);
  o.window_ns = ns(l.window);
  o.warmup_ns = ns(l.warmup);
  o.arrival = spec.load.arrival_spec;
  o.keys = static_cast<uint64_t>(l.keys);
  o.key_dist = spec.load.key_dist_spec;
  o.get_ratio = l.get_ratio;
  o.connections = l.connections;
  o.threads = l.threads;
  o.timely_tolerance_ns = ns(l.timely_tolerance);
  o.min_timely_ratio = spec.qos.min_timely_ratio;
  o.max_rate_error = spec.qos.max_rate_error;
  o.validity = spec.qos.validity == "seed" ? ValidityRule::kSeed : ValidityRule::kDistortion;
  o.validity_percentile = spec.qos.percentile;
  o.max_distortion = spec.qos.max_distortion;
  o.seed = seed;
  o.response_timeout_ns = ns(l.response_timeout);
  o.wait = ParseWait(l.wait).value_or(Wait::kAuto);  // (the spec's parser admits only the four)
  // Each point carries the host's limit at its rate (load/send_floor.h), cached per level.
  o.send_floor = LoadOptions::SendFloorMode::kCached;
  o.kernel_rx_timestamps = l.response_timing != "user";
  o.segment_rx_timestamps = l.response_timing == "packet";
  o.keep_awake = l.KeepsGeneratorAwake();
  if (spec.sweep.axis == LoadAxis::kSessions) {
    // The level is a number of sessions (load/session_load.h): one connection each, one
    // thread, the rate the schedule's.
    o.session.sessions = static_cast<int>(std::lround(load));
    o.session.session_chunks = static_cast<uint64_t>(l.session_chunks);
    o.session.chunk_bytes = static_cast<uint64_t>(l.chunk_bytes);
    o.session.bitrate_bps = static_cast<uint64_t>(l.bitrate_bps);
    o.qps = o.session.ChunkRate();
    o.connections = o.session.sessions;
    o.threads = 1;
  }
  return o;
}

}  // namespace ream
