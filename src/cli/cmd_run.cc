// `ream run SPEC.toml`: ream's main job — characterize a workload as the spec says and keep
// every point in the results database.
#include <iostream>
#include <memory>

#include "analysis/analysis.h"
#include "analysis/store_loader.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/version.h"
#include "experiment/runner.h"
#include "spec/spec.h"
#include "platform/platform.h"
#include "platform/text.h"
#include "store/store.h"

namespace ream::cli {
namespace {

struct RunFlags {
  std::vector<std::string> specs;
  std::string db = "results.db";
  bool resume = false;
  bool dry_run = false;
  std::string topology;  // --topology DIR (with --dry-run)
  std::string only;
  bool interleave = false;
  uint64_t order_seed = 1;
  std::string events;  // a JSON-lines file of the run events
  bool strict = false;
  bool keep_awake = false;
  bool keep_awake_generator = false;
  std::string profile;  // --profile EXPERIMENT
};

// --profile EXPERIMENT: each [manager] resource of the subject starts where the subject's own
// sweep in that experiment (in the same database) says the cheapest allocation meets QoS at the
// schedule's first rate — the recommendation `ream analyze --target-qps` prints. A knob that
// allocation leaves unlimited starts at the resource's max. Says what it chose on `out`.
Status ApplyProfile(const std::string& db, const std::string& profile, ExperimentSpec& spec, std::ostream& out) {
  const std::string at = "--profile " + profile + ": ";
  if (!spec.manager.given) return InvalidArgument(at + spec.name + " has no [manager] to start");
  if (!spec.load.schedule) {
    return InvalidArgument(at + "needs [load] schedule in " + spec.name +
                           ": the allocation must meet QoS at the schedule's first rate");
  }
  const double first = spec.load.schedule->knots.front().second;
  REAM_ASSIGN_OR_RETURN(Store store, Store::OpenReadOnly(db));
  REAM_ASSIGN_OR_RETURN(analysis::ExperimentData data, analysis::LoadExperiment(store, profile));
  analysis::AnalysisOptions ao;
  ao.target_qps = first;
  REAM_ASSIGN_OR_RETURN(analysis::ExperimentAnalysis a, analysis::Analyze(data, ao));
  if (!a.recommendation || !a.recommendation->group_key) {
    return InvalidArgument(at + "no measured allocation meets QoS at " + Fmt("%.6g", first) + " QPS" +
                           (a.recommendation ? " (" + a.recommendation->explanation + ")" : ""));
  }
  const analysis::GroupAnalysis* group = nullptr;
  for (const auto& g : a.groups) {
    if (g.key == *a.recommendation->group_key) group = &g;
  }
  if (!group) return Internal(at + "the recommended group " + *a.recommendation->group_key + " is not in the analysis");
  // The partition as the spec named it: "cpu_quota=50%,llc_ways=4".
  std::map<std::string, std::string> texts;
  for (const std::string& kv : Split(group->partition.label, ',')) {
    auto eq = kv.find('=');
    if (eq != std::string::npos) texts[Trim(kv.substr(0, eq))] = Trim(kv.substr(eq + 1));
  }
  std::vector<std::string> chosen;
  for (auto& r : spec.manager.resources) {
    if (r.tenant != "subject") continue;
    auto t = texts.find(r.knob->key);
    if (t == texts.end()) {
      chosen.push_back(r.knob->key + " " + r.max_text + " (unlimited there: the resource's max)");
      continue;
    }
    auto v = r.knob->parse(t->second, r.knob->key);
    if (!v.ok()) return v.status().Annotate(at + "the recommended " + group->key);
    REAM_ASSIGN_OR_RETURN(double level, r.knob->moves->level(*v, r.knob->key));
    if (level < r.min - 1e-9 || level > r.max + 1e-9) {
      return InvalidArgument(at + "the recommended " + r.knob->key + " = " + t->second + " is outside the resource's [" +
                             r.min_text + ", " + r.max_text + "]");
    }
    r.start = level;
    r.start_text = t->second;
    chosen.push_back(r.knob->key + " " + t->second);
  }
  if (chosen.empty()) return InvalidArgument(at + "the [manager] of " + spec.name + " moves no resource of the subject");
  out << "ream run: " << at << "the subject starts at " << Join(chosen, ", ") << ": " << a.recommendation->explanation
      << "\n";
  return Status::Ok();
}

int RunRun(const RunFlags& f) {
  auto platform = MakePosixPlatform();
  std::vector<ExperimentSpec> specs;
  for (const auto& path : f.specs) {
    auto spec = LoadSpecFile(*platform, path);
    if (!spec.ok()) {
      std::cerr << "ream run: " << spec.status().message() << "\n";
      return kExitBadInput;
    }
    specs.push_back(std::move(spec).value());
    if (f.keep_awake) specs.back().load.keep_awake = KeepAwakeMode::kAll;
    if (f.keep_awake_generator) specs.back().load.keep_awake = KeepAwakeMode::kGenerator;
    if (!f.profile.empty()) {
      Status s = ApplyProfile(f.db, f.profile, specs.back(), std::cerr);
      if (!s.ok()) {
        std::cerr << "ream run: " << s.message() << "\n";
        return ExitCodeFor(s);
      }
    }
  }
  if (f.interleave && specs.size() < 2) {
    std::cerr << "ream run: --interleave needs two or more specs (it alternates their runs)\n";
    return kExitBadInput;
  }
  RunnerOptions o;
  o.db_path = f.db;
  o.resume = f.resume;
  o.dry_run = f.dry_run;
  o.topology_dir = f.topology;
  o.only = f.only;
  o.strict = f.strict;
  o.interleave = f.interleave;
  o.order_seed = f.order_seed;
  o.out = &std::cerr;
  o.ream_version = kVersion;
  o.ream_commit = kGitCommit;
  // The console's lines always; with --events, every event as a JSON line too.
  ConsoleObserver console(std::cerr);
  std::unique_ptr<std::ostream> events_file;
  std::unique_ptr<JsonLinesObserver> json;
  if (!f.events.empty()) {
    auto opened = platform->OpenForWriting(f.events);
    if (!opened.ok()) {
      std::cerr << "ream run: --events " << f.events << ": cannot create the file\n";
      return kExitBadInput;
    }
    events_file = std::move(opened).value();
    json = std::make_unique<JsonLinesObserver>(*events_file);
  }
  FanOutObserver observers({&console, json.get()});
  o.observer = &observers;
  auto outcomes = RunExperiments(*platform, specs, o);
  if (!outcomes.ok()) {
    std::cerr << "ream run: " << outcomes.status().message() << "\n";
    return ExitCodeFor(outcomes.status());
  }
  if (f.dry_run) return kExitDone;
  bool interrupted = false;
  int stored = 0;
  for (const auto& oc : *outcomes) {
    interrupted = interrupted || oc.interrupted;
    stored += oc.points_stored;
  }
  if (interrupted) {
    std::string again = "ream run";
    for (const auto& s : f.specs) again += " " + s;
    again += " --db " + f.db + (f.interleave ? " --interleave --order-seed " + std::to_string(f.order_seed) : "") +
             (f.only.empty() ? "" : " --only " + f.only) + " --resume";
    std::cerr << "ream run: interrupted; " << stored << " point(s) stored this time are kept. Continue with: " << again
              << "\n";
    return kExitInterrupted;
  }
  for (const auto& oc : *outcomes) {
    std::cerr << "ream run: experiment '" << oc.experiment << "' complete in " << f.db << ": " << oc.points_stored
              << " point(s) measured"
              << (oc.points_failed ? " (" + std::to_string(oc.points_failed) + " failed, reasons stored)" : "")
              << (oc.points_skipped ? ", " + std::to_string(oc.points_skipped) + " already stored" : "") << "\n";
  }
  return kExitDone;
}

}  // namespace

void AddRunCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<RunFlags>();
  CLI::App* sub = app.add_subcommand(
      "run", "Run an experiment spec: sweep the load per scenario and partition, store every point");
  sub->add_option("spec", f->specs,
                  "Experiment spec(s) (TOML; see docs/spec.md); several run into the same database")
      ->required();
  sub->add_option("--db", f->db, "Results database (SQLite, created)")->capture_default_str();
  sub->add_flag("--resume", f->resume, "Continue an interrupted experiment without repeating its points");
  CLI::Option* dry_run =
      sub->add_flag("--dry-run", f->dry_run, "Validate the spec against this machine and print the plan");
  sub->add_option("--topology", f->topology,
                  "With --dry-run: plan for another machine instead, reading its topology and resctrl from DIR (a "
                  "copied sysfs tree, e.g. src/topology/testdata/seed-4116x2, the seed's two Xeon Silver 4116)")
      ->type_name("DIR")
      ->needs(dry_run);
  sub->add_option("--only", f->only, "Run only this scenario of the spec");
  sub->add_option("--profile", f->profile,
                  "Start the [manager]'s subject resources at the cheapest allocation this experiment (in --db) "
                  "says meets QoS at the schedule's first rate");
  sub->add_flag("--keep-awake", f->keep_awake,
                "Keep the workload's and the generator's CPUs out of idle (as [load] keep_awake = true; the "
                "kernel's idle polling where their idle driver can poll, else SCHED_IDLE pollers): no request "
                "pays a CPU's wake-up at low load");
  sub->add_flag("--keep-awake-generator", f->keep_awake_generator,
                "Keep only the generator's CPUs out of idle (as [load] keep_awake = \"generator\"): a sleeping "
                "generator's sends stop paying its CPU's wake-ups, and nothing of the workload's changes")
      ->excludes("--keep-awake");
  sub->add_flag("--strict", f->strict,
                "Refuse a spec naming a scenario this machine cannot run (default: skip it, store it as "
                "skipped with the reason, and run the rest)");
  sub->add_option("--events", f->events,
                  "Also write every run event (run started, level measured, measuring again, ...) to FILE, "
                  "one JSON object per line");
  CLI::Option* interleave = sub->add_flag("--interleave", f->interleave,
                "Several specs: run them in rounds, one run of each per round in a shuffled order, instead of "
                "one after another (for comparing them on a host whose speed drifts)");
  sub->add_option("--order-seed", f->order_seed, "Seed of --interleave's shuffle")
      ->capture_default_str()
      ->needs(interleave);
  commands.push_back({sub, [f] { return RunRun(*f); }});
}

}  // namespace ream::cli
