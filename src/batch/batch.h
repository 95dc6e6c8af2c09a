// The batch suite: programs from Debian's packages standing for SPEC CPU benchmarks,
// each run to completion on one thread on an input ream generates from a seed and caches.
//   const BatchProgram* p = FindBatchProgram("xz");
//   auto input = PrepareInput(platform, *p, {.seconds = 5, .seed = 1});
//   auto run = RunBatchProgram(platform, *p, *input);   // run->seconds: the program's wall time
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "batch/inputs.h"
#include "platform/platform.h"
#include "platform/status.h"

namespace ream::batch {

// What limits a program on a machine, as expected from the benchmark it stands for (SPEC's own
// characterizations); bench/batch_suite.sh measures it against a streaming co-runner.
enum class Category { kCompute, kMemory, kCache, kDisk };
std::string_view CategoryName(Category c);

// One entry of the table: a program, the SPEC benchmark it stands for, where it comes from, how
// its input is made and how it is called.
struct BatchProgram {
  std::string name;     // `ream batch NAME`
  std::string spec;     // "557.xz_r"
  std::string package;  // the Debian package holding `program` ("" for ream's own helper)
  // Absolute path of the executable; a name without '/' is a helper built beside ream
  // (build/ream-mcf, PREFIX/lib/ream/ream-mcf).
  std::string program;
  Category category = Category::kCompute;
  std::string size_unit;  // what `size` counts: "bytes", "frames", ...
  // The size that runs about kDefaultSeconds on the calibration machine (batch.cc says which
  // and what each took); a run for S seconds uses size * S / kDefaultSeconds.
  uint64_t size_for_default = 0;
  // Writes the input for (seed, size); nullptr: the program takes none (the stream kernel).
  std::function<Status(InputFiles&, uint64_t seed, uint64_t size)> generate;
  // The command: `program` resolved, the input directory and a scratch directory for its
  // output, and the size (for programs whose size is an argument, not an input).
  std::function<std::vector<std::string>(const std::string& program, const std::string& input_dir,
                                          const std::string& scratch_dir, uint64_t size)>
      argv;
  // Extra environment (thread limits for programs that read them).
  std::vector<std::pair<std::string, std::string>> env;
};

inline constexpr double kDefaultSeconds = 5.0;
// The cache of generated inputs; created owned by the workload user `ream` when ream makes it as
// root (scripts/ream-user makes it too), so copies running as that user can generate into it.
inline constexpr std::string_view kDefaultCacheRoot = "/var/tmp/ream/batch";

// Every program, in the table's order.
const std::vector<BatchProgram>& BatchPrograms();
// nullptr when there is no such program.
const BatchProgram* FindBatchProgram(std::string_view name);
// "bzip2, gcc, ..." for messages.
std::string BatchProgramNames();

// The size for a run of `seconds` (> 0): linear in the seconds, at least 1.
uint64_t SizeFor(const BatchProgram& p, double seconds);

struct InputOptions {
  double seconds = kDefaultSeconds;
  uint64_t seed = 1;
  std::string cache_root = std::string(kDefaultCacheRoot);
};

struct PreparedInput {
  std::string dir;        // <cache_root>/<name>-<seed>-<size>; "" for a program without input
  uint64_t size = 0;
  uint64_t bytes = 0;     // the input files' total size
  bool generated = false; // false: found in the cache
};

// The input for (program, seed, size): reused from the cache when its directory exists, else
// generated into a temporary directory beside it and renamed into place, so a generation that
// is killed or fails (IoError naming the path: a full disk) leaves no input behind to reuse.
Result<PreparedInput> PrepareInput(Platform& platform, const BatchProgram& p, const InputOptions& options);

// The program's path on this machine: `program` itself, or a helper found beside ream (or, for
// a user who cannot reach ream's directory, the copy PublishHelper left in the cache root).
// Unavailable naming the Debian package to install (or the helper's build target) when absent.
Result<std::string> ResolveProgram(Platform& platform, const BatchProgram& p);

// A helper built with ream (ream-mcf) copied, executable by everyone, to a directory of the
// cache root named after ream's own path: the workload's user runs `ream batch` (ream reaches
// it through /proc/self/exe) but cannot enter a build directory under /root or in a private
// temporary directory to find the helper beside it. Run by `ream run` (as root) before a batch
// subject or co-runner starts; a packaged program needs nothing (Ok).
Status PublishHelper(Platform& platform, const BatchProgram& p, const std::string& cache_root = std::string(kDefaultCacheRoot));

struct BatchRun {
  double seconds = 0;  // wall time of the program alone (spawn to reaped), not of the input
  ProcessExit exit;
  std::vector<std::string> stderr_tail;  // its last stderr lines
};

// Runs the program once on `input` and waits for it (at most 20 x the expected time plus a
// minute). Unavailable when the program is missing (see ResolveProgram); a program that fails
// is a BatchRun with its exit, for the caller to report with the stderr tail.
Result<BatchRun> RunBatchProgram(Platform& platform, const BatchProgram& p, const PreparedInput& input,
                                 double seconds = kDefaultSeconds);

}  // namespace ream::batch
