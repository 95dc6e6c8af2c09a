// How much of its time a pinned, otherwise idle spin loop loses to stalls longer than a
// threshold: the machine's own timing noise (hypervisor steal, interrupts), measured. Tests
// that compare measured latency with queueing theory check it first: on bare metal it is ~0;
// on the 2-vCPU Firecracker VMs this project runs on it is 4-11 % (~1 100 stalls a second of
// up to ~250 us, and some of milliseconds), which no generator or server can measure through
// reliably.
#pragma once


#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "platform/timing_floor.h"

namespace ream {

// The fraction (0..1) of `duration_ns` that a spin loop pinned to `cpu` spent in gaps longer
// than `stall_ns`; -1 when the thread could not be pinned.
inline double StalledFraction(int cpu, int64_t duration_ns = 1'000'000'000,
                              int64_t stall_ns = 20'000) {
  // The same spin loop `ream run` measures the host's floor with (platform/timing_floor.h).
  auto floor = MeasureTimingFloor({cpu}, duration_ns, stall_ns);
  return floor.ok() && !floor->cpus.empty() ? floor->cpus[0].stalled_fraction : -1;
}

// True when every one of `cpus` loses at most `max_fraction` of a second to stalls > 20 us.
// Prints each CPU's measured fraction, so a test's output carries the figure it acted on.
// REAM_MAX_STALL_FRACTION (e.g. 1) raises the limit, so the theory comparisons assert on a
// noisy machine too: it can turn a skip into a failure, never a failure into a pass.
inline bool MachineIsQuiet(std::initializer_list<int> cpus = {0, 1}, double max_fraction = 0.01) {
  if (const char* env = std::getenv("REAM_MAX_STALL_FRACTION")) {
    char* end = nullptr;
    double v = std::strtod(env, &end);
    if (end != env && *end == '\0' && v > max_fraction) max_fraction = v;
  }
  bool quiet = true;
  for (int cpu : cpus) {
    double stalled = StalledFraction(cpu);
    std::printf("CPU %d: a pinned spin loop loses %.2f %% of its time to stalls > 20 us\n", cpu,
                100 * stalled);
    quiet = quiet && stalled >= 0 && stalled <= max_fraction;
  }
  return quiet;
}

}  // namespace ream
