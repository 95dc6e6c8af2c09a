// The local load driver: `ream load` in a sandbox of its own pinned to the generator's CPUs.
// The seam it implements (LoadDriver) is load/driver.h.
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

#include "load/driver.h"
#include "load/generator.h"
#include "platform/platform.h"
#include "platform/process.h"
#include "platform/status.h"
#include "sandbox/sandbox.h"

namespace ream {

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

// The window lines `ream load --window` prints as each window ends ({"window": {...}}, one a
// line, before its final document), handed to hooks.window_report on the thread that calls
// Read, in order, each once. A line that does not parse as a window is left to the document's
// reader (ExtractGeneratorJson).
class WindowLines {
 public:
  explicit WindowLines(const DriverHooks& hooks) : hooks_(hooks) {}
  // Reports the complete window lines `captured` gained since the last call.
  void Read(CapturedOutput& captured);

 private:
  const DriverHooks& hooks_;
  size_t offset_ = 0;
};

}  // namespace ream
