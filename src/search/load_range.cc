#include "search/load_range.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ream {
namespace {

std::string Rate(double q) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f QPS", q);
  return b;
}

// Where the CPU utilization first reaches `u` over probes sorted by rate: linear between the
// two probes around it, or through the origin below the first (utilization is proportional to
// the rate at low load, by the service demand law).
std::optional<double> RateAt(const std::vector<RangeProbe>& probes, double u) {
  for (size_t i = 0; i < probes.size(); ++i) {
    double ui = *probes[i].cpu_util;
    if (ui < u) continue;
    if (i == 0) return ui > 0 ? probes[0].qps * u / ui : std::optional<double>();
    double u0 = *probes[i - 1].cpu_util, q0 = probes[i - 1].qps, q1 = probes[i].qps;
    return ui > u0 ? q0 + (q1 - q0) * (u - u0) / (ui - u0) : q1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> LoadRangeSearch::Next() const {
  if (decided_) return std::nullopt;
  if (probes_.empty()) return o_.start_qps;
  const RangeProbe& p = probes_.back();
  double u = std::max(*p.cpu_util, 1e-3);
  // Towards 50 % in large steps (the service demand law predicts it), then towards saturation
  // in smaller ones, so the last unsaturated probe lies close below the knee.
  double factor = u < 0.5 ? std::clamp(0.5 / u, 1.5, 4.0) : std::clamp(0.95 / u, 1.2, 2.0);
  return p.qps * factor;
}

void LoadRangeSearch::Take(const RangeProbe& p) {
  if (decided_) return;
  probes_.push_back(p);
  if (!p.cpu_util) {
    failure_ = "qps = \"auto\" needs the workload's CPU utilization, which is unavailable: " +
               (p.cpu_unavailable.empty() ? std::string("not measured") : p.cpu_unavailable);
    decided_ = true;
    return;
  }
  // A probe only needs the workload's CPU and throughput: a generator late by more than the
  // tolerance (wake-ups and stalls of a virtual machine make low loads late too) still sends
  // the load, so lateness alone decides nothing here; what the generator could not send does.
  if (!p.valid) ++invalid_;
  if (p.achieved_qps && *p.achieved_qps < 0.95 * p.qps) {
    saturated_because_ = "the generator sent only " + Rate(*p.achieved_qps) + " of " + Rate(p.qps) +
                         (p.invalid_reason.empty() ? "" : " (" + p.invalid_reason + ")");
  } else if (p.throughput_qps < 0.95 * p.qps) {
    saturated_because_ = "throughput " + Rate(p.throughput_qps) + " fell below 95 % of the offered " + Rate(p.qps);
  } else if (*p.cpu_util >= 0.95) {
    char b[96];
    std::snprintf(b, sizeof b, "CPU utilization reached %.0f %% at %s", *p.cpu_util * 100, Rate(p.qps).c_str());
    saturated_because_ = b;
  } else if (static_cast<int>(probes_.size()) >= o_.max_probes) {
    saturated_because_ = "not saturated within " + std::to_string(o_.max_probes) +
                         " probes; the range ends at the highest rate probed";
  } else {
    return;
  }
  saturation_ = p.qps;
  Decide();
}

void LoadRangeSearch::Decide() {
  decided_ = true;
  std::vector<RangeProbe> sorted;
  // The CPU a probe measured is the workload's whatever the generator's timeliness, so every
  // probe below saturation places the 20 % and 50 % rates.
  for (const auto& p : probes_) {
    if (p.cpu_util && p.qps < *saturation_ + 1e-9) sorted.push_back(p);
  }
  std::sort(sorted.begin(), sorted.end(), [](const RangeProbe& a, const RangeProbe& b) { return a.qps < b.qps; });
  at_20_ = RateAt(sorted, 0.20);
  at_50_ = RateAt(sorted, 0.50);
}

Result<std::vector<double>> LoadRangeSearch::Levels() const {
  if (!failure_.empty()) return Unavailable(failure_);
  if (!decided_ || !saturation_) return Internal("the load range is not decided yet");
  double hi = *saturation_;
  double lo = at_20_ && *at_20_ < hi ? *at_20_ : hi / std::max(o_.levels, 1);
  std::vector<double> out;
  int n = std::max(o_.levels, 1);
  for (int i = 0; i < n; ++i) {
    double q = n == 1 ? hi : lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n - 1);
    q = std::max(1.0, std::round(q));
    if (out.empty() || q > out.back()) out.push_back(q);
  }
  return out;
}

std::vector<std::pair<int, int>> ClientCandidates(bool threads_auto, int threads, bool connections_auto,
                                                  int connections, int max_threads, int max_connections) {
  std::vector<std::pair<int, int>> out;
  for (int t = threads_auto ? 1 : threads; t <= (threads_auto ? std::max(max_threads, 1) : threads); ++t) {
    if (!connections_auto) {
      if (connections >= t) out.emplace_back(t, connections);
      continue;
    }
    for (int c = t; c <= std::max(max_connections, t); c *= 2) out.emplace_back(t, c);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return out;
}

std::string LoadRangeSearch::Why() const {
  if (!failure_.empty()) return failure_;
  std::string s = std::to_string(probes_.size()) + " probe(s)" +
                  (invalid_ ? " (" + std::to_string(invalid_) + " of them late beyond the tolerance)" : "") +
                  ": ";
  s += at_20_ ? "20 % CPU at " + Rate(*at_20_) : std::string("20 % CPU not reached");
  s += at_50_ ? ", 50 % at " + Rate(*at_50_) : std::string(", 50 % not reached");
  if (saturation_) s += ", saturated at " + Rate(*saturation_) + " (" + saturated_because_ + ")";
  return s;
}

}  // namespace ream
