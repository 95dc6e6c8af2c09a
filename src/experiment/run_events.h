// Run events: what happens during `ream run`, reported to observers rather than written as
// prose from inside the sweep loops (after google/benchmark's reporter). The console progress
// line with its ETA is one observer (ConsoleObserver), a JSON-lines file another
// (JsonLinesObserver, `ream run --events FILE`); tests assert on events, not on sentences.
//
//   ConsoleObserver console(std::cerr);
//   JsonLinesObserver json(events_file);
//   FanOutObserver all({&console, &json});
//   options.observer = &all;
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/spec.h"

namespace ream {

// Where an event happened: the experiment and, inside a run, which run.
struct EventRun {
  std::string experiment;
  std::string label;  // prefix of the console lines when several experiments run ("alpha: ")
  int ordinal = 0;    // 0-based position in the plan
  std::string scenario;
  std::string partition;  // the partition's label
  int repetition = 0;
};

// An experiment about to run its runs (created, or resumed).
struct ExperimentStarted {
  std::string experiment;
  std::string db_path;
  bool resumed = false;
  int runs = 0;
  int max_points = 0;        // the plan's points (a knee: at most)
  bool points_are_at_most = false;
  double estimated_seconds = 0;
};

// A scenario of the spec that this call does not run, and why (--only, not available here).
struct ScenarioSkipped {
  std::string experiment;
  std::string scenario;
  std::string reason;
};

struct RunStarted {
  EventRun run;
  std::string workload_cpus;
  std::string generator_cpus;  // "" : any
  int points_already_stored = 0;
  KeepAwakeMode keep_awake = KeepAwakeMode::kOff;  // [load] keep_awake as asked
};

// The workload ended between two load levels and is started again.
struct WorkloadRestarted {
  EventRun run;
  std::string exit_description;
};

// One load level measured and stored (replayed levels of a resumed run are not reported).
struct LevelMeasured {
  EventRun run;
  std::string axis = "qps";
  double load = 0;
  int attempt = 0;
  std::string status;  // "ok" | "failed"
  std::string failure;
  std::optional<bool> valid;
  std::vector<std::string> invalid_reasons;
  double qos_percentile = 95;
  double percentile_latency_us = 0;  // 0: no response
  std::optional<double> timely_ratio;
  // What a bare sender reached at this rate here (load/send_floor.h): the host's limit the
  // timely ratio is set against. nullopt when not measured.
  std::optional<double> host_timely_ratio;
  std::optional<double> cpu_util;
  int64_t reconnections = 0;  // connections the server closed and the generator opened again
  // Measured until known ([load] until): how long it measured and which check decided
  // ("interval: interval 3.8 % <= 5 %"); unset for a point of fixed duration.
  std::optional<double> until_measured_s;
  std::optional<std::string> until_decided;
  int done_points = 0;
  int planned_points = 0;
  bool planned_is_max = false;  // a knee's planned points are its most
  double eta_seconds = 0;
};

// A level measured again: its last point was invalid (sweep.remeasure_invalid), the host
// spoiled it ([load] attempts; experiment/sweep.h WhoSpoiled), or a knee confirms an end of its
// bracket (sweep.confirm).
struct MeasuringAgain {
  enum class Why { kInvalid, kConfirm, kHost };
  EventRun run;
  double load = 0;
  int attempt = 0;       // 0-based attempt about to be measured
  int max_attempts = 0;  // kInvalid, kHost: the attempts the level gets at most (1-based count)
  Why why = Why::kInvalid;
  std::string last_invalid_reason;  // kInvalid, kHost: why the attempt before was invalid
  std::string spoiled_by;           // kHost: the host's share of the lateness
};

// An invalid level not measured again although [load] attempts allowed it: the lateness was
// ream's own loop's, or the host spoiled every attempt.
struct NotMeasuredAgain {
  EventRun run;
  double load = 0;
  int attempts = 0;  // the attempts made
  std::string why;
};

// The QoS target a knee search uses, once known.
struct QosTargetSet {
  EventRun run;
  double target_us = 0;
  bool fixed_by_spec = false;
  double service_multiplier = 5;
};

// qps = "auto": the probes chose the run's levels (search/load_range.h).
struct LoadRangeChosen {
  EventRun run;
  std::vector<double> levels;
  std::optional<double> qps_at_20, qps_at_50, saturation_qps;
  int probes = 0;
  std::string why;
  bool resumed = false;  // read back from the store, not probed again
};

// connections / threads = "auto": what the probes at the top level chose.
struct ClientsChosen {
  EventRun run;
  int threads = 1;
  int connections = 1;
  bool timely = false;  // the choice kept the top level timely (else: the most tried, said why)
  std::string why;
  bool resumed = false;
};

// A grid stopped early by sweep.stop_after_invalid: levels in a row that failed or were invalid
// showing saturation (experiment/sweep.h SaturationSigns).
struct GridStopped {
  EventRun run;
  int invalid_streak = 0;
  int levels_skipped = 0;
  std::string signs;            // what the last of them showed
  int unsaturated_invalid = 0;  // invalid levels after a valid one that showed no saturation
};

// A knee search's outcome.
struct KneeEnded {
  struct InvalidLevel {
    double load = 0;
    int attempts = 0;
    std::string last_reason;
    std::string saturation;  // the signs its last attempt showed (experiment/sweep.h), "" for none
  };
  EventRun run;
  double low = 0, high = 0, precision = 0;
  std::vector<InvalidLevel> invalid_levels;
  bool low_never_valid = false;  // sweep.low itself never measured validly
  bool below_range = false, above_range = false, converged = false;
  std::optional<double> last_pass, first_fail;
  int points = 0, remeasurements = 0, confirmations = 0;
  bool confirm_enabled = false, confirmed = false;
  int reopened = 0;
};

// Something that went wrong without ending the run (stopping a workload failed, …).
struct RunWarning {
  EventRun run;
  std::string message;
};

// How the run's sandbox came up, when its kind says (the vm sandbox: restore and boot times).
struct WorkloadStarted {
  EventRun run;
  std::string sandbox;  // the kind: "vm"
  std::string message;
};

struct RunFinished {
  EventRun run;
  std::string status;  // "complete" | "failed" | "interrupted"
  std::string failure;
};

using RunEvent = std::variant<ExperimentStarted, ScenarioSkipped, RunStarted, WorkloadRestarted, LevelMeasured,
                              MeasuringAgain, NotMeasuredAgain, QosTargetSet, LoadRangeChosen, ClientsChosen, GridStopped, KneeEnded, RunWarning,
                              WorkloadStarted, RunFinished>;

// The event's name ("level_measured", …) and its JSON form ({"event": name, ...}).
std::string EventName(const RunEvent& e);
nlohmann::json EventToJson(const RunEvent& e);

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnEvent(const RunEvent& event) = 0;
};

// The console: the lines `ream run` has always printed, progress with its ETA among them.
class ConsoleObserver final : public RunObserver {
 public:
  explicit ConsoleObserver(std::ostream& out) : out_(out) {}
  void OnEvent(const RunEvent& event) override;

 private:
  std::ostream& out_;
};

// One JSON object per line, flushed per event (a reader may follow the file during a run).
class JsonLinesObserver final : public RunObserver {
 public:
  explicit JsonLinesObserver(std::ostream& out) : out_(out) {}
  void OnEvent(const RunEvent& event) override;

 private:
  std::ostream& out_;
};

// Passes every event to each of `observers` in turn (null entries are skipped).
class FanOutObserver final : public RunObserver {
 public:
  explicit FanOutObserver(std::vector<RunObserver*> observers) : observers_(std::move(observers)) {}
  void OnEvent(const RunEvent& event) override {
    for (RunObserver* o : observers_) {
      if (o) o->OnEvent(event);
    }
  }

 private:
  std::vector<RunObserver*> observers_;
};

// Keeps every event, for tests.
class RecordingObserver final : public RunObserver {
 public:
  void OnEvent(const RunEvent& event) override { events.push_back(event); }
  template <typename T>
  std::vector<T> All() const {
    std::vector<T> out;
    for (const auto& e : events) {
      if (const T* t = std::get_if<T>(&e)) out.push_back(*t);
    }
    return out;
  }
  std::vector<RunEvent> events;
};

// "12s", "3m05s", "1h02m".
std::string HumanSeconds(double seconds);

}  // namespace ream
