#include "experiment/level.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "experiment/corunners.h"
#include "experiment/point_columns.h"
#include "monitor/monitor.h"

namespace ream {
namespace {

// The monitor times its window on ream's clock; the driver opened and closed it `duration`
// apart by the same clock, so the two agree to a few polls. A window longer than that by more
// than a second and half the level, or a negative one, means ream's clock jumped during the
// level (or ream was stopped that long): the monitor's rates are over another span than the
// load's, so none is given — each family unavailable with the reason — and no hour-long or
// negative window is stored. (A shorter window is legitimate: the driver closes it early when
// the generator ends early.)
void CheckMonitorWindow(const LoadOptions& o, MonitorReport* r) {
  // (Measured until known, the level's window is the generator's to end, by the rule's max.)
  const double want_s = static_cast<double>(o.until ? o.until->max_ns : o.duration_ns) / 1e9;
  if (r->duration_s >= 0 && r->duration_s <= want_s + std::max(1.0, 0.5 * want_s)) return;
  char why[256];
  std::snprintf(why, sizeof why,
                "the monitor's window lasted %.6g s by ream's clock where the level's is %.6g s: the clock "
                "jumped (or ream was stopped) during the level, so the window's figures are not given",
                r->duration_s, want_s);
  for (const char* family : {"cpu", "net", "disk", "memory", "memory_peak", "mem_bandwidth", "llc_occupancy"}) {
    r->unavailable[family] = why;
  }
  r->unavailable["window"] = why;
  r->summary.clear();
  r->timeline.clear();
  r->per_cpu_mean.clear();
  r->memory_peak_bytes.reset();
  r->duration_s = 0;
}

}  // namespace

Result<PointData> MeasureLevel(Platform& p, LoadDriver& driver, LaunchedWorkload& wl, const LoadOptions& options,
                               std::chrono::nanoseconds sample_interval, const std::function<bool()>& interrupted,
                               CorunnerSet* corunners, const std::function<void(const LoadWindow&)>& on_window) {
  PointData d;
  PointRecord& pt = d.point;
  // The level on the sweep's axis: a rate, or a number of sessions.
  pt.target_load = options.session.enabled() ? options.session.sessions : options.qps;
  pt.started_ns = p.WallNanos();

  // The window is sampled here from the sandbox's kernel objects, or, for a workload on
  // another host, by that host's agent (Sandbox::monitored_remotely), whose report comes back
  // when the window closes.
  Sandbox& sb = *wl.sandbox;
  const bool remote = sb.monitored_remotely();
  std::optional<Monitor> monitor;
  if (!remote) monitor.emplace(p, TargetOf(sb), MonitorOptions{.interval = sample_interval});
  bool monitoring = false;
  std::optional<MonitorReport> report;
  bool corunners_watched = false;
  auto stop = [&] {
    if (corunners_watched) {
      corunners_watched = false;
      corunners->WindowEnded();
    }
    if (!monitoring) return;
    monitoring = false;
    if (!remote) {
      report = monitor->Stop();
      return;
    }
    auto doc = sb.StopMonitorWindow();
    auto r = doc.ok() ? MonitorReport::FromJson(*doc) : Result<MonitorReport>(doc.status());
    if (!r.ok()) {
      pt.unavailable["monitor"] = "the workload host's monitor report: " + r.status().message();
      report = MonitorReport{};
    } else {
      report = std::move(r).value();
    }
  };
  DriverHooks hooks;
  hooks.interrupted = interrupted;
  hooks.window_started = [&] {
    if (corunners) {
      corunners->WindowStarted();
      corunners_watched = true;
    }
    Status s = remote ? sb.StartMonitorWindow(sample_interval) : monitor->Start();
    if (!s.ok()) {
      pt.unavailable["monitor"] = s.message();
      report = MonitorReport{};
    } else {
      monitoring = true;
    }
  };
  hooks.window_ended = stop;
  if (on_window) hooks.window_report = on_window;
  // The co-runners' own loads start before the subject's warm-up and end with its window.
  if (corunners) REAM_RETURN_IF_ERROR(corunners->StartLoads(options));
  auto driven = driver.Measure(options, hooks);
  stop();
  if (corunners) corunners->CollectLoads();
  if (!driven.ok()) return driven.status();
  const DriverResult& r = *driven;
  if (!r.failure.empty()) {
    pt.status = PointStatus::kFailed;
    pt.failure = r.failure;
  }
  if (report) CheckMonitorWindow(options, &*report);
  if (report) FillFromMonitor(*report, &d);
  if (r.generator) FillFromGenerator(*r.generator, &d);
  if (!wl.sandbox->Alive()) {
    auto e = wl.sandbox->Wait(std::chrono::milliseconds(0));
    pt.status = PointStatus::kFailed;
    pt.workload_exit = wl.sandbox->ExitDescription();
    if (e.ok()) pt.workload_exit_code = e->ShellCode();
    pt.failure = "the workload " + pt.workload_exit + " during this load level";
  } else if (wl.relay && !wl.relay->Alive()) {
    // The relay in the path died: the level measured a broken path, whatever the generator saw.
    pt.status = PointStatus::kFailed;
    pt.failure = "the relay " + wl.relay_what + " " + wl.relay->ExitDescription() + " during this load level";
  } else if (pt.status == PointStatus::kOk && !r.generator) {
    pt.status = PointStatus::kFailed;
    pt.failure = "the generator failed (" + (r.exit ? r.exit->Describe() : std::string("no exit status")) +
                 "): " + r.no_result.message();
  } else if (pt.status == PointStatus::kOk && r.exit && r.exit->ShellCode() != 0 && r.exit->ShellCode() != 3) {
    // 3: the measurement happened but some requests failed (counted in `errors`).
    pt.status = PointStatus::kFailed;
    pt.failure = "the generator " + r.exit->Describe();
  }
  if (corunners) {
    pt.corunners = corunners->Figures();
    // A neighbour that ended during the window left the subject measured beside less than the
    // set: the point says nothing about the set, whatever the subject's figures were.
    for (const std::string& why : corunners->EndedDuringWindow()) {
      pt.valid = false;
      pt.invalid_reasons.push_back(why);
    }
  }
  if (pt.status != PointStatus::kOk) pt.valid = std::nullopt;
  return d;
}

}  // namespace ream
