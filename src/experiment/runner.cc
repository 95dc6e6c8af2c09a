#include "experiment/runner.h"

#include <cstdio>
#include <iostream>
#include <optional>
#include <set>

#include "experiment/corunners.h"
#include "experiment/experiment_run.h"
#include "experiment/plan.h"
#include "experiment/preflight.h"
#include "experiment/tenant_sandbox.h"
#include "platform/text.h"
#include "remote/remote_driver.h"
#include "partition/placement.h"
#include "platform/signals.h"
#include "platform/timing_floor.h"
#include "sandbox/client_node.h"
#include "sandbox/vm_sandbox.h"
#include "store/store.h"

namespace ream {
namespace {

// The host the workload runs on: this one, or the remote host as its agent reported it.
std::string WorkloadHostname(Platform& p, const Prepared& prep) {
  return prep.workload_host ? prep.workload_host->hostname : Trim(p.ReadFile("/proc/sys/kernel/hostname").value_or(""));
}

Status RecordEnvironment(Platform& p, SandboxKind& sandboxes, const RunnerOptions& o, Store& store, int64_t id,
                         const ExperimentSpec& spec, const Prepared& prep) {
  EnvironmentRecord env;
  env.ream_version = o.ream_version;
  env.ream_commit = o.ream_commit;
  // The machine is the workload's: this host's, or the remote host's as its agent reported it
  // (whose probes then also say who the workload runs as there, and that it is remote).
  const bool remote = prep.workload_host.has_value();
  env.hostname = WorkloadHostname(p, prep);
  env.kernel = remote ? prep.workload_host->kernel : Trim(p.ReadFile("/proc/sys/kernel/osrelease").value_or(""));
  env.cpu_model = prep.topology.cpu_model;
  env.topology = prep.topology.ToJson();
  std::vector<Capability> caps = sandboxes.Probe();
  caps.push_back(SmtCapability(Result<Topology>(prep.topology)));
  // Who the workload runs as, with no schema change: one more line of the stored doctor list.
  if (!remote) caps.push_back(WorkloadUserCapability(p, WorkloadUser(p, spec.workload.user)));
  env.doctor = CapabilitiesToJson(caps);
  // The floor no generator can beat here, on every CPU the experiment may use, at its
  // tolerance: stored so the report can set each point's non-timely share against it. (The
  // generator's host: this one's CPUs, also when the workload runs elsewhere.)
  std::vector<int> cpus;
  const Result<Topology> here = remote ? ReadTopology(p) : Result<Topology>(prep.topology);
  if (here.ok()) {
    for (const auto& c : here->cpus) cpus.push_back(c.id);
  }
  auto floor = MeasureTimingFloor(
      cpus, 300'000'000, std::chrono::duration_cast<std::chrono::nanoseconds>(spec.load.timely_tolerance).count());
  env.timing = floor.ok() ? floor->ToJson() : nlohmann::json{{"unavailable", floor.status().message()}};
  env.recorded_ns = p.WallNanos();
  return store.RecordEnvironment(id, env);
}

// How every agent of `spec` is reached (its client nodes, the workload's host): this ream to
// copy, its version, the spec's ssh settings, and notes on the run's console.
RemoteDriverOptions SshSettings(const ExperimentSpec& spec, const RunnerOptions& o, const std::string& ream) {
  RemoteDriverOptions ro;
  ro.ream_binary = ream;
  ro.version_line = "ream " + o.ream_version + " (" + o.ream_commit + ")";
  ro.ssh_config = spec.nodes.ssh_config;
  ro.ssh_options = spec.nodes.ssh_options;
  ro.state_dir = o.state_dir;
  std::ostream* note_out = o.out ? o.out : &std::cerr;
  ro.note = [note_out](const std::string& text) { *note_out << "nodes: " << text << "\n"; };
  return ro;
}

// What the places' rows need to make a kind of their own for `spec`'s tenants.
Result<TenantSandboxSettings> PlaceSettings(Platform& p, const ExperimentSpec& spec, const RunnerOptions& o) {
  TenantSandboxSettings ts;
  REAM_ASSIGN_OR_RETURN(ts.ream_binary, ReamBinary(p, o.ream_binary));
  ts.ssh = SshSettings(spec, o, ts.ream_binary);
  ts.vm = spec.sandbox;
  return ts;
}

std::string WorkloadLabel(const ExperimentSpec& spec) {
  if (!spec.workload.batch.empty()) return "batch " + spec.workload.batch;
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
  std::vector<PlannedRun> skipped;  // runs of scenarios this machine cannot place
  // The local client nodes ([nodes] clients = ["local:NAME"]); they outlive the driver whose
  // agents run in them.
  std::vector<std::unique_ptr<ClientNode>> client_nodes;
  std::unique_ptr<LoadDriver> own_driver;
  // The workload's sandbox kind when the spec asks for another than the runner's ([sandbox]
  // kind = "vm"); the load generator stays in the runner's kind.
  std::unique_ptr<SandboxKind> own_workload_kind;
  SandboxKind* workload_kind = nullptr;
  // On paper (--topology): the vm kind that says how a guest's vCPUs would be pinned.
  std::unique_ptr<SandboxKind> paper_vm_kind;
  // The co-runners' kinds: this host's (the runner's) for those that run here, not the
  // subject's, which may be a vm or another host's.
  std::unique_ptr<CorunnerKinds> corunner_kinds;
  std::unique_ptr<ExperimentRun> runner;
  RunOutcome outcome;
  std::string on_paper;  // --topology: the directory of the machine planned for; "" : this one
};

void PrintDryRun(std::ostream& out, const Session& s) {
  const ExperimentSpec& spec = *s.spec;
  const Prepared& prep = *s.prep;
  out << "spec " << spec.source << " is valid"
      << (s.on_paper.empty() ? std::string()
                             : " on paper for the machine in " + s.on_paper +
                                   " (its topology and resctrl; its programs, accounts and kernel interfaces are "
                                   "checked when it runs there)")
      << ": experiment '" << spec.name << "', workload " << WorkloadLabel(spec) << " (" << spec.workload.protocol << ")";
  if (prep.workload_host) {
    out << " on " << prep.workload_host->name << " (hostname " << prep.workload_host->hostname << ", "
        << prep.topology.cpus.size() << " CPUs; its sandbox made there by ream's agent, reached at "
        << spec.nodes.workload_address << ")";
  }
  out << ", ";
  if (spec.nodes.remote()) {
    // The load comes from the client nodes (remote/remote_driver.h); nothing is run there
    // in a dry run.
    std::string clients;
    for (const auto& c : spec.nodes.clients) clients += (clients.empty() ? "" : ", ") + c;
    out << "load from client nodes " << clients << " (";
    if (!spec.nodes.client_hosts.empty()) {
      out << "agents over ssh, reaching the workload at " << spec.nodes.workload_address;
    }
    if (!spec.nodes.local_nodes.empty()) {
      out << (spec.nodes.client_hosts.empty() ? "" : "; ")
          << "local agents in network namespaces ream creates, reaching the workload over their veth links";
      if (spec.nodes.link_rate_bps) out << " of " << *spec.nodes.link_rate_bps << " bit/s each way";
    }
    out << ")\n";
  } else {
    out << "generator on CPU " << (prep.generator_cpus.empty() ? "any" : FormatCpuList(prep.generator_cpus)) << "\n";
  }
  for (const auto& [scenario, why] : prep.skipped_scenarios) {
    out << "  scenario " << scenario << " skipped: not available here: " << why << " (--strict refuses the spec)\n";
  }
  for (const auto& note : prep.notes) out << "  note: " << note << "\n";
  for (const auto& r : s.plan.runs) {
    out << "  run " << r.ordinal + 1 << ": " << r.scenario << " (CPU " << FormatCpuList(prep.scenario_cpus.at(r.scenario))
        << "), partition " << r.partition.Label() << (r.corunner_set.empty() ? std::string() : " beside " + r.corunner_set) << ", repetition " << r.repetition << ": ";
    if (s.plan.knee()) {
      out << "knee search in [" << spec.sweep.low << ", " << spec.sweep.high << "] QPS to "
          << spec.sweep.precision * 100 << " %, at most " << spec.sweep.max_points
          << " points (an invalid point's load measured again up to " << spec.sweep.remeasure_invalid
          << " time(s))\n";
    } else if (spec.sweep.auto_range) {
      out << "qps = \"auto\": probes from " << Fmt("%.6g", spec.sweep.probe_start_qps)
          << " QPS find the rates at 20 % and 50 % CPU and saturation, then " << spec.sweep.auto_levels
          << " levels from the 20 % rate to saturation\n";
    } else {
      std::vector<std::string> q;
      for (double v : r.grid_loads) q.push_back(Fmt("%.6g", v));
      out << q.size() << " levels: " << Join(q) << " " << LoadAxisUnit(s.plan.axis)
          << "\n";
    }
  }
  out << FormatPlacement(prep.placement, prep.topology, prep.resctrl ? &*prep.resctrl : nullptr);
}

// How long the plan's load takes at most, and its points.
std::pair<int, double> PlanSize(const Session& s) {
  int points = s.plan.knee() ? static_cast<int>(s.plan.runs.size()) * s.spec->sweep.max_points : s.plan.MaxPoints();
  return {points, points * ExperimentRun::EstimatedSecondsPerPoint(s.spec->load)};
}

}  // namespace

Result<std::vector<RunOutcome>> RunExperiments(Platform& p, const std::vector<ExperimentSpec>& specs,
                                               const RunnerOptions& o) {
  std::ostream& out = o.out ? *o.out : std::cerr;
  if (specs.empty()) return InvalidArgument("no experiment spec given");
  std::unique_ptr<SandboxKind> own_kind;
  SandboxKind* sandboxes = o.sandbox_kind;
  if (!sandboxes) {
    own_kind = MakeProcessSandboxKind(p);
    sandboxes = own_kind.get();
  }
  std::unique_ptr<RootedPlatform> machine;
  if (!o.topology_dir.empty()) {
    if (!o.dry_run) {
      return InvalidArgument("--topology plans on another machine's copied sysfs: it goes with --dry-run only");
    }
    auto opened = RootedPlatform::Open(o.topology_dir);
    if (!opened.ok()) return opened.status().Annotate("--topology " + o.topology_dir);
    machine = std::move(opened).value();
  }
  ConsoleObserver console(out);
  RunObserver& observer = o.observer ? *o.observer : console;
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
    if (auto unit = o.only_ordinals.find(specs[i].name); unit != o.only_ordinals.end()) {
      // A campaign's unit: its runs only, each keeping its ordinal in the whole plan.
      std::erase_if(s.plan.runs, [&](const PlannedRun& r) { return !unit->second.count(r.ordinal); });
      if (s.plan.runs.empty()) {
        return InvalidArgument(specs[i].source + ": no run of experiment '" + specs[i].name +
                               "' has the plan positions the unit names (was the spec changed since the campaign "
                               "split it?)");
      }
    }
    if (machine) {
      // On paper: that machine's topology and resctrl; its sandbox kinds only say how they
      // would pin their tenants (nothing is started, libvirt not asked).
      // Each tenant's place names the kind that would hold it (spec/tenant_places.h): a guest's
      // vCPUs are pinned one to a CPU, a process floats over its cpuset.
      s.own_workload_kind = MakeProcessSandboxKind(*machine);
      s.paper_vm_kind = MakeVmSandboxKind(*machine, VmKindOptions{});
      auto kind_of = [&s](const TenantPlace& where) -> const SandboxKind& {
        return where.row && where.row->sandbox_kind == s.paper_vm_kind->name() ? *s.paper_vm_kind
                                                                                : *s.own_workload_kind;
      };
      const ExperimentSpec& spec = specs[i];
      REAM_ASSIGN_OR_RETURN(
          Prepared prep,
          PrepareOnPaper(*machine, spec, s.plan, o.strict, [&](const CorunnerSpec* c) -> const SandboxKind& {
            if (!c) return kind_of(SubjectPlace(spec));
            auto where = ParseTenantPlace(c->sandbox);
            return kind_of(where.ok() ? *where : TenantPlace{});
          }));
      s.prep = std::move(prep);
      s.on_paper = o.topology_dir;
      std::vector<PlannedRun> runnable;
      for (auto& r : s.plan.runs) (s.prep->skipped_scenarios.count(r.scenario) ? s.skipped : runnable).push_back(r);
      s.plan.runs = std::move(runnable);
      continue;
    }
    s.workload_kind = sandboxes;
    // Where the subject runs, from the table of places (spec/tenant_places.h, experiment/tenant_sandbox.h): this
    // host's kind, or one of its own (a vm; a sandbox the agent of another host makes, while the
    // load still comes from here or from the client nodes).
    const TenantPlace where = SubjectPlace(specs[i]);
    if (!specs[i].nodes.workload_host.empty() && specs[i].sandbox.kind == "vm") {
      return InvalidArgument(specs[i].source + ": [nodes] workload = \"ssh:" + specs[i].nodes.workload_host +
                             "\" and [sandbox] kind = \"vm\" cannot go together yet: the workload's host makes "
                             "a process sandbox");
    }
    if (where.row && where.row->ream_servers_only && !(specs[i].workload.kind && specs[i].workload.kind->runs_in_vm)) {
      return InvalidArgument(specs[i].source + ": [sandbox] kind = \"" + where.Name() +
                             "\" runs ream's own servers (workload.builtin): the guest image carries no other "
                             "program yet (docs/vm.md)");
    }
    REAM_ASSIGN_OR_RETURN(TenantSandboxSettings settings, PlaceSettings(p, specs[i], o));
    auto own = MakeTenantSandboxKind(p, settings, where, specs[i].nodes.workload_address,
                                     WorkloadUser(p, specs[i].workload.user));
    if (!own.ok()) return Status(own.status().code(), specs[i].source + ": " + own.status().message());
    if (*own) {
      s.own_workload_kind = std::move(own).value();
      s.workload_kind = s.own_workload_kind.get();
    }
    if (!specs[i].corunners.empty()) {
      // Each co-runner's kind, from its place: this host's (the runner's), or one of its own.
      REAM_ASSIGN_OR_RETURN(CorunnerKinds kinds, CorunnerKinds::Make(p, *sandboxes, settings, specs[i]));
      s.corunner_kinds = std::make_unique<CorunnerKinds>(std::move(kinds));
    }
    REAM_ASSIGN_OR_RETURN(Prepared prep, Validate(p, *s.workload_kind, specs[i], s.plan, o.ream_binary, o.strict,
                                                  s.corunner_kinds.get()));
    s.prep = std::move(prep);
    // The runs of a scenario this machine cannot place are stored as skipped, not run.
    std::vector<PlannedRun> runnable;
    for (auto& r : s.plan.runs) (s.prep->skipped_scenarios.count(r.scenario) ? s.skipped : runnable).push_back(r);
    s.plan.runs = std::move(runnable);
    if (!o.dry_run) {
      for (const auto& note : s.prep->notes) out << "ream run: note: " << note << "\n";
    }
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
    for (const auto& s : sessions) knee = knee || s.plan.knee();
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
                      "experiment '" + spec.name + "' is already in " + o.db_path + " (status " + std::string(StatusName(existing->status)) +
                          "); use --resume to continue it, or another name or --db");
      }
      if (existing->spec_hash != Fnv1aHex(spec.text)) {
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
    auto [points, seconds] = PlanSize(s);
    if (s.resumed) {
      REAM_RETURN_IF_ERROR(store.SetExperimentStatus(s.id, ExperimentStatus::kRunning, "", std::nullopt));
      observer.OnEvent(ExperimentStarted{spec.name, o.db_path, true, static_cast<int>(s.plan.runs.size()), points,
                                         s.plan.knee(), seconds});
    } else {
      ExperimentRecord e;
      e.name = spec.name;
      e.spec_text = spec.text;
      e.spec = spec.ToJson();
      e.spec_hash = Fnv1aHex(spec.text);
      e.status = ExperimentStatus::kRunning;
      e.created_ns = p.WallNanos();
      e.workload = WorkloadLabel(spec);
      e.protocol = spec.workload.protocol;
      e.load_axis = s.plan.axis;
      e.qos.percentile = spec.qos.percentile;
      e.qos.fixed_target_us = spec.qos.target_us;
      e.qos.service_multiplier = spec.qos.service_multiplier;
      e.qos.at_utilization = spec.qos.at_utilization;
      e.qos.min_timely_ratio = spec.qos.min_timely_ratio;
      e.qos.max_rate_error = spec.qos.max_rate_error;
      REAM_ASSIGN_OR_RETURN(s.id, store.CreateExperiment(e));
      observer.OnEvent(ExperimentStarted{spec.name, o.db_path, false, static_cast<int>(s.plan.runs.size()), points,
                                         s.plan.knee(), seconds});
    }
    for (const auto& sc : spec.scenarios) {
      if (!o.only.empty() && sc != o.only) {
        observer.OnEvent(ScenarioSkipped{spec.name, sc, "not run in this call (--only " + o.only + ")"});
      } else if (auto it = s.prep->skipped_scenarios.find(sc); it != s.prep->skipped_scenarios.end()) {
        observer.OnEvent(ScenarioSkipped{spec.name, sc, "not available here: " + it->second});
      }
    }
    const std::string host = WorkloadHostname(p, *s.prep);
    nlohmann::json provenance = o.provenance;
    if (!provenance.is_null()) provenance["host"] = host;
    for (const PlannedRun& run : s.skipped) {
      RunRecord r;
      r.experiment_id = s.id;
      r.key = {run.scenario, run.partition.Label(), run.repetition};
      r.partition = run.partition.ToJson();
      r.ordinal = run.ordinal;
      r.host = host;
      r.provenance = provenance;
      REAM_ASSIGN_OR_RETURN(RunRecord rec, store.EnsureRun(r));
      rec.status = RunStatus::kSkipped;
      rec.failure = s.prep->skipped_scenarios.at(run.scenario);
      REAM_RETURN_IF_ERROR(store.UpdateRun(rec));
    }
    REAM_ASSIGN_OR_RETURN(auto env, store.GetEnvironment(s.id));
    if (!env) REAM_RETURN_IF_ERROR(RecordEnvironment(p, *s.workload_kind, o, store, s.id, spec, *s.prep));
    s.outcome.experiment = spec.name;
    // The local driver runs `ream load` on this experiment's generator CPUs.
    LoadDriver* driver = o.load_driver;
    if (!driver && spec.nodes.remote()) {
      // Client nodes over ssh (remote/remote_driver.h): agents on other hosts.
      RemoteDriverOptions ro = SshSettings(spec, o, s.prep->ream);
      ro.hosts = spec.nodes.client_hosts;
      ro.workload_host = spec.nodes.workload_address;
      ro.continue_without_lost = spec.nodes.on_agent_loss == "continue";
      ro.agent_cpus = spec.nodes.client_cpus;
      std::ostream* note_out = o.out ? o.out : &std::cerr;
      if (!spec.nodes.local_nodes.empty()) {
        // Local agents need no privilege: they run as the workloads' default account. On this
        // host they share the generator's CPUs (client_cpus when given), away from the workload's.
        REAM_ASSIGN_OR_RETURN(auto run_as, ResolveWorkloadUser(p, WorkloadUser(p, "")));
        const std::vector<int>& cpus = spec.nodes.client_cpus.empty() ? s.prep->generator_cpus : spec.nodes.client_cpus;
        for (const std::string& name : spec.nodes.local_nodes) {
          REAM_ASSIGN_OR_RETURN(auto node, ClientNode::Create(p, name, spec.nodes.link_rate_bps,
                                                              o.state_dir.empty() ? kDefaultStateDir : o.state_dir));
          ro.local_nodes.push_back({"local:" + name, node->netns_path(), node->host_ip(), cpus, run_as});
          *note_out << "nodes: local client node local:" << name << ": namespace " << node->link().netns << ", "
                    << node->link().node_ip << " <-> " << node->host_ip() << " (" << node->link().host_veth << ")"
                    << (spec.nodes.link_rate_bps ? ", " + std::to_string(*spec.nodes.link_rate_bps) + " bit/s each way"
                                                 : std::string(", unshaped"))
                    << "\n";
          s.client_nodes.push_back(std::move(node));
        }
      }
      s.own_driver = MakeRemoteLoadDriver(p, std::move(ro));
      driver = s.own_driver.get();
    }
    if (!driver) {
      s.own_driver = MakeLocalLoadDriver(p, *sandboxes, {s.prep->ream, s.prep->generator_cpus, o.state_dir});
      driver = s.own_driver.get();
    }
    s.runner = std::make_unique<ExperimentRun>(p, spec, o, std::move(*s.prep), std::move(store), *s.workload_kind,
                                               *driver, observer);
    if (several) s.runner->SetLabel(spec.name + ": ");
    s.runner->SetCorunnerKinds(s.corunner_kinds.get());
    s.runner->SetOrigin(host, provenance);
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
        (void)s2->SetExperimentStatus(s.id, ExperimentStatus::kFailed, failure.message(), p.WallNanos());
      } else if (s.outcome.interrupted) {
        std::string why = interrupted ? "interrupted by signal " + std::to_string(TerminationSignals::Received())
                                      : "stopped when experiment '" + specs[failed].name + "' failed";
        (void)s2->SetExperimentStatus(s.id, ExperimentStatus::kInterrupted, why + "; continue with --resume", std::nullopt);
      } else if (o.only_ordinals.count(s.spec->name)) {
        (void)s2->SetExperimentStatus(s.id, ExperimentStatus::kPartial, o.unit_note, p.WallNanos());
      } else if (!o.only.empty() && s.spec->scenarios.size() > 1) {
        (void)s2->SetExperimentStatus(s.id, ExperimentStatus::kPartial, "only scenario " + o.only +
                                                           " was run (--only); run the rest with --resume",
                                      std::nullopt);
      } else {
        (void)s2->SetExperimentStatus(s.id, ExperimentStatus::kComplete, "", p.WallNanos());
      }
    }
    outcomes.push_back(s.outcome);
  }
  TerminationSignals::Restore();
  if (failed >= 0) return failure;
  return outcomes;
}

}  // namespace ream
