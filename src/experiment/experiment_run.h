// One experiment's runs (scenario × partition × repetition): for each, the workload in its
// sandbox, the sweep (experiment/sweep.h) over its load levels, each level measured by the load
// driver and stored in one transaction, and the run's status. --resume replays the stored
// (level, attempt) points in the order the sweep asks for them, so nothing is measured twice.
// Used by RunExperiments (runner.h), which orders the runs of several experiments.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "experiment/corunners.h"
#include "experiment/load_driver.h"
#include "experiment/plan.h"
#include "experiment/preflight.h"
#include "experiment/run_events.h"
#include "experiment/runner.h"
#include "spec/spec.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"
#include "store/store.h"

namespace ream {

class ExperimentRun {
 public:
  ExperimentRun(Platform& p, const ExperimentSpec& spec, const RunnerOptions& o, Prepared prep, Store store,
                SandboxKind& sandboxes, LoadDriver& driver, RunObserver& observer)
      : p_(p),
        spec_(spec),
        o_(o),
        prep_(std::move(prep)),
        store_(std::move(store)),
        sandboxes_(sandboxes),
        driver_(driver),
        observer_(observer) {}

  // Finds the plan's runs still to do (--resume skips the complete ones).
  Status Begin(const Plan& plan, int64_t experiment_id);
  // Runs the plan's i-th run unless it is complete. Cancelled when interrupted.
  Status RunPlanned(size_t i, RunOutcome& outcome);
  // Whether every run of Begin's list ended (complete, or failed), as RunOne recorded it.
  bool Finished() const;
  // Prefixes the run headers and progress lines (several experiments in one call).
  void SetLabel(std::string label) { label_ = std::move(label); }
  // The co-runners' sandbox kinds (each place's); without: every co-runner in `sandboxes`.
  void SetCorunnerKinds(const CorunnerKinds* kinds) { corunner_kinds_ = kinds; }
  // Where the runs Begin stores ran and how they came to (RunRecord::host, ::provenance).
  void SetOrigin(std::string host, nlohmann::json provenance) {
    host_ = std::move(host);
    provenance_ = std::move(provenance);
  }

  // Seconds one load level takes before any has been measured: `ream load` spends its
  // response timeout and about a second more after every window.
  static double EstimatedSecondsPerPoint(const LoadSpec& l);

 private:
  class Context;
  Status RunOne(const PlannedRun& run, RunRecord& rec, RunOutcome& outcome);

  Platform& p_;
  const ExperimentSpec& spec_;
  RunnerOptions o_;
  Prepared prep_;
  Store store_;
  SandboxKind& sandboxes_;
  const CorunnerKinds* corunner_kinds_ = nullptr;
  LoadDriver& driver_;
  RunObserver& observer_;
  int planned_points_ = 0;
  int done_points_ = 0;
  double measured_seconds_ = 0;
  int measured_points_ = 0;
  std::map<size_t, std::pair<const PlannedRun*, RunRecord>> todo_;  // by plan index
  bool knee_ = false;
  LoadAxis axis_ = LoadAxis::kQps;
  std::string label_;
  std::string keep_awake_cpus_;  // the CPUs kept awake during the current run; "" : none
  std::string host_;
  nlohmann::json provenance_;
};

}  // namespace ream
