// `ream run SPEC.toml`: ream's main job — characterize a workload as the spec says and keep
// every point in the results database.
#include <iostream>

#include "cli/commands.h"
#include "experiment/runner.h"
#include "experiment/spec.h"
#include "platform/platform.h"

namespace ream::cli {
namespace {

struct RunFlags {
  std::string spec;
  std::string db = "results.db";
  bool resume = false;
  bool dry_run = false;
  std::string only;
};

int RunRun(const RunFlags& f) {
  auto spec = LoadSpecFile(f.spec);
  if (!spec.ok()) {
    std::cerr << "ream run: " << spec.status().message() << "\n";
    return 2;
  }
  auto platform = MakePosixPlatform();
  RunnerOptions o;
  o.db_path = f.db;
  o.resume = f.resume;
  o.dry_run = f.dry_run;
  o.only = f.only;
  o.out = &std::cerr;
  auto outcome = RunExperiment(*platform, *spec, o);
  if (!outcome.ok()) {
    std::cerr << "ream run: " << outcome.status().message() << "\n";
    switch (outcome.status().code()) {
      case StatusCode::kInvalidArgument:
      case StatusCode::kNotFound:
      case StatusCode::kUnsupported:
      case StatusCode::kAlreadyExists:
        return 2;
      case StatusCode::kCancelled:
        return 130;
      default:
        return 1;
    }
  }
  if (f.dry_run) return 0;
  if (outcome->interrupted) {
    std::cerr << "ream run: interrupted; " << outcome->points_stored
              << " point(s) stored this time are kept. Continue with: ream run " << f.spec << " --db " << f.db
              << " --resume\n";
    return 130;
  }
  std::cerr << "ream run: experiment '" << spec->name << "' complete in " << f.db << ": "
            << outcome->points_stored << " point(s) measured"
            << (outcome->points_failed ? " (" + std::to_string(outcome->points_failed) + " failed, reasons stored)" : "")
            << (outcome->points_skipped ? ", " + std::to_string(outcome->points_skipped) + " already stored" : "")
            << "\n";
  return 0;
}

}  // namespace

void AddRunCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<RunFlags>();
  CLI::App* sub = app.add_subcommand(
      "run", "Run an experiment spec: sweep the load per scenario and partition, store every point");
  sub->add_option("spec", f->spec, "Experiment spec (TOML; see docs/spec.md)")->required();
  sub->add_option("--db", f->db, "Results database (SQLite, created)")->capture_default_str();
  sub->add_flag("--resume", f->resume, "Continue an interrupted experiment without repeating its points");
  sub->add_flag("--dry-run", f->dry_run, "Validate the spec against this machine and print the plan");
  sub->add_option("--only", f->only, "Run only this scenario of the spec");
  commands.push_back({sub, [f] { return RunRun(*f); }});
}

}  // namespace ream::cli
