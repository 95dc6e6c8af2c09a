// The workload's category (DESIGN.md "Categories") from the measured profile, with the
// evidence and the thresholds of analysis.h.
#include "analysis/classify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/format.h"
#include "analysis/stats.h"
#include "platform/median.h"

namespace ream::analysis {

// Per-request figures and trends for the classifier, over the reference group.
Category Classify(const GroupAnalysis* ref, const std::vector<GroupAnalysis>& groups, LoadAxis axis) {
  Category c;
  if (!ref) {
    c.name = "unclassified";
    c.explanation = "no run to classify";
    return c;
  }
  std::optional<double> peak_tx, peak_rx, peak_cpu, peak_disk;
  std::string tx_why, disk_why, cpu_why;
  std::vector<XY> disk_vs_qps, cpu_vs_qps;
  std::optional<double> tx_per_req, disk_per_req;
  std::optional<double> peak_membw;
  std::string membw_why, membw_method;
  std::vector<XY> membw_vs_qps;
  for (const auto& p : ref->points) {
    if (p.failed) continue;
    double x = p.throughput_qps;
    if (p.membw_bps.has()) {
      peak_membw = std::max(peak_membw.value_or(0), *p.membw_bps.value);
      membw_vs_qps.push_back({x, *p.membw_bps.value});
      if (membw_method.empty()) membw_method = p.membw_method;
    } else if (membw_why.empty()) {
      membw_why = p.membw_bps.unavailable;
    }
    if (p.net_tx_bps.has()) {
      peak_tx = std::max(peak_tx.value_or(0), *p.net_tx_bps.value);
      if (x > 0) tx_per_req = std::max(tx_per_req.value_or(0), *p.net_tx_bps.value / x);
    } else if (tx_why.empty()) {
      tx_why = p.net_tx_bps.unavailable;
    }
    if (p.net_rx_bps.has()) peak_rx = std::max(peak_rx.value_or(0), *p.net_rx_bps.value);
    if (p.disk_bps.has()) {
      peak_disk = std::max(peak_disk.value_or(0), *p.disk_bps.value);
      disk_vs_qps.push_back({x, *p.disk_bps.value});
      if (x > 0) disk_per_req = std::max(disk_per_req.value_or(0), *p.disk_bps.value / x);
    } else if (disk_why.empty()) {
      disk_why = p.disk_bps.unavailable;
    }
    if (p.cpu_util.has()) {
      peak_cpu = std::max(peak_cpu.value_or(0), *p.cpu_util.value);
      cpu_vs_qps.push_back({x, *p.cpu_util.value});
    } else if (cpu_why.empty()) {
      cpu_why = p.cpu_util.unavailable;
    }
  }
  std::optional<double> low_load_tail;
  std::optional<double> qos_qps;  // QPS measured under QoS (capacity or its bound)
  for (const auto& p : ref->points) {
    if (p.valid) {
      low_load_tail = p.tail_us / 1e6;
      break;
    }
  }
  if (axis == LoadAxis::kSessions) {
    // A sessions capacity is a count: the rules on "QPS under QoS" read the chunk requests
    // per second completed at that level.
    for (const auto& p : ref->points) {
      if (ref->capacity.qps && p.target_load == *ref->capacity.qps) qos_qps = p.throughput_qps;
    }
  } else if (ref->capacity.qps) {
    qos_qps = *ref->capacity.qps;
  } else {
    double best = 0;
    for (const auto& g : groups) best = std::max(best, g.capacity.qps.value_or(0));
    if (best > 0) qos_qps = best;
  }
  auto ev = [&](const std::string& cat, const std::string& name, std::optional<double> v,
                const std::string& unit, const std::string& rule, bool holds,
                const std::string& why) {
    c.evidence.push_back({cat, name, v, unit, rule, v.has_value() && holds,
                          v ? "" : "unavailable: " + (why.empty() ? "not measured" : why)});
    return v.has_value() && holds;
  };
  auto corr = [](const std::vector<XY>& s) { return Correlation(s); };

  // Network / streaming.
  bool tx_big = ev("network-streaming", "peak network transmit", peak_tx, "B/s",
                   "≥ " + Fmt(kStreamingTxBytesPerSec / 1e6) + " MB/s",
                   peak_tx && *peak_tx >= kStreamingTxBytesPerSec, tx_why);
  bool tx_req = ev("network-streaming", "transmit per request", tx_per_req, "B/req",
                   "≥ " + Fmt(kStreamingTxBytesPerReq / 1e3) + " kB/req",
                   tx_per_req && *tx_per_req >= kStreamingTxBytesPerReq, tx_why);
  std::optional<double> tx_rx;
  if (peak_tx && peak_rx && *peak_rx > 0) tx_rx = *peak_tx / *peak_rx;
  bool tx_dom = ev("network-streaming", "transmit / receive", tx_rx, "×",
                   "≥ " + Fmt(kStreamingTxOverRx), tx_rx && *tx_rx >= kStreamingTxOverRx, tx_why);
  bool streaming = (tx_big || tx_req) && tx_dom;
  // The seed's "load counted in sessions": said as evidence; transmit decides (a request
  // workload that sends large responses is streaming too).
  std::optional<double> max_sessions;
  std::optional<double> tx_per_session;
  if (axis == LoadAxis::kSessions) {
    for (const auto& p : ref->points) {
      if (p.failed) continue;
      max_sessions = std::max(max_sessions.value_or(0), p.target_load);
      if (p.net_tx_bps.has() && p.target_load > 0) {
        tx_per_session = std::max(tx_per_session.value_or(0), *p.net_tx_bps.value / p.target_load);
      }
    }
  }
  bool in_sessions = false;
  if (axis == LoadAxis::kSessions) {
    in_sessions = ev("network-streaming", "load counted in sessions (most sessions swept)", max_sessions, "sessions",
                     "sweep axis = sessions", true, "no point was measured");
    ev("network-streaming", "transmit per session", tx_per_session, "B/s", "informative (the bitrate plus HTTP)",
       true, tx_why.empty() ? "no transmit measured" : tx_why);
  }

  // Disk-bound.
  bool disk_req = ev("disk-bound", "disk I/O per request", disk_per_req, "B/req",
                     "≥ " + Fmt(kDiskBytesPerReq / 1024) + " KiB/req",
                     disk_per_req && *disk_per_req >= kDiskBytesPerReq, disk_why);
  auto disk_r = corr(disk_vs_qps);
  bool disk_grows = ev("disk-bound", "disk bandwidth vs QPS correlation", disk_r, "r",
                       "≥ " + Fmt(kDiskLoadCorrelation), disk_r && *disk_r >= kDiskLoadCorrelation,
                       disk_vs_qps.size() < 2 ? "fewer than two points with disk I/O"
                                              : "no variation");
  std::optional<double> peak_cpu_pct;
  if (peak_cpu) peak_cpu_pct = *peak_cpu * 100;
  bool cpu_moderate = ev("disk-bound", "peak CPU utilization", peak_cpu_pct, "%",
                         "< " + Fmt(kDiskBoundMaxCpu * 100) + " %",
                         peak_cpu && *peak_cpu < kDiskBoundMaxCpu, cpu_why);
  bool disk_bound = disk_req && disk_grows && cpu_moderate;

  // CPU-intensive.
  bool slow = ev("cpu-intensive", "low-load tail latency",
                 low_load_tail, "s", "≥ " + Fmt(kCpuIntensiveLatencyS) + " s",
                 low_load_tail && *low_load_tail >= kCpuIntensiveLatencyS, "no valid point");
  bool few = ev("cpu-intensive", "QPS under QoS", qos_qps, "QPS",
                "< " + Fmt(kCpuIntensiveMaxQps) + " QPS",
                qos_qps && *qos_qps < kCpuIntensiveMaxQps, "no capacity");
  bool cpu_sat = ev("cpu-intensive", "peak CPU utilization", peak_cpu_pct, "%",
                    "≥ " + Fmt(kCpuSaturated * 100) + " %", peak_cpu && *peak_cpu >= kCpuSaturated,
                    cpu_why);
  bool cpu_intensive = slow || (few && cpu_sat);

  // Fast / latency-critical.
  bool quick = ev("fast", "low-load tail latency", low_load_tail, "s",
                  "≤ " + Fmt(kFastMaxLatencyS) + " s",
                  low_load_tail && *low_load_tail <= kFastMaxLatencyS, "no valid point");
  bool many = ev("fast", "QPS under QoS", qos_qps, "QPS", "> " + Fmt(kFastMinQps, 6) + " QPS",
                 qos_qps && *qos_qps > kFastMinQps, "no capacity");
  auto cpu_r = corr(cpu_vs_qps);
  bool follows = ev("fast", "CPU utilization vs QPS correlation", cpu_r, "r",
                    "≥ " + Fmt(kFastCpuCorrelation), cpu_r && *cpu_r >= kFastCpuCorrelation,
                    cpu_why.empty() ? "fewer than two points" : cpu_why);
  bool fast = quick && many && follows;

  // Memory bandwidth, where measured (resctrl MBM) or estimated (perf LLC misses): evidence
  // beside the rules, not a rule. The seed describes it per category (sphinx > 600 MB/s, the
  // disk-bound 10-100 MB/s, the fast 70-250 MB/s, media-streaming ~400 MB/s) but finds every
  // workload far below a core's bandwidth alone, so it decides none of them; it becomes the
  // question under an LLC partition (the sensitivity table's llc_ways and mem_bw).
  const std::string membw_how = membw_method.empty() ? "" : " (" + membw_method + ")";
  ev("memory", "peak memory bandwidth" + membw_how, peak_membw, "B/s",
     "informative (the seed's: 45-700 MB/s)", true,
     membw_why.empty() ? "not measured" : membw_why);
  auto membw_r = corr(membw_vs_qps);
  ev("memory", "memory bandwidth vs QPS correlation", membw_r, "r", "informative", true,
     membw_vs_qps.size() < 2 ? (membw_why.empty() ? "fewer than two points with memory bandwidth" : membw_why)
                             : "no variation");

  if (streaming) {
    c.name = "network-streaming";
    c.explanation = "network transmit bandwidth dominates (peak " + Fmt(peak_tx.value_or(0)) +
                    " B/s, " + Fmt(tx_rx.value_or(0)) + " × the receive bandwidth)" +
                    (in_sessions ? ", load counted in sessions (up to " + Fmt(*max_sessions) + ")" : "");
  } else if (disk_bound) {
    c.name = "disk-bound";
    c.explanation = "disk I/O grows with load (r = " + Fmt(*disk_r) + ", " +
                    Fmt(*disk_per_req) + " B/request) while CPU stays moderate (peak " +
                    Pct(*peak_cpu) + ")";
  } else if (cpu_intensive) {
    c.name = "cpu-intensive";
    c.explanation = slow ? "tail latency is in seconds at low load (" +
                               Fmt(*low_load_tail) + " s)"
                         : "CPU saturates (" + Pct(*peak_cpu) + ") below " +
                               Fmt(kCpuIntensiveMaxQps) + " QPS";
  } else if (fast) {
    c.name = "fast";
    c.explanation = "tail latency " + Fmt(*low_load_tail * 1e3) + " ms at low load, " +
                    Qps(*qos_qps) + " under QoS, CPU utilization follows load (r = " +
                    Fmt(*cpu_r) + ")";
  } else {
    c.name = "unclassified";
    c.explanation = "no category's rules all hold on the measured profile (see the evidence)";
  }
  return c;
}

}  // namespace ream::analysis
