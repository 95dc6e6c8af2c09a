// The experiment spec: a TOML file naming the workload, the load, the sweep, the scenarios,
// the partitions, the QoS rule and the repetitions. Parsed once at the boundary into
// ExperimentSpec with every default filled in (docs/spec.md lists them); unknown keys, wrong
// types and impossible values are errors naming the key and its line.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/arrival.h"
#include "load/key_chooser.h"
#include "load/load_axis.h"
#include "load/schedule.h"
#include "load/until.h"
#include "partition/knobs.h"
#include "platform/platform.h"
#include "platform/status.h"
#include "spec/tenant_kinds.h"

namespace ream {

// How an external command says it is ready: it accepts a connection on its port, or prints a
// line containing ready_line.
enum class ReadyBy { kPort, kLine };
// How often the workload starts: once per scenario × partition sweep, or afresh per level.
enum class RestartEvery { kSweep, kPoint };
// A grid of load levels, or the adaptive search for the QoS knee.
enum class SweepMode { kGrid, kKnee };
// [load] keep_awake: no CPU kept out of idle, the generator's only, or the generator's and the
// workload's.
enum class KeepAwakeMode { kOff, kGenerator, kAll };
// Its canonical JSON, as the spec writes it: false, "generator" or true.
nlohmann::json KeepAwakeJson(KeepAwakeMode k);

// The spec's words for them ("port", "line"; "sweep", "point"; "grid", "knee"), and back
// (nullopt for a word that is not one of them).
std::string ToString(ReadyBy r);
std::string ToString(RestartEvery r);
std::string ToString(SweepMode m);
std::optional<ReadyBy> ReadyByFromString(const std::string& s);
std::optional<RestartEvery> RestartEveryFromString(const std::string& s);
std::optional<SweepMode> SweepModeFromString(const std::string& s);

struct WorkloadSpec {
  // Its tenant kind (spec/tenant_kinds.h): the row whose key it gives, as a co-runner's.
  const TenantKind* kind = nullptr;
  // Exactly one of builtin / command / batch.
  std::string builtin;                // "kv" or "synthetic": runs `ream serve <builtin>`
  std::vector<std::string> args;      // extra arguments for the builtin server
  std::vector<std::string> command;   // any external command; "{port}" is replaced by a free port
  std::string protocol = "ream";      // the client codec, one of ClientCodecNames() (checked)
  int port = 0;                       // external command: the port it listens on (0: "{port}")
  ReadyBy ready = ReadyBy::kPort;     // external command: "port" (accepts) or "line"
  std::string ready_line;             // with ready = "line": a substring of a stdout line
  std::chrono::milliseconds ready_timeout{10000};
  // Server worker threads for a builtin: 0 = one per CPU of the scenario.
  int threads = 0;
  // "sweep": one start per scenario × partition sweep; "point": a fresh start per load level.
  RestartEvery restart = RestartEvery::kSweep;
  // The account the workload runs as (sandbox/sandbox.h: SandboxOptions::user). "" (default):
  // kDefaultWorkloadUser when ream runs as root, without capabilities; "root": ream's own
  // privileges, only when the workload needs them (say why in the spec).
  std::string user;
  // A batch subject: a program of `ream batch --list`, run to completion and again
  // in each of [sweep] copies' concurrent copies over the point's window; each run sized to
  // take about batch_seconds here (batch/batch.h SizeFor).
  std::string batch;
  double batch_seconds = 5;
  int line = 0;  // line of [workload], for messages
};

struct LoadSpec {
  // The texts as written (given to `ream load`, stored) and what they parse into.
  std::string arrival = "exponential";  // exponential | constant
  ArrivalSpec arrival_spec;
  std::string key_dist = "zipf:0.99";   // zipf:THETA | uniform
  KeyDistSpec key_dist_spec;
  int64_t keys = 100000;
  double get_ratio = 0.9;
  // Sizes (load/distribution.h): a whole number, or a distribution's text; a preset
  // (load/presets.h) sets arrival, get_ratio and these unless they are given beside it.
  Distribution value_sizes = FixedDistribution(64);  // value_bytes: sets' values
  Distribution key_sizes = FixedDistribution(16);    // key_bytes
  Distribution multiget = FixedDistribution(1);      // keys per get
  std::string preset;
  int connections = 4;
  int threads = 1;                       // generator threads
  // connections / threads = "auto": the fewest that keep the sweep's top level timely (the
  // seed's "fewest clients that keep >= 97.5 % of requests timely"), found by probes there.
  bool connections_auto = false;
  bool threads_auto = false;
  std::chrono::milliseconds warmup{1000};
  std::chrono::milliseconds duration{5000};
  // Measure each point until its QoS percentile is known (load/until.h) instead of for
  // `duration`: "p95 ±5%", "p99 ±2% max 20s". Unset: every point lasts `duration`.
  std::optional<UntilRule> until;
  // The rate over time (load/schedule.h): steps and ramps, "10000 for 20s, 10000 to 40000 over
  // 10s" (a file's trace is `ream load --schedule`'s only). Set, it is each run's load: its length
  // is `duration` (which the spec then leaves out), its mean the level, and [sweep] is left out.
  std::optional<RateSchedule> schedule;
  // Report each level's measured window in windows of this length as each ends (0: none).
  std::chrono::milliseconds window{0};
  std::chrono::microseconds timely_tolerance{20};
  // After the window: how long the generator waits for outstanding responses (those still
  // missing count as errors). A level ends as soon as every response is in.
  std::chrono::milliseconds response_timeout{2000};
  // protocol "http" only: the path template ("{key}" becomes the key) and the method ("auto":
  // gets as GET, sets as POST; or GET / POST for every request).
  std::string http_path = "/";
  std::string http_method = "auto";
  // How the generator waits between sends: "auto" (spin where each thread has a CPU of its
  // own, else sleep), "sleep" (then spin the last stretch), "spin" (never sleep) or "yield" (as
  // sleep, yielding the CPU on every turn of the spin); see the generator's Wait.
  std::string wait = "auto";
  // How answers are timed: "kernel" (the kernel's arrival stamp of each read), "packet" (of the
  // segment that carried each answer, from a packet socket; LoadOptions::segment_rx_timestamps)
  // or "user" (the clock after the read).
  std::string response_timing = "kernel";
  // Keep the CPUs out of idle for the whole run (platform/keep_awake.h): the kernel's idle
  // polling where the CPUs' idle driver can poll, else a SCHED_IDLE poller on each, the
  // generator's in the generator's process, the workload's in `ream keep-awake` inside the
  // workload's cpu cgroup (SandboxOptions::keep_awake), so no send or response pays a CPU's
  // wake-up. Stored with every point (`keep_awake_cpus`,
  // `keep_awake_workload`). keep_awake = "generator" keeps only the generator's CPUs awake:
  // the sends stop paying the wake-ups of a sleeping generator, and nothing of the workload's
  // changes.
  KeepAwakeMode keep_awake = KeepAwakeMode::kOff;
  bool KeepsGeneratorAwake() const { return keep_awake != KeepAwakeMode::kOff; }
  bool KeepsWorkloadAwake() const { return keep_awake == KeepAwakeMode::kAll; }
  // Session load (sweep axis "sessions", load/session_load.h): chunks per session, bytes per
  // chunk, the video's bitrate in bits/s (0: not given; the sessions axis requires it).
  int64_t session_chunks = 8;
  int64_t chunk_bytes = 262144;
  int64_t bitrate_bps = 0;
  std::string bitrate = "";  // as written ("4mbit")
  // The measurements a grid level gets at most when the host spoiled them (its stalls, slow
  // system calls and late wake-ups made most of the lateness: experiment/sweep.h WhoSpoiled).
  // Each attempt is stored; the first valid one stands. 1: never measure again for the host.
  int attempts = 3;
};

struct SweepSpec {
  SweepMode mode = SweepMode::kGrid;  // "grid" (a list or a range) | "knee"
  LoadAxis axis = LoadAxis::kQps;  // what the levels are (load/load_axis.h): rates or sessions
  // grid: the load levels on the axis, ascending (empty with auto_range): rates from 'qps', or
  // session counts (whole numbers) from 'sessions' on the sessions axis.
  std::vector<double> qps;
  // grid, qps = "auto": short probes find the rates at 20 % and 50 % CPU and saturation
  // (search/load_range.h), and `steps` levels span the 20 % rate to saturation.
  bool auto_range = false;
  int auto_levels = 8;
  double probe_start_qps = 200;                        // the first probe's rate
  std::chrono::milliseconds probe_duration{1000};     // each probe's measured window
  // knee: search [low, high] for the highest load meeting QoS to `precision` (relative).
  double low = 0, high = 0;
  double precision = 0.05;
  int max_points = 16;
  // knee: measure the final bracket's ends again, a third time when the two disagree; an end
  // that turns over re-opens the search (search/knee.h). Costs two points or more.
  bool confirm = true;
  // An invalid point (the generator could not keep its schedule) says nothing about QoS; its
  // load is measured again up to this many times (each attempt a point of its own, counted in
  // a knee's max_points), and the first valid one decides. Default 2 for a knee, 0 for a grid.
  int remeasure_invalid = 2;
  // grid: stop the sweep after this many consecutive points that are invalid or fail
  // (0: never); the load is past saturation and further points only cost time.
  int stop_after_invalid = 0;
  std::string on_failure = "continue";  // a failed point: "continue" | "stop" (the run)
};

// One partition: knob key -> value text as the user wrote it (stored and shown), the line it
// came from, and the value its knob (partition/knobs.h) parsed it into. An empty map is the
// unpartitioned default.
struct PartitionValues {
  struct Parsed {
    const Knob* knob = nullptr;  // in the table ParseSpec was given (it must outlive the spec)
    KnobValue value;
  };
  std::map<std::string, std::string> knobs;
  std::map<std::string, int> lines;
  std::map<std::string, Parsed> values;
  std::string Label() const;  // "default" or "cpu_quota=50%,memory=512M" (sorted)
  nlohmann::json ToJson() const;
  // The values applied to a PartitionSpec (in a node when `node` or a knob needs one). Not
  // validated: PartitionSpec::Validate checks the ranges and the knobs together.
  PartitionSpec ToPartitionSpec(bool node) const;
  // The `ream doctor` row (KnobSupportRow::flag) that says whether `key` is enforceable; ""
  // when none does.
  std::string SupportOf(const std::string& key) const;
};

struct QosSpec {
  double percentile = 95.0;
  std::optional<double> target_us;  // fixed LQoS; unset: 5 × service at 20 % utilization
  double service_multiplier = 5.0;
  double at_utilization = 0.20;
  double min_timely_ratio = 0.975;
  double max_rate_error = 0.02;
  // Which rule decides a point's validity (load/generator.h ValidityRule): "distortion", the
  // default (lateness moves the QoS percentile by < max_distortion of it or < the tolerance,
  // and the sent gaps pass the Anderson–Darling test at the tolerance's scale; chosen on the
  // figures in docs/performance.md, "The validity rule") or "seed" (timely ratio >=
  // min_timely_ratio, the seed's rule exactly).
  std::string validity = "distortion";
  double max_distortion = 0.05;
};

// [sensitivity] (or several [[sensitivity]]): the second seed's sweeps, one knob varied over
// `values` while the other knobs keep the base ([partitions], or unlimited). ParseSpec expands
// it into the experiment's partitions: one per base and value, labelled "net_overhead=5us".
struct SensitivitySpec {
  std::string knob;                 // a [partitions] key of the knob table
  std::vector<std::string> values;  // the texts as written, each parsed by the knob's parser
  int line = 0;                     // of the table, for messages
};

// [sandbox]: where the workload runs. "process" (default): a process in a cgroup of its own
// (sandbox/sandbox.h); "vm": a libvirt/QEMU guest restored from a saved state
// (sandbox/vm_sandbox.h, docs/vm.md), emulated by TCG unless accel = "kvm".
struct SandboxSpec {
  std::string kind = "process";
  std::string accel = "tcg";
  std::string uri = "qemu:///system";  // libvirt's connection
  std::string image;                   // a user's own image directory; "" = ream's
  std::chrono::milliseconds boot_timeout{300000};  // the cold boot to the readiness line
};

// [model]: how `ream analyze` fits the second seed's queueing model (analysis/queueing.h).
struct ModelSpec {
  double messages_per_op = 2;  // k in S = S0 + k·o: a request and a reply
  // The operating range of the regression, as fractions of the allotted CPUs' utilization.
  double range_low = 0.10, range_high = 0.70;
  bool range_given = false;
  // The squared coefficient of variation of the server's work per request (M/G/1's second
  // moment): `service_scv`, else from a builtin's `--service` argument when it names its
  // distribution (exp: 1, const: 0, lognormal: e^σ² − 1, bimodal: from its two points);
  // unset when neither says. `service_scv_source` says which.
  std::optional<double> service_scv;
  std::string service_scv_source;
};

// [nodes]: where the load comes from. Without it, or with no clients, the local
// generator (`ream load` on the generator's CPUs) drives the load, as before.
struct NodesSpec {
  // Client nodes, each "ssh:HOST": an agent (`ream agent`) on HOST reached with
  // `ssh -o BatchMode=yes HOST` (user, key and port from the ssh configuration), or
  // "local:NAME": a network namespace ream creates on this host for an agent, joined to the
  // host by a veth pair (sandbox/client_node.h). The rate of a level is split evenly among them.
  std::vector<std::string> clients;
  std::vector<std::string> client_hosts;  // the HOSTs of the ssh clients, parsed
  std::vector<std::string> local_nodes;   // the NAMEs of the local clients, parsed
  // Each local client's link, each way (htb on both ends of its veth); nullopt: unshaped.
  std::optional<int64_t> link_rate_bps;
  // The workload's address as the client nodes reach it (required with clients, and with a
  // workload on another host, where it is that host's address); a builtin workload then
  // listens on every address (0.0.0.0).
  std::string workload_address;
  // `workload = "ssh:HOST"`: the workload runs on HOST, in a sandbox its `ream agent` (over
  // ssh, as root there) creates with the run's partition, sampled there by its monitors
  // (remote/remote_sandbox.h). "": on this host.
  std::string workload_host;
  int workload_line = 0;
  std::string ssh_config;                // ssh -F FILE; "" = the user's configuration
  std::vector<std::string> ssh_options;  // extra ssh/scp arguments
  // An agent lost at a level (that point is invalid, naming it): "fail" stops the run at the
  // next level with the reason; "continue" runs the next levels on the other agents.
  std::string on_agent_loss = "fail";
  // The CPUs of each client host that its agent's generator threads are pinned to (thread t on
  // the t-th, round robin), as a CPU list; empty: unpinned.
  std::vector<int> client_cpus;
  int line = 0;
  // Whether agents drive the load (client nodes of either kind) instead of the local generator.
  bool remote() const { return !client_hosts.empty() || !local_nodes.empty(); }
};

// [[corunner]]: a tenant beside the subject ([workload]) on the shared server (DESIGN.md
// "Shared servers"). It runs in a sandbox of its own with a partition from the same knob table,
// on the CPUs `cpus` names, in the scheduling class `sched`, while every point of the subject
// is measured (docs/colocation.md).
enum class SchedClass { kNormal, kBatch, kIdle };
std::string ToString(SchedClass c);  // "normal", "batch", "idle"
std::optional<SchedClass> SchedClassFromString(const std::string& s);

// [corunner.load]: an open-loop load of a co-runner's own (PARTIES-style: another latency-critical
// service beside the subject), from ream's generator on the generator's CPUs, over each window of
// the subject's points and of the co-runners' alone measurement, with the subject's [load]
// warm-up, duration, arrivals and validity rule. Its latency and validity are stored with the
// co-runner's figures of every point.
struct CorunnerLoadSpec {
  double qps = 0;          // `qps`: its rate, requests per second
  int connections = 1;     // `connections`
  std::string protocol;    // `protocol`: a builtin's own by default; required for a command
  int line = 0;
};

struct TenantKind;

struct CorunnerSpec {
  std::string name;                  // unique among the co-runners; names it in every message
  // Its kind: the row of the tenant kind table (spec/tenant_kinds.h) whose key it gives
  // ("command", "builtin", "batch", "pressure"); the fields below that row's keys fill.
  const TenantKind* kind = nullptr;
  // Where it runs (spec/tenant_places.h): "process" (default), "node" (a network
  // namespace of its own: its own address and network knobs), "vm" (ream's servers in a
  // libvirt guest, with [sandbox]'s libvirt settings) or "ssh:HOST" (a sandbox the agent on HOST
  // makes, as the subject's with [nodes] workload; [nodes]' ssh settings).
  std::string sandbox = "process";
  // With sandbox = "ssh:HOST" and a load of its own: the host's address as this host reaches it.
  std::string address;
  std::vector<std::string> command;  // the program and its arguments ("{port}": its port, with a load)
  // `builtin = "NAME"` (with `args`): one of ream's servers (`ream serve NAME --port 0`), only
  // with a load of its own.
  std::string builtin;
  std::vector<std::string> args;
  std::optional<CorunnerLoadSpec> load;
  // `batch = "NAME"`: a program of ream's batch suite (`ream batch NAME --seconds S`), which
  // runs to completion and is restarted (restart defaults to true).
  std::string batch;
  double batch_seconds = 5;          // `batch_seconds`: the batch program's run length
  // `pressure = "SOURCE"`, `intensity = P`: one of ream's sources of interference
  // (`ream pressure SOURCE --intensity P`, pressure/pressure.h) at P % (0-100), run until the
  // window ends; its ready line defaults to the one `ream pressure` prints.
  std::string pressure;
  double intensity = 0;
  // A co-runner [interference] generated (named "SOURCE@P"): the subject's fixed load its
  // sensitivity curve reads the tail at ([interference] load; 0: the analysis chooses).
  bool interference = false;
  double interference_load = 0;
  // Where it runs: "subject" (the subject's CPUs of the run's scenario), "others" (the CPUs of
  // the cores neither the subject nor the generator has a CPU of), "siblings" (the other SMT
  // threads of the subject's cores) or a CPU list ("0,2-3").
  std::string cpus = "subject";
  SchedClass sched = SchedClass::kNormal;
  // Run the program again each time it ends with status 0, so its pressure lasts the whole
  // point; every completion is counted (its run time too). false: an exit ends it, and a point
  // whose window it ended in is invalid.
  bool restart = false;
  // Readiness: with ready_line, the first stdout line containing it, within ready_timeout;
  // without, running for `settle` (a program that generates its own work needs no signal).
  std::string ready_line;
  std::chrono::milliseconds ready_timeout{10000};
  std::chrono::milliseconds settle{200};
  std::string user;        // as [workload] user
  PartitionValues partition;  // its knobs (the knob table's keys, as in [partitions])
  int line = 0;
};

// [colocation]: which co-runners run together, and whether the subject and each co-runner are
// also measured alone, interleaved with the shared runs.
struct ColocationSpec {
  // The subject alone (runs without co-runners) and each co-runner alone (a window with the
  // subject not running) are measured too. Default true when there are co-runners.
  bool alone = true;
  // The co-runner sets, each a list of co-runner names that run together; default one set of
  // every co-runner. Label(i): the names joined by "+".
  std::vector<std::vector<std::string>> sets;
  std::string Label(size_t i) const;
  int line = 0;
};

// [interference]: the subject's sensitivity profile (Bubble-Up's sensitivity curve, iBench's
// tolerated intensity; docs/interference.md). Each source at each intensity becomes a co-runner
// "SOURCE@P" (`pressure = SOURCE, intensity = P`, on `cpus` in `sched`) and a co-runner set of
// its own, measured interleaved with the subject alone (the 0 % of every curve).
struct InterferenceSpec {
  std::vector<std::string> sources;  // pressure/pressure.h source names
  std::vector<double> intensities;   // ascending, in (0, 100]
  std::string cpus = "subject";
  SchedClass sched = SchedClass::kNormal;
  double load = 0;  // the fixed load of the tail and the tolerated intensity; 0: chosen
  int line = 0;
};

// One [[manager.resource]]: a knob of one tenant that the manager may move, a unit at a time,
// within [min, max]. Its values are levels (partition/knobs.h KnobMoves: a number in the knob's
// own unit, more is more of the resource); the texts are as written, for messages and storage.
struct ManagerResourceSpec {
  const Knob* knob = nullptr;  // a knob of the table that has `moves`
  std::string tenant;          // "subject" or a co-runner's name
  double unit = 0;             // > 0
  double min = 0, max = 0;     // min <= max, max - min >= unit
  std::string unit_text, min_text, max_text;
  // Where the manager starts it (`start`, or what `ream run --profile` found); unset: at max, the
  // most the tenant could be given.
  std::optional<double> start;
  std::string start_text;
  int line = 0;
};

// [manager]: a controller that moves the tenants' partitions while the subject runs under a
// changing load, to keep the subject's tail latency under its QoS target and give its
// neighbours the rest (docs/manager.md). The slack of a window is (target - tail) / target.
struct ManagerSpec {
  bool given = false;  // the spec has a [manager] section
  // "parties" (Chen et al., ASPLOS 2019) or "heracles" (Lo et al., ISCA 2015): the rules.
  std::string policy;
  std::chrono::milliseconds period{500};  // how often it decides
  std::chrono::milliseconds window{500};  // the latency window each decision reads; >= period
  // PARTIES: a slack below grow_below gets the subject a unit, above shrink_above gives one
  // back; a resource whose move was reverted is skipped for skip_windows decisions.
  double grow_below = 0.05;
  double shrink_above = 0.20;
  int skip_windows = 4;
  // Heracles: the subject's load as a share of peak_qps (its capacity at QoS) above
  // disable_above_load disables the neighbours, below enable_below_load lets them back; a slack
  // below stop_growth_below stops their growth, below shrink_below shrinks them a unit; a
  // negative slack disables them for cooldown_windows decisions.
  double peak_qps = 0;
  double disable_above_load = 0.85;
  double enable_below_load = 0.80;
  double stop_growth_below = 0.10;
  double shrink_below = 0.05;
  int cooldown_windows = 10;
  std::vector<ManagerResourceSpec> resources;  // at least one
  // [manager.floor]: knob -> the level no tenant's allocation of it goes below, whatever a
  // resource's min says.
  std::map<std::string, double> floor;
  std::map<std::string, std::string> floor_texts;
  int line = 0;
};

struct ExperimentSpec {
  std::string name;
  std::string description;
  uint64_t seed = 1;
  int repetitions = 1;
  WorkloadSpec workload;
  LoadSpec load;
  SweepSpec sweep;
  std::vector<std::string> scenarios{"1-ST"};
  std::map<std::string, int> scenario_lines;  // scenario -> line, for messages
  std::vector<PartitionValues> partitions;    // at least one (the default, empty); with
                                              // [sensitivity], its expansion
  std::vector<SensitivitySpec> sensitivity;   // empty without [sensitivity]
  ModelSpec model;
  SandboxSpec sandbox;
  QosSpec qos;
  // CPUs for ream's generator: "default" (partition/placement.h) or a CPU list.
  std::string generator_cpus = "default";
  std::chrono::milliseconds sample_interval{250};
  bool node = false;  // run the workload in its own network namespace
  NodesSpec nodes;    // [nodes]: client nodes (remote agents); none = the local generator
  std::vector<CorunnerSpec> corunners;  // [[corunner]]: the subject's neighbours; none = alone
  // A [[corunner]] NAME whose knobs (or sched) are lists is one co-runner per combination,
  // "NAME@KEY=VALUE[;KEY=VALUE...]": NAME -> those names, in order. A [colocation] set naming
  // NAME is one set per variant.
  std::map<std::string, std::vector<std::string>> corunner_variants;
  ColocationSpec colocation;            // [colocation]; meaningful with corunners
  InterferenceSpec interference;        // [interference]; its co-runners are in `corunners`
  ManagerSpec manager;                  // [manager]; `given` false without one
  const CorunnerSpec* FindCorunner(const std::string& name) const;

  std::string source;  // the file name, for messages
  std::string text;    // the TOML text

  nlohmann::json ToJson() const;
};

// Parses `text` (from `source`, used in messages: "quickstart.toml:12: ..."). InvalidArgument
// naming the key and its line for unknown keys, wrong types and impossible values. [partitions]
// takes the knobs of `knobs`, which must outlive the spec.
// [[corunner]] takes the kinds of `tenant_kinds` (spec/tenant_kinds.h), which must
// outlive the spec too.
Result<ExperimentSpec> ParseSpec(const std::string& text, const std::string& source,
                                 const KnobTable& knobs = BuiltinKnobs(),
                                 const TenantKindTable& tenant_kinds = BuiltinTenantKinds());
// Reads and parses a file; NotFound / IoError when it cannot be read.
Result<ExperimentSpec> LoadSpecFile(Platform& platform, const std::string& path);

}  // namespace ream
