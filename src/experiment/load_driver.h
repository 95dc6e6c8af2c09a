// The load-driver seam: "measure this level with these options and give back the
// generator's result". The local driver runs `ream load` in a sandbox of its own pinned to the
// generator's CPUs (today's way); remote agents on client nodes will be a second driver; tests
// use a fake that answers from a model (experiment/runner_test.cc).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/generator.h"
#include "platform/platform.h"
#include "platform/process.h"
#include "platform/status.h"
#include "sandbox/sandbox.h"

namespace ream {

// What the runner needs to hear while a level runs: the measured window's start and end (the
// monitors sample exactly that window), and whether to give up (an interrupt).
struct DriverHooks {
  std::function<bool()> interrupted = [] { return false; };
  std::function<void()> window_started = [] {};
  std::function<void()> window_ended = [] {};
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
};

class LoadDriver {
 public:
  virtual ~LoadDriver() = default;
  virtual std::string_view name() const = 0;
  // Drives one level. Cancelled when `hooks.interrupted()` turned true; other errors when the
  // driver could not run at all (the level is then not stored).
  virtual Result<DriverResult> Measure(const LoadOptions& options, const DriverHooks& hooks) = 0;
};

struct LocalDriverOptions {
  std::string ream_binary;         // the `ream` executable that runs `ream load`
  std::vector<int> generator_cpus;  // the generator's sandbox cpuset; empty: any CPU
  std::string state_dir;           // sandbox state directory; "" = the default
};

std::unique_ptr<LoadDriver> MakeLocalLoadDriver(Platform& platform, SandboxKind& sandboxes,
                                                LocalDriverOptions options);

// The `ream load` command line that runs `options` and prints its JSON on stdout (the local
// driver's argv, without the binary). Pure.
std::vector<std::string> LoadArgv(const LoadOptions& options);

// What a generator's stdout collects into (its JSON comes last), shared with the sandbox's
// reader thread.
using CapturedOutput = std::pair<std::mutex, std::string>;
// The sandbox a local `ream load` runs in: a cpuset of the generator's CPUs (so it never competes
// with the workload for one), none held back, its stdout appended to `captured`.
SandboxOptions GeneratorSandbox(const std::vector<int>& cpus, const std::string& state_dir,
                                std::shared_ptr<CapturedOutput> captured);

}  // namespace ream
