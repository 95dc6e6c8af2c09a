#include "experiment/load_driver.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "experiment/point_columns.h"

namespace ream {
namespace {

using std::chrono::milliseconds;

std::string Num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// The shortest exact spelling of a duration that `ream load` parses back to the same ns.
std::string Duration(int64_t ns) {
  if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
  if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
  return std::to_string(ns) + "ns";
}

std::string Target(const std::string& host, int port) {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

class LocalLoadDriver final : public LoadDriver {
 public:
  LocalLoadDriver(Platform& p, SandboxKind& kind, LocalDriverOptions o) : p_(p), kind_(kind), o_(std::move(o)) {}
  std::string_view name() const override { return "local"; }

  Result<DriverResult> Measure(const LoadOptions& lo, const DriverHooks& hooks) override {
    std::vector<std::string> argv = LoadArgv(lo);
    argv.insert(argv.begin(), o_.ream_binary);
    // Each generator thread on a CPU of its own among the generator's, said in its JSON.
    if (lo.cpus.empty() && !o_.generator_cpus.empty()) {
      argv.insert(argv.end() - 2, {"--cpus", FormatCpuList(o_.generator_cpus)});
    }
    // Its CPUs kept awake by the kernel's idle polling, or by pollers in its own process (where
    // the kernel cannot): in the generator's cgroup, where a
    // SCHED_IDLE poller yields to the generator at once. (Pollers in another cgroup than the
    // thread they stand aside for made it wait a scheduler slice, ~5 ms, on this kernel.)
    if (lo.keep_awake && !o_.generator_cpus.empty()) {
      argv.insert(argv.end() - 2, {"--keep-awake", FormatCpuList(o_.generator_cpus)});
    }
    // The generator runs in a sandbox of its own whose cpuset is the generator's CPUs: it
    // never competes with the workload for a CPU.
    auto captured = std::make_shared<CapturedOutput>();
    SandboxOptions go = GeneratorSandbox(o_.generator_cpus, o_.state_dir, captured);

    DriverResult out;
    int64_t t0 = p_.MonotonicNanos();
    REAM_ASSIGN_OR_RETURN(auto gen, kind_.Start(go, argv));
    // Sample the measured window only: from the end of the warm-up to the end of the duration.
    // Measured until known, the window's end is the generator's to decide: the monitors run to
    // its exit (its drain of the last answers included), at the latest to the rule's max.
    const int64_t window_start = t0 + lo.warmup_ns;
    const int64_t window_end =
        window_start + (lo.until ? lo.until->max_ns : lo.schedule ? lo.schedule->duration_ns() : lo.duration_ns);
    int64_t give_up = window_end + lo.response_timeout_ns + 15'000'000'000;
    DriverWindow window(hooks, window_start, window_end);
    WindowLines windows(hooks);
    constexpr milliseconds kPoll{10};
    int64_t last = p_.MonotonicNanos();
    while (true) {
      int64_t now = p_.MonotonicNanos();
      // The polls are kPoll apart: a step backwards, or of more than kClockStep, is ream's clock
      // jumping (or ream stopped that long). The generator keeps its own time, so the window's
      // and the give-up deadlines move with the step instead of passing at once (which cut the
      // window short and killed a generator that was measuring, as if it had hung).
      constexpr int64_t kClockStep = 5'000'000'000;
      if (now < last || now - last > kClockStep) {
        const int64_t shift = now - last - std::chrono::nanoseconds(kPoll).count();
        window.Shift(shift);
        give_up += shift;
      }
      last = now;
      if (hooks.interrupted()) {
        (void)gen->Stop();
        window.Close();
        return Cancelled("interrupted during the load level at " +
                           (lo.session.enabled() ? std::to_string(lo.session.sessions) + " sessions" : Num(lo.qps) + " QPS"));
      }
      window.Advance(now);
      windows.Read(*captured);
      if (!gen->Alive()) {
        auto e = gen->Wait(milliseconds(0));
        if (e.ok()) out.exit = *e;
        break;
      }
      if (now > give_up) {
        (void)gen->Stop();
        out.failure = "the generator did not finish within 15 s of its response timeout after its window";
        break;
      }
      p_.SleepFor(kPoll);
    }
    window.Close();
    // The generator prints its JSON just before it exits; the pipe may still hold it when the
    // exit is seen (seen: "printed no JSON result" from a generator that exited with status 0).
    if (out.exit) (void)gen->process().WaitForOutputEnd(milliseconds(2000));
    (void)gen->Stop();
    windows.Read(*captured);
    std::string text;
    {
      std::lock_guard<std::mutex> lock(captured->first);
      text = captured->second;
    }
    out.SetGenerator(ExtractGeneratorJson(text));
    return out;
  }

 private:
  Platform& p_;
  SandboxKind& kind_;
  LocalDriverOptions o_;
};

}  // namespace

std::vector<std::string> LoadArgv(const LoadOptions& lo) {
  std::vector<std::string> argv = {"load",
          "--target", Target(lo.host, lo.port),
          "--protocol", lo.protocol,
          "--qps", Num(lo.qps),
          "--duration", Duration(lo.duration_ns),
          "--warmup", Duration(lo.warmup_ns),
          "--arrival", lo.arrival.name,
          "--keys", std::to_string(lo.keys),
          "--key-dist", lo.key_dist.name,
          "--get-ratio", Num(lo.get_ratio),
          "--connections", std::to_string(lo.connections),
          "--threads", std::to_string(lo.threads),
          "--timely-tolerance", Duration(lo.timely_tolerance_ns),
          "--seed", std::to_string(lo.seed),
          "--value-bytes", lo.value_sizes.fixed() ? std::to_string(lo.codec.value_bytes) : lo.value_sizes.name,
          "--min-timely", Num(lo.min_timely_ratio),
          "--max-rate-error", Num(lo.max_rate_error),
          "--validity", ValidityRuleName(lo.validity),
          "--validity-percentile", Num(lo.validity_percentile),
          "--max-distortion", Num(lo.max_distortion),
          "--response-timeout", Duration(lo.response_timeout_ns),
          "--http-path", lo.codec.http_path,
          "--http-method", lo.codec.http_method,
          "--response-timing", !lo.kernel_rx_timestamps ? "user" : lo.segment_rx_timestamps ? "packet" : "kernel",
          "--wait", WaitName(lo.wait),
          "--send-floor", lo.send_floor == LoadOptions::SendFloorMode::kOff       ? "off"
                          : lo.send_floor == LoadOptions::SendFloorMode::kMeasure ? "measure"
                                                                                 : "cached",
          "--json", "/dev/stdout"};
  // Drawn sizes and multigets only when asked: the default command line stays as it was.
  if (!(lo.key_sizes.fixed() && lo.key_sizes.a == 16)) argv.insert(argv.end() - 2, {"--key-bytes", lo.key_sizes.name});
  if (!(lo.multiget.fixed() && lo.multiget.a == 1)) argv.insert(argv.end() - 2, {"--multiget", lo.multiget.name});
  if (!lo.preset.empty()) argv.insert(argv.end() - 2, {"--preset", lo.preset});
  if (lo.until) argv.insert(argv.end() - 2, {"--until", lo.until->Text()});
  if (lo.schedule) {
    // The rate over time: the schedule is the rate and the window's length.
    for (const char* flag : {"--qps", "--duration"}) {
      auto q = std::find(argv.begin(), argv.end(), flag);
      argv.erase(q, q + 2);
    }
    argv.insert(argv.end() - 2, {"--schedule", lo.schedule->text});
  }
  if (lo.window_ns > 0) argv.insert(argv.end() - 2, {"--window", Duration(lo.window_ns)});
  if (lo.session.enabled()) {
    // Session load: its sessions, not a rate (`ream load` derives the chunk rate).
    auto q = std::find(argv.begin(), argv.end(), "--qps");
    argv.erase(q, q + 2);
    argv.insert(argv.end() - 2, {"--sessions", std::to_string(lo.session.sessions), "--session-chunks",
                                 std::to_string(lo.session.session_chunks), "--chunk-bytes",
                                 std::to_string(lo.session.chunk_bytes), "--bitrate",
                                 std::to_string(lo.session.bitrate_bps) + "bit"});
  }
  return argv;
}

void WindowLines::Read(CapturedOutput& captured) {
  std::vector<LoadWindow> got;
  {
    std::lock_guard<std::mutex> lock(captured.first);
    const std::string& text = captured.second;
    for (size_t nl; (nl = text.find('\n', offset_)) != std::string::npos; offset_ = nl + 1) {
      std::string_view line(text.data() + offset_, nl - offset_);
      if (line.rfind("{\"window\":", 0) != 0) continue;
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.contains("window")) continue;
      if (auto w = LoadWindow::FromJson(j["window"]); w.ok()) got.push_back(std::move(w).value());
    }
  }
  // Outside the lock: the hook may take its time while the generator's lines keep coming.
  for (const LoadWindow& w : got) hooks_.window_report(w);
}

SandboxOptions GeneratorSandbox(const std::vector<int>& cpus, const std::string& state_dir,
                                std::shared_ptr<CapturedOutput> captured) {
  SandboxOptions go;
  go.partition.cpus = FormatCpuList(cpus);
  go.reserved_cpus = std::vector<int>{};
  go.capture_stdout = true;
  go.on_stdout_line = [captured](const std::string& line) {
    std::lock_guard<std::mutex> lock(captured->first);
    captured->second += line + "\n";
  };
  if (!state_dir.empty()) go.state_dir = state_dir;
  return go;
}

std::unique_ptr<LoadDriver> MakeLocalLoadDriver(Platform& platform, SandboxKind& sandboxes,
                                                LocalDriverOptions options) {
  return std::make_unique<LocalLoadDriver>(platform, sandboxes, std::move(options));
}

}  // namespace ream
