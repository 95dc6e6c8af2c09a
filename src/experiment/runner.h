// The experiment runner: validates everything that can be known before any load is generated,
// then for each run (scenario × partition × repetition) starts the workload in its sandbox,
// waits for readiness, and for each load level samples the sandbox with the monitors while
// the generator (`ream load`, in a sandbox of its own pinned to the generator's CPUs) drives
// it, and stores the point in one transaction. Ctrl-C / SIGTERM stop it cleanly with every
// finished point kept; --resume continues without repeating or duplicating a point.
//
// Several experiments can run in one call, one after another or interleaved: in rounds, round
// k running the k-th run of every experiment in an order shuffled per round — randomized
// multiple interleaved trials (Abedi & Brecht, ICPE'17). On a shared or virtualized host a
// disturbance lasting minutes then reaches every experiment alike instead of one of them, which
// is what a comparison between experiments (a baseline against a measurement) needs.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/load_driver.h"
#include "experiment/run_events.h"
#include "spec/spec.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"

namespace ream {

struct RunnerOptions {
  std::string db_path = "results.db";
  bool resume = false;
  bool dry_run = false;      // validate and print the plan; no database, no load
  // With dry_run: plan on another machine, whose topology and resctrl are read from this
  // directory (a copied sysfs tree: sys/devices/system/{cpu,node}, proc/cpuinfo, proc/mounts,
  // sys/fs/resctrl) instead of this one's; nothing of this host is checked. "": this machine.
  std::string topology_dir;
  std::string only;          // run only this scenario
  bool strict = false;       // refuse a spec with a scenario this machine cannot run (else skip it)
  bool interleave = false;   // several experiments: in shuffled rounds, not one after another
  uint64_t order_seed = 1;   // the shuffle's seed (interleave)
  // The ream executable for `ream serve` and `ream load`; "" = this process's own binary.
  std::string ream_binary;
  std::string state_dir;     // sandbox state directory; "" = the default (/run/ream)
  std::ostream* out = nullptr;  // the dry run's plan and the sessions' headers; nullptr = std::cerr
  // What happens during the runs (experiment/run_events.h); nullptr = the console's lines on
  // `out`.
  RunObserver* observer = nullptr;
  // Where workloads run and who drives the load: nullptr = the process sandbox kind and the
  // local `ream load` driver (in a sandbox of that kind on the generator's CPUs). Tests pass the
  // null sandbox and a fake driver.
  SandboxKind* sandbox_kind = nullptr;
  LoadDriver* load_driver = nullptr;
  // Stored with every experiment's environment (the cli passes its build's).
  std::string ream_version;
  std::string ream_commit;
  // A campaign's unit (experiment/campaign.h): only these runs of each experiment, by name and
  // plan ordinal (PlannedRun::ordinal, kept as in the whole plan); an experiment not named runs
  // whole. Each experiment with runs left out ends partial, `unit_note` saying why.
  std::map<std::string, std::set<int>> only_ordinals;
  std::string unit_note;
  // How the runs came to run here (the campaign, its unit, the Slurm job), stored with each
  // run with its host added (RunRecord::provenance); null for `ream run`.
  nlohmann::json provenance;
};

// Outcome of one experiment of RunExperiments, for the exit code.
struct RunOutcome {
  std::string experiment;
  int points_stored = 0;
  int points_failed = 0;
  int points_skipped = 0;   // already in the database (resume)
  bool interrupted = false;
};

// Runs `specs` (distinct names) into one database, each experiment's outcome in spec order.
// Every spec is validated, and every name checked against the database, before any load.
// InvalidArgument (bad spec value, with the spec's line), Unsupported (a scenario or a knob
// this machine cannot honour), AlreadyExists (a name already stored, without --resume),
// Timeout/Unavailable (a workload never became ready: that experiment is marked failed, the
// others interrupted), or the store's error. An interrupt is not an error: the outcomes say
// `interrupted`, and every finished point is stored.
Result<std::vector<RunOutcome>> RunExperiments(Platform& platform, const std::vector<ExperimentSpec>& specs,
                                               const RunnerOptions& options);

}  // namespace ream
