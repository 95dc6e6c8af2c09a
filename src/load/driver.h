// The load-driver seam: "measure this level with these options and give back the
// generator's result". The local driver runs `ream load` in a sandbox of its own pinned to the
// generator's CPUs (experiment/load_driver.h); the remote driver runs agents on client nodes
// (remote/remote_driver.h); tests use a fake that answers from a model
// (experiment/runner_test.cc). It sits in the load layer so that both drivers' layers see it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "load/generator.h"
#include "platform/process.h"
#include "platform/status.h"

namespace ream {

// What the runner needs to hear while a level runs: the measured window's start and end (the
// monitors sample exactly that window), its windows as they end, and whether to give up (an
// interrupt).
struct DriverHooks {
  std::function<bool()> interrupted = [] { return false; };
  std::function<void()> window_started = [] {};
  std::function<void()> window_ended = [] {};
  // With LoadOptions::window_ns: each window of the measured window as it ends, in order, on
  // the thread that called Measure (between windows: what it does there delays nothing of the
  // generator's, which runs on).
  std::function<void(const LoadWindow&)> window_report = [](const LoadWindow&) {};
};

// One level as the driver saw it. `generator` is the generator's JSON document
// (LoadResult::ToJson()) when one was produced; otherwise `no_result` says why. `exit` is how
// the generator's process ended, where there was one; `failure`, when set, fails the point
// whatever the document says (the driver gave up waiting for it).
struct DriverResult {
  std::optional<nlohmann::json> generator;
  Status no_result;
  std::optional<ProcessExit> exit;
  std::string failure;

  // The generator's document, or why there is none.
  void SetGenerator(Result<nlohmann::json> j) {
    if (j.ok()) {
      generator = std::move(j).value();
    } else {
      no_result = j.status();
    }
  }
};

// A driver's measured window as a level goes on: the hooks' window_started and window_ended
// each fire once, in that order, however the level ends.
class DriverWindow {
 public:
  DriverWindow(const DriverHooks& hooks, int64_t start_ns, int64_t end_ns)
      : hooks_(hooks), start_ns_(start_ns), end_ns_(end_ns) {}
  // At `now_ns`: opens the window once it has begun, closes it once it has ended.
  void Advance(int64_t now_ns) {
    if (state_ == kBefore && now_ns >= start_ns_) Open();
    if (state_ == kIn && now_ns >= end_ns_) Close();
  }
  // ream's clock jumped by `ns`: the window moves with it.
  void Shift(int64_t ns) {
    start_ns_ += ns;
    end_ns_ += ns;
  }
  // The level is over: the window closes if it is open; with `open_if_never` one that never
  // opened opens and closes, so the monitors still report over the level.
  void Close(bool open_if_never = false) {
    if (state_ == kBefore && open_if_never) Open();
    if (state_ == kIn) {
      hooks_.window_ended();
      state_ = kAfter;
    }
  }

 private:
  void Open() {
    hooks_.window_started();
    state_ = kIn;
  }
  const DriverHooks& hooks_;
  int64_t start_ns_, end_ns_;
  enum { kBefore, kIn, kAfter } state_ = kBefore;
};

class LoadDriver {
 public:
  virtual ~LoadDriver() = default;
  virtual std::string_view name() const = 0;
  // Drives one level. Cancelled when `hooks.interrupted()` turned true; other errors when the
  // driver could not run at all (the level is then not stored).
  virtual Result<DriverResult> Measure(const LoadOptions& options, const DriverHooks& hooks) = 0;
};

}  // namespace ream
