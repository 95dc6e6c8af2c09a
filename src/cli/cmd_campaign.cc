// `ream campaign`: specs split into units run on hosts of their own and merged into one
// database (experiment/campaign.h) — here, one unit after another, or on a Slurm cluster as a
// job array (docs/campaigns.md).
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/table.h"
#include "cli/version.h"
#include "campaign/campaign.h"
#include "experiment/preflight.h"
#include "platform/platform.h"
#include "platform/process.h"  // SIGTERM
#include "platform/text.h"
#include "spec/spec.h"

namespace ream::cli {
namespace {

struct CampaignFlags {
  std::vector<std::string> specs;
  std::string dir;
  bool slurm = false;
  bool no_check = false;
  std::string partition, constraint;
  int max_parallel = 0;
  double max_stall_fraction = 0;
  std::vector<std::string> exclude;
  bool json = false;
  int unit = -1;
};

int Fail(const std::string& what, const Status& s) {
  std::cerr << "ream campaign " << what << ": " << s.message() << "\n";
  return ExitCodeFor(s);
}

// The Slurm job this process runs in, from the variables Slurm sets in a job's environment;
// null outside one.
nlohmann::json SlurmProvenance() {
  if (!std::getenv("SLURM_JOB_ID")) return nullptr;
  nlohmann::json s = nlohmann::json::object();
  for (auto [key, var] : {std::pair<const char*, const char*>{"job_id", "SLURM_JOB_ID"},
                          {"array_job_id", "SLURM_ARRAY_JOB_ID"},
                          {"array_task_id", "SLURM_ARRAY_TASK_ID"},
                          {"node", "SLURMD_NODENAME"},
                          {"partition", "SLURM_JOB_PARTITION"},
                          {"cluster", "SLURM_CLUSTER_NAME"}}) {
    if (const char* v = std::getenv(var)) s[key] = v;
  }
  return {{"slurm", s}};
}

RunnerOptions UnitOptions() {
  RunnerOptions o;
  o.out = &std::cerr;
  o.ream_version = kVersion;
  o.ream_commit = kGitCommit;
  o.provenance = SlurmProvenance();
  return o;
}

std::string JobName(const Campaign& c) { return "ream-" + c.id.substr(0, 8); }

// Runs `indices` here, one after another, then merges; stops at an interruption.
int RunEmbedded(Platform& p, const Campaign& c, const std::vector<int>& indices) {
  const std::string lock = c.dir + "/lock";
  if (Status s = p.WriteFile(lock, std::to_string(p.ProcessId()) + "\n"); !s.ok()) return Fail("submit", s);
  bool interrupted = false;
  int failed = 0;
  for (int i : indices) {
    std::cerr << "ream campaign: unit " << i << " of " << c.units.size() << ": " << c.units[i].Label() << "\n";
    Status s = RunUnit(p, c, i, UnitOptions());
    if (s.code() == StatusCode::kCancelled) {
      interrupted = true;
      break;
    }
    if (!s.ok()) {
      ++failed;
      std::cerr << "ream campaign: unit " << i << " failed: " << s.message() << "\n";
    }
  }
  auto merged = MergeCampaign(p, c);
  (void)p.RemoveFile(lock);
  if (!merged.ok()) {
    std::cerr << "ream campaign: merging: " << merged.status().message() << "\n";
  } else {
    std::cerr << "ream campaign: merged " << merged->runs_added << " new run(s) into " << c.dir << "/merged.db\n";
  }
  if (interrupted) {
    std::cerr << "ream campaign: interrupted; continue with: ream campaign resume " << c.dir << "\n";
    return kExitInterrupted;
  }
  if (failed) {
    std::cerr << "ream campaign: " << failed << " unit(s) failed (ream campaign status " << c.dir
              << "); run them again with: ream campaign resume " << c.dir << "\n";
    return kExitMeasuredWithFailures;
  }
  return merged.ok() ? kExitDone : ExitCodeFor(merged.status());
}

// Submits `indices` as one job array and the merge job after it, and records both.
int SubmitToSlurm(Platform& p, Campaign& c, const std::vector<int>& indices) {
  SlurmClient slurm(p);
  auto array = slurm.Submit(SbatchArrayArgv(c.dir, JobName(c), indices, c.options.submit));
  if (!array.ok()) return Fail("submit", array.status());
  Campaign::Submission sub{*array, "", indices, p.WallNanos()};
  auto merge = slurm.Submit(SbatchMergeArgv(c.dir, JobName(c) + "-merge", *array, c.options.submit));
  if (merge.ok()) sub.merge_job_id = *merge;
  c.submissions.push_back(sub);
  if (Status s = SaveCampaign(p, c); !s.ok()) return Fail("submit", s);
  std::cout << "campaign " << c.dir << ": " << indices.size() << " unit(s) submitted as Slurm job array " << *array
            << " (--array=" << FormatCpuList(indices)
            << (c.options.submit.max_parallel > 0 ? "%" + std::to_string(c.options.submit.max_parallel) : "") << ")";
  if (merge.ok()) std::cout << ", merged by job " << *merge << " after it";
  std::cout << "\nfollow it with: ream campaign status " << c.dir << "\n";
  if (!merge.ok()) {
    std::cerr << "ream campaign: the merge job was not submitted (" << merge.status().message()
              << "); merge when the units are done with: ream campaign merge " << c.dir << "\n";
    return kExitCouldNotRun;
  }
  return kExitDone;
}

int Submit(const CampaignFlags& f) {
  auto p = MakePosixPlatform();
  auto ream = ReamBinary(*p, "");
  if (!ream.ok()) return Fail("submit", ream.status());
  if (!f.no_check) {
    // Every spec checked on this host before anything is submitted (a dry run: nothing runs).
    std::vector<ExperimentSpec> specs;
    for (const auto& path : f.specs) {
      auto spec = LoadSpecFile(*p, path);
      if (!spec.ok()) return Fail("submit", spec.status());
      specs.push_back(std::move(spec).value());
    }
    std::ostringstream plan;
    RunnerOptions o;
    o.dry_run = true;
    o.out = &plan;
    auto checked = RunExperiments(*p, specs, o);
    if (!checked.ok()) {
      return Fail("submit", Status(checked.status().code(), checked.status().message() +
                                                                " (--no-check skips this check, on a host unlike "
                                                                "the ones that run the units)"));
    }
  }
  CampaignOptions options;
  options.slurm = f.slurm;
  options.submit = {f.partition, f.constraint, f.exclude, f.max_parallel};
  options.max_stall_fraction = f.max_stall_fraction;
  auto c = CreateCampaign(*p, f.dir, f.specs, *ream, options);
  if (!c.ok()) return Fail("submit", c.status());
  std::vector<int> all;
  for (const auto& u : c->units) all.push_back(u.index);
  std::cerr << "ream campaign: " << c->units.size() << " unit(s) of " << c->specs.size() << " spec(s) in " << c->dir
            << "\n";
  return f.slurm ? SubmitToSlurm(*p, *c, all) : RunEmbedded(*p, *c, all);
}

// A command on the campaign in f.dir: `body` with it loaded, or the reason it cannot be.
int OnCampaign(const CampaignFlags& f, const char* what, int (*body)(const CampaignFlags&, Platform&, Campaign&)) {
  auto p = MakePosixPlatform();
  auto c = LoadCampaign(*p, f.dir);
  if (!c.ok()) return Fail(what, c.status());
  return body(f, *p, *c);
}

Result<std::vector<UnitState>> States(Platform& p, const Campaign& c) {
  SlurmClient slurm(p);
  return CampaignStatus(p, c, c.options.slurm ? &slurm : nullptr);
}

int ShowStatus(const CampaignFlags& f, Platform& p, Campaign& c) {
  auto states = States(p, c);
  if (!states.ok()) return Fail("status", states.status());
  if (f.json) {
    nlohmann::json units = nlohmann::json::array();
    for (const auto& s : *states) {
      units.push_back({{"index", s.index},
                       {"state", s.state},
                       {"why", s.why},
                       {"host", s.host},
                       {"seconds", s.seconds ? nlohmann::json(*s.seconds) : nlohmann::json()},
                       {"label", s.label}});
    }
    std::cout << nlohmann::json{{"campaign", c.dir}, {"units", units}, {"progress", CampaignProgress(*states)}}.dump(2)
              << "\n";
    return kExitDone;
  }
  Table t({"unit", "state", "host", "seconds", "experiment / scenario / partition / repetition", "why"});
  for (const auto& s : *states) {
    t.AddRow({std::to_string(s.index), s.state, s.host.empty() ? "-" : s.host,
              s.seconds ? Fmt("%.1f", *s.seconds) : "-", s.label, s.why});
  }
  t.Print(std::cout);
  std::cout << CampaignProgress(*states) << "\n";
  return kExitDone;
}

int Resume(const CampaignFlags& f, Platform& p, Campaign& c) {
  auto states = States(p, c);
  if (!states.ok()) return Fail("resume", states.status());
  std::vector<int> todo;
  for (const auto& s : *states) {
    if (s.state != "done" && s.state != "pending" && s.state != "running") todo.push_back(s.index);
  }
  if (todo.empty()) {
    std::cout << "campaign " << c.dir << ": no unit to run again (" << CampaignProgress(*states) << ")\n";
    return kExitDone;
  }
  for (const auto& h : f.exclude) c.options.submit.exclude.push_back(h);
  return c.options.slurm ? SubmitToSlurm(p, c, todo) : RunEmbedded(p, c, todo);
}

int Cancel(const CampaignFlags&, Platform& p, Campaign& c) {
  if (!c.options.slurm) {
    auto pid = p.ReadFile(c.dir + "/lock");
    if (!pid.ok()) {
      std::cout << "campaign " << c.dir << ": nothing runs (no lock file)\n";
      return kExitDone;
    }
    const int n = std::atoi(Trim(*pid).c_str());
    Status s = n > 0 ? p.Kill(n, SIGTERM) : InvalidArgument(c.dir + "/lock does not hold a process id");
    if (!s.ok()) return Fail("cancel", s);
    std::cout << "campaign " << c.dir << ": asked process " << n << " to stop (SIGTERM)\n";
    return kExitDone;
  }
  SlurmClient slurm(p);
  std::vector<std::string> jobs;
  for (const auto& s : c.submissions) {
    jobs.push_back(s.array_job_id);
    if (!s.merge_job_id.empty()) jobs.push_back(s.merge_job_id);
  }
  auto queued = slurm.Queue(jobs);
  if (!queued.ok()) return Fail("cancel", queued.status());
  std::vector<std::string> live;
  for (const auto& j : jobs) {
    for (const auto& [id, task] : *queued) {
      if (id == j || id.rfind(j + "_", 0) == 0) {
        live.push_back(j);
        break;
      }
    }
  }
  if (Status s = slurm.Cancel(live); !s.ok()) return Fail("cancel", s);
  std::cout << "campaign " << c.dir << ": " << (live.empty() ? "no job left to cancel" : "cancelled jobs " + Join(live, ", "))
            << "\n";
  return kExitDone;
}

int Merge(const CampaignFlags&, Platform& p, Campaign& c) {
  auto r = MergeCampaign(p, c);
  if (!r.ok()) return Fail("merge", r.status());
  std::cout << "campaign " << c.dir << ": " << r->runs_added << " run(s) merged into " << c.dir << "/merged.db ("
            << r->runs_already_there << " already there)\n";
  return kExitDone;
}

int RunOneUnit(const CampaignFlags& f, Platform& p, Campaign& c) {
  Status s = RunUnit(p, c, f.unit, UnitOptions());
  if (!s.ok()) return Fail("run-unit", s);
  return kExitDone;
}

}  // namespace

void AddCampaignCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<CampaignFlags>();
  CLI::App* top = app.add_subcommand(
      "campaign", "Split specs into units each measured on a host of its own (here, or on a Slurm cluster), and "
                  "merge them into one database");
  top->require_subcommand(1);
  auto dir_arg = [&](CLI::App* sub) { sub->add_option("dir", f->dir, "The campaign's directory")->required(); };

  CLI::App* submit = top->add_subcommand("submit", "Create a campaign in DIR and run it here, or submit it to Slurm");
  submit->add_option("spec", f->specs, "Experiment specs (TOML; docs/spec.md)")->required();
  submit->add_option("--dir", f->dir, "The campaign's directory (absent or empty; on shared storage for Slurm)")
      ->required();
  submit->add_flag("--slurm", f->slurm, "Submit the units as a Slurm job array (default: run them here, in turn)");
  submit->add_option("--partition", f->partition, "With --slurm: the Slurm partition")->type_name("P");
  submit->add_option("--constraint", f->constraint, "With --slurm: node features the units need (CAT, MBA, ...)")
      ->type_name("F");
  submit->add_option("--max-parallel", f->max_parallel, "With --slurm: at most K units at once")->type_name("K");
  submit->add_option("--exclude-host", f->exclude, "With --slurm: never run a unit on host H")->type_name("H");
  submit->add_option("--max-stall-fraction", f->max_stall_fraction,
                     "Fail a unit at once on a host that, measured before any run, stalls a spinning loop more than "
                     "this share of the time on one of its CPUs (0.01: 1 %); run it elsewhere with resume "
                     "--exclude-host")
      ->check(CLI::Range(0.0, 1.0))
      ->type_name("F");
  submit->add_flag("--no-check", f->no_check,
                   "Do not check the specs on this host first (a login node unlike the hosts that measure)");

  CLI::App* status = top->add_subcommand("status", "Where each unit stands, with Slurm's reason or the unit's error");
  dir_arg(status);
  status->add_flag("--json", f->json, "As JSON");

  CLI::App* resume = top->add_subcommand("resume", "Run again every unit neither done nor waiting or running");
  dir_arg(resume);
  resume->add_option("--exclude-host", f->exclude, "With Slurm: not on host H (a noisy one)")->type_name("H");

  CLI::App* cancel = top->add_subcommand("cancel", "Cancel the campaign's Slurm jobs, or stop its embedded run");
  dir_arg(cancel);

  CLI::App* merge = top->add_subcommand("merge", "Merge every unit with a result into DIR/merged.db (the merge job)");
  dir_arg(merge);

  // What each task of the Slurm array runs (DIR/unit.sh); not for users.
  CLI::App* unit = top->add_subcommand("run-unit", "Run one unit of a campaign (Slurm's array task)");
  unit->group("");
  dir_arg(unit);
  unit->add_option("index", f->unit, "The unit")->required();

  commands.push_back({top, [f, submit, status, resume, cancel, merge, unit] {
                        if (submit->parsed()) return Submit(*f);
                        if (status->parsed()) return OnCampaign(*f, "status", ShowStatus);
                        if (resume->parsed()) return OnCampaign(*f, "resume", Resume);
                        if (cancel->parsed()) return OnCampaign(*f, "cancel", Cancel);
                        if (merge->parsed()) return OnCampaign(*f, "merge", Merge);
                        if (unit->parsed()) return OnCampaign(*f, "run-unit", RunOneUnit);
                        return kExitBadInput;
                      }});
}

}  // namespace ream::cli
