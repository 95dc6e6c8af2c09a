// `ream run SPEC.toml`: ream's main job — characterize a workload as the spec says and keep
// every point in the results database.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/version.h"
#include "experiment/runner.h"
#include "spec/spec.h"
#include "platform/platform.h"

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
};

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
