// `ream load`: drive a server with the open-loop generator and print (and save) the result.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "load/generator.h"
#include "load/presets.h"
#include "partition/spec.h"
#include "platform/keep_awake.h"
#include "platform/platform.h"
#include "platform/net.h"
#include "platform/poller.h"
#include "workloads/service_time.h"

namespace ream::cli {
namespace {

struct LoadFlags {
  std::string target;
  std::string protocol = "ream";
  std::string qps;
  std::string duration;  // "": 10 s, or the schedule's length
  std::string warmup = "2s";
  std::string until;  // "" off; "p95 ±5% max 20s"
  std::string schedule;  // "" off; "10000 for 20s, 40000 for 20s"
  std::string window;    // "" off; "500ms"
  std::string arrival = "exponential";
  uint64_t keys = 100000;
  std::string key_dist = "zipf:0.99";
  double get_ratio = 0.9;
  int connections = 1;
  int threads = 1;
  std::string tolerance = "20us";
  uint64_t seed = 1;
  std::string json;
  // Sizes (load/distribution.h): a number or a distribution; a preset fills those not given.
  std::string value_bytes = "64";
  std::string key_bytes = "16";
  std::string multiget = "1";
  std::string preset;
  bool value_bytes_given = false, key_bytes_given = false, arrival_given = false, get_ratio_given = false;
  double min_timely = 0.975;
  double max_rate_error = 0.02;
  std::string validity = "distortion";
  double validity_percentile = 95;
  double max_distortion = 0.05;
  std::string response_timeout = "2s";
  std::string http_path = "/";
  std::string http_method = "auto";
  std::string response_timing = "kernel";
  std::string wait = "auto";
  // Off by default here: the bare sender's requests reach the target after the run, and a user
  // reading the server's own counters (memcached's stats, nginx's log) expects only the run's;
  // `ream run` asks for it at every point.
  std::string send_floor = "off";
  std::string send_floor_cache = "/var/tmp/ream/send_floor.json";
  std::string keep_awake;  // a CPU list, "all", or "" (off)
  std::string cpus;        // the generator threads' CPUs
  // Session load (load/session_load.h) instead of --qps.
  int sessions = 0;
  uint64_t session_chunks = 8;
  std::string chunk_bytes = "256k";
  std::string bitrate;
};

Result<double> ParseQps(const std::string& text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v)) {
    return InvalidArgument("--qps '" + text + "' is not a number (requests per second, e.g. 10000)");
  }
  if (v <= 0) return InvalidArgument("--qps must be > 0 (got " + text + ")");
  return v;
}

// The text of the file a "file:PATH" (a table of sizes or gaps) or "trace:PATH" names; "" for
// any other form.
Result<std::string> NamedFileText(const std::string& text, const std::string& flag) {
  for (const char* prefix : {"file:", "trace:"}) {
    if (text.rfind(prefix, 0) != 0) continue;
    auto content = MakePosixPlatform()->ReadFile(text.substr(std::string(prefix).size()));
    if (!content.ok()) return InvalidArgument(flag + " " + text + ": " + content.status().message());
    return std::move(content).value();
  }
  return std::string();
}

// A size flag's distribution, its file read when it names one.
Result<Distribution> ParseSizeFlag(const std::string& text, const std::string& flag) {
  REAM_ASSIGN_OR_RETURN(std::string file, NamedFileText(text, flag));
  return ParseDistribution(text, flag, file);
}

Result<LoadOptions> BuildOptions(const LoadFlags& f) {
  LoadOptions o;
  if (f.target.empty()) return InvalidArgument("--target HOST:PORT is required");
  REAM_ASSIGN_OR_RETURN(net::HostPort hp, net::ParseHostPort(f.target));
  o.host = hp.host;
  o.port = hp.port;
  o.protocol = f.protocol;
  if (f.sessions != 0) {
    // Session load: the rate is the schedule's (sessions * bitrate / chunk size).
    if (!f.qps.empty()) return InvalidArgument("--qps and --sessions are both given: a load is a rate or sessions, not both");
    if (f.sessions < 0) return InvalidArgument("--sessions must be >= 1");
    if (f.bitrate.empty()) return InvalidArgument("--sessions needs --bitrate (the video's, e.g. 4mbit)");
    o.session.sessions = f.sessions;
    o.session.session_chunks = f.session_chunks;
    auto bytes = ParseBytes(f.chunk_bytes);
    if (!bytes.ok() || *bytes < 1) {
      return InvalidArgument("--chunk-bytes '" + f.chunk_bytes + "' is not a size in bytes (e.g. 256k)");
    }
    o.session.chunk_bytes = static_cast<uint64_t>(*bytes);
    auto bps = ParseBitRate(f.bitrate);
    if (!bps.ok()) return InvalidArgument("--bitrate: " + bps.status().message());
    o.session.bitrate_bps = static_cast<uint64_t>(*bps);
    o.qps = o.session.ChunkRate();
    if (o.protocol == "ream") o.protocol = "http";  // streaming is HTTP; the default protocol is ream's
  } else if (!f.schedule.empty()) {
    // The schedule is the rate and the window's length: a --qps or --duration beside it would
    // say something else.
    if (!f.qps.empty()) return InvalidArgument("--qps and --schedule are both given: the schedule's mean is the rate");
    if (!f.duration.empty()) {
      return InvalidArgument("--duration and --schedule are both given: the schedule's length is the window");
    }
    auto read = [](const std::string& path) { return MakePosixPlatform()->ReadFile(path); };
    REAM_ASSIGN_OR_RETURN(o.schedule, ParseSchedule(f.schedule, "--schedule", read));
  } else {
    if (f.qps.empty()) return InvalidArgument("--qps RATE (or --schedule, or --sessions N) is required");
    REAM_ASSIGN_OR_RETURN(o.qps, ParseQps(f.qps));
  }
  if (f.sessions != 0 && !f.schedule.empty()) {
    return InvalidArgument("--schedule and --sessions are both given: session load's rate is its sessions'");
  }
  if (o.schedule) {
    ApplySchedule(&o);
  } else {
    REAM_ASSIGN_OR_RETURN(o.duration_ns, ParseDurationNs(f.duration.empty() ? "10s" : f.duration, "--duration"));
  }
  if (!f.window.empty()) {
    REAM_ASSIGN_OR_RETURN(o.window_ns, ParseDurationNs(f.window, "--window"));
  }
  REAM_ASSIGN_OR_RETURN(o.warmup_ns, ParseDurationNs(f.warmup, "--warmup"));
  if (!f.until.empty()) {
    REAM_ASSIGN_OR_RETURN(o.until, ParseUntil(f.until, "--until"));
  }
  REAM_ASSIGN_OR_RETURN(o.timely_tolerance_ns, ParseDurationNs(f.tolerance, "--timely-tolerance"));
  REAM_ASSIGN_OR_RETURN(o.response_timeout_ns, ParseDurationNs(f.response_timeout, "--response-timeout"));
  // A preset fills the sizes, arrivals and mix that are not given (load/presets.h).
  std::string arrival = f.arrival, key_bytes = f.key_bytes, value_bytes = f.value_bytes;
  double get_ratio = f.get_ratio;
  if (!f.preset.empty()) {
    REAM_ASSIGN_OR_RETURN(LoadPreset preset, FindLoadPreset(f.preset));
    if (!f.arrival_given) arrival = preset.arrival;
    if (!f.key_bytes_given) key_bytes = preset.key_bytes;
    if (!f.value_bytes_given) value_bytes = preset.value_bytes;
    if (!f.get_ratio_given) get_ratio = preset.get_ratio;
    o.preset = preset.name;
  }
  REAM_ASSIGN_OR_RETURN(std::string trace_text, NamedFileText(arrival, "--arrival"));
  REAM_ASSIGN_OR_RETURN(o.arrival, ParseArrival(arrival, trace_text));
  REAM_ASSIGN_OR_RETURN(o.key_dist, ParseKeyDist(f.key_dist));
  o.keys = f.keys;
  o.get_ratio = get_ratio;
  REAM_ASSIGN_OR_RETURN(o.key_sizes, ParseSizeFlag(key_bytes, "--key-bytes"));
  REAM_ASSIGN_OR_RETURN(o.value_sizes, ParseSizeFlag(value_bytes, "--value-bytes"));
  REAM_ASSIGN_OR_RETURN(o.multiget, ParseSizeFlag(f.multiget, "--multiget"));
  if (o.value_sizes.fixed()) {
    const double v = o.value_sizes.a;
    if (!(v >= 0 && v <= 16 << 20) || v != std::floor(v)) {
      return InvalidArgument("--value-bytes " + value_bytes + ": a fixed size must be a whole number of bytes, 0.." +
                             std::to_string(16 << 20));
    }
    o.codec.value_bytes = static_cast<size_t>(v);
  }
  o.connections = f.connections;
  o.threads = f.threads;
  o.seed = f.seed;
  o.codec.http_path = f.http_path;
  o.codec.http_method = f.http_method;
  if (f.response_timing != "kernel" && f.response_timing != "packet" && f.response_timing != "user") {
    return InvalidArgument("--response-timing must be kernel, packet or user, got '" + f.response_timing + "'");
  }
  o.kernel_rx_timestamps = f.response_timing != "user";
  o.segment_rx_timestamps = f.response_timing == "packet";
  auto wait = ParseWait(f.wait);
  if (!wait) return InvalidArgument("--wait must be auto, sleep, spin or yield, got '" + f.wait + "'");
  o.wait = *wait;
  if (f.send_floor == "off") {
    o.send_floor = LoadOptions::SendFloorMode::kOff;
  } else if (f.send_floor == "cached") {
    o.send_floor = LoadOptions::SendFloorMode::kCached;
  } else if (f.send_floor == "measure") {
    o.send_floor = LoadOptions::SendFloorMode::kMeasure;
  } else {
    return InvalidArgument("--send-floor must be cached, measure or off, got '" + f.send_floor + "'");
  }
  o.send_floor_cache = f.send_floor_cache;
  o.min_timely_ratio = f.min_timely;
  o.max_rate_error = f.max_rate_error;
  if (f.validity != "distortion" && f.validity != "seed") {
    return InvalidArgument("--validity must be distortion or seed, got '" + f.validity + "'");
  }
  o.validity = f.validity == "seed" ? ValidityRule::kSeed : ValidityRule::kDistortion;
  o.validity_percentile = f.validity_percentile;
  o.max_distortion = f.max_distortion;
  if (!f.cpus.empty()) {
    auto cpus = ParseCpuList(f.cpus);
    if (!cpus.ok()) return InvalidArgument("--cpus: " + cpus.status().message());
    o.cpus = *cpus;
  }
  REAM_RETURN_IF_ERROR(ValidateLoadOptions(o));
  return o;
}

int RunLoadCommand(const LoadFlags& f) {
  auto options = BuildOptions(f);
  if (!options.ok()) {
    std::cerr << "ream load: " << options.status().message() << "\n";
    return kExitBadInput;
  }
  // --keep-awake: the kernel's idle polling on the listed CPUs for the run where their idle
  // driver can poll, else pollers (this process's, so not charged to the server's cgroup; the
  // generator's own threads preempt them at once). How is said in the JSON.
  std::unique_ptr<KeepAwake> awake;
  std::string awake_how;
  if (!f.keep_awake.empty()) {
    auto platform = MakePosixPlatform();
    std::string list = f.keep_awake;
    if (list == "all") {
      auto online = platform->ReadFile("/sys/devices/system/cpu/online");
      list = online.ok() ? *online : "";
      while (!list.empty() && (list.back() == '\n' || list.back() == ' ')) list.pop_back();
    }
    Result<std::vector<int>> cpus = ParseCpuList(list);
    if (!cpus.ok()) {
      std::cerr << "ream load: --keep-awake: " << cpus.status().message() << "\n";
      return kExitBadInput;
    }
    auto started = KeepAwake::Start(*cpus);
    if (!started.ok()) {
      std::cerr << "ream load: " << started.status().message() << "\n";
      return started.status().code() == StatusCode::kInvalidArgument ? kExitBadInput : kExitCouldNotRun;
    }
    awake = std::move(started).value();
    awake_how = awake->Describe();
  }
  auto signals = net::BlockTerminationSignals();
  if (signals.ok()) options->cancel_fd = signals->get();
  // Each window as one JSON line on stdout as it ends, flushed, before the final document: a
  // reader of the stream (the local driver) acts on it while the run goes on.
  auto on_window = [](const LoadWindow& w) {
    std::cout << nlohmann::json{{"window", w.ToJson()}}.dump() << "\n" << std::flush;
  };
  auto result = RunLoad(*options, on_window);
  awake.reset();
  if (!result.ok()) {
    std::cerr << "ream load: " << result.status().message() << "\n";
    return ExitCodeFor(result.status());
  }
  bool json_to_stdout = f.json == "-";
  (json_to_stdout ? std::cerr : std::cout) << result->Summary();
  if (!f.json.empty()) {
    nlohmann::json j = result->ToJson();
    if (!f.keep_awake.empty()) {
      j["keep_awake_cpus"] = f.keep_awake;
      j["keep_awake_how"] = awake_how;
    }
    std::string text = j.dump(2) + "\n";
    if (json_to_stdout) {
      std::cout << text;
    } else {
      if (!MakePosixPlatform()->WriteFile(f.json, text).ok()) {
        std::cerr << "ream load: cannot write " << f.json << "\n";
        return kExitCouldNotRun;
      }
    }
  }
  if (result->cancelled) return kExitInterrupted;
  // The measurement happened; requests that failed mid-run make it an error exit.
  return result->errors > 0 ? kExitMeasuredWithFailures : kExitDone;
}

}  // namespace

void AddLoadCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<LoadFlags>();
  CLI::App* sub = app.add_subcommand(
      "load", "Open-loop load generator: drive HOST:PORT at --qps (or --sessions), report latency and validity");
  sub->add_option("--target", f->target, "HOST:PORT of the server")->required();
  sub->add_option("--protocol", f->protocol, "Wire protocol")->capture_default_str();
  sub->add_option("--qps", f->qps, "Target requests per second (over all threads); or --sessions");
  sub->add_option("--sessions", f->sessions,
                  "Session load instead of --qps: N concurrent streaming sessions over HTTP, each on its own "
                  "connection, fetching --chunk-bytes chunks of a video at --bitrate on an absolute schedule");
  sub->add_option("--session-chunks", f->session_chunks, "Sessions: chunks per session (then a new one starts)")
      ->capture_default_str();
  sub->add_option("--chunk-bytes", f->chunk_bytes, "Sessions: bytes per chunk (one Range request)")
      ->capture_default_str();
  sub->add_option("--bitrate", f->bitrate, "Sessions: the video's bitrate (4mbit): a chunk plays chunk-bytes*8/bitrate");
  sub->add_option("--duration", f->duration, "Measured window (e.g. 10s; default 10s)");
  sub->add_option("--schedule", f->schedule,
                  "The rate over time instead of --qps and --duration: \"10000 for 20s, 40000 for 20s\" steps, "
                  "\"10000 to 40000 over 10s\" ramps (mixable), or file:PATH of 'SECONDS QPS' lines "
                  "[peak QPS] [length DURATION] (docs/load.md)");
  sub->add_option("--window", f->window,
                  "Report the measured window in windows of this length (e.g. 500ms), each as one JSON line "
                  "{\"window\": {...}} on stdout as it ends");
  sub->add_option("--warmup", f->warmup, "Warm-up before the window, not measured")->capture_default_str();
  sub->add_option("--until", f->until,
                  "Measure until the percentile is known instead of for --duration: \"p95 ±5%\", "
                  "\"p99 ±2% max 20s\" (its interval within the half-width, the windows stationary, the "
                  "answers independent; max 30s unless given)");
  CLI::Option* arrival = sub->add_option("--arrival", f->arrival,
                  "exponential | constant | trace:FILE (one gap in us per line, rescaled to --qps) | a "
                  "distribution of gaps, rescaled to --qps: fb_ia, gpareto:LOC,SCALE,SHAPE, normal:MEAN,SD, ... "
                  "(docs/load.md)")
      ->capture_default_str();
  CLI::Option* key_bytes = sub->add_option("--key-bytes", f->key_bytes,
                  "Key size in bytes: a number, or a distribution drawn once per key (fb_key, gev:LOC,SCALE,SHAPE, "
                  "uniform:MIN,MAX, normal:MEAN,SD, file:PATH of 'SIZE WEIGHT' lines, ...; docs/load.md)")
      ->capture_default_str();
  sub->add_option("--multiget", f->multiget,
                  "Keys per get (memcached get k1 k2 ..., Redis MGET): a number 1-100 or a distribution drawn "
                  "per get; latency is then reported per request and per key")
      ->capture_default_str();
  sub->add_option("--preset", f->preset,
                  "A named workload setting --key-bytes, --value-bytes, --arrival and --get-ratio where not given: "
                  "etc (Facebook's ETC pool as mutilate replays it; docs/load.md)");
  sub->add_option("--keys", f->keys, "Number of distinct keys")->capture_default_str();
  sub->add_option("--key-dist", f->key_dist, "zipf:THETA | uniform")->capture_default_str();
  CLI::Option* get_ratio =
      sub->add_option("--get-ratio", f->get_ratio, "Fraction of gets (the rest are sets)")->capture_default_str();
  sub->add_option("--connections", f->connections, "TCP connections (>= --threads)")->capture_default_str();
  sub->add_option("--threads", f->threads, "Generator threads")->capture_default_str();
  sub->add_option("--timely-tolerance", f->tolerance, "Lateness above which a request is non-timely")
      ->capture_default_str();
  sub->add_option("--seed", f->seed, "Seed of arrivals, keys and operations")->capture_default_str();
  sub->add_option("--json", f->json, "Write the result as JSON to FILE, or '-' for stdout");
  CLI::Option* value_bytes = sub->add_option("--value-bytes", f->value_bytes,
                  "Payload bytes of sets: a number, or a distribution drawn per set (fb_value, "
                  "gpareto:LOC,SCALE,SHAPE, file:PATH, ...; docs/load.md)")
      ->capture_default_str();
  sub->add_option("--min-timely", f->min_timely, "Validity: lowest timely ratio")->capture_default_str();
  sub->add_option("--max-rate-error", f->max_rate_error, "Validity: largest relative rate error")
      ->capture_default_str();
  sub->add_option("--response-timeout", f->response_timeout,
                  "Wait this long after the window for outstanding responses")
      ->capture_default_str();
  sub->add_option("--http-path", f->http_path,
                  "HTTP: request path; {key} is replaced by the key (e.g. /item/{key})")
      ->capture_default_str();
  sub->add_option("--http-method", f->http_method,
                  "HTTP: auto (gets as GET, sets as POST with --value-bytes of body), GET or POST")
      ->capture_default_str();
  sub->add_option("--response-timing", f->response_timing,
                  "kernel: time responses by the kernel's arrival stamps (SO_TIMESTAMPNS; a read that "
                  "returns several answers carries the last one's); packet: by the arrival of the segment "
                  "that carried each answer, from a packet socket as a capture would, and sends by the "
                  "kernel's send stamps, for the wire round trip (root; one more system call per read "
                  "and an error-queue read per send, which cost timeliness); user: by the clock after the generator reads them (adds its "
                  "own wake-up)")
      ->capture_default_str();
  sub->add_option("--wait", f->wait,
                  "auto: spin where each thread has a CPU of its own (--cpus, or a taskset/cpuset "
                  "narrower than the machine), else sleep; "
                  "sleep: sleep until shortly before each send, then spin; spin: never sleep (one CPU "
                  "per thread busy; responses never have to wake the generator's CPU); yield: as sleep, "
                  "but give the CPU to any other task that wants it on every turn of the spin (for a "
                  "thread that shares its CPU with the workload or another thread)")
      ->capture_default_str();
  sub->add_option("--send-floor", f->send_floor,
                  "the host's limit at this rate: a bare sender (one spinning thread, one request "
                  "encoded once) against the same target at the same rate and connections after the "
                  "run, reported beside the run's timeliness and weighed by the validity rule; cached: "
                  "reused for an hour from /var/tmp/ream/send_floor.json (0.5-1 s when measured); "
                  "measure: measured now; off (its requests, gets of one key, reach the server's "
                  "counters too; `ream run` measures it at every point)")
      ->capture_default_str();
  sub->add_option("--send-floor-cache", f->send_floor_cache, "where --send-floor cached keeps its measurements")
      ->capture_default_str();
  sub->add_option("--validity", f->validity,
                  "distortion: valid when lateness moves the --validity-percentile by less than --max-distortion of "
                  "it (or the --timely-tolerance up to 20 us, whichever is more) and the sent gaps pass the Anderson-Darling "
                  "test at the tolerance's time scale; seed: valid when --min-timely of the requests are timely "
                  "(the seed's rule exactly). Either way the timely ratio is reported")
      ->capture_default_str();
  sub->add_option("--validity-percentile", f->validity_percentile,
                  "The percentile the distortion rule checks (the QoS percentile)")
      ->capture_default_str();
  sub->add_option("--max-distortion", f->max_distortion,
                  "Distortion rule: lateness's largest share of that percentile (0.05 = 5 %)")
      ->capture_default_str();
  sub->add_option("--cpus", f->cpus,
                  "CPUS (\"0,1\"): pin generator thread t to the t-th of these (round robin); default: unpinned");
  sub->add_option("--keep-awake", f->keep_awake,
                  "CPUS (\"0,1\", \"all\"): keep these CPUs out of idle during the run (the kernel's idle "
                  "polling where their idle driver can poll, else SCHED_IDLE pollers), so neither side pays a "
                  "CPU's wake-up at low load (give the server's CPUs too)");
  commands.push_back({sub, [f, arrival, key_bytes, value_bytes, get_ratio] {
                        f->arrival_given = arrival->count() > 0;
                        f->key_bytes_given = key_bytes->count() > 0;
                        f->value_bytes_given = value_bytes->count() > 0;
                        f->get_ratio_given = get_ratio->count() > 0;
                        return RunLoadCommand(*f);
                      }});
}

}  // namespace ream::cli
