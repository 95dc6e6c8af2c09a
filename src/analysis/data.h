// The analysis's own view of a stored experiment: runs per scenario × partition ×
// repetition, each a sweep of load points with what the client measured and what the
// server consumed. The store (or a test) fills these structs; the analysis never reads
// SQLite itself, so it is tested on known inputs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/histogram.h"
#include "load/load_axis.h"
#include "store/manager_records.h"
#include "store/tenant_figures.h"

namespace ream::analysis {

// A measured quantity that this host may not be able to measure. Either a value or the
// reason it is missing; never a silent zero.
struct Metric {
  std::optional<double> value;
  std::string unavailable;  // why there is no value (empty when there is one)

  static Metric Of(double v) { return {v, ""}; }
  static Metric Unavailable(std::string reason) { return {std::nullopt, std::move(reason)}; }
  bool has() const { return value.has_value(); }
};

// What session load measured at a point (load/session_load.h, the generator JSON's
// "sessions"): the chunks of the window and the share that missed their play-out deadline.
struct SessionPoint {
  double sessions = 0;
  double chunk_play_ms = 0;          // a chunk's play time: its deadline after its request
  double chunks_requested = 0, chunks_completed = 0;
  double deadline_miss_ratio = 0;    // the workload's QoS figure
  double throughput_bytes_per_s = 0;  // chunk bytes received per second
};

// One client node's part of a point (the generator document's "agents", stored when client
// nodes drove it; docs/nodes.md): what it was asked for and issued, how timely, its lateness
// and latency, its own verdict, and its clock against the coordinator's. A point the local
// generator drove has none.
struct AgentFigures {
  std::string name;
  double target_qps = 0, achieved_qps = 0, timely_ratio = 0;
  std::optional<double> lateness_p99_us, latency_p99_us;
  std::optional<bool> valid;  // nullopt: the agent returned no result
  std::string failure;        // why it returned none ("" when it did)
  std::vector<std::string> invalid_reasons;
  // Its monotonic clock minus the coordinator's and the round trip of the sample that said so
  // (the shortest of `clock_samples`); nullopt when no sample was had.
  std::optional<double> clock_offset_us, clock_rtt_us;
  int clock_samples = 0;
  int measurement = 1;  // which of a level's merged measurements it belongs to, from 1
};

// One load level of one run.
struct PointData {
  int64_t id = 0;           // the store's point id (0 in tests)
  double target_load = 0;   // offered load asked for, on the experiment's load axis
  double achieved_qps = 0;  // issued per second in the measured window
  double throughput_qps = 0;  // completed per second
  bool valid = false;       // timely and rate thresholds met (DESIGN.md)
  bool failed = false;      // the run of this point failed (workload died, generator error)
  std::vector<std::string> invalid_reasons;  // why not valid / why failed
  double timely_ratio = 0;
  uint64_t completed = 0;
  uint64_t errors = 0;
  // Client-perceived sojourn latency from the scheduled time, microseconds.
  double latency_mean_us = 0;
  double p50_us = 0, p95_us = 0, p99_us = 0, p999_us = 0;
  // The merged sojourn histogram in nanoseconds, when stored; percentile confidence
  // intervals come from it.
  std::optional<Histogram> latency_hist_ns;
  // Mean service time reported by the server (ream's protocol), microseconds.
  std::optional<double> service_mean_us;
  // Server side, over the point's measured window.
  Metric cpu_util;        // busy fraction of the allotted CPUs, 0..1
  Metric net_rx_bps;      // bytes per second received by the server
  Metric net_tx_bps;      // bytes per second transmitted by the server
  Metric disk_read_bps;   // bytes per second
  Metric disk_write_bps;  // bytes per second
  Metric membw_bps;       // memory bandwidth, bytes per second
  // How membw_bps was obtained (monitor kMemBwMeasured "resctrl MBM", or kMemBwEstimate
  // "estimate: LLC misses × line size (perf)"); "" when not said (stored before it was).
  std::string membw_method;
  Metric llc_bytes;       // LLC occupancy, bytes
  Metric memory_bytes;    // resident memory in use
  int clients = 0;        // client connections used for this point
  // The LogGP knobs' path (store NetworkPath::ToJson: methods, calibration), null when none.
  nlohmann::json network;
  // The generator's own timeliness: its lateness percentiles (µs), why its late requests were
  // late (cause -> share of the issued requests, load/lateness.h; the shares add up to
  // 1 - timely_ratio), and the CPUs kept awake during the point ("" : none).
  std::optional<double> lateness_p50_us, lateness_p99_us;
  std::map<std::string, double> late_shares;
  std::string keep_awake_cpus;
  // What was done for the workload's CPUs under keep-awake ("kept awake by ..." or why not;
  // "" : keep-awake off, or a point stored before it was said).
  std::string keep_awake_workload;
  // How the generator's CPUs were kept awake (`ream load`'s keep_awake_how: the kernel's idle
  // polling or pollers; "" : off, or a point stored before it was said).
  std::string keep_awake_how;
  // Connections the server closed (store PointRecord): times the generator reconnected over
  // the run, and the measured requests lost with a connection, in all and by reason. nullopt /
  // empty when the generator did not report them (points stored before it reconnected).
  std::optional<int64_t> reconnections, lost_requests;
  // Measured until known (store PointRecord, schema 12): how long the point measured, which
  // check ended it and why, the QoS percentile's relative interval then. nullopt for a point of
  // fixed duration.
  std::optional<double> until_measured_s;
  std::optional<std::string> until_decided;
  std::optional<double> until_interval;
  std::map<std::string, int64_t> lost_reasons;
  std::optional<SessionPoint> session;  // session load only
  std::vector<AgentFigures> agents;     // client nodes only
  // The generator's latency percentiles from the actual send (its latency_from_send_us: p50,
  // p95, p99, p999 in µs), null when not stored. A lower bound of the tail from the schedule:
  // an invalid point whose tail from the send already exceeds LQoS misses QoS whatever its
  // lateness (colocation.cc uses it).
  nlohmann::json latency_from_send_us;
  // A shared run's point: each co-runner's figures over the window, by name (store
  // PointRecord::corunners, store/tenant_figures.h); empty when the subject ran alone.
  TenantFiguresByName corunners;
  // A batch subject's figures (store PointRecord::batch; experiment/batch_point.h); null for
  // a server's point.
  nlohmann::json batch;
};

// The resource limits a run was given. Absent = not limited.
struct Partition {
  // Resource (partition/knobs.h LimitedResource::name: "llc_ways", "mem_bw", "disk_bw",
  // "net_bw", "cpu_quota", "memory", the LogGP "net_latency", ...) -> the amount it was
  // limited to, in the resource's unit (ways, percent, bytes/s, fraction of the allotted
  // CPUs, bytes, microseconds).
  std::map<std::string, double> limits;
  // Limits without an amount (IOPS limits, ...): knob → value text.
  std::map<std::string, std::string> other;
  std::string label;  // as the spec named it ("llc_ways=4,mem_bw=50%"); empty when unlimited

  bool unlimited() const { return limits.empty() && other.empty(); }
  std::optional<double> Limit(const std::string& resource) const {
    auto it = limits.find(resource);
    return it == limits.end() ? std::nullopt : std::optional<double>(it->second);
  }
  std::string Label() const;  // label, or a generated one, "unlimited" when none
};

// One sweep: a scenario (placement) × partition × repetition.
struct RunData {
  int64_t id = 0;
  std::string scenario;  // "1-ST", "2-ST", "2-SMT", "4-ST", ...
  int threads = 1;       // server threads = allotted logical CPUs
  int physical_cores = 1;  // distinct physical cores among them
  std::vector<int> cpus;   // the logical CPUs, when known
  Partition partition;
  int repetition = 0;
  bool failed = false;     // the run could not be carried out at all
  std::string failure;     // why (e.g. "2-SMT not available: no SMT siblings")
  // In measurement order. A sweep may hold several points at one load: invalid attempts and
  // the re-measurement that decided it (sweep.remeasure_invalid).
  std::vector<PointData> points;
  // How the sweep chose this run's levels when it chose them itself (qps = "auto"): the
  // probes' findings; "" when the spec listed them.
  std::string load_range_note;
  // The co-runner set beside the subject ("" alone; names joined by "+"), and its co-runners as
  // they ran, each with its figures alone (store RunRecord::corunners; empty alone).
  std::string corunner_set;
  CorunnerSetRecord corunners;
  // Its windows under a load schedule or a manager (store/manager_records.h), in order; empty
  // for a run that reported none.
  std::vector<ManagerWindowRecord> windows;
  // The experiment it was stored under when several runs of one spec are pooled
  // (across_runs.h PoolRuns); "" otherwise.
  std::string source;
};

// How QoS is decided (from the spec).
struct QosRule {
  double percentile = 95;  // the tail percentile compared against the target
  std::optional<double> fixed_target_us;  // overrides the 5 × service time rule
  double service_multiple = 5;   // LQoS = multiple × mean service time ...
  double at_utilization = 0.20;  // ... at this CPU utilization
};

// The spec's [model] (spec/spec.h ModelSpec), as stored with the experiment; the
// defaults when it had none.
struct ModelParams {
  double messages_per_op = 2;                  // k in S = S0 + k·o
  double range_low = 0.10, range_high = 0.70;  // the regression's range, utilization fractions
  bool range_given = false;                    // set by [model] range
  std::optional<double> service_scv;           // SCV of the server's work; nullopt: unknown
  std::string service_scv_source;              // where it came from
};

struct ExperimentData {
  int64_t id = 0;
  std::string name;
  std::string workload;  // "ream serve kv --records 100000", "memcached", ...
  std::string protocol;
  std::string created;   // timestamp text as stored
  std::string status;    // "complete", "interrupted", ... (StatusName of the stored status)
  LoadAxis load_axis = LoadAxis::kQps;  // what the sweeps varied: QPS or sessions
  QosRule qos;
  double timely_threshold = 0.975;
  double rate_tolerance = 0.02;
  nlohmann::json environment;  // kernel, CPU model, topology, doctor snapshot, ream version
  std::string spec_text;
  ModelParams model;
  // [manager] peak_qps: the subject's capacity at QoS as the spec gave it (0: not given).
  double manager_peak_qps = 0;
  std::vector<RunData> runs;
  // Scenarios of the spec this machine could not run (stored as skipped runs), with why:
  // "2-SMT" -> "placement '2-SMT' needs SMT siblings ...".
  std::map<std::string, std::string> skipped_scenarios;
  // The experiments pooled into this one, first this one's own (across_runs.h); empty for one.
  std::vector<std::string> pooled;
};

}  // namespace ream::analysis
