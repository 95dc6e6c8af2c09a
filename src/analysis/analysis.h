// Turns a stored experiment into the first seed's findings, for any workload: the QoS
// target (LQoS), capacity per scenario × partition, scaling with threads and SMT, the
// workload's category with its evidence, sensitivity to resource partitions, the cheapest
// allocation for a target load, and the second seed's queueing-model comparison.
// Definitions: docs/glossary.md and docs/spec.md. Every figure that cannot be computed says why.
#pragma once

#include "analysis/batch.h"
#include "analysis/colocation.h"
#include "analysis/interference.h"

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/across_runs.h"
#include "analysis/manager_compare.h"
#include "analysis/bounded.h"
#include "analysis/data.h"
#include "analysis/queueing.h"
#include "partition/knobs.h"
#include "platform/status.h"

namespace ream::analysis {

// Thresholds of the category classifier (DESIGN.md "Categories"). They are the seed's
// qualitative descriptions made concrete; the classifier prints each with the measured
// value it was compared with.
// Network / streaming: transmit bandwidth dominant.
inline constexpr double kStreamingTxBytesPerSec = 50e6;   // peak tx ≥ 50 MB/s, or
inline constexpr double kStreamingTxBytesPerReq = 64e3;   // ≥ 64 kB sent per request
inline constexpr double kStreamingTxOverRx = 10;          // and tx ≥ 10 × rx
// Disk-bound: disk bandwidth grows with load and is large per request, CPU moderate.
inline constexpr double kDiskBytesPerReq = 4096;          // ≥ 4 KiB of disk I/O per request
inline constexpr double kDiskLoadCorrelation = 0.8;       // disk bandwidth vs QPS, Pearson r
inline constexpr double kDiskBoundMaxCpu = 0.6;           // CPU utilization stays below 60 %
// CPU-intensive: CPU saturates at low QPS with latency in seconds.
inline constexpr double kCpuIntensiveLatencyS = 0.5;      // low-load p95 ≥ 0.5 s, or
inline constexpr double kCpuIntensiveMaxQps = 10;         // capacity below 10 QPS ...
inline constexpr double kCpuSaturated = 0.9;              // ... with CPU reaching 90 %
// Fast / latency-critical: sub-ms to few-ms latency, thousands of QPS, CPU follows load.
inline constexpr double kFastMaxLatencyS = 0.010;         // low-load p95 ≤ 10 ms
// The QPS line is where the seed's disk-bound category ends ("QPS: medium, ranging from 10 to
// 250 before QoS violation"): its own fast applications sustain fewer than its "thousands" on
// one thread (img-dnn ~600 QPS under QoS, xapian ~500: Sections 5.3–5.4), and at 1000 a
// one-thread server above ~0.7 ms of service (dnn or xapian at the seed's sizes) could never be
// called fast (docs/workloads.md, "The classifier and these two workloads").
inline constexpr double kFastMinQps = 250;                // > 250 QPS measured under QoS
inline constexpr double kFastCpuCorrelation = 0.9;        // CPU utilization vs QPS, Pearson r
// Session load's QoS (a sweep on the sessions axis): a point meets it when at most this share
// of its chunks missed their play-out deadline (arrived after their request + their play
// time, or never). 1 %: a viewer sees about one stall per hundred chunks, the margin a
// streaming service plans with; the capacity is the most sessions measured that meet it.
inline constexpr double kSessionMaxDeadlineMiss = 0.01;

// Sensitivity: a partition that lowers QPS under QoS by more than this fraction matters.
inline constexpr double kSensitivityThreshold = 0.10;

struct AnalysisOptions {
  std::optional<double> target_qps;   // for the recommendation
  double confidence = 0.95;           // of every interval
  // A zero-work baseline experiment (e.g. `ream serve synthetic --service const:0` swept
  // over the same rates): the model's delay center at each load. Optional.
  const ExperimentData* baseline = nullptr;
  // The knobs and the resources they limit (sensitivity, cost of an allocation); nullptr:
  // BuiltinKnobs(). It must outlive the call.
  const KnobTable* knobs = nullptr;
  // A reporter experiment (`--reporter`): its subject's pressure scores of its co-runner sets
  // predict this subject beside them, through this subject's sensitivity curves
  // (interference.h PredictInterference). Optional.
  const ExperimentData* reporter = nullptr;
  // With a reporter: other subjects of the database (experiments with sensitivity curves of
  // their own), each a row of the co-location matrix predicted beside the reporter's sets.
  std::vector<const ExperimentData*> subjects;
};

struct QosTarget {
  std::optional<double> target_us;
  std::string method;  // how the target was set, in words
  std::optional<double> service_time_us;  // mean service time at the reference utilization
  // The seed's m × S when it lay below the lowest tail measured (no load could meet it), and
  // target_us was moved above that floor (qos.cc says how); unset otherwise.
  std::optional<double> seed_target_us;
  std::string service_method;  // "server-reported" or "service demand law S = U·c/X"
  std::string reference;       // the scenario × partition it was derived from
  std::string unavailable;     // why there is no target
  std::string note;
  // Session load: target_us is a chunk's play-out deadline, and a level meets QoS by its
  // deadline-miss ratio (kSessionMaxDeadlineMiss), not by the percentile.
  bool by_deadline_miss = false;
};

// One load level of a scenario × partition, merged over repetitions.
struct PointAnalysis {
  double target_load = 0;  // the level on the experiment's load axis
  double achieved_qps = 0;
  double throughput_qps = 0;
  int repetitions = 0;  // the measurements its figures come from (repetitions, confirmations)
  bool valid = false;
  bool failed = false;
  std::vector<std::string> reasons;  // why invalid or failed
  // Measurements of a valid point that were invalid themselves (the generator could not keep
  // its schedule): failed measurements, not answers, so their figures are left out.
  int repetitions_left_out = 0;
  std::vector<std::string> left_out_reasons;
  double timely_ratio = 0;
  double mean_us = 0, p50_us = 0, p95_us = 0, p99_us = 0, p999_us = 0;
  double tail_us = 0;  // the QoS percentile
  std::optional<double> tail_low_us, tail_high_us;  // its confidence interval
  std::string tail_ci_method;
  std::optional<bool> meets_qos;  // nullopt without a target
  std::optional<double> service_us;  // server-reported, else demand law (when CPU measured)
  std::string service_method;
  Metric cpu_util, net_rx_bps, net_tx_bps, disk_bps, membw_bps, llc_bytes, memory_bytes;
  std::string membw_method;  // how membw_bps was obtained (data.h), "" when not said
  int clients = 0;
  // How the LogGP knobs were applied and what their calibration measured (one measurement's;
  // the calibration is per run); null when no knob was set.
  nlohmann::json network;
  // The generator's timeliness (medians / means over the measurements; see data.h).
  std::optional<double> lateness_p50_us, lateness_p99_us;
  std::map<std::string, double> late_shares;
  std::string keep_awake_cpus;
  std::string keep_awake_workload;  // data.h
  std::string keep_awake_how;       // data.h
  // Connections the server closed, summed over the measurements the figures come from (counts,
  // not rates: a median would hide the one repetition whose connections were closed); nullopt
  // when none of them reported it.
  std::optional<int64_t> reconnections, lost_requests;
  // Measured until known (data.h): the measurements' time summed, each one's deciding check,
  // the widest of their intervals. Unset / empty for points of fixed duration.
  std::optional<double> until_measured_s;
  std::vector<std::string> until_decided;
  std::optional<double> until_interval;
  std::map<std::string, int64_t> lost_reasons;
  // Session load: the median of the measurements' figures (deadline-miss ratio, chunk rate,
  // bytes/s); a sessions point meets QoS when valid and its miss ratio is at most
  // kSessionMaxDeadlineMiss.
  std::optional<SessionPoint> session;
  // Each client node's figures, for every measurement the point's figures come from (their
  // `measurement` tells them apart); empty when the local generator drove the load.
  std::vector<AgentFigures> agents;
};

// The sweep's capacity on its load axis: for a qps axis, the seed's "max QPS under QoS"; the
// figures below are in the axis's unit (QPS, sessions) whatever their names say.
struct Capacity {
  std::optional<double> qps;  // max load under QoS (a lower bound when lower_bound)
  bool lower_bound = false;   // every valid point met QoS: capacity is at least qps
  std::optional<double> upper_bound;  // when even the lowest valid load missed QoS
  // The interval: at least the bracket [last_pass_qps, first_fail_qps] (nothing measured says
  // where between two levels the curve crosses), widened by the percentile's confidence band.
  std::optional<double> low, high;
  std::optional<double> last_pass_qps, first_fail_qps;  // the interpolation bracket
  std::string status;           // how it was obtained, or why it could not be
  std::string interval_method;  // how low and high were made, in words ("" without them)
};

struct GroupAnalysis {
  std::string key;  // "1-ST / unlimited"
  std::string scenario;
  int threads = 1;
  int physical_cores = 1;
  Partition partition;
  int repetitions = 0;
  bool failed = false;
  std::string failure;
  std::vector<PointAnalysis> points;  // ascending target QPS
  int valid_points = 0;
  int invalid_points = 0;
  Capacity capacity;
  std::optional<double> qps_at_20, qps_at_50;  // QPS at 20 % / 50 % CPU utilization
  std::string qps_at_20_note, qps_at_50_note;
  std::optional<double> saturation_qps;
  std::string saturation_note;
  double min_qps = 0, max_qps = 0;  // the sweep's range (Table 1)
  int min_clients = 0, max_clients = 0;
  // How the range was chosen when the sweep chose it (qps = "auto"), as the seed's Table 1
  // states it; "" when the spec listed the levels.
  std::string load_range_note;
  std::optional<ModelComparison> model;
  std::string model_unavailable;
};

// A ratio that may be absent: "not measured" (no such run) or "not available: <reason>".
struct Ratio {
  std::optional<double> value;
  std::string status;
};

struct Scaling {
  Ratio capacity_2st, capacity_2smt;  // 2-ST / 1-ST and 2-SMT / 1-ST of QPS under QoS
  Ratio qps20_2st, qps20_2smt;        // ... of QPS at 20 % utilization
  Ratio qps50_2st, qps50_2smt;        // ... of QPS at 50 % utilization
};

struct Evidence {
  std::string category;   // which category's rule this is
  std::string name;       // what was measured
  std::optional<double> value;
  std::string unit;
  std::string rule;       // the threshold, in words
  bool holds = false;
  std::string note;       // e.g. why the value is unavailable
};

struct Category {
  std::string name;  // "cpu-intensive", "disk-bound", "fast", "network-streaming", "unclassified"
  std::string explanation;
  std::vector<Evidence> evidence;
};

struct SensitivityPoint {
  std::string value;  // the knob's setting ("unlimited", "4 ways", ...)
  std::string group_key;
  std::optional<double> capacity_qps;
  bool lower_bound = false;
  // capacity / reference capacity − 1: a bound where either capacity is one, withheld where
  // they bound it from opposite sides.
  Bounded relative_change;
  // The mean response time at the sensitivity's base load (the reference's lowest valid load,
  // interpolated on this setting's curve), µs; nullopt with the reason when it lies outside
  // the setting's valid points.
  std::optional<double> base_mean_us;
  std::string base_note;
  std::optional<double> saturation_qps;  // where the setting saturated (GroupAnalysis's)
};

struct Sensitivity {
  std::string resource;  // "llc_ways", "mem_bw", "disk_bw", "net_bw", "cpu_quota", ...
  std::string scenario;
  double base_load = 0;  // where each point's base_mean_us is read (0: none)
  std::string status;    // "sensitive", "insensitive", "not measured", "undetermined"
  std::string explanation;
  std::vector<SensitivityPoint> points;
};

// One setting of a LogGP knob: the second seed's §5.3.3 prediction from the reference
// setting's model, beside what was measured at that setting.
struct PredictedSetting {
  std::string value;       // the setting ("20 us")
  std::string group_key;
  double amount_s = 0;     // the knob's amount: seconds (L, o, g) or seconds per byte (G)
  std::optional<double> predicted_base_us, measured_base_us;
  std::optional<double> predicted_slope_us_per_qps, measured_slope_us_per_qps;
  std::optional<double> predicted_saturation_qps, measured_saturation_qps;
  std::string measured_note;   // why a measured figure is missing, or that it is a bound
  std::string predicted_note;  // what the prediction assumed
};

struct PredictedSensitivity {
  std::string knob;       // "net_latency", "net_overhead", "net_gap", "net_per_byte"
  std::string parameter;  // "L", "o", "g", "G"
  std::string scenario;
  std::string reference;  // the group the predictions start from (the smallest setting)
  double base_load_qps = 0;  // where base response times are read
  std::string rule;       // the prediction, in words
  std::vector<PredictedSetting> settings;  // the reference first
  std::string unavailable;  // why nothing could be predicted
};

struct Recommendation {
  double target_qps = 0;
  std::optional<std::string> group_key;  // nullopt: no measured allocation meets it
  std::string explanation;
  std::vector<std::string> candidates;   // every group that meets it, cheapest first
};

struct ExperimentAnalysis {
  std::string experiment;
  std::string workload;
  LoadAxis load_axis = LoadAxis::kQps;  // what the sweeps varied; every load is in its unit
  double percentile = 95;
  double confidence = 0.95;
  QosTarget qos;
  std::vector<GroupAnalysis> groups;
  Scaling scaling;
  Category category;
  std::vector<Sensitivity> sensitivity;
  // Per LogGP knob varied by the experiment's partitions (second seed §5.3.3).
  std::vector<PredictedSensitivity> predicted_sensitivity;
  std::optional<Recommendation> recommendation;
  std::vector<std::string> warnings;
  // Scenarios of the spec this machine could not run, with why (ExperimentData's).
  std::map<std::string, std::string> skipped_scenarios;
  // Shared servers: the subject beside each co-runner set against it alone (colocation.h);
  // empty when it ran alone only. Every other figure above is the subject's alone.
  std::vector<ColocationGroup> colocation;
  // A batch subject's findings (load axis copies): then the server's sections are empty.
  std::optional<BatchAnalysis> batch;
  // Several runs of one spec pooled (`ream analyze --with`): each run's figures beside the pool's.
  AcrossRuns across_runs;
  // The runs' windows by mode (alone, each static set, the managed set) under one schedule: which
  // met QoS, what the neighbours got, the Pareto front (manager_compare.h); empty without windows.
  ManagerComparison manager;
  std::string colocation_note;  // what the comparison rests on, or why there is none
  // The sensitivity profile: per source of interference among the co-runner sets, the curve,
  // the tolerated intensity and the verdict (interference.h); empty without such sets.
  std::vector<InterferenceProfile> interference;
  // The pressure each other co-runner set causes, per source of `interference`, with the
  // subject as the reporter (interference.h); empty without both.
  std::vector<PressureProfile> pressure;
  // With a reporter experiment: the subject beside each set the reporter scored, predicted
  // (and measured where this experiment ran the set too); `reporter` names the experiment, or
  // reporter_note says why there are no predictions.
  std::vector<InterferencePrediction> predictions;
  PredictionCheck prediction_check;  // the predictions against the measured pairs
  std::string reporter, reporter_note;
  // Subjects (this one, and the reporter) × co-runner sets, predicted and measured, with each
  // workload's tolerated and caused intensities (interference.h); no sets without co-runners.
  ColocationMatrix matrix;

  const GroupAnalysis* Find(const std::string& key) const;
};

// Analyzes one experiment. InvalidArgument when it has no runs or no valid point at all
// (the message says how many points there were and why they were invalid). With shared runs
// (RunData::tenants), the findings are the subject's alone and `colocation` compares each set
// with them. The table of steps (steps.h) says what runs, in which order.
Result<ExperimentAnalysis> Analyze(const ExperimentData& data, const AnalysisOptions& options);

// Analyze over every run of `data` as one subject, whatever its tenants (the building block of
// Analyze; colocation.cc applies it to each co-runner set's runs).
Result<ExperimentAnalysis> AnalyzeSweeps(const ExperimentData& data, const AnalysisOptions& options);

// The co-location section: each set's runs analyzed with the alone LQoS, against `alone`
// (colocation.cc).
std::vector<ColocationGroup> AnalyzeColocation(const ExperimentData& data, const ExperimentAnalysis& alone,
                                               const AnalysisOptions& options);

// The analysis as JSON: every figure, with null and a reason where it is unavailable.
nlohmann::json ToJson(const ExperimentAnalysis& a);

// "1-ST / unlimited"
std::string GroupKey(const std::string& scenario, const Partition& p);

}  // namespace ream::analysis
