// The two sweeps of a run — a grid of load levels, and the knee search — written against a
// small context (SweepContext) that measures a level or replays its stored point, and hears
// the sweep's events. The runner is the real context; runner_test.cc drives both sweeps
// through the runner with the null sandbox and a fake load driver.
#pragma once

#include <string>
#include <vector>

#include "experiment/run_events.h"
#include "spec/spec.h"
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

// Who spoiled an invalid measurement, by the causes the generator put its late requests down
// to (load/lateness.h): the host (its stalls, slow system calls and late wake-ups cover most
// of the lateness: another attempt may well be valid, so the level is measured again up to
// [load] attempts), ream's own loop ("busy" covers most of it: another attempt would be as
// late, so it is not retried), or something else — requests failed, a connection or a
// co-runner ended, the invalidity is not lateness, or the point shows saturation, where the
// lateness is the workload's answer, not the host's.
enum class Spoiler { kHost, kOwn, kOther };
struct Spoiled {
  Spoiler who = Spoiler::kOther;
  std::string why;  // "stall 2.10 %, slow syscall 0.40 % of the requests late" / what else
};
Spoiled WhoSpoiled(const PointRecord& p);

// A point shows saturation when its CPU is at its allotment (cpu_util >= kSaturatedCpu) or its
// throughput stops following the load it was offered (completions < kFollowedLoad of the sends
// in the window: the queue grows). A failed point (the workload died) counts as saturated.
inline constexpr double kSaturatedCpu = 0.95;
inline constexpr double kFollowedLoad = 0.95;
// The signs a point shows, "" when none: "the CPU at 98 % of its allotment; throughput 81 %
// of the offered load (the queue grows)".
std::string SaturationSigns(const PointRecord& p);

// The grid's stop rule, a pure function of the levels' verdicts in order: stop after
// `stop_after_invalid` (> 0) levels in a row that failed or are invalid *and* show saturation,
// counted only once some level was valid — invalid points from the first level on say the
// generator or the machine cannot hold the schedule, not that the workload saturated. An
// invalid level without a sign of saturation (the host spoiled it at 80 % CPU) neither counts
// nor resets the streak: it says nothing either way.
struct GridStopRule {
  int stop_after_invalid = 0;
  int invalid_streak = 0;
  bool seen_valid = false;
  int unsaturated_invalid = 0;  // invalid levels that showed no sign of saturation
  // Takes one level's verdict; true when the sweep should stop here.
  bool Stop(bool valid, bool saturated = true);
};

// `host_attempts` ([load] attempts): the measurements a level whose lateness was the host's
// gets at most, whatever sweep.remeasure_invalid (which re-measures any invalid level) says.
SweepEnd RunGrid(const SweepSpec& sweep, const std::vector<double>& levels, SweepContext& ctx,
                 int host_attempts = 1);
SweepEnd RunKnee(const SweepSpec& sweep, const QosSpec& qos, SweepContext& ctx);

}  // namespace ream
