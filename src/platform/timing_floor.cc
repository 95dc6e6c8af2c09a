// Pinned spin loops measuring the host's timing floor (see timing_floor.h).
#include "platform/timing_floor.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "platform/affinity.h"
#include "platform/clock.h"

namespace ream {

nlohmann::json TimingFloor::ToJson() const {
  nlohmann::json per = nlohmann::json::array();
  for (const auto& c : cpus) {
    per.push_back({{"cpu", c.cpu},
                   {"late_fraction", c.late_fraction},
                   {"stalled_fraction", c.stalled_fraction},
                   {"gaps", c.gaps},
                   {"max_gap_us", std::round(static_cast<double>(c.max_gap_ns) / 10.0) / 100.0}});
  }
  return {{"method", "a spin loop pinned to each CPU reading the monotonic clock; late_fraction: the share of "
                     "instants more than the tolerance into a gap between two reads"},
          {"duration_s", static_cast<double>(duration_ns) / 1e9},
          {"tolerance_us", static_cast<double>(tolerance_ns) / 1e3},
          {"cpus", per}};
}

Result<TimingFloor> MeasureTimingFloor(const std::vector<int>& cpus_in, int64_t duration_ns, int64_t tolerance_ns) {
  std::vector<int> cpus = cpus_in;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  TimingFloor f;
  f.duration_ns = duration_ns;
  f.tolerance_ns = tolerance_ns;
  f.cpus.resize(cpus.size());
  std::vector<int> pinned(cpus.size(), 0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < cpus.size(); ++i) {
    threads.emplace_back([&, i] {
      if (!PinCallingThread(cpus[i]).ok()) return;
      pinned[i] = 1;
      CpuTimingFloor& c = f.cpus[i];
      c.cpu = cpus[i];
      const int64_t start = MonotonicNowNs();
      int64_t prev = start, late = 0, stalled = 0;
      for (;;) {
        int64_t t = MonotonicNowNs(), d = t - prev;
        if (d > tolerance_ns) {
          ++c.gaps;
          stalled += d;
          late += d - tolerance_ns;
        }
        c.max_gap_ns = std::max(c.max_gap_ns, d);
        prev = t;
        if (t - start >= duration_ns) break;
      }
      double total = static_cast<double>(prev - start);
      c.late_fraction = static_cast<double>(late) / total;
      c.stalled_fraction = static_cast<double>(stalled) / total;
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < cpus.size(); ++i) {
    if (!pinned[i]) return Unavailable("timing floor: cannot pin a thread to CPU " + std::to_string(cpus[i]));
  }
  return f;
}

}  // namespace ream
