// What the LogGP overhead o really cost a workload: the statistics libream-overhead.so writes
// (src/preload/overhead.cc), one file per process of the workload, summed. The calibration of
// o compares cpu_ns / messages with requested_ns.
#pragma once

#include <cstdint>
#include <string>

#include "platform/capabilities.h"
#include "platform/platform.h"

namespace ream {

// The library's file name, looked for next to the ream binary.
inline constexpr char kOverheadLibraryName[] = "libream-overhead.so";

struct OverheadStats {
  int64_t requested_ns = 0;  // o as asked for
  int64_t messages = 0;      // messages charged, over every process
  int64_t cpu_ns = 0;        // thread CPU time the spins consumed
  int64_t wall_ns = 0;       // wall time they took (more than cpu_ns when preempted)
  int processes = 0;         // processes that wrote statistics
  // "calls" (a socket call is a message) or "frames" (the workload counts its own messages,
  // as ream's servers do); "mixed" when processes differ.
  std::string mode;
  // CPU spent per message (0 without messages).
  double cpu_per_message_ns() const {
    return messages > 0 ? static_cast<double>(cpu_ns) / static_cast<double>(messages) : 0.0;
  }
};

// Sums the <pid>.json files of `dir` (a sandbox's overhead_stats_dir()). NotFound when there
// are none (the library did not load into any process: o was not applied); Corrupt naming the
// file when one cannot be read.
Result<OverheadStats> ReadOverheadStats(Platform& platform, const std::string& dir);

// The library next to the running ream binary (/proc/self/exe), as an absolute path. NotFound
// naming where it was looked for.
Result<std::string> FindOverheadLibrary(Platform& platform);

// `ream doctor`'s row "preload.net_overhead": whether o can be applied here, established by
// running /bin/true with the library preloaded (`library` "" : FindOverheadLibrary) and seeing
// it write its statistics. Supported with the library's path; Unsupported saying why.
Capability ProbeOverheadLibrary(Platform& platform, const std::string& library = "");

}  // namespace ream
