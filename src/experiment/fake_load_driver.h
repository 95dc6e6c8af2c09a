// A load driver that measures nothing, for the tests of the runner and of what stands on it
// (campaigns): the fake server's answer at each level comes from a model; and the experiment
// those tests run with it.
#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "experiment/load_driver.h"
#include "load/lateness.h"

namespace ream {

// What the fake server answers at a level: its p95 in µs and whether the generator kept its
// schedule. Called once per measurement, in order (`call` counts from 0).
struct FakeAnswer {
  double p95_us = 100;
  bool valid = true;
  // An invalid answer's late requests, all put down to this cause (none: no cause given).
  std::optional<LateCause> late_cause;
  bool saturated = false;  // throughput 80 % of the offered load
};
using FakeModel = std::function<FakeAnswer(double qps, int call)>;
// With LoadOptions::window_ns > 0, a window's answer: `qps` the window's target (the schedule's
// mean over it, or the level's qps), `call` the measurement as above, `window` its index from 0.
using FakeWindowModel = std::function<FakeAnswer(double qps, int call, int64_t window)>;

// A load driver that measures nothing: it reports the window to the runner at once and
// returns the generator document (LoadResult::ToJson) of the model's answer, with a sojourn
// histogram whose p95 is the model's. `cancel_after` (>= 0) makes the call with that index
// return Cancelled, as an interrupt would.
class FakeLoadDriver final : public LoadDriver {
 public:
  explicit FakeLoadDriver(FakeModel model) : model_(std::move(model)) {}
  std::string_view name() const override { return "fake"; }

  Result<DriverResult> Measure(const LoadOptions& o, const DriverHooks& hooks) override {
    int call = static_cast<int>(seen.size());
    if (cancel_after >= 0 && call >= cancel_after) return Cancelled("interrupted (fake)");
    seen.push_back(o);
    hooks.window_started();
    if (window_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(window_ms));
    std::vector<LoadWindow> windows = Windows(o, call, hooks);
    hooks.window_ended();
    FakeAnswer a = model_(o.qps, call);
    if (timely_if && !timely_if(o)) a.valid = false;
    LoadResult r;
    r.options = o;
    r.protocol = o.protocol;
    r.issued = r.completed = r.timely = static_cast<uint64_t>(o.qps);
    r.achieved_qps = r.throughput_qps = o.qps;
    r.timely_ratio = a.valid ? 1.0 : 0.5;
    if (!a.valid) r.timely = r.issued / 2;
    r.valid = a.valid;
    if (!a.valid) r.invalid_reasons.push_back("timely 50.0% < 97.5% (fake)");
    if (!a.valid && a.late_cause) r.late_causes.requests[static_cast<size_t>(*a.late_cause)] = r.issued - r.timely;
    if (a.saturated) {
      r.completed = r.issued * 8 / 10;
      r.throughput_qps = 0.8 * o.qps;
    }
    // 100 samples: 90 at half the p95, 10 at the p95, so the 95th percentile is p95_us.
    for (int i = 0; i < 100; ++i) {
      int64_t ns = static_cast<int64_t>((i < 90 ? a.p95_us / 2 : a.p95_us) * 1000);
      r.latency.Record(ns);
      r.latency_from_send.Record(ns);
      r.lateness.Record(1000);
    }
    r.measured_s = static_cast<double>(o.duration_ns) / 1e9;
    r.windows = std::move(windows);
    DriverResult out;
    out.generator = r.ToJson();
    out.exit = ProcessExit{};
    return out;
  }

  std::vector<LoadOptions> seen;
  int cancel_after = -1;
  int window_ms = 0;  // how long the window lasts (co-runners are sampled over it)
  // When set: a level is late (invalid) unless its options pass (e.g. enough connections).
  std::function<bool(const LoadOptions&)> timely_if;
  // With o.window_ns > 0, each window's answer (unset: the level's model at the window's
  // target). The windows go to hooks.window_report in order, inside the measured window (after
  // window_started, before window_ended), each answered after the last was reported (so a model
  // can answer what a manager did on the last), and into the document's "windows".
  FakeWindowModel window_model;

 private:
  // The windows of a level as the models answer them: the answer's p95 as the window's tail
  // (at any percentile), p95 and p99; every scheduled request answered and timely when valid,
  // half timely when not.
  std::vector<LoadWindow> Windows(const LoadOptions& o, int call, const DriverHooks& hooks) const {
    std::vector<LoadWindow> out;
    if (o.window_ns <= 0) return out;
    const int64_t length = o.schedule ? o.schedule->duration_ns() : o.duration_ns;
    const double w_s = static_cast<double>(o.window_ns) / 1e9, total_s = static_cast<double>(length) / 1e9;
    for (int64_t k = 0; static_cast<double>(k) * w_s < total_s - 1e-9; ++k) {
      const double start = static_cast<double>(k) * w_s, end = std::min(start + w_s, total_s);
      const double target = o.schedule ? o.schedule->MeanRate(start, end) : o.qps;
      FakeAnswer a = window_model ? window_model(target, call, k) : model_(target, call);
      WindowCounts c;
      c.scheduled = c.answered = static_cast<uint64_t>(std::llround(target * (end - start)));
      c.timely = a.valid ? c.scheduled : c.scheduled / 2;
      if (a.saturated) c.answered = c.answered * 8 / 10;
      c.latencies_ns.assign(100, static_cast<int64_t>(a.p95_us * 1000));
      LoadWindow w = JudgeWindow(k, start, end, target, std::move(c), o.validity_percentile, o.min_timely_ratio);
      hooks.window_report(w);
      out.push_back(std::move(w));
    }
    return out;
  }

  FakeModel model_;
};

// The runner's tests' experiment: a shell that says it is ready and sleeps (the load is fake),
// with `sweep` as its [sweep] and `extra` before its [workload].
inline std::string FakeExperimentText(const std::string& sweep, const std::string& extra = "") {
  return std::string("name = \"fake\"\nseed = 7\nscenarios = [\"1-ST\"]\ngenerator_cpus = \"none\"\n") + extra +
         "[workload]\ncommand = [\"sh\", \"-c\", \"echo serving on {port}; exec sleep 600\"]\n"
         "ready = \"line\"\nready_line = \"serving\"\n"
         "[load]\nconnections = 3\nwarmup = \"10ms\"\nduration = \"500ms\"\n"
         "response_timeout = \"10ms\"\n"
         "[sweep]\n" + sweep + "\n[qos]\ntarget = \"1000us\"\n";
}

}  // namespace ream
