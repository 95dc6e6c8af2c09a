#include "store/migrations.h"

#include "store/store.h"

namespace ream {

// Each migration takes the schema from version i to i+1. Never edit a shipped migration:
// append a new one (databases in the field have already run the old ones).
const char* const kMigrations[] = {
    // 0 -> 1
    R"sql(
CREATE TABLE experiments (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  spec_text TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  spec_hash TEXT NOT NULL,
  status TEXT NOT NULL,
  failure TEXT NOT NULL DEFAULT '',
  created_ns INTEGER NOT NULL,
  finished_ns INTEGER,
  workload TEXT NOT NULL DEFAULT '',
  protocol TEXT NOT NULL DEFAULT '',
  qos_percentile REAL NOT NULL,
  qos_fixed_target_us REAL,
  qos_service_multiplier REAL NOT NULL,
  qos_at_utilization REAL NOT NULL,
  min_timely_ratio REAL NOT NULL,
  max_rate_error REAL NOT NULL
);
CREATE TABLE environment (
  experiment_id INTEGER PRIMARY KEY REFERENCES experiments(id) ON DELETE CASCADE,
  ream_version TEXT NOT NULL,
  ream_commit TEXT NOT NULL,
  hostname TEXT NOT NULL,
  kernel TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  topology_json TEXT NOT NULL,
  doctor_json TEXT NOT NULL,
  recorded_ns INTEGER NOT NULL
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  scenario TEXT NOT NULL,
  partition_label TEXT NOT NULL,
  partition_json TEXT NOT NULL,
  repetition INTEGER NOT NULL,
  ordinal INTEGER NOT NULL,
  workload_cpus TEXT NOT NULL DEFAULT '',
  generator_cpus TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  failure TEXT NOT NULL DEFAULT '',
  started_ns INTEGER,
  finished_ns INTEGER,
  UNIQUE (experiment_id, scenario, partition_label, repetition)
);
CREATE TABLE points (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  target_qps REAL NOT NULL,
  status TEXT NOT NULL,
  failure TEXT NOT NULL DEFAULT '',
  workload_exit_code INTEGER,
  workload_exit TEXT NOT NULL DEFAULT '',
  valid INTEGER,
  invalid_reasons TEXT NOT NULL DEFAULT '[]',
  service_reported INTEGER,
  issued INTEGER, completed INTEGER, errors INTEGER,
  achieved_qps REAL, throughput_qps REAL, timely_ratio REAL, timely_tolerance_us REAL,
  latency_mean_us REAL, latency_stddev_us REAL, latency_p50_us REAL, latency_p95_us REAL,
  latency_p99_us REAL, latency_p999_us REAL, latency_max_us REAL,
  service_mean_us REAL, service_p50_us REAL, service_p95_us REAL, service_p99_us REAL,
  queue_mean_us REAL, queue_p95_us REAL,
  lateness_p50_us REAL, lateness_p99_us REAL, lateness_max_us REAL,
  generator_cpu_s REAL, duration_s REAL,
  cpu_util REAL, server_cpu_s REAL, net_rx_bps REAL, net_tx_bps REAL,
  disk_read_bps REAL, disk_write_bps REAL, disk_read_iops REAL, disk_write_iops REAL,
  mem_bytes REAL, mem_bw_bps REAL, llc_occupancy_bytes REAL,
  unavailable_json TEXT NOT NULL DEFAULT '{}',
  generator_json TEXT NOT NULL DEFAULT 'null',
  monitor_json TEXT NOT NULL DEFAULT 'null',
  started_ns INTEGER NOT NULL,
  UNIQUE (run_id, target_qps)
);
CREATE INDEX points_by_run ON points(run_id, seq);
CREATE TABLE histograms (
  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  unit TEXT NOT NULL DEFAULT 'ns',
  encoded TEXT NOT NULL,
  PRIMARY KEY (point_id, kind)
);
CREATE TABLE timelines (
  point_id INTEGER PRIMARY KEY REFERENCES points(id) ON DELETE CASCADE,
  timeline_json TEXT NOT NULL
);
)sql",
    // 1 -> 2: a knee search measures a load again when its point was invalid, so a run may
    // hold several points at one load, told apart by `attempt` (0 for every existing point).
    // SQLite cannot change a table's UNIQUE constraint: the table is rebuilt (Migrate turns
    // foreign keys off meanwhile, so the histograms and timelines keep their points).
    R"sql(
CREATE TABLE points_v2 (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  target_qps REAL NOT NULL,
  status TEXT NOT NULL,
  failure TEXT NOT NULL DEFAULT '',
  workload_exit_code INTEGER,
  workload_exit TEXT NOT NULL DEFAULT '',
  valid INTEGER,
  invalid_reasons TEXT NOT NULL DEFAULT '[]',
  service_reported INTEGER,
  issued INTEGER, completed INTEGER, errors INTEGER,
  achieved_qps REAL, throughput_qps REAL, timely_ratio REAL, timely_tolerance_us REAL,
  latency_mean_us REAL, latency_stddev_us REAL, latency_p50_us REAL, latency_p95_us REAL,
  latency_p99_us REAL, latency_p999_us REAL, latency_max_us REAL,
  service_mean_us REAL, service_p50_us REAL, service_p95_us REAL, service_p99_us REAL,
  queue_mean_us REAL, queue_p95_us REAL,
  lateness_p50_us REAL, lateness_p99_us REAL, lateness_max_us REAL,
  generator_cpu_s REAL, duration_s REAL,
  cpu_util REAL, server_cpu_s REAL, net_rx_bps REAL, net_tx_bps REAL,
  disk_read_bps REAL, disk_write_bps REAL, disk_read_iops REAL, disk_write_iops REAL,
  mem_bytes REAL, mem_bw_bps REAL, llc_occupancy_bytes REAL,
  unavailable_json TEXT NOT NULL DEFAULT '{}',
  generator_json TEXT NOT NULL DEFAULT 'null',
  monitor_json TEXT NOT NULL DEFAULT 'null',
  started_ns INTEGER NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  UNIQUE (run_id, target_qps, attempt)
);
INSERT INTO points_v2 SELECT *, 0 FROM points;
DROP TABLE points;
ALTER TABLE points_v2 RENAME TO points;
CREATE INDEX points_by_run ON points(run_id, seq);
)sql",
    // 2 -> 3: a sweep varies a named load axis (`qps` today, `sessions` next). Each experiment
    // records its axis ('qps' for every existing one) and a point's level becomes the
    // axis-neutral target_load. RENAME COLUMN (SQLite 3.25+) rewrites the UNIQUE constraint
    // (run_id, target_load, attempt) and the rows in place, so unlike 1 -> 2 no rebuild (and no
    // copy of every point) is needed.
    R"sql(
ALTER TABLE experiments ADD COLUMN load_axis TEXT NOT NULL DEFAULT 'qps';
ALTER TABLE points RENAME COLUMN target_qps TO target_load;
)sql",
    // 3 -> 4: how a run's load levels were chosen, when the sweep chose them itself
    // (`qps = "auto"`: the levels, the probes' findings); '' for every existing run, whose levels
    // were the spec's. --resume reads the levels back instead of probing again.
    R"sql(
ALTER TABLE runs ADD COLUMN sweep_json TEXT NOT NULL DEFAULT '';
)sql",
    // 4 -> 5: the host's timing floor (how timely a perfect spinning generator could be on each
    // CPU), measured when the experiment starts; 'null' for experiments stored before.
    R"sql(
ALTER TABLE environment ADD COLUMN timing_json TEXT NOT NULL DEFAULT 'null';
)sql",
    // 5 -> 6: the network path of a point when a LogGP knob was set: each knob's
    // method and calibration (NetworkPath). 'null' for every existing point, which had none.
    R"sql(
ALTER TABLE points ADD COLUMN network_json TEXT NOT NULL DEFAULT 'null';
)sql",
    // 6 -> 7: connections the server closed, per point: how many times the
    // generator reconnected, and the measured requests lost with a connection, in all and by
    // reason. They lived only in generator_json; points whose generator reported them (it has a
    // "reconnections" key since it reconnects) get them from there, the others keep NULL and
    // 'null' (not measured, not zero).
    R"sql(
ALTER TABLE points ADD COLUMN reconnections INTEGER;
ALTER TABLE points ADD COLUMN lost_requests INTEGER;
ALTER TABLE points ADD COLUMN lost_json TEXT NOT NULL DEFAULT 'null';
UPDATE points SET
  reconnections = json_extract(generator_json, '$.reconnections'),
  lost_requests = coalesce((SELECT sum(value) FROM json_each(points.generator_json, '$.error_reasons')
                            WHERE key LIKE 'connection lost: %' OR key LIKE 'not sent: %'), 0),
  lost_json = coalesce((SELECT json_group_object(key, value) FROM json_each(points.generator_json, '$.error_reasons')
                        WHERE key LIKE 'connection lost: %' OR key LIKE 'not sent: %'), '{}')
WHERE json_valid(generator_json) AND json_type(generator_json, '$.reconnections') = 'integer';
)sql",
    // 7 -> 8: shared servers. A run is the subject alone or beside a set of
    // co-runners: `tenants` names the set ('' alone, every existing run) and joins the run's key,
    // so the UNIQUE constraint changes and the table is rebuilt as in 1 -> 2; tenants_json holds
    // the co-runners and their alone figures, and each point the co-runners' figures over its
    // window ('null' for every existing row: they had none).
    R"sql(
CREATE TABLE runs_v8 (
  id INTEGER PRIMARY KEY,
  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  scenario TEXT NOT NULL,
  partition_label TEXT NOT NULL,
  partition_json TEXT NOT NULL,
  repetition INTEGER NOT NULL,
  ordinal INTEGER NOT NULL,
  workload_cpus TEXT NOT NULL DEFAULT '',
  generator_cpus TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  failure TEXT NOT NULL DEFAULT '',
  started_ns INTEGER,
  finished_ns INTEGER,
  sweep_json TEXT NOT NULL DEFAULT '',
  tenants TEXT NOT NULL DEFAULT '',
  tenants_json TEXT NOT NULL DEFAULT 'null',
  UNIQUE (experiment_id, scenario, partition_label, repetition, tenants)
);
INSERT INTO runs_v8 (id, experiment_id, scenario, partition_label, partition_json, repetition, ordinal,
                     workload_cpus, generator_cpus, status, failure, started_ns, finished_ns, sweep_json)
  SELECT id, experiment_id, scenario, partition_label, partition_json, repetition, ordinal,
         workload_cpus, generator_cpus, status, failure, started_ns, finished_ns, sweep_json FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v8 RENAME TO runs;
ALTER TABLE points ADD COLUMN tenants_json TEXT NOT NULL DEFAULT 'null';
)sql",
    // 8 -> 9: batch subjects. A batch point's figures (completions, run times,
    // throughput, CPU time per run) in one JSON column; 'null' for every existing point, all of
    // them a server's.
    R"sql(
ALTER TABLE points ADD COLUMN batch_json TEXT NOT NULL DEFAULT 'null';
)sql",
    // 9 -> 10: databases merged from several hosts (ream merge, campaigns). Each run names the
    // host its workload ran on and how it came to run there (provenance_json: ream's version,
    // the campaign unit, the Slurm job; 'null' for a run of `ream run`); every environment an
    // experiment's runs were measured in is kept in host_environments, `environment` keeping
    // one of them as before. Existing runs ran on their experiment's one recorded host.
    R"sql(
ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN provenance_json TEXT NOT NULL DEFAULT 'null';
CREATE TABLE host_environments (
  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  hostname TEXT NOT NULL,
  recorded_ns INTEGER NOT NULL,
  ream_version TEXT NOT NULL,
  ream_commit TEXT NOT NULL,
  kernel TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  topology_json TEXT NOT NULL,
  doctor_json TEXT NOT NULL,
  timing_json TEXT NOT NULL DEFAULT 'null',
  PRIMARY KEY (experiment_id, hostname, recorded_ns)
);
INSERT INTO host_environments (experiment_id, hostname, recorded_ns, ream_version, ream_commit, kernel,
                               cpu_model, topology_json, doctor_json, timing_json)
  SELECT experiment_id, hostname, recorded_ns, ream_version, ream_commit, kernel, cpu_model, topology_json,
         doctor_json, timing_json FROM environment;
UPDATE runs SET host = coalesce((SELECT hostname FROM environment e WHERE e.experiment_id = runs.experiment_id), '');
)sql",
    // 10 -> 11: a manager's decisions (store/manager_records.h): per window of a run, the
    // figures its policy read, its note and the allocation it left; per action, the move, its
    // reason and whether it was applied. Older databases have no manager, so nothing to fill.
    R"sql(
CREATE TABLE manager_windows (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  window_index INTEGER NOT NULL,
  end_s REAL NOT NULL,
  valid INTEGER NOT NULL,
  invalid_because TEXT NOT NULL DEFAULT '',
  tail_us REAL,
  target_us REAL,
  slack REAL,
  load_qps REAL,
  neighbours_json TEXT NOT NULL DEFAULT '{}',
  allocation_json TEXT NOT NULL DEFAULT '{}',
  note TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, window_index)
);
CREATE TABLE manager_actions (
  run_id INTEGER NOT NULL,
  window_index INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  tenant TEXT NOT NULL,
  knob TEXT NOT NULL,
  from_level REAL NOT NULL,
  to_level REAL NOT NULL,
  from_text TEXT NOT NULL,
  to_text TEXT NOT NULL,
  reason TEXT NOT NULL,
  failure TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, window_index, seq),
  FOREIGN KEY (run_id, window_index) REFERENCES manager_windows(run_id, window_index) ON DELETE CASCADE
);
)sql",
    // 11 -> 12: points measured until known. Which check ended the point and the QoS
    // percentile's interval then; NULL for every existing point, all of fixed duration.
    R"sql(
ALTER TABLE points ADD COLUMN until_decided TEXT;
ALTER TABLE points ADD COLUMN until_interval REAL;
)sql",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kStoreSchemaVersion);

}  // namespace ream
