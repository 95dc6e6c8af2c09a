#include "store/store.h"

#include <functional>

#include "store/migrations.h"

namespace ream {
namespace {

using OptD = std::optional<double> PointRecord::*;
using OptI = std::optional<int64_t> PointRecord::*;

struct DoubleColumn {
  const char* name;
  OptD member;
};
struct IntColumn {
  const char* name;
  OptI member;
};

const IntColumn kIntColumns[] = {
    {"issued", &PointRecord::issued},
    {"completed", &PointRecord::completed},
    {"errors", &PointRecord::errors},
};

const DoubleColumn kDoubleColumns[] = {
    {"achieved_qps", &PointRecord::achieved_qps},
    {"throughput_qps", &PointRecord::throughput_qps},
    {"timely_ratio", &PointRecord::timely_ratio},
    {"timely_tolerance_us", &PointRecord::timely_tolerance_us},
    {"latency_mean_us", &PointRecord::latency_mean_us},
    {"latency_stddev_us", &PointRecord::latency_stddev_us},
    {"latency_p50_us", &PointRecord::latency_p50_us},
    {"latency_p95_us", &PointRecord::latency_p95_us},
    {"latency_p99_us", &PointRecord::latency_p99_us},
    {"latency_p999_us", &PointRecord::latency_p999_us},
    {"latency_max_us", &PointRecord::latency_max_us},
    {"service_mean_us", &PointRecord::service_mean_us},
    {"service_p50_us", &PointRecord::service_p50_us},
    {"service_p95_us", &PointRecord::service_p95_us},
    {"service_p99_us", &PointRecord::service_p99_us},
    {"queue_mean_us", &PointRecord::queue_mean_us},
    {"queue_p95_us", &PointRecord::queue_p95_us},
    {"lateness_p50_us", &PointRecord::lateness_p50_us},
    {"lateness_p99_us", &PointRecord::lateness_p99_us},
    {"lateness_max_us", &PointRecord::lateness_max_us},
    {"generator_cpu_s", &PointRecord::generator_cpu_s},
    {"duration_s", &PointRecord::duration_s},
    {"cpu_util", &PointRecord::cpu_util},
    {"server_cpu_s", &PointRecord::server_cpu_s},
    {"net_rx_bps", &PointRecord::net_rx_bps},
    {"net_tx_bps", &PointRecord::net_tx_bps},
    {"disk_read_bps", &PointRecord::disk_read_bps},
    {"disk_write_bps", &PointRecord::disk_write_bps},
    {"disk_read_iops", &PointRecord::disk_read_iops},
    {"disk_write_iops", &PointRecord::disk_write_iops},
    {"mem_bytes", &PointRecord::mem_bytes},
    {"mem_bw_bps", &PointRecord::mem_bw_bps},
    {"llc_occupancy_bytes", &PointRecord::llc_occupancy_bytes},
};

// The fixed columns of `points` before the metric columns, in SELECT order.
const char* const kPointHead[] = {"id",     "run_id",  "seq",                "target_load",
                                  "attempt", "status", "failure", "workload_exit_code",
                                  "workload_exit", "valid",    "invalid_reasons",
                                  "service_reported"};
const char* const kPointTail[] = {"unavailable_json", "generator_json", "monitor_json",
                                  "started_ns"};
// Columns a later schema added, written and read only at that schema (a store held at an older
// one for tests has no such column).
constexpr const char* kNetworkColumn = "network_json";
const char* const kConnectionColumns[] = {"reconnections", "lost_requests", "lost_json"};  // schema 7
constexpr const char* kPointTenantsColumn = "tenants_json";  // schema 8
constexpr const char* kPointBatchColumn = "batch_json";      // schema 9
const char* const kUntilColumns[] = {"until_decided", "until_interval"};  // schema 12

std::string PointSelectList(bool with_network, bool with_connections, bool with_tenants, bool with_batch,
                            bool with_until) {
  std::string s;
  auto add = [&](const char* c) { s += (s.empty() ? "" : ", ") + std::string(c); };
  for (auto c : kPointHead) add(c);
  for (auto& c : kIntColumns) add(c.name);
  for (auto& c : kDoubleColumns) add(c.name);
  for (auto c : kPointTail) add(c);
  if (with_network) add(kNetworkColumn);
  if (with_connections) {
    for (auto c : kConnectionColumns) add(c);
  }
  if (with_tenants) add(kPointTenantsColumn);
  if (with_batch) add(kPointBatchColumn);
  if (with_until) {
    for (auto c : kUntilColumns) add(c);
  }
  return s;
}

nlohmann::json ParseJsonOr(const std::string& text, nlohmann::json fallback) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? fallback : j;
}

// A run's co-runners as stored in runs.tenants_json: null for a run of the subject alone.
nlohmann::json CorunnersJson(const RunRecord& run) {
  return run.corunners ? run.corunners->ToJson() : nlohmann::json();
}

// A stored name that this build does not know: the database was written by something else.
Status UnknownName(const std::string& path, const std::string& what, const std::string& text) {
  return Corrupt(path + ": unknown " + what + " '" + text + "' (written by a newer ream?)");
}

Result<ExperimentRecord> ReadExperiment(const sql::Statement& st, const std::string& path) {
  ExperimentRecord e;
  e.id = st.Int(0);
  e.name = st.Text(1);
  e.spec_text = st.Text(2);
  e.spec = ParseJsonOr(st.Text(3), nlohmann::json::object());
  e.spec_hash = st.Text(4);
  auto status = ParseExperimentStatus(st.Text(5));
  if (!status) return UnknownName(path, "status of experiment '" + e.name + "'", st.Text(5));
  e.status = *status;
  e.failure = st.Text(6);
  e.created_ns = st.Int(7);
  e.finished_ns = st.OptInt(8);
  e.workload = st.Text(9);
  e.protocol = st.Text(10);
  e.qos.percentile = st.Double(11);
  e.qos.fixed_target_us = st.OptDouble(12);
  e.qos.service_multiplier = st.Double(13);
  e.qos.at_utilization = st.Double(14);
  e.qos.min_timely_ratio = st.Double(15);
  e.qos.max_rate_error = st.Double(16);
  auto axis = ParseLoadAxis(st.Text(17));
  if (!axis) return UnknownName(path, "load axis of experiment '" + e.name + "'", st.Text(17));
  e.load_axis = *axis;
  return e;
}

constexpr const char* kExperimentColumns =
    "id, name, spec_text, spec_json, spec_hash, status, failure, created_ns, finished_ns, "
    "workload, protocol, qos_percentile, qos_fixed_target_us, qos_service_multiplier, "
    "qos_at_utilization, min_timely_ratio, max_rate_error, load_axis";

// `with_sweep`: the statement selected kRunColumns with sweep_json (schema 4 on).
// `with_tenants`: kRunColumns8, with tenants and tenants_json (schema 8 on).
// `with_hosts`: kRunColumns10, with host and provenance_json (schema 10 on).
Result<RunRecord> ReadRun(const sql::Statement& st, const std::string& path, bool with_sweep = true,
                          bool with_tenants = false, bool with_hosts = false) {
  RunRecord r;
  r.id = st.Int(0);
  r.experiment_id = st.Int(1);
  r.key.scenario = st.Text(2);
  r.key.partition_label = st.Text(3);
  r.partition = ParseJsonOr(st.Text(4), nlohmann::json::object());
  r.key.repetition = static_cast<int>(st.Int(5));
  r.ordinal = st.Int(6);
  r.workload_cpus = st.Text(7);
  r.generator_cpus = st.Text(8);
  auto status = ParseRunStatus(st.Text(9));
  if (!status) return UnknownName(path, "status of run " + std::to_string(r.id), st.Text(9));
  r.status = *status;
  r.failure = st.Text(10);
  r.started_ns = st.OptInt(11);
  r.finished_ns = st.OptInt(12);
  if (with_sweep) r.sweep = ParseJsonOr(st.Text(13), nullptr);
  if (with_tenants) {
    r.key.corunner_set = st.Text(14);
    const nlohmann::json corunners = ParseJsonOr(st.Text(15), nullptr);
    if (!corunners.is_null()) {
      REAM_ASSIGN_OR_RETURN(r.corunners,
                            CorunnerSetRecord::FromJson(corunners, path + ": run " + std::to_string(r.id)));
    }
  }
  if (with_hosts) {
    r.host = st.Text(16);
    r.provenance = ParseJsonOr(st.Text(17), nullptr);
  }
  return r;
}

constexpr const char* kRunColumns =
    "id, experiment_id, scenario, partition_label, partition_json, repetition, ordinal, "
    "workload_cpus, generator_cpus, status, failure, started_ns, finished_ns, sweep_json";
constexpr const char* kRunColumns8 =
    "id, experiment_id, scenario, partition_label, partition_json, repetition, ordinal, "
    "workload_cpus, generator_cpus, status, failure, started_ns, finished_ns, sweep_json, tenants, tenants_json";
constexpr const char* kRunColumns10 =
    "id, experiment_id, scenario, partition_label, partition_json, repetition, ordinal, "
    "workload_cpus, generator_cpus, status, failure, started_ns, finished_ns, sweep_json, tenants, tenants_json, "
    "host, provenance_json";
// The same as a schema before 4 has them (tests that build such a database use EnsureRun).
constexpr const char* kRunColumnsV3 =
    "id, experiment_id, scenario, partition_label, partition_json, repetition, ordinal, "
    "workload_cpus, generator_cpus, status, failure, started_ns, finished_ns";

}  // namespace

std::vector<std::string> PointMetricColumns() {
  std::vector<std::string> v;
  for (auto& c : kIntColumns) v.push_back(c.name);
  for (auto& c : kDoubleColumns) v.push_back(c.name);
  return v;
}

std::string TargetLoadColumn(LoadAxis axis) {
  return "target_" + std::string(LoadAxisName(axis));
}

nlohmann::json PointToJson(const PointRecord& p, LoadAxis axis) {
  nlohmann::json j;
  j["id"] = p.id;
  j["run_id"] = p.run_id;
  j["seq"] = p.seq;
  j[TargetLoadColumn(axis)] = p.target_load;
  j["attempt"] = p.attempt;
  j["status"] = StatusName(p.status);
  j["failure"] = p.failure;
  j["workload_exit_code"] = p.workload_exit_code ? nlohmann::json(*p.workload_exit_code) : nlohmann::json(nullptr);
  j["workload_exit"] = p.workload_exit;
  j["valid"] = p.valid ? nlohmann::json(*p.valid) : nlohmann::json(nullptr);
  j["invalid_reasons"] = p.invalid_reasons;
  j["service_reported"] = p.service_reported ? nlohmann::json(*p.service_reported) : nlohmann::json(nullptr);
  for (auto& c : kIntColumns) {
    const auto& v = p.*(c.member);
    j[c.name] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  }
  for (auto& c : kDoubleColumns) {
    const auto& v = p.*(c.member);
    j[c.name] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  }
  j["unavailable"] = p.unavailable;
  j["started_ns"] = p.started_ns;
  // Only points with a LogGP knob have a network path: the others' JSON stays as it was.
  if (!p.network.is_null()) j["network"] = p.network;
  // Only points whose generator counted its reconnections (schema 7, or a generator JSON that
  // had them): older points' JSON stays as it was.
  if (p.reconnections) j["reconnections"] = *p.reconnections;
  if (p.lost_requests) j["lost_requests"] = *p.lost_requests;
  if (!p.lost_reasons.is_null()) j["lost_reasons"] = p.lost_reasons;
  // Only a point measured beside co-runners has them.
  if (!p.corunners.empty()) j["tenants"] = TenantFiguresToJson(p.corunners);
  // Only a batch subject's point has batch figures.
  if (!p.batch.is_null()) j["batch"] = p.batch;
  // Only a point measured until known says what ended it.
  if (p.until_decided) j["until_decided"] = *p.until_decided;
  if (p.until_interval) j["until_interval"] = *p.until_interval;
  return j;
}

nlohmann::json KnobCalibration::ToJson() const {
  return {{"knob", knob},     {"requested", requested}, {"measured", measured ? nlohmann::json(*measured) : nlohmann::json()},
          {"unit", unit},     {"method", method},       {"note", note},
          {"warning", warning}};
}

KnobCalibration KnobCalibration::FromJson(const nlohmann::json& j) {
  KnobCalibration c;
  if (!j.is_object()) return c;
  c.knob = j.value("knob", std::string());
  c.requested = j.value("requested", 0.0);
  if (j.contains("measured") && j["measured"].is_number()) c.measured = j["measured"].get<double>();
  c.unit = j.value("unit", std::string());
  c.method = j.value("method", std::string());
  c.note = j.value("note", std::string());
  c.warning = j.value("warning", false);
  return c;
}

bool NetworkPath::warning() const {
  for (const auto& c : calibrations) {
    if (c.warning) return true;
  }
  return false;
}

nlohmann::json NetworkPath::ToJson() const {
  nlohmann::json cal = nlohmann::json::array();
  for (const auto& c : calibrations) cal.push_back(c.ToJson());
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"methods", methods},
          {"calibrations", cal},
          {"relay_added_us", opt(relay_added_us)},
          {"direct_rtt_us", opt(direct_rtt_us)},
          {"target", target},
          {"warning", warning()}};
}

NetworkPath NetworkPath::FromJson(const nlohmann::json& j) {
  NetworkPath n;
  if (!j.is_object()) return n;
  if (j.contains("methods") && j["methods"].is_object()) {
    for (auto it = j["methods"].begin(); it != j["methods"].end(); ++it) {
      if (it.value().is_string()) n.methods[it.key()] = it.value().get<std::string>();
    }
  }
  if (j.contains("calibrations") && j["calibrations"].is_array()) {
    for (const auto& c : j["calibrations"]) n.calibrations.push_back(KnobCalibration::FromJson(c));
  }
  if (j.contains("relay_added_us") && j["relay_added_us"].is_number()) n.relay_added_us = j["relay_added_us"].get<double>();
  if (j.contains("direct_rtt_us") && j["direct_rtt_us"].is_number()) n.direct_rtt_us = j["direct_rtt_us"].get<double>();
  n.target = j.value("target", std::string());
  return n;
}

Result<Store> Store::Open(const std::string& path, bool create) {
  return OpenMigrated(path, create, kStoreSchemaVersion);
}

Result<Store> Store::CreateAtSchemaVersionForTesting(const std::string& path, int version) {
  return OpenMigrated(path, true, version);
}

Result<Store> Store::OpenMigrated(const std::string& path, bool create, int version) {
  REAM_ASSIGN_OR_RETURN(sql::Database db, sql::Database::Open(path, create, false));
  Store s;
  s.db_ = std::move(db);
  // WAL: readers (ream report) never block the runner, and a committed point survives a
  // SIGKILL of the writer. synchronous=NORMAL is durable against process death in WAL mode.
  REAM_RETURN_IF_ERROR(s.db_.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                                  "PRAGMA foreign_keys=ON;")
                           .Annotate("opening results database"));
  REAM_RETURN_IF_ERROR(s.Migrate(version));
  return s;
}

Result<Store> Store::OpenReadOnly(const std::string& path) {
  REAM_ASSIGN_OR_RETURN(sql::Database db, sql::Database::Open(path, false, true));
  Store s;
  s.db_ = std::move(db);
  REAM_ASSIGN_OR_RETURN(auto st, s.db_.Prepare("PRAGMA user_version"));
  REAM_ASSIGN_OR_RETURN(bool row, st.Step());
  s.schema_version_ = row ? static_cast<int>(st.Int(0)) : 0;
  if (s.schema_version_ > kStoreSchemaVersion || s.schema_version_ == 0) {
    // Version 0: no ream ever left a database so (creating one migrates it at once).
    return InvalidArgument(path + " has results schema version " +
                           std::to_string(s.schema_version_) + ", this ream reads version " +
                           std::to_string(kStoreSchemaVersion) +
                           (s.schema_version_ > 0 ? " (it was written by a newer ream)" : ""));
  }
  if (s.schema_version_ < kStoreSchemaVersion) {
    // An older ream wrote it. Readers must not write (a run may be appending to it, perhaps by
    // that older ream), so the migration runs on a private copy; results databases are small
    // enough to hold in memory (the histograms dominate: a few kB per point).
    REAM_ASSIGN_OR_RETURN(sql::Database copy, sql::Database::CopyIntoMemory(s.db_));
    s.db_ = std::move(copy);
    REAM_RETURN_IF_ERROR(s.db_.Exec("PRAGMA foreign_keys=ON").Annotate("opening results database"));
    REAM_RETURN_IF_ERROR(s.Migrate(kStoreSchemaVersion));
  }
  return s;
}

Status Store::Migrate(int target) {
  int version = 0;
  {
    REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("PRAGMA user_version"));
    REAM_ASSIGN_OR_RETURN(bool row, st.Step());
    version = row ? static_cast<int>(st.Int(0)) : 0;
  }
  if (version > kStoreSchemaVersion) {
    return Corrupt(db_.path() + " has results schema version " + std::to_string(version) +
                   ", newer than this ream's " + std::to_string(kStoreSchemaVersion) +
                   "; use a newer ream");
  }
  if (version == 0) {
    // A fresh file, or some other SQLite database: refuse to write into a foreign one.
    REAM_ASSIGN_OR_RETURN(auto t, db_.Prepare("SELECT count(*) FROM sqlite_master"));
    REAM_ASSIGN_OR_RETURN(bool r, t.Step());
    if (r && t.Int(0) > 0) {
      return Corrupt(db_.path() + " is an SQLite database but not a ream results store");
    }
  }
  if (version >= target) {
    schema_version_ = version;
    return Status::Ok();
  }
  // A migration may rebuild a table that others reference: with foreign keys on, dropping the
  // old table would cascade into them. Off for the migrations (it cannot change inside a
  // transaction), checked before each commit, and on again after.
  REAM_RETURN_IF_ERROR(db_.Exec("PRAGMA foreign_keys=OFF"));
  Status migrated = [&]() -> Status {
    for (; version < target; ++version) {
      std::string to = "migrating results schema to version " + std::to_string(version + 1);
      sql::Transaction tx(db_);
      REAM_RETURN_IF_ERROR(tx.begin_status());
      REAM_RETURN_IF_ERROR(db_.Exec(kMigrations[version]).Annotate(to));
      {
        REAM_ASSIGN_OR_RETURN(auto check, db_.Prepare("PRAGMA foreign_key_check"));
        REAM_ASSIGN_OR_RETURN(bool dangling, check.Step());
        if (dangling) return Corrupt(to + ": a row of table " + check.Text(0) + " lost its reference");
      }
      REAM_RETURN_IF_ERROR(db_.Exec("PRAGMA user_version = " + std::to_string(version + 1)));
      REAM_RETURN_IF_ERROR(tx.Commit());
    }
    return Status::Ok();
  }();
  REAM_RETURN_IF_ERROR(db_.Exec("PRAGMA foreign_keys=ON"));
  REAM_RETURN_IF_ERROR(migrated);
  schema_version_ = version;
  return Status::Ok();
}

Result<int64_t> Store::CreateExperiment(const ExperimentRecord& e) {
  REAM_ASSIGN_OR_RETURN(
      auto st,
      db_.Prepare("INSERT INTO experiments (name, spec_text, spec_json, spec_hash, status, "
                  "failure, created_ns, finished_ns, workload, protocol, qos_percentile, "
                  "qos_fixed_target_us, qos_service_multiplier, qos_at_utilization, "
                  "min_timely_ratio, max_rate_error" +
                  // A store held at schema 2 or older (CreateAtSchemaVersionForTesting) has
                  // no axis column: its experiments are qps ones, as the migration will say.
                  std::string(schema_version_ >= 3 ? ", load_axis) " : ") ") +
                  "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?" +
                  std::string(schema_version_ >= 3 ? ",?)" : ")")));
  st.Bind(1, e.name).Bind(2, e.spec_text).Bind(3, e.spec.dump()).Bind(4, e.spec_hash);
  st.Bind(5, StatusName(e.status)).Bind(6, e.failure).Bind(7, e.created_ns).Bind(8, e.finished_ns);
  st.Bind(9, e.workload).Bind(10, e.protocol).Bind(11, e.qos.percentile);
  st.Bind(12, e.qos.fixed_target_us).Bind(13, e.qos.service_multiplier);
  st.Bind(14, e.qos.at_utilization).Bind(15, e.qos.min_timely_ratio);
  st.Bind(16, e.qos.max_rate_error);
  if (schema_version_ >= 3) st.Bind(17, LoadAxisName(e.load_axis));
  Status s = st.Run();
  if (s.code() == StatusCode::kAlreadyExists) {
    return Status(StatusCode::kAlreadyExists,
                  "experiment '" + e.name + "' already exists in " + db_.path() +
                      " (use --resume to continue it, or another --db)");
  }
  REAM_RETURN_IF_ERROR(s);
  return db_.LastInsertId();
}

Result<std::optional<ExperimentRecord>> Store::FindExperiment(const std::string& name) {
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare(std::string("SELECT ") + kExperimentColumns +
                                              " FROM experiments WHERE name = ?"));
  st.Bind(1, name);
  REAM_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<ExperimentRecord>();
  REAM_ASSIGN_OR_RETURN(auto e, ReadExperiment(st, db_.path()));
  return std::optional<ExperimentRecord>(std::move(e));
}

Result<ExperimentRecord> Store::GetExperiment(int64_t id) {
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare(std::string("SELECT ") + kExperimentColumns +
                                              " FROM experiments WHERE id = ?"));
  st.Bind(1, id);
  REAM_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return NotFound("no experiment with id " + std::to_string(id) + " in " + db_.path());
  return ReadExperiment(st, db_.path());
}

Result<std::vector<ExperimentRecord>> Store::ListExperiments() {
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare(std::string("SELECT ") + kExperimentColumns +
                                              " FROM experiments ORDER BY id"));
  std::vector<ExperimentRecord> v;
  while (true) {
    REAM_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    REAM_ASSIGN_OR_RETURN(auto e, ReadExperiment(st, db_.path()));
    v.push_back(std::move(e));
  }
  return v;
}

Status Store::SetExperimentStatus(int64_t id, ExperimentStatus status,
                                  const std::string& failure,
                                  std::optional<int64_t> finished_ns) {
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("UPDATE experiments SET status = ?, failure = ?, "
                                              "finished_ns = ? WHERE id = ?"));
  st.Bind(1, StatusName(status)).Bind(2, failure).Bind(3, finished_ns).Bind(4, id);
  return st.Run();
}

Status Store::RecordEnvironment(int64_t experiment_id, const EnvironmentRecord& env) {
  REAM_ASSIGN_OR_RETURN(
      auto st,
      db_.Prepare("INSERT OR REPLACE INTO environment (experiment_id, ream_version, ream_commit, "
                  "hostname, kernel, cpu_model, topology_json, doctor_json, recorded_ns, timing_json) "
                  "VALUES (?,?,?,?,?,?,?,?,?,?)"));
  st.Bind(1, experiment_id).Bind(2, env.ream_version).Bind(3, env.ream_commit);
  st.Bind(4, env.hostname).Bind(5, env.kernel).Bind(6, env.cpu_model);
  st.Bind(7, env.topology.dump()).Bind(8, env.doctor.dump()).Bind(9, env.recorded_ns);
  st.Bind(10, env.timing.dump());
  REAM_RETURN_IF_ERROR(st.Run());
  if (schema_version_ < 10) return Status::Ok();
  REAM_ASSIGN_OR_RETURN(
      auto all, db_.Prepare("INSERT OR REPLACE INTO host_environments (experiment_id, hostname, recorded_ns, "
                            "ream_version, ream_commit, kernel, cpu_model, topology_json, doctor_json, timing_json) "
                            "VALUES (?,?,?,?,?,?,?,?,?,?)"));
  all.Bind(1, experiment_id).Bind(2, env.hostname).Bind(3, env.recorded_ns).Bind(4, env.ream_version);
  all.Bind(5, env.ream_commit).Bind(6, env.kernel).Bind(7, env.cpu_model).Bind(8, env.topology.dump());
  all.Bind(9, env.doctor.dump()).Bind(10, env.timing.dump());
  return all.Run();
}

Result<std::optional<EnvironmentRecord>> Store::GetEnvironment(int64_t experiment_id) {
  REAM_ASSIGN_OR_RETURN(
      auto st, db_.Prepare("SELECT ream_version, ream_commit, hostname, kernel, cpu_model, "
                           "topology_json, doctor_json, recorded_ns, timing_json FROM environment "
                           "WHERE experiment_id = ?"));
  st.Bind(1, experiment_id);
  REAM_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<EnvironmentRecord>();
  EnvironmentRecord e;
  e.ream_version = st.Text(0);
  e.ream_commit = st.Text(1);
  e.hostname = st.Text(2);
  e.kernel = st.Text(3);
  e.cpu_model = st.Text(4);
  e.topology = ParseJsonOr(st.Text(5), nullptr);
  e.doctor = ParseJsonOr(st.Text(6), nullptr);
  e.recorded_ns = st.Int(7);
  e.timing = ParseJsonOr(st.Text(8), nullptr);
  return std::optional<EnvironmentRecord>(std::move(e));
}

Result<RunRecord> Store::EnsureRun(const RunRecord& run) {
  const bool with_tenants = schema_version_ >= 8;
  const bool with_hosts = schema_version_ >= 10;
  if (!with_tenants && !run.key.corunner_set.empty()) {
    return Internal(db_.path() + ": a run beside co-runners needs schema 8 (this store is at " +
                              std::to_string(schema_version_) + ")");
  }
  REAM_ASSIGN_OR_RETURN(
      auto ins,
      db_.Prepare(std::string("INSERT OR IGNORE INTO runs (experiment_id, scenario, partition_label, "
                              "partition_json, repetition, ordinal, workload_cpus, generator_cpus, status, "
                              "failure, started_ns, finished_ns") +
                  (with_hosts     ? ", tenants, tenants_json, host, provenance_json) "
                                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                   : with_tenants ? ", tenants, tenants_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                                  : ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")));
  ins.Bind(1, run.experiment_id).Bind(2, run.key.scenario).Bind(3, run.key.partition_label);
  ins.Bind(4, run.partition.dump()).Bind(5, static_cast<int64_t>(run.key.repetition));
  ins.Bind(6, run.ordinal).Bind(7, run.workload_cpus).Bind(8, run.generator_cpus);
  ins.Bind(9, StatusName(run.status)).Bind(10, run.failure);
  ins.Bind(11, run.started_ns).Bind(12, run.finished_ns);
  if (with_tenants) ins.Bind(13, run.key.corunner_set).Bind(14, CorunnersJson(run).dump());
  if (with_hosts) ins.Bind(15, run.host).Bind(16, run.provenance.dump());
  REAM_RETURN_IF_ERROR(ins.Run());
  const bool with_sweep = schema_version_ >= 4;
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare(std::string("SELECT ") +
                                              (with_hosts     ? kRunColumns10
                                               : with_tenants ? kRunColumns8
                                               : with_sweep   ? kRunColumns
                                                              : kRunColumnsV3) +
                                              " FROM runs WHERE experiment_id = ? AND "
                                              "scenario = ? AND partition_label = ? AND "
                                              "repetition = ?" + (with_tenants ? " AND tenants = ?" : "")));
  st.Bind(1, run.experiment_id).Bind(2, run.key.scenario).Bind(3, run.key.partition_label);
  st.Bind(4, static_cast<int64_t>(run.key.repetition));
  if (with_tenants) st.Bind(5, run.key.corunner_set);
  REAM_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Internal("run vanished right after insertion in " + db_.path());
  return ReadRun(st, db_.path(), with_sweep, with_tenants, with_hosts);
}

Status Store::UpdateRun(const RunRecord& run) {
  const bool with_tenants = schema_version_ >= 8;
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare(std::string("UPDATE runs SET workload_cpus = ?, "
                                                          "generator_cpus = ?, status = ?, failure = ?, "
                                                          "started_ns = ?, finished_ns = ?, sweep_json = ?") +
                                              (with_tenants ? ", tenants_json = ?" : "") + " WHERE id = ?"));
  st.Bind(1, run.workload_cpus).Bind(2, run.generator_cpus).Bind(3, StatusName(run.status));
  st.Bind(4, run.failure).Bind(5, run.started_ns).Bind(6, run.finished_ns);
  st.Bind(7, run.sweep.is_null() ? std::string() : run.sweep.dump());
  if (with_tenants) {
    st.Bind(8, CorunnersJson(run).dump()).Bind(9, run.id);
  } else {
    st.Bind(8, run.id);
  }
  return st.Run();
}

Result<std::vector<RunRecord>> Store::ListRuns(int64_t experiment_id) {
  const bool with_tenants = schema_version_ >= 8;
  const bool with_hosts = schema_version_ >= 10;
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare(std::string("SELECT ") +
                                              (with_hosts ? kRunColumns10 : with_tenants ? kRunColumns8 : kRunColumns) +
                                              " FROM runs WHERE experiment_id = ? "
                                              "ORDER BY ordinal, id"));
  st.Bind(1, experiment_id);
  std::vector<RunRecord> v;
  while (true) {
    REAM_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    REAM_ASSIGN_OR_RETURN(auto r, ReadRun(st, db_.path(), true, with_tenants, with_hosts));
    v.push_back(std::move(r));
  }
  return v;
}

Result<int64_t> Store::InsertPoint(const PointData& data) {
  const PointRecord& p = data.point;
  sql::Transaction tx(db_);
  REAM_RETURN_IF_ERROR(tx.begin_status());
  std::string cols;
  std::string marks;
  int n = 0;
  auto add = [&](const char* c) {
    cols += (n ? ", " : "") + std::string(c);
    marks += n ? ",?" : "?";
    ++n;
  };
  for (size_t i = 1; i < std::size(kPointHead); ++i) add(kPointHead[i]);  // not id
  for (auto& c : kIntColumns) add(c.name);
  for (auto& c : kDoubleColumns) add(c.name);
  for (auto c : kPointTail) add(c);
  const bool with_network = schema_version_ >= 6;
  if (with_network) add(kNetworkColumn);
  const bool with_connections = schema_version_ >= 7;
  if (with_connections) {
    for (auto c : kConnectionColumns) add(c);
  }
  const bool with_tenants = schema_version_ >= 8;
  if (with_tenants) add(kPointTenantsColumn);
  const bool with_batch = schema_version_ >= 9;
  if (with_batch) add(kPointBatchColumn);
  const bool with_until = schema_version_ >= 12;
  if (with_until) {
    for (auto c : kUntilColumns) add(c);
  }
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("INSERT INTO points (" + cols + ") VALUES (" +
                                              marks + ")"));
  int i = 1;
  st.Bind(i++, p.run_id);
  st.Bind(i++, p.seq);
  st.Bind(i++, p.target_load);
  st.Bind(i++, p.attempt);
  st.Bind(i++, StatusName(p.status));
  st.Bind(i++, p.failure);
  st.Bind(i++, p.workload_exit_code);
  st.Bind(i++, p.workload_exit);
  st.Bind(i++, p.valid ? std::optional<int64_t>(*p.valid ? 1 : 0) : std::nullopt);
  st.Bind(i++, nlohmann::json(p.invalid_reasons).dump());
  st.Bind(i++, p.service_reported ? std::optional<int64_t>(*p.service_reported ? 1 : 0)
                                  : std::nullopt);
  for (auto& c : kIntColumns) st.Bind(i++, p.*(c.member));
  for (auto& c : kDoubleColumns) st.Bind(i++, p.*(c.member));
  st.Bind(i++, nlohmann::json(p.unavailable).dump());
  st.Bind(i++, p.generator.dump());
  st.Bind(i++, p.monitor.dump());
  st.Bind(i++, p.started_ns);
  if (with_network) st.Bind(i++, p.network.dump());
  if (with_connections) {
    st.Bind(i++, p.reconnections);
    st.Bind(i++, p.lost_requests);
    st.Bind(i++, p.lost_reasons.dump());
  }
  if (with_tenants) {
    st.Bind(i++, p.corunners.empty() ? std::string("null") : TenantFiguresToJson(p.corunners).dump());
  }
  if (with_batch) st.Bind(i++, p.batch.dump());
  if (with_until) {
    st.Bind(i++, p.until_decided);
    st.Bind(i++, p.until_interval);
  }
  Status s = st.Run();
  if (s.code() == StatusCode::kAlreadyExists) {
    return Status(StatusCode::kAlreadyExists,
                  "run " + std::to_string(p.run_id) + " already has a point at load " +
                      std::to_string(p.target_load) + " (attempt " + std::to_string(p.attempt) +
                      ") in " + db_.path());
  }
  REAM_RETURN_IF_ERROR(s);
  int64_t point_id = db_.LastInsertId();
  if (!data.histograms.empty()) {
    REAM_ASSIGN_OR_RETURN(auto h, db_.Prepare("INSERT INTO histograms (point_id, kind, unit, "
                                               "encoded) VALUES (?,?,'ns',?)"));
    for (const auto& [kind, hist] : data.histograms) {
      REAM_RETURN_IF_ERROR(h.Reset());
      h.Bind(1, point_id).Bind(2, kind).Bind(3, hist.Encode());
      REAM_RETURN_IF_ERROR(h.Run());
    }
  }
  if (!data.timeline.is_null()) {
    REAM_ASSIGN_OR_RETURN(auto t, db_.Prepare("INSERT INTO timelines (point_id, timeline_json) "
                                               "VALUES (?,?)"));
    t.Bind(1, point_id).Bind(2, data.timeline.dump());
    REAM_RETURN_IF_ERROR(t.Run());
  }
  REAM_RETURN_IF_ERROR(tx.Commit());
  return point_id;
}

Result<std::vector<PointRecord>> Store::ListPoints(int64_t run_id) {
  const bool with_network = schema_version_ >= 6;
  const bool with_connections = schema_version_ >= 7;
  const bool with_tenants = schema_version_ >= 8;
  const bool with_batch = schema_version_ >= 9;
  const bool with_until = schema_version_ >= 12;
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("SELECT " + PointSelectList(with_network, with_connections, with_tenants, with_batch, with_until) +
                                              " FROM points WHERE run_id = ? ORDER BY seq, id"));
  st.Bind(1, run_id);
  std::vector<PointRecord> v;
  while (true) {
    REAM_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    PointRecord p;
    int c = 0;
    p.id = st.Int(c++);
    p.run_id = st.Int(c++);
    p.seq = st.Int(c++);
    p.target_load = st.Double(c++);
    p.attempt = st.Int(c++);
    auto status = ParsePointStatus(st.Text(c));
    if (!status) return UnknownName(db_.path(), "status of point " + std::to_string(p.id), st.Text(c));
    ++c;
    p.status = *status;
    p.failure = st.Text(c++);
    p.workload_exit_code = st.OptInt(c++);
    p.workload_exit = st.Text(c++);
    if (auto valid = st.OptInt(c++)) p.valid = *valid != 0;
    auto reasons = ParseJsonOr(st.Text(c++), nlohmann::json::array());
    for (const auto& r : reasons) {
      if (r.is_string()) p.invalid_reasons.push_back(r.get<std::string>());
    }
    if (auto sr = st.OptInt(c++)) p.service_reported = *sr != 0;
    for (auto& col : kIntColumns) p.*(col.member) = st.OptInt(c++);
    for (auto& col : kDoubleColumns) p.*(col.member) = st.OptDouble(c++);
    auto unavailable = ParseJsonOr(st.Text(c++), nlohmann::json::object());
    for (auto it = unavailable.begin(); it != unavailable.end(); ++it) {
      if (it.value().is_string()) p.unavailable[it.key()] = it.value().get<std::string>();
    }
    p.generator = ParseJsonOr(st.Text(c++), nullptr);
    p.monitor = ParseJsonOr(st.Text(c++), nullptr);
    p.started_ns = st.Int(c++);
    if (with_network) p.network = ParseJsonOr(st.Text(c++), nullptr);
    if (with_connections) {
      p.reconnections = st.OptInt(c++);
      p.lost_requests = st.OptInt(c++);
      p.lost_reasons = ParseJsonOr(st.Text(c++), nullptr);
    }
    if (with_tenants) {
      REAM_ASSIGN_OR_RETURN(p.corunners, TenantFiguresFromJson(ParseJsonOr(st.Text(c++), nullptr),
                                                               db_.path() + ": point " + std::to_string(p.id)));
    }
    if (with_batch) p.batch = ParseJsonOr(st.Text(c++), nullptr);
    if (with_until) {
      p.until_decided = st.OptText(c++);
      p.until_interval = st.OptDouble(c++);
    }
    v.push_back(std::move(p));
  }
  return v;
}

Result<std::map<std::string, Histogram>> Store::GetHistograms(int64_t point_id) {
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("SELECT kind, encoded FROM histograms "
                                              "WHERE point_id = ? ORDER BY kind"));
  st.Bind(1, point_id);
  std::map<std::string, Histogram> m;
  while (true) {
    REAM_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    auto h = Histogram::Decode(st.Text(1));
    if (!h.ok()) {
      return h.status().Annotate("histogram '" + st.Text(0) + "' of point " +
                                 std::to_string(point_id) + " in " + db_.path());
    }
    m.emplace(st.Text(0), std::move(h).value());
  }
  return m;
}

Result<nlohmann::json> Store::GetTimeline(int64_t point_id) {
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("SELECT timeline_json FROM timelines "
                                              "WHERE point_id = ?"));
  st.Bind(1, point_id);
  REAM_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return nlohmann::json(nullptr);
  return ParseJsonOr(st.Text(0), nullptr);
}

Status Store::IntegrityCheck() {
  REAM_ASSIGN_OR_RETURN(auto st, db_.Prepare("PRAGMA integrity_check"));
  std::string all;
  while (true) {
    REAM_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    all += (all.empty() ? "" : "; ") + st.Text(0);
  }
  if (all == "ok") return Status::Ok();
  return Corrupt(db_.path() + " fails PRAGMA integrity_check: " + all);
}

}  // namespace ream
