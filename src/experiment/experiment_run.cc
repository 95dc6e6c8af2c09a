#include "experiment/experiment_run.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <optional>
#include <tuple>
#include <cstdio>

#include "experiment/batch_point.h"
#include "experiment/corunners.h"
#include "experiment/level.h"
#include "experiment/run_windows.h"
#include "search/load_range.h"
#include "experiment/network_path.h"
#include "platform/text.h"
#include "experiment/sweep.h"
#include "experiment/workload_launch.h"
#include "platform/signals.h"

namespace ream {
namespace {

bool Interrupted() { return TerminationSignals::Received() != 0; }

}  // namespace

double ExperimentRun::EstimatedSecondsPerPoint(const LoadSpec& l) {
  // Measured until known, a point's length is found as it runs: before the first, the longest
  // it may last; from then on the progress line takes the mean of the points measured.
  const double window_s = l.until ? static_cast<double>(l.until->max_ns) / 1e9
                                  : std::chrono::duration<double>(l.duration).count();
  return std::chrono::duration<double>(l.warmup + l.response_timeout).count() + window_s + 1.5;
}

// One run's sweep context: its stored points by (level, attempt), its workload (started when a
// level first needs it, restarted as the spec says), and the progress it reports.
class ExperimentRun::Context final : public SweepContext {
 public:
  Context(ExperimentRun& r, const PlannedRun& run, RunRecord& rec, RunOutcome& outcome)
      : r_(r), run_(run), rec_(rec), outcome_(outcome) {}

  Status Load() {
    REAM_ASSIGN_OR_RETURN(auto stored, r_.store_.ListPoints(rec_.id));
    for (auto& sp : stored) {
      PointData d;
      d.point = sp;
      auto hs = r_.store_.GetHistograms(sp.id);
      if (hs.ok()) d.histograms = std::move(hs).value();
      next_seq_ = std::max(next_seq_, sp.seq + 1);
      have_.emplace(std::make_pair(sp.target_load, sp.attempt), std::move(d));
    }
    return Status::Ok();
  }
  int stored_points() const { return static_cast<int>(have_.size()); }

  Result<PointData> Level(double load, int attempt) override {
    if (auto it = have_.find({load, attempt}); it != have_.end()) {
      ++outcome_.points_skipped;
      return it->second;
    }
    // A subject that runs to completion: its level is copies of it, not a request rate.
    if (r_.spec_.workload.kind && r_.spec_.workload.kind->completes) return BatchLevel(load, attempt);
    REAM_RETURN_IF_ERROR(EnsureWorkload());
    const int64_t started_ns = r_.p_.MonotonicNanos();
    uint64_t seed = r_.spec_.seed + 7919ull * static_cast<uint64_t>(run_.ordinal) + static_cast<uint64_t>(next_seq_);
    LoadOptions lo = LevelLoadOptions(r_.spec_, load, seed, wl_->target_host(), wl_->target_port());
    if (clients_) std::tie(lo.threads, lo.connections) = *clients_;
    // A manager decides once a period, on the window the generator reports then.
    if (r_.spec_.manager.given && lo.window_ns == 0) {
      lo.window_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(r_.spec_.manager.period).count();
    }
    // Windows as they end: stored with the run, and read by the manager where it acts here.
    std::optional<RunWindows> windows;
    std::function<void(const LoadWindow&)> on_window;
    if (lo.window_ns > 0) {
      const std::vector<std::string> set = run_.tenant_set >= 0 ? r_.spec_.colocation.sets.at(run_.tenant_set)
                                                                : std::vector<std::string>{};
      windows.emplace(r_.p_, r_.store_, rec_.id, r_.spec_, corunners_ ? &*corunners_ : nullptr, *wl_->sandbox,
                      ManagedRun(r_.spec_.manager, set), run_.corunner_set.empty() ? "alone" : run_.corunner_set);
      REAM_RETURN_IF_ERROR(windows->Start());
      on_window = [&windows](const LoadWindow& w) { windows->OnWindow(w); };
    }
    REAM_ASSIGN_OR_RETURN(PointData d, MeasureLevel(r_.p_, r_.driver_, *wl_, lo, r_.spec_.sample_interval,
                                                    Interrupted, corunners_ ? &*corunners_ : nullptr, on_window));
    if (windows) {
      REAM_RETURN_IF_ERROR(windows->status());
      if (windows->failed_actions() > 0) {
        Emit(RunWarning{Where(), std::to_string(windows->failed_actions()) + " of the manager's " +
                                     std::to_string(windows->actions()) +
                                     " moves could not be written (each stored with why)"});
      }
    }
    return StorePoint(std::move(d), load, attempt, started_ns);
  }

  // A batch subject's level: `load` copies in a sandbox of the run's partition
  // (experiment/batch_point.h); the input made once per run, before the first window.
  Result<PointData> BatchLevel(double load, int attempt) {
    if (!batch_prepared_) {
      REAM_RETURN_IF_ERROR(PrepareBatchSubject(r_.p_, r_.spec_).Annotate(SpecAt(r_.spec_, r_.spec_.workload.line)));
      batch_prepared_ = true;
    }
    // A shared run's co-runners first (measured alone over one window the first time).
    REAM_RETURN_IF_ERROR(EnsureCorunners());
    const int64_t started_ns = r_.p_.MonotonicNanos();
    REAM_ASSIGN_OR_RETURN(PointData d, MeasureBatchPoint(r_.p_, r_.sandboxes_, r_.spec_, r_.prep_, run_,
                                                         static_cast<int>(std::lround(load)), r_.o_.state_dir,
                                                         Interrupted, corunners_ ? &*corunners_ : nullptr));
    return StorePoint(std::move(d), load, attempt, started_ns);
  }

  // Stores a measured point and reports it.
  Result<PointData> StorePoint(PointData d, double load, int attempt, int64_t started_ns) {
    d.point.run_id = rec_.id;
    if (wl_ && !wl_->network.empty()) d.point.network = wl_->network.ToJson();
    if (wl_ && !r_.keep_awake_cpus_.empty()) {
      d.point.generator["keep_awake_cpus"] = r_.keep_awake_cpus_;
      d.point.generator["keep_awake_workload"] =
          r_.spec_.load.KeepsWorkloadAwake()
              ? wl_->sandbox->keep_awake_note()
              : std::string("not asked: keep_awake = \"generator\" keeps the generator's CPUs only");
    }
    d.point.seq = next_seq_;
    d.point.target_load = load;
    d.point.attempt = attempt;
    auto id = r_.store_.InsertPoint(d);
    if (!id.ok()) {
      return id.status().Annotate("storing the point at " + Fmt("%.6g", load) + " " +
                                  std::string(LoadAxisUnit(r_.axis_)));
    }
    d.point.id = *id;
    // The wall clock gives only the stored start times (durations are timed on the monotonic
    // clock); when it is stepped back (NTP, or by hand) they go out of order, which is said.
    if (last_started_ns_ && d.point.started_ns < *last_started_ns_) {
      Emit(RunWarning{Where(), "the wall clock went back " +
                                   Fmt("%.6g", static_cast<double>(*last_started_ns_ - d.point.started_ns) / 1e9) +
                                   " s since the previous point started (stepped by NTP or by hand): the stored start "
                                   "times follow the clock; the durations are timed on the monotonic clock"});
    }
    last_started_ns_ = d.point.started_ns;
    ++next_seq_;
    r_.measured_seconds_ += static_cast<double>(r_.p_.MonotonicNanos() - started_ns) / 1e9;
    ++r_.measured_points_;
    ++outcome_.points_stored;
    if (d.point.status != PointStatus::kOk) ++outcome_.points_failed;
    Progress(d);
    have_.emplace(std::make_pair(load, int64_t{attempt}), d);
    return d;
  }

  const PointData* Stored(double load, int attempt) const override {
    auto it = have_.find({load, attempt});
    return it == have_.end() ? nullptr : &it->second;
  }
  void Emit(RunEvent e) override { r_.observer_.OnEvent(e); }
  EventRun Where() const override {
    // A shared run names its co-runner set beside the partition ("default with cache+stream").
    return {r_.spec_.name, r_.label_, run_.ordinal, run_.scenario,
            run_.partition.Label() + (run_.corunner_set.empty() ? "" : " with " + run_.corunner_set), run_.repetition};
  }
  void AddPlanned(int delta) override { r_.planned_points_ += delta; }

  double PercentileUs(const PointData& d) const override {
    auto it = d.histograms.find(kHistSojourn);
    if (it != d.histograms.end() && it->second.count() > 0) {
      return static_cast<double>(it->second.ValueAtQuantile(r_.spec_.qos.percentile / 100.0)) / 1000.0;
    }
    if (r_.spec_.qos.percentile == 95.0 && d.point.latency_p95_us) return *d.point.latency_p95_us;
    return 0;
  }

  Result<double> DeriveTarget(const PointData& first) const override {
    const ExperimentSpec& spec = r_.spec_;
    if (spec.qos.target_us) return *spec.qos.target_us;
    const PointRecord& p = first.point;
    double service_us = 0;
    if (p.service_mean_us && *p.service_mean_us > 0) {
      service_us = *p.service_mean_us;
    } else if (p.cpu_util && p.throughput_qps && *p.throughput_qps > 0) {
      // Service demand law: S = U / X over the allotted CPUs.
      double allotted = static_cast<double>(r_.prep_.scenario_cpus.at(run_.scenario).size());
      const PartitionSpec& ps = r_.prep_.partitions.at(run_.partition.Label());
      if (ps.cpu_quota) allotted = std::min(allotted, *ps.cpu_quota);
      service_us = *p.cpu_util * allotted / *p.throughput_qps * 1e6;
    }
    if (!(service_us > 0)) {
      return InvalidArgument(SpecAt(spec, 0) + "the knee search needs a QoS target: set [qos] target, "
                             "because the service time could not be measured at the lowest load");
    }
    return spec.qos.service_multiplier * service_us;
  }

  // qps = "auto": the probes of search/load_range.h, each a short level not stored as a
  // point (the sweep's levels are); or the levels a resumed run chose before.
  Result<std::vector<double>> AutoLevels() {
    if (rec_.sweep.is_object() && rec_.sweep.contains("levels") && rec_.sweep["levels"].is_array()) {
      std::vector<double> levels = rec_.sweep["levels"].get<std::vector<double>>();
      LoadRangeChosen e{Where(), levels, std::nullopt, std::nullopt, std::nullopt, 0,
                        rec_.sweep.value("why", std::string()), true};
      Emit(e);
      return levels;
    }
    const SweepSpec& sw = r_.spec_.sweep;
    LoadRangeSearch search({.start_qps = sw.probe_start_qps, .levels = sw.auto_levels});
    nlohmann::json probes = nlohmann::json::array();
    int n = 0;
    while (auto q = search.Next()) {
      REAM_RETURN_IF_ERROR(EnsureWorkload());
      uint64_t seed = r_.spec_.seed + 104729ull * static_cast<uint64_t>(run_.ordinal) + static_cast<uint64_t>(n++);
      LoadOptions lo = LevelLoadOptions(r_.spec_, *q, seed, wl_->target_host(), wl_->target_port());
      lo.duration_ns = std::chrono::nanoseconds(sw.probe_duration).count();
      lo.warmup_ns = std::min<int64_t>(lo.warmup_ns, lo.duration_ns / 2);
      lo.until.reset();  // a probe asks where the range lies, over its own fixed window
      REAM_ASSIGN_OR_RETURN(PointData d, MeasureLevel(r_.p_, r_.driver_, *wl_, lo, r_.spec_.sample_interval,
                                                      Interrupted, corunners_ ? &*corunners_ : nullptr));
      RangeProbe p;
      p.qps = *q;
      p.cpu_util = d.point.cpu_util;
      if (auto it = d.point.unavailable.find("cpu_util"); it != d.point.unavailable.end()) p.cpu_unavailable = it->second;
      p.throughput_qps = d.point.throughput_qps.value_or(0);
      p.achieved_qps = d.point.achieved_qps;
      p.valid = d.point.status == PointStatus::kOk && d.point.valid.value_or(false);
      p.invalid_reason = d.point.status == PointStatus::kOk ? InvalidWhy(d.point) : d.point.failure;
      probes.push_back({{"qps", p.qps}, {"cpu_util", p.cpu_util ? nlohmann::json(*p.cpu_util) : nlohmann::json()},
                        {"throughput_qps", p.throughput_qps}, {"valid", p.valid}});
      search.Take(p);
    }
    REAM_ASSIGN_OR_RETURN(std::vector<double> levels, search.Levels());
    rec_.sweep = {{"levels", levels}, {"why", search.Why()}, {"probes", probes}};
    REAM_RETURN_IF_ERROR(r_.store_.UpdateRun(rec_));
    Emit(LoadRangeChosen{Where(), levels, search.qps_at_20(), search.qps_at_50(), search.saturation_qps(),
                         static_cast<int>(search.probes().size()), search.Why(), false});
    return levels;
  }

  // connections / threads = "auto": at the sweep's top level, the fewest clients that keep it
  // timely (probes, not stored as points), or those a resumed run chose before.
  Status ChooseClients(double top) {
    const LoadSpec& l = r_.spec_.load;
    if (!l.connections_auto && !l.threads_auto) return Status::Ok();
    if (rec_.sweep.is_object() && rec_.sweep.contains("connections") && rec_.sweep.contains("threads")) {
      clients_ = {rec_.sweep["threads"].get<int>(), rec_.sweep["connections"].get<int>()};
      Emit(ClientsChosen{Where(), clients_->first, clients_->second, rec_.sweep.value("clients_timely", false),
                         rec_.sweep.value("clients_why", std::string()), true});
      return Status::Ok();
    }
    int max_threads = std::max<int>(1, static_cast<int>(r_.prep_.generator_cpus.size()));
    auto candidates = ClientCandidates(l.threads_auto, l.threads, l.connections_auto, l.connections, max_threads);
    if (candidates.empty()) {
      return InvalidArgument(SpecAt(r_.spec_, 0) + "[load] threads = " + std::to_string(l.threads) +
                             " need at least as many connections (" + std::to_string(l.connections) + ")");
    }
    const SweepSpec& sw = r_.spec_.sweep;
    std::string tried;
    std::optional<std::pair<int, int>> best;
    double best_timely = -1;
    bool timely = false;
    int n = 0;
    for (auto [t, c] : candidates) {
      REAM_RETURN_IF_ERROR(EnsureWorkload());
      uint64_t seed = r_.spec_.seed + 15485863ull * static_cast<uint64_t>(run_.ordinal) + static_cast<uint64_t>(n++);
      LoadOptions lo = LevelLoadOptions(r_.spec_, top, seed, wl_->target_host(), wl_->target_port());
      lo.threads = t;
      lo.connections = c;
      lo.until.reset();  // a probe asks whether the clients keep the schedule, over a fixed window
      if (sw.auto_range) {
        lo.duration_ns = std::chrono::nanoseconds(sw.probe_duration).count();
        lo.warmup_ns = std::min<int64_t>(lo.warmup_ns, lo.duration_ns / 2);
      }
      REAM_ASSIGN_OR_RETURN(PointData d, MeasureLevel(r_.p_, r_.driver_, *wl_, lo, r_.spec_.sample_interval,
                                                      Interrupted, corunners_ ? &*corunners_ : nullptr));
      double ratio = d.point.timely_ratio.value_or(0);
      char b[96];
      std::snprintf(b, sizeof b, "%s%d×%d: %.1f %% timely", tried.empty() ? "" : ", ", c, t, ratio * 100);
      tried += b;
      if (ratio > best_timely) {
        best_timely = ratio;
        best = {t, c};
      }
      if (d.point.status == PointStatus::kOk && ratio >= r_.spec_.qos.min_timely_ratio) {
        best = {t, c};
        timely = true;
        break;
      }
    }
    clients_ = best;
    char top_text[64];
    std::snprintf(top_text, sizeof top_text, "%.6g QPS", top);
    std::string why = std::string(timely ? "the fewest keeping " : "none kept ") + top_text + " timely (" +
                      tried + ", connections×threads)" + (timely ? "" : "; the most timely is used");
    if (!rec_.sweep.is_object()) rec_.sweep = nlohmann::json::object();
    rec_.sweep["threads"] = clients_->first;
    rec_.sweep["connections"] = clients_->second;
    rec_.sweep["clients_timely"] = timely;
    rec_.sweep["clients_why"] = why;
    REAM_RETURN_IF_ERROR(r_.store_.UpdateRun(rec_));
    Emit(ClientsChosen{Where(), clients_->first, clients_->second, timely, why, false});
    return Status::Ok();
  }

  // Stops the workload and its co-runners, if they run; a failure to remove what they created
  // is said, not fatal.
  void StopWorkload() {
    if (wl_) {
      Status s = wl_->Stop();
      if (!s.ok()) Emit(RunWarning{Where(), "stopping the workload: " + s.message()});
      wl_.reset();
    }
    if (corunners_) {
      Status s = corunners_->Stop();
      if (!s.ok()) Emit(RunWarning{Where(), "stopping the co-runners: " + s.message()});
      corunners_.reset();
    }
  }

 private:
  void Progress(const PointData& d) {
    ++r_.done_points_;
    const PointRecord& p = d.point;
    int left = std::max(r_.planned_points_ - r_.done_points_, 0);
    double per = r_.measured_points_ ? r_.measured_seconds_ / r_.measured_points_
                                     : EstimatedSecondsPerPoint(r_.spec_.load);
    LevelMeasured e;
    e.run = Where();
    e.axis = std::string(LoadAxisName(r_.axis_));
    e.load = p.target_load;
    e.attempt = static_cast<int>(p.attempt);
    e.status = std::string(StatusName(p.status));
    e.failure = p.failure;
    e.valid = p.valid;
    e.invalid_reasons = p.invalid_reasons;
    e.qos_percentile = r_.spec_.qos.percentile;
    e.percentile_latency_us = PercentileUs(d);
    e.timely_ratio = p.timely_ratio;
    if (p.generator.is_object() && p.generator.contains("send_floor") && p.generator["send_floor"].is_object() &&
        p.generator["send_floor"].value("available", false)) {
      e.host_timely_ratio = p.generator["send_floor"].value("timely_ratio", 0.0);
    }
    e.cpu_util = p.cpu_util;
    if (p.generator.is_object() && p.generator.contains("reconnections") && p.generator["reconnections"].is_number()) {
      e.reconnections = p.generator["reconnections"].get<int64_t>();
    }
    if (p.until_decided) {
      e.until_decided = p.until_decided;
      e.until_measured_s = p.duration_s;
    }
    e.done_points = r_.done_points_;
    e.planned_points = r_.planned_points_;
    e.planned_is_max = r_.knee_;
    e.eta_seconds = left * per;
    Emit(e);
  }

  // A shared run's co-runners, started before the subject (and, the first time, measured alone
  // over one window with the subject not running: their throughput alone, interleaved with
  // the shared points), and started again between points when one ended.
  Status EnsureCorunners() {
    if (run_.tenant_set < 0) return Status::Ok();
    if (!corunners_) {
      if (!r_.corunner_kinds_) own_kinds_.emplace(r_.sandboxes_);
      const CorunnerKinds& kinds = r_.corunner_kinds_ ? *r_.corunner_kinds_ : *own_kinds_;
      corunners_.emplace(r_.p_, kinds, r_.spec_, r_.prep_, run_, r_.o_.state_dir);
    }
    REAM_ASSIGN_OR_RETURN(std::vector<std::string> ended, corunners_->EnsureRunning(Interrupted));
    for (const auto& e : ended) Emit(RunWarning{Where(), "co-runner " + e + "; started it again"});
    if (!rec_.corunners) {
      rec_.corunners = corunners_->Describe();
      REAM_RETURN_IF_ERROR(r_.store_.UpdateRun(rec_));
    }
    const bool measured = rec_.corunners->alone_measured;
    if (!r_.spec_.colocation.alone || measured) return Status::Ok();
    // The subject is not running yet: its first start comes after this window.
    if (wl_) StopSubjectOnly();
    const LoadSpec& l = r_.spec_.load;
    // Co-runners with a load of their own are driven over this window too, as beside a point
    // (the subject's address is not used: there is no subject to load).
    REAM_RETURN_IF_ERROR(corunners_->StartLoads(LevelLoadOptions(r_.spec_, 1, r_.spec_.seed, "127.0.0.1", 1)));
    r_.p_.SleepFor(l.warmup);
    if (Interrupted()) return Cancelled("interrupted while measuring the co-runners alone");
    corunners_->WindowStarted();
    const int64_t end_ns = r_.p_.MonotonicNanos() + std::chrono::nanoseconds(l.duration).count();
    while (r_.p_.MonotonicNanos() < end_ns && !Interrupted()) r_.p_.SleepFor(std::chrono::milliseconds(20));
    corunners_->WindowEnded();
    corunners_->CollectLoads();
    if (Interrupted()) return Cancelled("interrupted while measuring the co-runners alone");
    std::vector<std::string> died = corunners_->EndedDuringWindow();
    rec_.corunners->SetAlone(corunners_->Figures(), died);
    for (const auto& why : died) Emit(RunWarning{Where(), "measuring the co-runners alone: " + why});
    return r_.store_.UpdateRun(rec_);
  }

  void StopSubjectOnly() {
    (void)wl_->Stop();
    wl_.reset();
  }

  // The workload, started when a level first needs it and again as the spec says.
  Status EnsureWorkload() {
    REAM_RETURN_IF_ERROR(EnsureCorunners());
    bool relay_dead = wl_ && wl_->relay && !wl_->relay->Alive();
    if (wl_ && (r_.spec_.workload.restart == RestartEvery::kPoint || !wl_->sandbox->Alive() || relay_dead)) {
      if (!wl_->sandbox->Alive()) Emit(WorkloadRestarted{Where(), wl_->sandbox->ExitDescription()});
      if (relay_dead) {
        Emit(WorkloadRestarted{Where(), "the relay " + wl_->relay_what + " " + wl_->relay->ExitDescription()});
      }
      (void)wl_->Stop();
      wl_.reset();
    }
    if (!wl_) {
      REAM_ASSIGN_OR_RETURN(LaunchedWorkload w, StartWorkload(r_.p_, r_.sandboxes_, r_.spec_, r_.prep_, run_,
                                                              r_.o_.state_dir, Interrupted));
      wl_ = std::move(w);
      if (std::string note = wl_->sandbox->startup_note(); !note.empty()) {
        Emit(WorkloadStarted{Where(), std::string(r_.sandboxes_.name()), note});
      }
      REAM_RETURN_IF_ERROR(CalibrateNetwork());
    }
    return Status::Ok();
  }

  // With a relay knob set: what each knob really adds, measured once per run before its first
  // level (network_path.h), kept for the workload's restarts and stored with every point.
  Status CalibrateNetwork() {
    const PartitionSpec& ps = r_.prep_.partitions.at(run_.partition.Label());
    if (!wl_->relay) return Status::Ok();
    if (!calibrated_) {
      NetworkPath path = wl_->network;
      uint64_t seed = r_.spec_.seed + 32452843ull * static_cast<uint64_t>(run_.ordinal);
      LoadOptions base = LevelLoadOptions(r_.spec_, 200, seed, wl_->target_host(), wl_->target_port());
      REAM_RETURN_IF_ERROR(Calibrate(r_.p_, r_.driver_, r_.sandboxes_, r_.prep_.ream, r_.prep_.generator_cpus, base,
                                     *wl_, ps, r_.o_.state_dir, {}, r_.spec_.sample_interval, Interrupted, &path));
      for (const auto& c : path.calibrations) {
        if (c.warning) Emit(RunWarning{Where(), c.knob + ": requested " + Fmt("%.6g", c.requested) + " " + c.unit +
                                                    ", measured " + Fmt("%.6g", *c.measured) + " " + c.unit + " (" +
                                                    c.note + ")"});
      }
      calibrated_ = path;
    }
    std::string target = wl_->network.target;
    wl_->network = *calibrated_;
    wl_->network.target = target;
    return Status::Ok();
  }

  ExperimentRun& r_;
  const PlannedRun& run_;
  RunRecord& rec_;
  RunOutcome& outcome_;
  // (target, attempt) → stored point (with its sojourn histogram). A knee search measures a
  // level again when its point was invalid; on --resume it asks for the same (level,
  // attempt) pairs in the same order, so every stored attempt is reused, none repeated.
  std::map<std::pair<double, int64_t>, PointData> have_;
  int64_t next_seq_ = 0;
  std::optional<int64_t> last_started_ns_;  // the wall clock at the last point measured here
  std::optional<LaunchedWorkload> wl_;
  std::optional<std::pair<int, int>> clients_;  // (threads, connections) chosen by ChooseClients
  std::optional<NetworkPath> calibrated_;        // the LogGP knobs' calibration (CalibrateNetwork)
  std::optional<CorunnerKinds> own_kinds_;       // every co-runner in the subject's kind (none given)
  std::optional<CorunnerSet> corunners_;        // a shared run's co-runners (EnsureCorunners)
  bool batch_prepared_ = false;                 // a batch subject's input is ready (BatchLevel)
};

Status ExperimentRun::RunPlanned(size_t i, RunOutcome& outcome) {
  auto it = todo_.find(i);
  return it == todo_.end() ? Status::Ok() : RunOne(*it->second.first, it->second.second, outcome);
}

bool ExperimentRun::Finished() const {
  return std::all_of(todo_.begin(), todo_.end(), [](const auto& t) {
    return t.second.second.status == RunStatus::kComplete || t.second.second.status == RunStatus::kFailed;
  });
}

Status ExperimentRun::RunOne(const PlannedRun& run, RunRecord& rec, RunOutcome& outcome) {
  Context ctx(*this, run, rec, outcome);
  REAM_RETURN_IF_ERROR(ctx.Load());
  rec.workload_cpus = FormatCpuList(prep_.scenario_cpus.at(run.scenario));
  rec.generator_cpus = FormatCpuList(prep_.generator_cpus);
  rec.status = RunStatus::kRunning;
  if (!rec.started_ns) rec.started_ns = p_.WallNanos();
  REAM_RETURN_IF_ERROR(store_.UpdateRun(rec));
  observer_.OnEvent(
      RunStarted{ctx.Where(), rec.workload_cpus, rec.generator_cpus, ctx.stored_points(), spec_.load.keep_awake});
  // [load] keep_awake: the generator's CPUs never idle while the run lasts, by pollers in the
  // `ream load` process (load_driver.cc), in its own cgroup; the workload's, by `ream
  // keep-awake` in the workload's cpu cgroup (SandboxOptions::keep_awake): a SCHED_IDLE poller
  // outside that group made its requests wait a scheduler slice (p99 0.17 -> 2.7 ms at 5 000
  // QPS, docs/performance.md). Each point stores what was kept awake (keep_awake_workload says
  // why the workload's CPUs were not, where the sandbox could not do it without charging the
  // pollers to the workload, or that keep_awake = "generator" did not ask for them).
  keep_awake_cpus_ = spec_.load.KeepsGeneratorAwake() ? FormatCpuList(prep_.generator_cpus) : std::string();

  SweepEnd end;
  if (spec_.sweep.mode == SweepMode::kKnee) {
    end = RunKnee(spec_.sweep, spec_.qos, ctx);
  } else {
    Result<std::vector<double>> levels = run.grid_loads;
    if (spec_.sweep.auto_range) levels = ctx.AutoLevels();
    Status clients = levels.ok() && !levels->empty() ? ctx.ChooseClients(levels->back()) : levels.status();
    if (!clients.ok()) {
      end.status = clients;
    } else {
      end = RunGrid(spec_.sweep, *levels, ctx, spec_.load.attempts);
    }
  }
  ctx.StopWorkload();
  Status result = end.status;
  bool run_failed = end.stopped;
  std::string run_failure = end.failure;
  if (!result.ok()) {
    if (result.code() == StatusCode::kCancelled) {
      rec.status = RunStatus::kInterrupted;
      (void)store_.UpdateRun(rec);
      observer_.OnEvent(RunFinished{ctx.Where(), std::string(StatusName(rec.status)), result.message()});
      return result;
    }
    run_failed = true;
    run_failure = result.message();
  }
  rec.status = run_failed ? RunStatus::kFailed : RunStatus::kComplete;
  rec.failure = run_failure;
  rec.finished_ns = p_.WallNanos();
  Status recorded = store_.UpdateRun(rec);
  observer_.OnEvent(RunFinished{ctx.Where(), std::string(StatusName(rec.status)), rec.failure});
  // The run's own failure is the cause to report; recording it can fail for the same reason
  // (a full disk under the database) and must not hide it.
  if (!result.ok()) return result;
  return recorded;
}

Status ExperimentRun::Begin(const Plan& plan, int64_t experiment_id) {
  knee_ = plan.knee();
  axis_ = plan.axis;
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    const PlannedRun& run = plan.runs[i];
    RunRecord r;
    r.experiment_id = experiment_id;
    r.key = {run.scenario, run.partition.Label(), run.repetition, run.corunner_set};
    r.partition = run.partition.ToJson();
    r.ordinal = run.ordinal;
    r.host = host_;
    r.provenance = provenance_;
    REAM_ASSIGN_OR_RETURN(RunRecord rec, store_.EnsureRun(r));
    if (rec.status == RunStatus::kComplete) continue;
    REAM_ASSIGN_OR_RETURN(auto pts, store_.ListPoints(rec.id));
    int stored = static_cast<int>(pts.size());
    int remeasured = 0;  // a grid's stored extra attempts at invalid levels
    for (const auto& p : pts) remeasured += p.attempt > 0;
    int levels = plan.auto_levels > 0 ? plan.auto_levels : static_cast<int>(run.grid_loads.size());
    planned_points_ += plan.knee() ? spec_.sweep.max_points : levels + remeasured;
    done_points_ += plan.knee() ? 0 : stored;
    todo_[i] = {&run, rec};
  }
  return Status::Ok();
}

}  // namespace ream
