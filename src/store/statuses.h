// The states of what the store records — a point, a run, an experiment — as enums with one
// name each. The database, the exports and the JSON keep the names as text, so the enums
// only change how the code compares them, never what a user reads.
#pragma once

#include <optional>
#include <ostream>
#include <string_view>
#include <utility>

namespace ream {

// One measured load level.
enum class PointStatus {
  kOk,      // measured (valid or not: that is the point's `valid`)
  kFailed,  // the level could not be measured: the workload died, the generator failed
};

// One scenario × partition × repetition.
enum class RunStatus {
  kPending,      // planned, not started
  kRunning,      // started; left so by a kill (--resume continues it)
  kComplete,     // every level measured or skipped by the sweep's rules
  kFailed,       // the workload could not be started or kept running
  kInterrupted,  // stopped by Ctrl-C or SIGTERM
  kUnavailable,  // the scenario cannot run on the machine (read as failed by the analysis)
  kSkipped,      // not run: the machine cannot place its scenario (no SMT siblings, ...);
                 // the run's failure says why (`ream run --strict` refuses instead)
};

// One experiment (one spec in a database).
enum class ExperimentStatus {
  kRunning,
  kComplete,
  kFailed,
  kInterrupted,
  kPartial,  // complete for the scenario `ream run --only` chose, the others not run
};

namespace status_names {
template <typename E, size_t N>
constexpr std::string_view Name(const std::pair<E, std::string_view> (&table)[N], E e) {
  for (const auto& [v, name] : table) {
    if (v == e) return name;
  }
  return "?";
}
template <typename E, size_t N>
constexpr std::optional<E> Parse(const std::pair<E, std::string_view> (&table)[N],
                                 std::string_view text) {
  for (const auto& [v, name] : table) {
    if (name == text) return v;
  }
  return std::nullopt;
}

inline constexpr std::pair<PointStatus, std::string_view> kPoint[] = {
    {PointStatus::kOk, "ok"}, {PointStatus::kFailed, "failed"}};
inline constexpr std::pair<RunStatus, std::string_view> kRun[] = {
    {RunStatus::kPending, "pending"},         {RunStatus::kRunning, "running"},
    {RunStatus::kComplete, "complete"},       {RunStatus::kFailed, "failed"},
    {RunStatus::kInterrupted, "interrupted"}, {RunStatus::kUnavailable, "unavailable"},
    {RunStatus::kSkipped, "skipped"}};
inline constexpr std::pair<ExperimentStatus, std::string_view> kExperiment[] = {
    {ExperimentStatus::kRunning, "running"},         {ExperimentStatus::kComplete, "complete"},
    {ExperimentStatus::kFailed, "failed"},           {ExperimentStatus::kInterrupted, "interrupted"},
    {ExperimentStatus::kPartial, "partial"}};
}  // namespace status_names

// The stored names: "ok", "failed"; "pending", "running", "complete", ...
constexpr std::string_view StatusName(PointStatus s) { return status_names::Name(status_names::kPoint, s); }
constexpr std::string_view StatusName(RunStatus s) { return status_names::Name(status_names::kRun, s); }
constexpr std::string_view StatusName(ExperimentStatus s) {
  return status_names::Name(status_names::kExperiment, s);
}

// The inverses of StatusName; nullopt for any other text.
constexpr std::optional<PointStatus> ParsePointStatus(std::string_view t) {
  return status_names::Parse(status_names::kPoint, t);
}
constexpr std::optional<RunStatus> ParseRunStatus(std::string_view t) {
  return status_names::Parse(status_names::kRun, t);
}
constexpr std::optional<ExperimentStatus> ParseExperimentStatus(std::string_view t) {
  return status_names::Parse(status_names::kExperiment, t);
}

// For test failure messages and logs.
inline std::ostream& operator<<(std::ostream& os, PointStatus s) { return os << StatusName(s); }
inline std::ostream& operator<<(std::ostream& os, RunStatus s) { return os << StatusName(s); }
inline std::ostream& operator<<(std::ostream& os, ExperimentStatus s) { return os << StatusName(s); }

}  // namespace ream
