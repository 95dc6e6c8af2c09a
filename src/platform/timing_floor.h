// The host's own timing floor: how timely a perfect spinning generator
// could be on each CPU. A loop pinned to the CPU reads the clock as fast as it can for a
// while; every gap between two reads longer than the tolerance is time the CPU was taken
// away (hypervisor exits, interrupts, other tasks), and the share of instants that fall more
// than `tolerance` into such a gap is the share of sends any generator would issue late
// (bench/stalls.sh's probe 1, in-process). Measured at the start of `ream run` and stored
// with the experiment's environment, so a reader can tell a generator that fell behind from
// a host that did.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/status.h"

namespace ream {

struct CpuTimingFloor {
  int cpu = 0;
  double late_fraction = 0;     // of instants, more than the tolerance late
  double stalled_fraction = 0;  // of the time, in gaps longer than the tolerance
  uint64_t gaps = 0;            // gaps longer than the tolerance
  int64_t max_gap_ns = 0;
};

struct TimingFloor {
  int64_t duration_ns = 0;
  int64_t tolerance_ns = 0;
  std::vector<CpuTimingFloor> cpus;
  // {"method", "duration_s", "tolerance_us", "cpus": [{"cpu", "late_fraction", ...}]}
  nlohmann::json ToJson() const;
};

// Spins `duration_ns` on each of `cpus` at once (one pinned thread each). Unavailable naming
// the CPU when one cannot be pinned.
Result<TimingFloor> MeasureTimingFloor(const std::vector<int>& cpus, int64_t duration_ns, int64_t tolerance_ns);

}  // namespace ream
