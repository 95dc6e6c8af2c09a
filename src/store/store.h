// The results store: one SQLite database (WAL) holding experiments, their spec text, the
// environment they ran in, runs (scenario × partition × repetition), points (one load level of
// a run, with every client and server metric), the merged latency histograms and the monitor
// timelines. The schema is versioned (PRAGMA user_version) and migrated forward on open.
//
// A metric that could not be measured is NULL (std::nullopt here) and its reason is kept in
// the point's `unavailable` map — never a 0. Every point is written in one transaction with
// its histograms and timeline, so a kill loses at most the point being measured.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/histogram.h"
#include "load/load_axis.h"
#include "platform/status.h"
#include "store/sqlite.h"
#include "store/manager_records.h"
#include "store/statuses.h"
#include "store/tenant_figures.h"

namespace ream {

// The schema version this build writes; older databases are migrated on open.
inline constexpr int kStoreSchemaVersion = 12;

// The QoS rule and validity thresholds of an experiment, as its spec set them.
struct QosSettings {
  double percentile = 95.0;                   // the latency percentile QoS is judged on
  std::optional<double> fixed_target_us;      // set: LQoS is this; unset: derived (below)
  double service_multiplier = 5.0;            // LQoS = multiplier × mean service time ...
  double at_utilization = 0.20;               // ... measured at this CPU utilization
  double min_timely_ratio = 0.975;            // a valid point has timely ≥ this ...
  double max_rate_error = 0.02;               // ... and |achieved/target − 1| ≤ this
};

struct ExperimentRecord {
  int64_t id = 0;
  std::string name;
  std::string spec_text;    // the TOML exactly as given
  nlohmann::json spec;      // the parsed spec with every default filled in
  std::string spec_hash;    // of spec_text; --resume refuses a changed spec
  ExperimentStatus status = ExperimentStatus::kRunning;
  std::string failure;      // why, when status is failed or interrupted
  int64_t created_ns = 0;   // wall clock, ns since the epoch
  std::optional<int64_t> finished_ns;
  QosSettings qos;
  std::string workload;     // a short description ("kv", "synthetic exp:100us", command)
  std::string protocol;     // "ream", "memcached", ...
  LoadAxis load_axis = LoadAxis::kQps;  // what its sweeps vary (every point's target_load)
};

struct EnvironmentRecord {
  std::string ream_version;
  std::string ream_commit;
  std::string hostname;
  std::string kernel;       // uname release
  std::string cpu_model;
  nlohmann::json topology;  // Topology::ToJson()
  nlohmann::json doctor;    // CapabilitiesToJson(ProbeCapabilities(...)) — `ream doctor`
  // The host's timing floor measured at the start (platform/timing_floor.h ToJson); null when
  // not measured (experiments stored before schema 5).
  nlohmann::json timing;
  int64_t recorded_ns = 0;
};

struct RunKey {
  std::string scenario;         // "1-ST", "2-ST", "2-SMT", "cpus:0", ...
  std::string partition_label;  // "default", "mem=512M,quota=50%", ... (unique per experiment)
  int repetition = 0;           // 0-based
  // The co-runner set beside the subject (schema 8, column runs.tenants; experiment/plan.h
  // PlannedRun::corunner_set): "" for the subject alone, else the co-runners' names joined by "+".
  std::string corunner_set;
};

struct RunRecord {
  int64_t id = 0;
  int64_t experiment_id = 0;
  RunKey key;
  nlohmann::json partition;     // the partition's knobs, {} for none
  std::string workload_cpus;    // resolved CPU list, "0"
  std::string generator_cpus;   // "1"
  RunStatus status = RunStatus::kPending;
  std::string failure;          // reason when failed/unavailable
  int64_t ordinal = 0;          // position in the plan
  std::optional<int64_t> started_ns;
  std::optional<int64_t> finished_ns;
  // How the sweep chose the run's levels when it chose them itself (`qps = "auto"`):
  // {"levels": [...], "why": "...", "probes": [...]}; null when the spec listed them.
  nlohmann::json sweep;
  // The co-runners of a shared run as they ran, with their figures alone (schema 8, column
  // runs.tenants_json: CorunnerSetRecord's JSON, store/tenant_figures.h); nullopt for a run of
  // the subject alone, and for a shared run until its co-runners first started.
  std::optional<CorunnerSetRecord> corunners;
  // The host the workload ran on (schema 10; the experiment's recorded host for a run stored
  // before), and how the run came to run there: {"host", "ream_version", "ream_commit",
  // "campaign", "unit": {"index", "label"}, "slurm": {"job_id", "array_job_id", ...}} for a
  // campaign's unit (experiment/campaign.h), null for a run of `ream run`. Set when the run is
  // first stored (EnsureRun); UpdateRun leaves them.
  std::string host;
  nlohmann::json provenance;
};

// What one network knob (LogGP L, o, g, G) really did, measured before the sweep: stored with
// every point of the run. Generic on purpose: whoever applies a knob (the relay for L, g, G; the
// preload library for o) fills one.
struct KnobCalibration {
  std::string knob;                 // the knob's key: "net_latency"
  double requested = 0;             // in `unit`
  std::optional<double> measured;   // in `unit`; nullopt: not measured (`note` says why)
  std::string unit;                 // "us", "ns/B"
  std::string method;               // how it was applied and measured
  std::string note;                 // the figures behind `measured`, or why there is none
  bool warning = false;             // the measured effect is off by more than 10 % of the request
  nlohmann::json ToJson() const;
  static KnobCalibration FromJson(const nlohmann::json& j);
};

// The network path of a point when a LogGP knob was set: how each knob was applied, what the
// calibration measured, and the relay's own cost. Stored as points.network_json (schema 6).
struct NetworkPath {
  std::map<std::string, std::string> methods;  // knob key -> "relay (message granularity, ...)"
  std::vector<KnobCalibration> calibrations;
  // The relay at 0 against no relay, and the round trip without it, at the calibration's rate.
  std::optional<double> relay_added_us, direct_rtt_us;
  std::string target;  // where the generator connected: "relay 127.0.0.1:40123"
  bool warning() const;
  bool empty() const { return methods.empty() && calibrations.empty(); }
  nlohmann::json ToJson() const;
  static NetworkPath FromJson(const nlohmann::json& j);
};

// One load level of one run. Every metric is optional: NULL when not measured, with the
// reason in `unavailable[column] = "..."`.
struct PointRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  int64_t seq = 0;            // order of measurement within the run
  double target_load = 0;     // the level on the experiment's load axis (QPS, sessions)
  // 0: the level's first measurement; 1, 2, …: the sweep measuring the level again because
  // the attempt before was invalid (sweep.remeasure_invalid).
  int64_t attempt = 0;
  PointStatus status = PointStatus::kOk;  // kFailed: the run of this level failed
  std::string failure;        // why it failed ("workload exited with status 139 (SIGSEGV)")
  std::optional<int64_t> workload_exit_code;  // the workload's exit status when it died
  std::string workload_exit;                  // its description ("killed by signal 9", "OOM")
  std::optional<bool> valid;  // generator's validity verdict; nullopt for failed points
  std::vector<std::string> invalid_reasons;
  std::optional<bool> service_reported;  // the server reported its service time

  // Client side (the generator).
  std::optional<int64_t> issued, completed, errors;
  std::optional<double> achieved_qps, throughput_qps, timely_ratio, timely_tolerance_us;
  std::optional<double> latency_mean_us, latency_stddev_us, latency_p50_us, latency_p95_us,
      latency_p99_us, latency_p999_us, latency_max_us;
  std::optional<double> service_mean_us, service_p50_us, service_p95_us, service_p99_us;
  std::optional<double> queue_mean_us, queue_p95_us;
  std::optional<double> lateness_p50_us, lateness_p99_us, lateness_max_us;
  std::optional<double> generator_cpu_s, duration_s;

  // Server side (the monitors, over the measured window).
  std::optional<double> cpu_util;        // fraction of the allotted CPUs, 0..1
  std::optional<double> server_cpu_s;    // CPU seconds the workload used in the window
  std::optional<double> net_rx_bps, net_tx_bps;            // bytes per second
  std::optional<double> disk_read_bps, disk_write_bps;     // bytes per second
  std::optional<double> disk_read_iops, disk_write_iops;
  std::optional<double> mem_bytes;       // memory in use (mean over the window)
  std::optional<double> mem_bw_bps;      // memory bandwidth, bytes per second
  std::optional<double> llc_occupancy_bytes;

  std::map<std::string, std::string> unavailable;  // column → why it is NULL
  nlohmann::json generator;  // the generator's full result JSON (or null)
  nlohmann::json monitor;    // the monitor's summary JSON (or null)
  int64_t started_ns = 0;    // wall clock when the level started
  // The LogGP knobs' path (NetworkPath::ToJson), null when none was set (and before schema 6).
  nlohmann::json network;
  // Connections the server closed (schema 7). reconnections: how many times the
  // generator replaced a closed connection over the whole run; lost_requests: the measured
  // window's requests lost with a connection (written and not answered when it closed, or not
  // sent because it was down), and lost_reasons their reasons with counts ({"connection lost:
  // server closed the connection (Connection: close)": 3}). nullopt / null when the
  // generator did not report them (stored before schema 7 by a generator that never
  // reconnected).
  std::optional<int64_t> reconnections, lost_requests;
  nlohmann::json lost_reasons;
  // Measured until known (schema 12, load/until.h): the check that ended the point and why
  // ("interval: interval 3.8 % <= 5 %", "max duration: max duration 20 s reached: ..."), and
  // the QoS percentile's interval then (its relative half-width). nullopt for a point of fixed
  // duration. How long any point measured is duration_s.
  std::optional<std::string> until_decided;
  std::optional<double> until_interval;
  // Each co-runner's figures over the point's window, by name (schema 8, column
  // points.tenants_json: TenantFiguresToJson, store/tenant_figures.h); empty when the subject ran
  // alone.
  TenantFiguresByName corunners;
  // A batch subject's point (schema 9; experiment/batch_point.h): {"program", "copies",
  // "window_s", "completions", "run_time_mean_s", "run_time_p50_s", "run_time_p95_s",
  // "runs_per_min", "cpu_s_per_run", ...}; null for a server's point.
  nlohmann::json batch;
};

// Histogram kinds stored per point (all in nanoseconds).
inline constexpr const char* kHistSojourn = "sojourn";                  // from scheduled time
inline constexpr const char* kHistSojournFromSend = "sojourn_from_send";
inline constexpr const char* kHistService = "service";
inline constexpr const char* kHistQueue = "queue";
inline constexpr const char* kHistLateness = "lateness";

struct PointData {
  PointRecord point;
  std::map<std::string, Histogram> histograms;  // kind → merged histogram (ns)
  nlohmann::json timeline;                      // the monitor's timeline (or null)
};

class Store {
 public:
  // Opens the database at `path`, creating it (and its directory's file) when `create`, and
  // migrates its schema to kStoreSchemaVersion. Fails with NotFound when absent and not
  // `create`, Corrupt when it is not a ream database or is newer than this build.
  static Result<Store> Open(const std::string& path, bool create = true);
  // Read-only: the file is never written. A database of an older schema is copied into memory
  // and the copy migrated, so every reader (list, analyze, report, export) reads what older
  // ream versions wrote; one of a newer schema fails with InvalidArgument.
  static Result<Store> OpenReadOnly(const std::string& path);

  // A new database migrated only up to `version` (≤ kStoreSchemaVersion), to test the
  // migrations after it on a database as an older ream left it.
  static Result<Store> CreateAtSchemaVersionForTesting(const std::string& path, int version);

  int schema_version() const { return schema_version_; }
  const std::string& path() const { return db_.path(); }

  // Experiments. Names are unique in a database.
  Result<int64_t> CreateExperiment(const ExperimentRecord& e);
  Result<std::optional<ExperimentRecord>> FindExperiment(const std::string& name);
  Result<ExperimentRecord> GetExperiment(int64_t id);
  Result<std::vector<ExperimentRecord>> ListExperiments();
  Status SetExperimentStatus(int64_t id, ExperimentStatus status, const std::string& failure,
                             std::optional<int64_t> finished_ns);

  // Also kept in host_environments (schema 10), where a merged experiment has every host's.
  Status RecordEnvironment(int64_t experiment_id, const EnvironmentRecord& env);
  Result<std::optional<EnvironmentRecord>> GetEnvironment(int64_t experiment_id);

  // Runs. EnsureRun inserts the run or returns the existing one with the same key.
  Result<RunRecord> EnsureRun(const RunRecord& run);
  Status UpdateRun(const RunRecord& run);  // status, failure, cpus, started/finished
  Result<std::vector<RunRecord>> ListRuns(int64_t experiment_id);

  // Points. InsertPoint writes the point, its histograms and its timeline in one
  // transaction; AlreadyExists when the run already has a point at that target_load and
  // attempt.
  Result<int64_t> InsertPoint(const PointData& data);
  Result<std::vector<PointRecord>> ListPoints(int64_t run_id);
  Result<std::map<std::string, Histogram>> GetHistograms(int64_t point_id);
  Result<nlohmann::json> GetTimeline(int64_t point_id);  // null when none was stored

  // A manager's window with its actions (schema 11, store/manager_records.h), in one transaction.
  // AlreadyExists when the run has that window already; FailedPrecondition on an older schema.
  Status InsertManagerWindow(const ManagerWindowRecord& w);
  // A run's windows in order, each with its actions; empty when no manager ran. Corrupt naming
  // the run and window when a stored document is not what InsertManagerWindow writes.
  Result<std::vector<ManagerWindowRecord>> ListManagerWindows(int64_t run_id);

  // Runs `PRAGMA integrity_check`; Ok when it answers "ok".
  Status IntegrityCheck();

  sql::Database& db() { return db_; }

 private:
  static Result<Store> OpenMigrated(const std::string& path, bool create, int version);
  Status Migrate(int target);
  sql::Database db_;
  int schema_version_ = 0;
};

// Metric columns of `points`, in schema order, for exporters and tests.
std::vector<std::string> PointMetricColumns();
// A point as the JSON export writes it. Its level is named by the axis, "target_qps" or
// "target_sessions", as exported files have always called the QPS one.
nlohmann::json PointToJson(const PointRecord& p, LoadAxis axis);
// The exported name of a point's level on `axis`: "target_qps", "target_sessions".
std::string TargetLoadColumn(LoadAxis axis);

}  // namespace ream
