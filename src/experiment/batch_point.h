// A batch subject's point (DESIGN.md "Batch workloads"): N concurrent copies of a
// batch program (SPECrate's copies) in one sandbox with the run's partition, each started again
// when it ends (`ream corun --copies N --repeat -- ream batch NAME --seconds S`), through the
// warm-up and the measured window; then the sandbox is stopped and removed.
//
//   auto d = MeasureBatchPoint(p, kind, spec, prep, run, 2, state_dir, interrupted);
//   d->point.batch["runs_per_min"], d->point.batch["run_time_p95_s"], d->point.server_cpu_s ...
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/plan.h"
#include "experiment/preflight.h"
#include "spec/spec.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"
#include "store/store.h"

namespace ream {

class CorunnerSet;

// The figures of a window from its completed runs' wall times (seconds), the window's length,
// the copies and the sandbox's CPU seconds over it (nullopt: not measured): {"completions",
// "run_time_mean_s", "run_time_p50_s", "run_time_p95_s", "runs_per_min", "cpu_s_per_run"}; a
// figure that cannot be had (no completion, no CPU time) is null and its reason is in
// "unavailable". Percentiles are nearest-rank over the runs.
nlohmann::json BatchWindowFigures(std::vector<double> run_seconds, double window_s, int copies,
                                  std::optional<double> cpu_s);

// The argv of a batch point's sandbox.
std::vector<std::string> BatchPointArgv(const ExperimentSpec& spec, const std::string& ream, int copies);

// Generates (or finds in the cache) the batch subject's input, so no window pays for it.
// Unavailable naming the package when the program is missing; the input's error otherwise.
Status PrepareBatchSubject(Platform& p, const ExperimentSpec& spec);

// Measures one point of `copies` copies. The point fails (status failed, with the copy's end
// and last output) when a copy ends other than well, and nothing is left running either way.
// Cancelled when `interrupted` turns true; the sandbox kind's error when it cannot start.
// `corunners`, when the run is a shared one, are watched over the same window: their figures are
// stored with the point, and one that ended during it makes the point invalid, naming it.
Result<PointData> MeasureBatchPoint(Platform& p, SandboxKind& kind, const ExperimentSpec& spec, const Prepared& prep,
                                    const PlannedRun& run, int copies, const std::string& state_dir,
                                    const std::function<bool()>& interrupted, CorunnerSet* corunners = nullptr);

}  // namespace ream
