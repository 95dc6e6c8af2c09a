// What a co-runner measured over a window, and a shared run's description of its co-runners:
// the records the experiment writes (experiment/corunners.h CorunnerSet::Figures, Describe) and
// the analysis reads, with their one JSON mapping in the store (points.tenants_json,
// runs.tenants_json). The comments on the fields below are the stored contract: each names its
// JSON key, and docs/colocation.md ("What is stored") shows the documents.
//
//   PointRecord p;  p.corunners = set.Figures();                  // experiment, each point
//   nlohmann::json j = TenantFiguresToJson(p.corunners);          // store, on insert
//   REAM_ASSIGN_OR_RETURN(p.corunners, TenantFiguresFromJson(j, "point 12"));  // on read
//
// Decoding is strict about types and lenient about absence: a key that is missing (or null)
// takes the default its field states, which is what a writer that did not measure it means; a
// key of the wrong type is a Corrupt error naming the record and the key, since a figure read
// as something else would be a wrong figure, not a missing one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/status.h"

namespace ream {

// The unit a co-runner's throughput is counted in, from what it does: a job that completes
// (a batch program, a command that `restart` repeats) counts its completions, a server under a
// load of its own the requests it served, and anything else (an antagonist that never ends) the
// CPU it obtained, CPU-seconds per second: the share of a CPU it got is the work it could do.
enum class ThroughputUnit { kCpuSecondsPerSecond, kCompletionsPerSecond, kQps };
// "CPU-s/s", "completions/s", "QPS": the names the analysis's JSON and tables print.
std::string ToString(ThroughputUnit u);

// A co-runner's own load ([corunner.load]) over a window, as its generator measured it. JSON:
// the object "load" of TenantFigures.
struct TenantLoadFigures {
  // What was asked for: "target_qps" (requests per second), "connections", "protocol".
  double target_qps = 0;
  int64_t connections = 1;
  std::string protocol;
  // Why the load measured nothing ("unavailable": its generator could not start, died, or the
  // co-runner was not running); "" when it measured, and only then are the figures below
  // written (each null when the generator did not report it).
  std::string unavailable;
  std::optional<double> achieved_qps;        // "achieved_qps": issued per second
  std::optional<double> throughput_qps;      // "throughput_qps": answered per second
  std::optional<double> timely_ratio;        // "timely_ratio"
  std::optional<bool> valid;                 // "valid": its generator's verdict (DESIGN.md's rule)
  std::vector<std::string> invalid_reasons;  // "invalid_reasons": [] when valid
  std::optional<int64_t> errors;             // "errors"
  // "latency_us": {"mean", "p50", "p95", "p99"}, sojourn from the scheduled time, µs.
  std::optional<double> latency_mean_us, latency_p50_us, latency_p95_us, latency_p99_us;

  bool measured() const { return unavailable.empty(); }

  nlohmann::json ToJson() const;
  // Corrupt naming `what` and the key when a key has the wrong type.
  static Result<TenantLoadFigures> FromJson(const nlohmann::json& j, const std::string& what);
  bool operator==(const TenantLoadFigures&) const = default;
};

// What one co-runner measured over one window (a point of the subject, or the window of the
// co-runners alone). JSON: one object with the keys named below.
struct TenantFigures {
  double window_s = 0;  // "window_s": the window's length, seconds

  // Its consumption, from the monitors that sampled its sandbox over the window, in the units
  // and with the meanings of the subject's point columns (store.h PointRecord). Each is null
  // when not measured, and `unavailable` then holds why, under the column's name, as the monitor
  // gave it ("mem_bw_bps": "resctrl: no MBM on this CPU"); "monitor": why no monitor sampled
  // the co-runner at all (it was not running, or its monitor could not start).
  std::optional<double> cpu_util;                // "cpu_util": busy fraction of its CPUs, 0..1
  std::optional<double> cpu_s;                   // "cpu_s": CPU-seconds it used in the window
  std::optional<double> mem_bytes;               // "mem_bytes": memory in use (mean)
  std::optional<double> net_rx_bps, net_tx_bps;  // "net_rx_bps", "net_tx_bps": bytes/s
  std::optional<double> disk_read_bps, disk_write_bps;  // "disk_read_bps", "disk_write_bps"
  std::optional<double> mem_bw_bps;                     // "mem_bw_bps": memory bandwidth, bytes/s
  std::optional<double> llc_occupancy_bytes;            // "llc_occupancy_bytes"
  std::map<std::string, std::string> unavailable;       // "unavailable": {column: why}

  // Its work (a program that completes; `ream corun` reports each completion).
  int64_t completions = 0;                // "completions" within the window
  std::optional<double> run_time_mean_s;  // "run_time_mean_s": null without a completion
  // Throughput in two of its units (ThroughputUnit), each null when the window has no length
  // or, for the CPU share, no CPU figure: "cpu_share" = cpu_s / window_s (CPU-seconds per
  // second), "completions_per_s" = completions / window_s.
  std::optional<double> cpu_share;
  std::optional<double> completions_per_s;

  // How it ended during the window ("ended": "killed by signal 9 (SIGKILL)", "was not
  // running"); "" when it ran throughout (a completion that `restart` repeated is no end).
  std::string ended;

  // "load": its own load's figures, for a co-runner with [corunner.load]; absent otherwise.
  std::optional<TenantLoadFigures> load;

  // Its throughput over the window in `unit`: cpu_share, completions_per_s, or the requests its
  // load was answered per second. nullopt when that was not measured (no load, no CPU figure).
  std::optional<double> Throughput(ThroughputUnit unit) const;
  // The tail (p95, µs) its own load measured, when its generator judged the window valid.
  std::optional<double> ValidLoadP95Us() const;

  nlohmann::json ToJson() const;
  // Corrupt naming `what` and the key when a key has the wrong type or `j` is not an object.
  static Result<TenantFigures> FromJson(const nlohmann::json& j, const std::string& what);
  bool operator==(const TenantFigures&) const = default;
};

// Every co-runner's figures over one window, by name: a point's (PointRecord::corunners).
// JSON: {"NAME": TenantFigures, ...}; {} or null when the subject ran alone.
using TenantFiguresByName = std::map<std::string, TenantFigures>;
nlohmann::json TenantFiguresToJson(const TenantFiguresByName& all);
// `what` names the record in errors ("point 12"). Null decodes to an empty map.
Result<TenantFiguresByName> TenantFiguresFromJson(const nlohmann::json& j, const std::string& what);

// A co-runner's own load as the spec asked for it ([corunner.load]). JSON: {"qps",
// "connections", "protocol"}.
struct CorunnerLoadRecord {
  double qps = 0;
  int64_t connections = 1;
  std::string protocol;
  bool operator==(const CorunnerLoadRecord&) const = default;
};

// One co-runner of a shared run as it ran: its spec's kind and placement, the CPUs and sandbox
// it got, and its figures alone. JSON: one element of the run's "corunners" list, with the keys
// named below ("alone" is kept beside the list, see CorunnerSetRecord).
struct CorunnerRecord {
  std::string name;               // "name"
  std::vector<std::string> argv;  // "argv": what its sandbox ran (`ream corun ... -- ...`)
  std::string cpus;               // "cpus": as the spec gave them ("subject", "others", "0-1")
  std::string cpu_list;           // "cpu_list": the CPUs that resolved to ("0")
  std::string sched;              // "sched": "normal", "batch" or "idle"
  bool restart = false;           // "restart": run again after each completion
  nlohmann::json partition = nlohmann::json::object();  // "partition": its knobs, as the spec's
  std::string partition_label;                          // "partition_label"
  std::string sandbox;  // "sandbox": its sandbox's name ("" : it never started)
  // "place": where it ran, as the spec names it ("process", "node", "vm", "ssh:HOST"); "kind":
  // its tenant kind's key ("command", "builtin", "batch", "pressure"); "throughput_unit": the unit
  // its kind counts its throughput in (ToString(ThroughputUnit)) for how it was run. Each "" in
  // records written before they were (then: a process on this host, the kind its keys say).
  std::string place, kind, throughput_unit;
  // Its kind, one of these set (each key written only when set): "batch" (a program of ream's
  // batch suite), "pressure" with "intensity" (a source of interference at P %), "builtin"
  // (one of ream's servers); none: a command (its argv says which).
  std::string batch, pressure, builtin;
  double intensity = 0;
  std::optional<CorunnerLoadRecord> load;  // "load": its [corunner.load], absent without one
  // "interference_load": the subject's fixed load of its sensitivity curve, for a co-runner that
  // [interference] generated (0: the analysis chooses); absent for a co-runner of the spec's.
  std::optional<double> interference_load;
  // Its figures over the window measured with the subject not running; nullopt when that
  // window was not measured ([colocation] alone = false, or the run was cut short first).
  std::optional<TenantFigures> alone;

  bool operator==(const CorunnerRecord&) const = default;
};

// A shared run's co-runners (RunRecord::corunners). JSON: {"corunners": [CorunnerRecord...],
// "alone": {"NAME": TenantFigures, ...}, "alone_invalid": ["co-runner 'x' ... during the
// window", ...]}; "alone" and "alone_invalid" only once the co-runners were measured alone.
struct CorunnerSetRecord {
  std::vector<CorunnerRecord> corunners;
  // Whether the alone window was measured (then each co-runner's `alone` is set), and why it
  // is not to be trusted: the co-runners that ended during it.
  bool alone_measured = false;
  std::vector<std::string> alone_invalid;

  // Stores `alone` as each co-runner's figures alone (by name) and marks the window measured.
  void SetAlone(const TenantFiguresByName& alone, std::vector<std::string> invalid);
  const CorunnerRecord* Find(const std::string& name) const;

  nlohmann::json ToJson() const;
  // Corrupt naming `what` and the key when a key has the wrong type, `j` is not an object, or
  // "alone" names a co-runner the list does not hold.
  static Result<CorunnerSetRecord> FromJson(const nlohmann::json& j, const std::string& what);
  bool operator==(const CorunnerSetRecord&) const = default;
};

}  // namespace ream
