// The co-runners of one shared run (DESIGN.md "Shared servers", docs/colocation.md): each
// [[corunner]] of the run's set in a sandbox of its own (of the kind its `sandbox` names:
// CorunnerKinds) with its partition, on its CPUs, in its scheduling class (`ream corun
// --sched`), started in a working directory its user can write (its sandbox's TMPDIR), before the
// subject's first point and kept running across the points; over each point's window the
// monitors sample every co-runner as they sample the subject, its completions are counted
// (`ream corun --repeat` restarts a job that ended well and prints each completion), and a
// co-runner that ended otherwise during the window is named with how it ended.
//
//   CorunnerSet set(p, kinds, spec, prep, run, state_dir);
//   REAM_RETURN_IF_ERROR(set.EnsureRunning(interrupted).status());
//   set.WindowStarted();  ... the subject's point ...  set.WindowEnded();
//   point.corunners = set.Figures();  for (auto& why : set.EndedDuringWindow()) ... invalid
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <map>
#include <string>
#include <vector>

#include "experiment/plan.h"
#include "experiment/preflight.h"
#include "experiment/tenant_sandbox.h"
#include "spec/spec.h"
#include "load/generator.h"
#include "monitor/monitor.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"
#include "store/tenant_figures.h"

namespace ream {

// The sandbox kinds of a spec's co-runners: this host's for those that run here ("process",
// "node"), and one of its own for each co-runner whose place makes one (a vm; an ssh host, whose
// agent holds one sandbox), made once per experiment and kept across its runs.
class CorunnerKinds {
 public:
  // Every co-runner's kind. The first that cannot be had (libvirt, ssh), naming the co-runner.
  static Result<CorunnerKinds> Make(Platform& p, SandboxKind& here, const TenantSandboxSettings& settings,
                                    const ExperimentSpec& spec);
  // Every co-runner in `here` (the null kind of the runner's tests).
  explicit CorunnerKinds(SandboxKind& here) : here_(&here) {}
  // The co-runner's kind.
  SandboxKind& For(const CorunnerSpec& c) const;
  // Whether the co-runner runs on another host (its CPUs are that host's).
  bool Remote(const CorunnerSpec& c) const { return remote_.count(c.name) > 0; }
  // This host's kind: the co-runners' load generators run in it.
  SandboxKind& here() const { return *here_; }

 private:
  SandboxKind* here_;
  std::map<std::string, std::unique_ptr<SandboxKind>> own_;
  std::set<std::string> remote_;
};

// The CPUs a co-runner runs on in a run of `scenario`: "subject" the subject's, "others" the
// CPUs of the physical cores that hold none of the subject's or the generator's CPUs,
// "siblings" the subject's cores' other logical CPUs (SMT siblings), or its list (each must be
// online). A co-runner on another host (`remote`) takes its list there, and runs on every CPU
// of that host without one. InvalidArgument naming the co-runner and the key when there is none
// or a CPU is not this machine's.
Result<std::vector<int>> CorunnerCpus(const ExperimentSpec& spec, const CorunnerSpec& c, const Prepared& prep,
                                      const std::string& scenario, bool remote = false);

// The argv a co-runner's sandbox runs: `ream corun --sched CLASS [--repeat] -- PROGRAM...`,
// PROGRAM its kind's (TenantKind::argv: `ream batch NAME --seconds S`, `ream serve NAME --port 0
// --threads T ARGS...`, a command with "{port}" filled).
// `listen_everywhere`: it is reached from outside its namespace or host (TenantStart).
std::vector<std::string> CorunnerArgv(const CorunnerSpec& c, const std::string& ream_binary, int port = 0,
                                      int threads = 1, bool listen_everywhere = false);

class CorunnerSet {
 public:
  CorunnerSet(Platform& p, const CorunnerKinds& kinds, const ExperimentSpec& spec, const Prepared& prep,
              const PlannedRun& run, std::string state_dir);
  ~CorunnerSet();
  CorunnerSet(const CorunnerSet&) = delete;
  CorunnerSet& operator=(const CorunnerSet&) = delete;

  // Starts every co-runner of the set that is not running (all of them the first time; one
  // that ended since, again) and waits until each is ready. The descriptions of the ones that
  // had ended ("'stream' killed by signal 9 (SIGKILL)"), for the run's events. Unavailable or
  // Timeout naming the co-runner, with its last stderr lines and `ream corun`'s, when one cannot
  // start or become ready; Cancelled when `interrupted` turns true. Nothing is left running on
  // failure.
  Result<std::vector<std::string>> EnsureRunning(const std::function<bool()>& interrupted);

  // The window of a point (or of the co-runners' alone measurement): the monitors sample each
  // co-runner from WindowStarted to WindowEnded, and completions are counted in between.
  void WindowStarted();
  void WindowEnded();
  // The co-runners' own loads ([corunner.load]) over the coming window, started before its
  // warm-up: `ream load` in a sandbox on the generator's CPUs for each co-runner with a load,
  // with `window`'s warm-up, duration, arrivals and validity rule at the co-runner's rate,
  // connections and protocol. The error of the first that cannot start (the others stopped).
  Status StartLoads(const LoadOptions& window);
  // Waits for the loads StartLoads started (each ends by itself after its window and response
  // timeout) and keeps what each measured, or why it measured nothing, for Figures().
  void CollectLoads();
  // Each co-runner's figures over the last window, by name (store/tenant_figures.h: what each
  // field means and how it is stored): its consumption from its monitors, its completions, how
  // it ended, and its own load's result or why there is none.
  TenantFiguresByName Figures() const;
  // "co-runner 'stream' killed by signal 9 (SIGKILL) during the window" for each co-runner that
  // ended during the last window other than by a completion --repeat restarted.
  std::vector<std::string> EndedDuringWindow() const;
  // A manager's reading of the co-runners at a window's end: each one's CPU time so far (ns) and
  // completions so far, by name; differences between two readings are its throughput over the
  // window between them. No cpu_ns (with why) for one not running or whose CPU cannot be read.
  struct Progress {
    bool running = false;
    std::optional<int64_t> cpu_ns;
    std::string cpu_why;
    int64_t completions = 0;
  };
  std::map<std::string, Progress> ReadProgress() const;
  // A manager's move of one knob of co-runner `name` (Sandbox::Move). NotFound naming it when the
  // set has no such co-runner or it is not running.
  Status Move(const std::string& name, const Knob& knob, double level);

  // The set as stored with the run: each co-runner's spec, CPUs and sandbox (its figures alone
  // are added by CorunnerSetRecord::SetAlone once measured).
  CorunnerSetRecord Describe() const;

  // Stops every co-runner (SIGTERM, SIGKILL after the grace) and removes its sandbox. The first
  // error; idempotent.
  Status Stop();

 private:
  struct Tenant;
  Result<std::unique_ptr<Sandbox>> StartOne(Tenant& t, const std::function<bool()>& interrupted);

  Platform& p_;
  const CorunnerKinds& kinds_;
  const ExperimentSpec& spec_;
  const Prepared& prep_;
  const PlannedRun& run_;
  std::string state_dir_;
  std::vector<std::unique_ptr<Tenant>> tenants_;
};

}  // namespace ream
