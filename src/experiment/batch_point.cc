#include "experiment/batch_point.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>

#include "batch/batch.h"
#include "experiment/corunners.h"
#include "experiment/point_columns.h"
#include "platform/text.h"
#include "monitor/monitor.h"

namespace ream {
namespace {

// Nearest rank over sorted values: the smallest value with at least q of them at or below it.
double NearestRank(const std::vector<double>& sorted, double q) {
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

nlohmann::json BatchWindowFigures(std::vector<double> run_seconds, double window_s, int copies,
                                  std::optional<double> cpu_s) {
  nlohmann::json j;
  nlohmann::json unavailable = nlohmann::json::object();
  const size_t n = run_seconds.size();
  j["completions"] = n;
  j["window_s"] = window_s;
  j["runs_per_min"] = window_s > 0 ? nlohmann::json(static_cast<double>(n) * 60.0 / window_s) : nlohmann::json();
  if (n == 0) {
    const std::string why = "no run completed within the window (lengthen [load] duration or shorten batch_seconds)";
    for (const char* k : {"run_time_mean_s", "run_time_p50_s", "run_time_p95_s", "cpu_s_per_run"}) {
      j[k] = nullptr;
      unavailable[k] = why;
    }
  } else {
    std::sort(run_seconds.begin(), run_seconds.end());
    double sum = 0;
    for (double s : run_seconds) sum += s;
    j["run_time_mean_s"] = sum / static_cast<double>(n);
    j["run_time_p50_s"] = NearestRank(run_seconds, 0.50);
    j["run_time_p95_s"] = NearestRank(run_seconds, 0.95);
    // CPU time per run is the contention measure (wall time on a shared CPU mixes in the time
    // a copy waited for it). Each copy is always in some run (restarted at once), so a copy's
    // CPU rate (the window's CPU seconds / window / copies) times the mean wall time of a run
    // is the CPU a run takes; dividing the window's CPU by the completions instead counts the
    // runs under way at the window's edges against the few completed (+50 % with 2 runs).
    if (cpu_s && window_s > 0 && copies > 0) {
      j["cpu_s_per_run"] = *cpu_s / window_s / copies * (sum / static_cast<double>(n));
    } else {
      j["cpu_s_per_run"] = nullptr;
      unavailable["cpu_s_per_run"] = "the sandbox's CPU time was not measured in this window";
    }
  }
  j["unavailable"] = unavailable;
  return j;
}

std::vector<std::string> BatchPointArgv(const ExperimentSpec& spec, const std::string& ream, int copies) {
  return {ream, "corun", "--copies", std::to_string(copies), "--repeat", "--", ream, "batch", spec.workload.batch,
          "--seconds", Fmt("%.6g", spec.workload.batch_seconds)};
}

Status PrepareBatchSubject(Platform& p, const ExperimentSpec& spec) {
  const batch::BatchProgram* prog = batch::FindBatchProgram(spec.workload.batch);
  if (!prog) return InvalidArgument("[workload] batch = \"" + spec.workload.batch + "\" is not a batch program");
  const std::string what = "batch program '" + prog->name + "'";
  if (auto found = batch::ResolveProgram(p, *prog); !found.ok()) return found.status().Annotate(what);
  // A helper built with ream, where the copies' user can reach it (batch/batch.h).
  REAM_RETURN_IF_ERROR(batch::PublishHelper(p, *prog).Annotate(what));
  auto input = batch::PrepareInput(p, *prog, {.seconds = spec.workload.batch_seconds, .seed = 1});
  if (!input.ok()) return input.status().Annotate("generating the input of " + what);
  return Status::Ok();
}

Result<PointData> MeasureBatchPoint(Platform& p, SandboxKind& kind, const ExperimentSpec& spec, const Prepared& prep,
                                    const PlannedRun& run, int copies, const std::string& state_dir,
                                    const std::function<bool()>& interrupted, CorunnerSet* corunners) {
  PointData d;
  PointRecord& pt = d.point;
  pt.target_load = copies;
  pt.started_ns = p.WallNanos();

  SandboxOptions so;
  so.partition = prep.partitions.at(run.partition.Label());
  so.partition.cpus = FormatCpuList(prep.scenario_cpus.at(run.scenario));
  so.partition.llc_masks = prep.placement.MasksOf(run, nullptr);
  so.reserved_cpus = prep.generator_cpus;
  so.capture_stdout = true;
  so.user = WorkloadUser(p, spec.workload.user);
  if (!state_dir.empty()) so.state_dir = state_dir;
  // Completions as `ream corun` prints them, timed when read (the reader is the sandbox's
  // stdout thread, hence the mutex).
  struct Seen {
    std::mutex mu;
    std::vector<std::pair<int64_t, double>> completions;  // (monotonic ns, run seconds)
    std::string ended;
  };
  auto seen = std::make_shared<Seen>();
  so.on_stdout_line = [seen, &p](const std::string& line) {
    static const std::string kCompleted = "ream-corun completed ";
    static const std::string kEnded = "ream-corun ended ";
    std::lock_guard<std::mutex> l(seen->mu);
    if (line.rfind(kCompleted, 0) == 0) {
      if (auto at = line.find("seconds="); at != std::string::npos) {
        seen->completions.emplace_back(p.MonotonicNanos(), std::atof(line.c_str() + at + 8));
      }
    } else if (line.rfind(kEnded, 0) == 0) {
      seen->ended = line.substr(kEnded.size());
    }
  };
  const std::vector<std::string> argv = BatchPointArgv(spec, prep.ream, copies);
  const std::string what = "batch '" + spec.workload.batch + "' x " + std::to_string(copies) + " ('" + Join(argv) + "')";
  auto started = kind.Start(so, argv);
  if (!started.ok()) return started.status().Annotate("starting " + what);
  std::unique_ptr<Sandbox> sb = std::move(started).value();
  auto last_output = [&] {
    std::string tail;
    if (!sb->Alive()) (void)sb->process().WaitForOutputEnd(std::chrono::milliseconds(500));
    // The last lines that say something (a copy killed mid-run leaves blank ones).
    std::vector<std::string> said;
    for (const auto& line : sb->process().Lines()) {
      if (line.find_first_not_of(" \t\r") != std::string::npos) said.push_back(line);
    }
    for (size_t i = said.size() > 6 ? said.size() - 6 : 0; i < said.size(); ++i) tail += "\n    " + said[i];
    return tail.empty() ? std::string() : "; its last output:" + tail;
  };
  auto fail = [&](const std::string& why) -> PointData {
    pt.status = PointStatus::kFailed;
    pt.failure = why + last_output();
    pt.valid = std::nullopt;
    (void)sb->Stop();
    return d;
  };
  // How the copies ended: `ream corun`'s line, with the sandbox's word on an OOM kill (which
  // ream corun sees only as a copy's failure).
  auto how_ended = [&]() -> std::string {
    (void)sb->process().WaitForOutputEnd(std::chrono::milliseconds(300));
    std::string ended;
    {
      std::lock_guard<std::mutex> l(seen->mu);
      ended = seen->ended;
    }
    std::string sandbox_said = sb->ExitDescription();
    if (ended.empty()) return sandbox_said;
    if (sandbox_said.find("memory limit") != std::string::npos) ended += "; " + sandbox_said;
    return ended;
  };
  // Sleeps to `end_ns` unless interrupted or the copies ended (a copy's failure ends them all).
  auto wait_until = [&](int64_t end_ns) -> Status {
    while (p.MonotonicNanos() < end_ns) {
      if (interrupted()) return Cancelled("interrupted during " + what);
      if (!sb->Alive()) return Status::Ok();
      p.SleepFor(std::chrono::milliseconds(20));
    }
    return Status::Ok();
  };
  if (Status s = wait_until(p.MonotonicNanos() + std::chrono::nanoseconds(spec.load.warmup).count()); !s.ok()) {
    (void)sb->Stop();
    return s;
  }
  if (!sb->Alive()) return fail(what + " ended during the warm-up: " + how_ended());

  Monitor monitor(p, TargetOf(*sb), MonitorOptions{.interval = spec.sample_interval});
  bool monitoring = false;
  if (Status s = monitor.Start(); !s.ok()) {
    pt.unavailable["monitor"] = s.message();
  } else {
    monitoring = true;
  }
  if (corunners) corunners->WindowStarted();
  const int64_t window_start_ns = p.MonotonicNanos();
  if (Status s = wait_until(window_start_ns + std::chrono::nanoseconds(spec.load.duration).count()); !s.ok()) {
    if (monitoring) (void)monitor.Stop();
    if (corunners) corunners->WindowEnded();
    (void)sb->Stop();
    return s;
  }
  const int64_t window_end_ns = p.MonotonicNanos();
  if (corunners) corunners->WindowEnded();
  std::optional<MonitorReport> report;
  if (monitoring) report = monitor.Stop();
  if (corunners) pt.corunners = corunners->Figures();
  if (!sb->Alive()) return fail(what + " ended during the window: " + how_ended());
  pt.duration_s = static_cast<double>(window_end_ns - window_start_ns) / 1e9;
  if (report) FillFromMonitor(*report, &d);
  std::vector<double> runs;
  {
    std::lock_guard<std::mutex> l(seen->mu);
    for (const auto& [at, seconds] : seen->completions) {
      if (at >= window_start_ns && at <= window_end_ns) runs.push_back(seconds);
    }
  }
  Status stopped = sb->Stop();
  nlohmann::json b = BatchWindowFigures(runs, *pt.duration_s, copies, pt.server_cpu_s);
  b["program"] = spec.workload.batch;
  b["batch_seconds"] = spec.workload.batch_seconds;
  b["copies"] = copies;
  b["cpus"] = so.partition.cpus;
  if (report && report->memory_peak_bytes) {
    b["memory_peak_bytes"] = *report->memory_peak_bytes;
    b["memory_peak_scope"] = report->memory_peak_scope;
  } else {
    b["memory_peak_bytes"] = nullptr;
    std::string why = "the monitor did not run in this window";
    if (report) {
      auto it = report->unavailable.find("memory_peak");
      why = it != report->unavailable.end() ? it->second : "the kernel gave no high-water mark";
    }
    b["unavailable"]["memory_peak_bytes"] = why;
  }
  pt.batch = b;
  pt.completed = static_cast<int64_t>(runs.size());
  pt.valid = !runs.empty();
  if (runs.empty()) pt.invalid_reasons.push_back(b["unavailable"]["run_time_mean_s"].get<std::string>());
  if (corunners) {
    // A neighbour that ended during the window left the copies beside less than the set.
    for (const std::string& why : corunners->EndedDuringWindow()) {
      pt.valid = false;
      pt.invalid_reasons.push_back(why);
    }
  }
  if (!stopped.ok()) pt.unavailable["sandbox"] = "stopping the copies' sandbox: " + stopped.message();
  return d;
}

}  // namespace ream
