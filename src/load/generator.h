// The open-loop load generator (DESIGN.md, "Open-loop load", "Timely requests ratio",
// "Latency"): each thread follows its own absolute schedule, sends whether or not responses
// have come back (pipelined, matched by id), and times every response from its *scheduled*
// send time. Threads own their connections and histograms; results merge after the run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/arrival.h"
#include "load/distribution.h"
#include "load/histogram.h"
#include "load/lateness.h"
#include "load/load_window.h"
#include "load/schedule.h"
#include "load/send_floor.h"
#include "load/key_chooser.h"
#include "load/session_schedule.h"
#include "load/until.h"
#include "platform/status.h"
#include "protocol/registry.h"

namespace ream {

// What decides whether a point is valid (DESIGN.md "Timely requests ratio").
//  kSeed: the seed's rule exactly: at least min_timely_ratio of the requests were sent within
//    timely_tolerance of their scheduled instant (and the rate and error checks below).
//  kDistortion: what lateness did to the result: the reported percentile timed from the
//    schedule is at most max_distortion above the same percentile timed from the actual send
//    (lateness's share of the figure), and the actual send gaps pass the Anderson–Darling test
//    against the intended process at the achieved rate (and the rate and error checks). The
//    timely ratio is still measured and reported with its tolerance.
enum class ValidityRule { kSeed, kDistortion };
// Where a bare sender misses min_timely_ratio at a point's rate (LoadOptions::send_floor), the
// generator's timely ratio is judged against that sender's, less this.
inline constexpr double kHostLimitSlack = 0.01;
// ...but only where that sender's late share is at most this many times the share the rule
// allows (10 % under the seed's 97.5 %): a host later than that (or a tolerance no sender can
// keep, such as 0) leaves no point representative, whoever is to blame, and a rule that allows
// no lateness at all (min_timely_ratio = 1) is never relaxed.
inline constexpr double kHostLimitMaxLateFactor = 4;
// The distortion rule lets lateness move the percentile by max_distortion of it or by the timely
// tolerance, whichever is more, the tolerance counting up to this (the seed's 20 us) only.
inline constexpr int64_t kDistortionFloorNs = 20'000;
const char* ValidityRuleName(ValidityRule r);  // "seed", "distortion"

// How a generator thread waits for its next send.
//  - kSleep: sleep until shortly before it, then spin the last stretch; a response that
//    arrives meanwhile wakes the thread.
//  - kSpin: never sleep; poll the sockets and the clock, one CPU per thread busy all the time.
//    The server's send then never has to wake the generator's CPU; on a VM an idle vCPU is
//    woken by an IPI that costs the sender tens of microseconds, and that cost lands in the
//    server's CPU time per request.
//  - kYield: as kSleep, but yield the CPU (sched_yield) on every turn of the spin, so another
//    task that wants the thread's CPU (the workload, or another generator thread, on a machine
//    without a CPU for each) runs at once instead of waiting out the spinner's scheduler slice
//    (0.7-3 ms under EEVDF). A system call per turn, nothing when no other task is runnable;
//    the time another task takes is the thread's "stall" (it was not running).
//  - kAuto (the default): kSpin where every thread has a CPU of its own (ChooseWait), else
//    kSleep. A sleeping thread is late whenever its wake-up overshoots the margin it spins
//    before a send; at 1 000 QPS against memcached that cost 3 points of timeliness beyond a
//    spinning C sender's (docs/performance.md, "The generator at the host's limit").
enum class Wait : uint8_t { kSleep, kSpin, kYield, kAuto };
const char* WaitName(Wait w);                          // "sleep", "spin", "yield", "auto": `--wait`'s words
std::optional<Wait> ParseWait(const std::string& s);  // nullopt for any other word

// What kAuto comes to, and why. Spin when every generator thread has a CPU to itself and the
// machine has CPUs outside the generator's for the rest (the server, other tenants): the threads'
// CPUs are `cpus` (LoadOptions::cpus, thread t on cpus[t % n]) when given, else any of
// `allowed` (the process's affinity mask: a cpuset or taskset) — spin needs no more threads than
// distinct CPUs, and those CPUs fewer than `online`. Otherwise sleep: a spinning thread on a CPU
// that something else needs takes a scheduler slice from it. Any other wait is kept as asked.
struct WaitChoice {
  Wait wait = Wait::kSleep;
  std::string why;  // "auto: spin (...)", or "asked"
};
WaitChoice ChooseWait(Wait asked, int threads, const std::vector<int>& cpus, const std::vector<int>& allowed,
                      int online);

struct LoadOptions {
  std::string host = "127.0.0.1";
  int port = 0;                          // required, 1..65535
  std::string protocol = "ream";         // a name from ClientCodecNames()
  CodecOptions codec;                    // value size of sets, HTTP path, ...
  double qps = 0;                        // target rate over all threads, required, > 0
  // Session load instead of request load when session.sessions > 0 (load/session_load.h):
  // qps is then the schedule's chunk rate (SessionLoad::ChunkRate), set by whoever fills it.
  SessionLoad session;
  int64_t duration_ns = 10'000'000'000;  // the measured window
  // Measure until known (load/until.h): set, the window is open-ended up to until->max_ns and
  // ends when the judge says the QoS percentile is known; duration_ns is then ignored, and the
  // result's options.duration_ns is the window as measured. Unset, nothing of it runs.
  std::optional<UntilRule> until;
  // The rate over time instead of one rate (load/schedule.h): set, duration_ns is the schedule's
  // length and qps its mean (ApplySchedule sets both), the sends follow the schedule open-loop,
  // and the warm-up runs at its first rate (its mean where that is 0).
  std::optional<RateSchedule> schedule;
  // Report the measured window in consecutive windows of this length as each ends
  // (load/load_window.h; RunLoad's on_window, LoadResult::windows); the last may be shorter.
  // 0: none.
  int64_t window_ns = 0;
  int64_t warmup_ns = 2'000'000'000;     // sent before the window, not measured
  ArrivalSpec arrival;                   // default exponential (Poisson)
  uint64_t keys = 100000;                // key indices 0..keys-1 (see protocol/keyspace.h)
  KeyDistSpec key_dist;                  // default zipf:0.99
  double get_ratio = 0.9;                // the rest are sets
  // Key sizes in bytes (load/distribution.h): a key's size is drawn once for its index, so the
  // same key always has the same text ("key" and the index zero-padded to the size). Held to
  // [MinKeyBytes(keys), kMaxSentKeyBytes]; the fixed 16 is protocol/keyspace.h's FormatKey.
  Distribution key_sizes = FixedDistribution(16);
  // Set values' sizes in bytes, drawn per set and held to [0, kMaxSentValueBytes]. When it is fixed
  // (the default) the size is codec.value_bytes, which the rest of ream sets.
  Distribution value_sizes = FixedDistribution(64);
  // Keys per get (a multiget: `get k1 k2 ...`, Redis MGET) drawn per get, held to
  // [1, kMaxMultigetKeys]; protocols whose codec has no multi-key get refuse anything but 1.
  Distribution multiget = FixedDistribution(1);
  std::string preset;                    // the preset that set some of these (load/presets.h), "" none
  int connections = 1;                   // >= threads; split round-robin over threads
  int threads = 1;
  // `ream run`'s [load] keep_awake, for the driver: the `ream load` it starts keeps the
  // generator's own CPUs awake with pollers in its process (platform/keep_awake.h). RunLoad
  // itself ignores it.
  bool keep_awake = false;
  // The CPUs the threads run on: thread t on cpus[t % cpus.size()] (each with its own
  // connections and schedule). Empty: wherever the process may run.
  std::vector<int> cpus;
  int64_t timely_tolerance_ns = 20000;   // a request issued later than this is non-timely
  double min_timely_ratio = 0.975;       // validity thresholds (DESIGN.md)
  double max_rate_error = 0.02;
  ValidityRule validity = ValidityRule::kDistortion;  // docs/performance.md, "The validity rule"
  double validity_percentile = 95;  // the figure the distortion rule checks (the QoS's)
  double max_distortion = 0.05;     // lateness's largest share of it
  uint64_t seed = 1;
  int64_t connect_timeout_ns = 2'000'000'000;
  // After the window, how long to wait for outstanding responses; those still missing count
  // as errors. Also the age past which an unanswered request is declared lost.
  int64_t response_timeout_ns = 2'000'000'000;
  size_t interarrival_sample = 500;      // send gaps tested with Anderson–Darling
  // Time a response by the kernel's arrival stamp of its data (SO_TIMESTAMPNS) rather than
  // by the clock read after the generator got around to reading it: a thread that was asleep
  // when the response came (its wake-up costs tens of microseconds on a VM) then does not add
  // its own wake-up to the measured latency. Falls back to the clock where refused. TCP merges
  // segments that wait unread into one, stamped when the last arrived, so a response read late
  // behind a later one is timed at that later arrival: never later than the clock would time it.
  bool kernel_rx_timestamps = true;
  // With kernel_rx_timestamps: each answer timed by the kernel's arrival stamp of the segment
  // that carried its last byte, read from a packet socket as a capture would (platform/
  // segment_tap.h), instead of the read's stamp, which is the last merged segment's. One more
  // system call per read, and CAP_NET_RAW; `--response-timing packet`. Refused: the read's.
  // Only then are sends stamped by the kernel too (SO_TIMESTAMPING, software TX), giving the
  // wire round trip: each stamp costs the thread an error-queue read and a wake-up of its poll,
  // 2-15 points of timely requests at 45 000 QPS on a 2-vCPU VM (docs/notes/performance-notes.md).
  bool segment_rx_timestamps = false;
  // How a thread waits for its next send (Wait, above). The choice is reported.
  Wait wait = Wait::kAuto;
  // The host's limit at this point's rate (load/send_floor.h), stored with the result and
  // weighed by JudgeValidity: kOff; kCached, measured before the run unless the host's cache
  // (send_floor_cache) holds one younger than an hour; kMeasure, measured whatever it holds.
  enum class SendFloorMode : uint8_t { kOff, kCached, kMeasure };
  SendFloorMode send_floor = SendFloorMode::kOff;
  std::string send_floor_cache = "/var/tmp/ream/send_floor.json";
  // A file descriptor (e.g. a signalfd) that, once readable, stops the run early (Cancelled).
  int cancel_fd = -1;
  // The monotonic instant (this host's CLOCK_MONOTONIC, ns) at which the schedule starts, for
  // agents on several hosts that start together (remote/agent_protocol.h); 0, or an
  // instant less than 5 ms away once the connections are up: 5 ms after they are.
  int64_t start_at_ns = 0;
};


// InvalidArgument naming the first bad field.
Status ValidateLoadOptions(const LoadOptions& options);

// The longest key the generator sends: memcached's limit, the tightest of the protocols'.
inline constexpr uint64_t kMaxSentKeyBytes = 250;
// The largest value a drawn size may reach: memcached's default largest item (1 MiB) less
// room for its header and key, so a distribution's far tail is sent, not refused.
inline constexpr uint64_t kMaxSentValueBytes = 1'000'000;
// The shortest key that keeps `keys` keys distinct: "key" and the largest index's digits.
uint64_t MinKeyBytes(uint64_t keys);

struct InterarrivalTest {
  bool applicable = false;
  int span = 1;               // consecutive gaps summed per sampled value (GapSpan)
  std::string method;         // e.g. "Anderson-Darling vs exponential, alpha = 0.01"
  std::string not_applicable_reason;
  size_t sample_size = 0;
  double statistic = 0;
  double critical = 0;
  bool passed = false;
};

// The arrival test's time scale. A send within the timely tolerance is on time by the seed's own
// measure, yet a gap between two sends can be off by up to twice that: at 86 000 QPS (mean gap
// 12 us) a generator 99 % timely at 20 us failed a test of single gaps with A2 = 45, because a
// write() costs ~10 us here and due requests leave together (docs/notes/performance-notes.md, "The
// validity rule"). So the test takes spans of k consecutive gaps, k the fewest whose mean is at
// least 10 tolerances at the thread's rate (at most 64), and tests them against Erlang(k): lateness
// within the tolerance moves a span by a tenth of its mean at most, while a stall or a burst that
// reshapes the process still shows. k is 1 (single gaps against the exponential) up to
// 1 / (10 tolerances) per second: 5 000 QPS a thread at the default 20 us.
int GapSpan(int64_t tolerance_ns, double rate_per_thread);

// What lateness did to the reported percentile: the same percentile of the responses timed
// from their scheduled instants and from their actual sends.
struct Distortion {
  bool applicable = false;  // responses were timed
  double percentile = 95;
  double from_schedule_ns = 0, from_send_ns = 0;
  double share = 0;  // (from_schedule − from_send) / from_schedule
};

// What session load measured (load/session_load.h), over the chunks scheduled inside the
// measured window. A chunk misses its play-out deadline when its last byte arrives after
// its scheduled instant + its play time (or never): the workload's QoS figure.
struct SessionFigures {
  double chunk_play_ms = 0;          // chunk_bytes * 8 / bitrate: the deadline's distance
  double timely_tolerance_us = 0;    // the lateness a chunk request is allowed (see session_load.h)
  uint64_t sessions_started = 0;     // sessions whose first chunk was due in the window
  uint64_t chunks_scheduled = 0;     // due in the window by the schedule
  uint64_t chunks_requested = 0;     // ... and sent
  uint64_t chunks_completed = 0;     // ... and answered whole (206/200)
  uint64_t chunks_on_time = 0;       // ... by their deadline
  uint64_t deadline_misses = 0;      // requested - on time (late, failed or never answered)
  double deadline_miss_ratio = 0;    // deadline_misses / chunks_requested
  uint64_t bytes_received = 0;       // response bytes of the window's chunks
  double throughput_bytes_per_s = 0;  // bytes_received / the window
  Histogram first_byte;              // first byte of the response − scheduled instant (ns)
};

// What the measured requests carried (LoadOptions::key_sizes, value_sizes, multiget): the
// histograms only when some size was drawn (else every request carried the fixed sizes), the
// bytes each way always.
struct SentSizes {
  Histogram key_bytes;      // each key sent
  Histogram value_bytes;    // each set's value
  Histogram multiget_keys;  // each get's keys
  // Draws held to the bounds (a key shorter than the key space allows or longer than 250
  // bytes, a value above kMaxSentValueBytes, a batch above the protocol's keys per get).
  uint64_t key_clamped = 0, value_clamped = 0, multiget_clamped = 0;
  uint64_t request_bytes = 0;   // encoded bytes of the measured requests
  uint64_t response_bytes = 0;  // bytes of their answers
};

struct LoadResult {
  LoadOptions options;
  SentSizes sizes;
  SessionFigures session;  // session load only (options.session.enabled())
  std::string protocol;
  bool has_server_times = false;        // some response carried server times
  bool server_times_supported = false;  // the protocol reports them at all
  // How responses were timed: "kernel" (arrival stamps) or "user" (clock after the read),
  // with the reason when kernel stamps were asked for but not had.
  std::string response_timing = "user";
  // Counted over requests scheduled inside the measured window.
  uint64_t issued = 0;     // sent
  uint64_t completed = 0;  // answered without error
  uint64_t errors = 0;     // answered with an error, lost with a connection, or never answered
  uint64_t timely = 0;
  std::map<std::string, uint64_t> error_reasons;
  // Every connection that failed for good during the run (warm-up included), with the cause:
  // garbage from the server, or a reconnection given up. Either makes the point invalid.
  std::vector<std::string> connection_failures;
  // Connections the server closed (Connection: close, EOF, RST) and that a new socket replaced,
  // over the whole run; each close's cause with its count; connects that failed on the way.
  uint64_t reconnections = 0;
  std::map<std::string, uint64_t> reconnect_reasons;
  uint64_t reconnect_failures = 0;
  // When the server announced its closes after a fixed count of responses (nginx's
  // keepalive_requests), that count: requests due on a connection that reached it waited for
  // the next socket instead of being written where they would be discarded. 0: none learned.
  uint64_t server_closes_after = 0;
  // Requests written over the whole run that no response answered (lost with a closed
  // connection, overtaken, or past the response timeout): issued_total = completed_total +
  // unanswered_total once the run is over.
  uint64_t unanswered_total = 0;
  // Of those, answers that still came after their request had been given up (overtaken by
  // ring-size newer ones on its connection, the server far behind): discarded, not matched to
  // a later request, and the connection kept.
  uint64_t late_answers = 0;
  // Over the whole run (warm-up and drain included), for per-request cost accounting.
  uint64_t issued_total = 0;
  uint64_t completed_total = 0;
  double achieved_qps = 0;
  double throughput_qps = 0;
  double timely_ratio = 0;
  Histogram latency;            // completion − scheduled time (ns); session load: a chunk's response + transfer time
  Histogram latency_from_send;  // completion − the generator's send (its clock before the write)
  // With multigets: each key's latency, that of the request that carried it (memcached and
  // Redis answer a multiget in one reply), so a batch of n keys counts n times.
  Histogram latency_per_key;
  Histogram wire;               // the kernel's arrival stamp − its send stamp (ns): the wire round trip
  std::string send_timing = "user";  // how sends were timed ("kernel (...)", or why not)
  Histogram service;            // server-reported service time
  Histogram queue;              // server-reported queue time
  Histogram lateness;           // actual send − scheduled time
  // Why each request sent later than the tolerance was late (load/lateness.h).
  LatenessCauses late_causes;
  // Waking on time (wait sleep): the margin a thread spins before each send, the largest over
  // the threads, as calibrated by timed waits before the schedule (-1: there was not time for
  // enough of them) and at the end of the run; and the fewest calibration waits a thread made.
  int64_t wake_margin_calibrated_ns = -1, wake_margin_final_ns = -1;
  int wake_calibration_waits = 0;
  // The host's limit at this rate: a bare sender's timeliness here (options.send_floor).
  SendFloor send_floor;
  // How the threads waited (options.wait once kAuto is resolved: never kAuto) and why.
  std::string wait_why = "asked";
  int64_t window_begin_ns = 0;  // monotonic start of the measured window
  InterarrivalTest interarrival;  // of the actual send gaps, at the achieved rate
  Distortion distortion;
  std::string validity_rule;  // the rule applied and its thresholds, for people
  double generator_cpu_s = 0;   // CPU of the generator threads over the measured window
  double measured_s = 0;        // wall time of the measured window as it happened
  bool cancelled = false;
  bool valid = false;
  std::vector<std::string> invalid_reasons;
  // Checks that are reported but do not decide validity under the rule applied: the seed's
  // rule warns of failed send gaps; the distortion rule of a timely ratio below the seed's.
  std::vector<std::string> warnings;
  // The rate check's limit: max_rate_error, widened for Poisson arrivals to three standard
  // deviations of the schedule's own count in the window (see JudgeValidity).
  double rate_error_limit = 0;
  // With options.until: the judge's last verdict (how long, which check decided, the interval).
  std::optional<UntilVerdict> until;
  // With options.window_ns: every window of the measured window, in order.
  std::vector<LoadWindow> windows;

  nlohmann::json ToJson() const;
  std::string Summary() const;
};

// Connects (Unavailable/Timeout when the target does not answer), runs the schedule, drains,
// and returns the merged result. Mid-run failures (connections closed, garbage from the
// server) are counted as errors and make the result invalid rather than failing the call.
// With options.window_ns, `on_window` is called on the calling thread with each window, in
// order, as it ends (within 25 ms of its end; the last ones once the answers are in).
Result<LoadResult> RunLoad(const LoadOptions& options,
                           const std::function<void(const LoadWindow&)>& on_window = {});

// With options->schedule: qps becomes the schedule's mean and duration_ns its length.
void ApplySchedule(LoadOptions* options);

// Computes achieved/throughput/timely ratios, the validity verdict and its reasons from the
// counters and the interarrival test. Exposed for tests.
void JudgeValidity(LoadResult* result);

// Fills result->distortion at `percentile`: the figure timed from the schedule against the
// same figure timed from the send (when both histograms hold requests). JudgeValidity reads it.
void MeasureDistortion(LoadResult* result, double percentile);

}  // namespace ream
