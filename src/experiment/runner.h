// The experiment runner: validates everything that can be known before any load is generated,
// then for each run (scenario × partition × repetition) starts the workload in its sandbox,
// waits for readiness, and for each load level samples the sandbox with the monitors while
// the generator (`ream load`, in a sandbox of its own pinned to the generator's CPUs) drives
// it, and stores the point in one transaction. Ctrl-C / SIGTERM stop it cleanly with every
// finished point kept; --resume continues without repeating or duplicating a point.
#pragma once

#include <ostream>
#include <string>

#include "experiment/spec.h"
#include "platform/platform.h"

namespace ream {

struct RunnerOptions {
  std::string db_path = "results.db";
  bool resume = false;
  bool dry_run = false;      // validate and print the plan; no database, no load
  std::string only;          // run only this scenario
  // The ream executable for `ream serve` and `ream load`; "" = this process's own binary.
  std::string ream_binary;
  std::string state_dir;     // sandbox state directory; "" = the default (/run/ream)
  std::ostream* out = nullptr;  // progress and summary; nullptr = std::cerr
};

// Outcome of RunExperiment, for the exit code.
struct RunOutcome {
  int points_stored = 0;
  int points_failed = 0;
  int points_skipped = 0;   // already in the database (resume)
  bool interrupted = false;
};

// InvalidArgument (bad spec value, with the spec's line), Unsupported (a scenario or a knob
// this machine cannot honour), Timeout/Unavailable (the workload never became ready),
// Cancelled (interrupted: every finished point is stored), or the store's error.
Result<RunOutcome> RunExperiment(Platform& platform, const ExperimentSpec& spec,
                                 const RunnerOptions& options);

}  // namespace ream
