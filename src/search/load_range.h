// The seed's load-range procedure (`[sweep] qps = "auto"`): a few short probes find the rates
// at which the workload reaches 20 % and 50 % of its allotted CPU and where it saturates, and
// the sweep's levels are spread from the 20 % rate to saturation — the seed chose, per
// workload, "a QPS range covering at least 20 % to 50 % CPU" (its Table 1). Pure: the runner
// measures each probe and hands it over; runner_test and load_range_test drive it with models.
// A probe's lateness decides nothing (it needs only the CPU and the throughput); the range ends
// where the throughput falls behind the offer, the CPU reaches 95 %, or the generator cannot
// send the rate.
//
//   LoadRangeSearch search({.start_qps = 200, .levels = 8});
//   while (auto q = search.Next()) search.Take(Probe(*q));   // measure at *q
//   auto levels = search.Levels();
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform/status.h"

namespace ream {

struct LoadRangeOptions {
  double start_qps = 200;  // the first probe's rate
  int levels = 8;          // the sweep's levels, from the 20 % rate to saturation
  int max_probes = 12;     // the search gives up (with the highest rate probed) after these
};

// One probe: the rate asked for and what it measured.
struct RangeProbe {
  double qps = 0;
  std::optional<double> cpu_util;  // fraction of the allotted CPUs, 0..1; nullopt: not measured
  std::string cpu_unavailable;     // why, when not measured
  double throughput_qps = 0;
  std::optional<double> achieved_qps;  // the rate the generator sent at; nullopt: the target's
  bool valid = true;  // the generator kept its schedule (not decisive: see LoadRangeSearch::Take)
  std::string invalid_reason;
};

class LoadRangeSearch {
 public:
  explicit LoadRangeSearch(LoadRangeOptions o) : o_(o) {}

  // The next rate to probe, or nullopt once the range is decided (or cannot be).
  std::optional<double> Next() const;
  void Take(const RangeProbe& p);

  // The levels (ascending, `levels` of them) once decided. Unavailable when the CPU
  // utilization could not be measured (the procedure needs it), with the monitor's reason.
  Result<std::vector<double>> Levels() const;
  // The rates at 20 % and 50 % CPU (interpolated between probes, or extrapolated through the
  // origin below the first), and the saturating rate, once decided.
  std::optional<double> qps_at_20() const { return at_20_; }
  std::optional<double> qps_at_50() const { return at_50_; }
  std::optional<double> saturation_qps() const { return saturation_; }
  // How the range was chosen, for people and the store ("20 % CPU at 1200 QPS, ...").
  std::string Why() const;
  const std::vector<RangeProbe>& probes() const { return probes_; }

 private:
  void Decide();

  LoadRangeOptions o_;
  std::vector<RangeProbe> probes_;
  bool decided_ = false;
  std::string failure_;  // set when the range cannot be decided
  std::string saturated_because_;
  int invalid_ = 0;  // probes the generator sent late beyond the tolerance
  std::optional<double> at_20_, at_50_, saturation_;
};

// connections / threads = "auto": the (threads, connections) pairs to try at the sweep's top
// level, fewest clients first — the seed's "fewest clients that keep >= 97.5 % of requests
// timely". An automatic count takes 1..max_threads threads, and t, 2t, 4t, ... up to
// max_connections connections for t threads; a fixed one is its value. Pairs with fewer
// connections than threads are left out (each thread needs one).
std::vector<std::pair<int, int>> ClientCandidates(bool threads_auto, int threads, bool connections_auto,
                                                  int connections, int max_threads, int max_connections = 64);

}  // namespace ream
