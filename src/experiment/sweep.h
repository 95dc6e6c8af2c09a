// The two sweeps of a run — a grid of load levels, and the knee search — written against a
// small context (SweepContext) that measures a level or replays its stored point, and hears
// the sweep's events. The runner is the real context; runner_test.cc drives both sweeps
// through the runner with the null sandbox and a fake load driver.
#pragma once

#include <string>
#include <vector>

#include "experiment/run_events.h"
#include "experiment/spec.h"
#include "platform/status.h"
#include "store/store.h"

namespace ream {

class SweepContext {
 public:
  virtual ~SweepContext() = default;
  // The point of (load, attempt): measured and stored now, or the stored one (--resume).
  // Cancelled when interrupted; other errors end the run.
  virtual Result<PointData> Level(double load, int attempt) = 0;
  // The stored point of (load, attempt), or null.
  virtual const PointData* Stored(double load, int attempt) const = 0;
  virtual void Emit(RunEvent event) = 0;
  // Where the events happen (the run), for the events the sweep builds.
  virtual EventRun Where() const = 0;
  // The progress's planned points change by `delta` (a re-measurement adds one, an early stop
  // removes what it skips).
  virtual void AddPlanned(int delta) = 0;
  // The point's QoS percentile in µs (0: no response).
  virtual double PercentileUs(const PointData& d) const = 0;
  // The QoS target a knee needs, from its first valid point (or the spec's fixed target).
  virtual Result<double> DeriveTarget(const PointData& first) const = 0;
};

// A failed measurement: the generator could not keep its schedule. (A failed point, where the
// workload died, is an answer: it misses QoS.) Such a load may be measured again.
bool InvalidMeasurement(const PointRecord& p);
// Why a point is invalid, as the generator said.
std::string InvalidWhy(const PointRecord& p);
// Whether a point meets QoS: valid, measured, its percentile within the target.
bool MeetsQos(const PointData& d, double percentile_us, double target_us);

// How a sweep ended: `status` not ok ends the run with that error (Cancelled: interrupted);
// `stopped` with `failure`: the sweep stopped the run as failed (sweep.on_failure = "stop").
struct SweepEnd {
  Status status;
  bool stopped = false;
  std::string failure;
};

// The grid's stop rule, a pure function of the levels' verdicts in order: stop after
// `stop_after_invalid` (> 0) invalid or failed levels in a row, counted only once some level
// was valid — invalid points from the first level on say the generator or the machine cannot
// hold the schedule, not that the workload saturated.
struct GridStopRule {
  int stop_after_invalid = 0;
  int invalid_streak = 0;
  bool seen_valid = false;
  // Takes one level's verdict; true when the sweep should stop here.
  bool Stop(bool valid);
};

SweepEnd RunGrid(const SweepSpec& sweep, const std::vector<double>& levels, SweepContext& ctx);
SweepEnd RunKnee(const SweepSpec& sweep, const QosSpec& qos, SweepContext& ctx);

}  // namespace ream
