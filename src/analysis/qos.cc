// The QoS target (LQoS): 5 × the mean service time at 20 % CPU utilization of the reference
// group, or the spec's fixed target (DESIGN.md).
#include "analysis/qos.h"

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
#include "platform/keep_awake.h"
#include "platform/median.h"

namespace ream::analysis {

const GroupAnalysis* ReferenceGroup(const std::vector<GroupAnalysis>& groups) {
  const GroupAnalysis* best = nullptr;
  auto rank = [](const GroupAnalysis& g) {
    return std::make_tuple(g.failed ? 1 : 0, g.partition.unlimited() ? 0 : 1,
                           g.scenario == "1-ST" ? 0 : 1, g.threads, g.valid_points > 0 ? 0 : 1);
  };
  for (const auto& g : groups) {
    if (!best || rank(g) < rank(*best)) best = &g;
  }
  return best;
}

bool HasSessionFigures(const std::vector<GroupAnalysis>& groups) {
  for (const auto& g : groups) {
    for (const auto& p : g.points) {
      if (p.session) return true;
    }
  }
  return false;
}

QosTarget ComputeQos(const ExperimentData& d, const std::vector<GroupAnalysis>& groups) {
  QosTarget q;
  if (d.load_axis == LoadAxis::kSessions && HasSessionFigures(groups)) {
    // Session load: a chunk's deadline is its play time after its request (load/session_load.h);
    // the target shown beside the chunks' response + transfer time is that deadline, and a
    // level meets QoS by its deadline-miss ratio (kSessionMaxDeadlineMiss), not by a percentile.
    for (const auto& g : groups) {
      for (const auto& p : g.points) {
        if (p.session && p.session->chunk_play_ms > 0 && !q.target_us) q.target_us = p.session->chunk_play_ms * 1e3;
      }
    }
    if (!q.target_us) {
      q.unavailable = "no point of the sessions sweep carries session figures (chunk play time)";
      return q;
    }
    q.by_deadline_miss = true;
    q.method = "session load: a chunk is on time when its last byte arrives within its play time (" +
               Fmt(*q.target_us / 1e3) + " ms) of its scheduled request; a level meets QoS when at most " +
               Fmt(kSessionMaxDeadlineMiss * 100) + " % of its chunks miss that deadline";
    if (d.qos.fixed_target_us) q.note = "the spec's fixed [qos] target does not apply to a sessions sweep";
    return q;
  }
  if (d.qos.fixed_target_us) {
    q.target_us = *d.qos.fixed_target_us;
    q.method = "fixed target from the experiment spec";
    return q;
  }
  const GroupAnalysis* ref = ReferenceGroup(groups);
  if (!ref) {
    q.unavailable = "no run to derive it from";
    return q;
  }
  q.reference = ref->key;
  std::vector<XY> s;
  bool reported = true;
  for (const auto& p : ref->points) {
    if (!p.valid || !p.cpu_util.has() || !p.service_us) continue;
    s.push_back({*p.cpu_util.value, *p.service_us});
    reported = reported && p.service_method == "server-reported";
  }
  std::sort(s.begin(), s.end(), [](const XY& a, const XY& b) { return a.x < b.x; });
  double u = d.qos.at_utilization;
  char rule[128];
  std::snprintf(rule, sizeof rule, "%g × mean service time at %g %% CPU utilization",
                d.qos.service_multiple, u * 100);
  if (s.empty()) {
    q.unavailable = std::string("cannot apply ") + rule + ": no valid point of " + ref->key +
                    " has both CPU utilization and a service time (CPU utilization: " +
                    (ref->points.empty() || ref->points[0].cpu_util.has()
                         ? "measured"
                         : ref->points[0].cpu_util.unavailable) +
                    "); set a fixed target in the spec";
    return q;
  }
  q.service_method = reported ? "server-reported" : "service demand law S = U·c/X";
  auto svc = InterpolateY(s, u);
  if (svc) {
    q.service_time_us = *svc;
  } else if (s.back().x < u) {
    q.unavailable = std::string("cannot apply ") + rule + ": CPU utilization of " + ref->key +
                    " stays below " + Pct(u) + " (max " + Pct(s.back().x) +
                    "), as the seed found for shore; set a fixed target in the spec";
    return q;
  } else {
    q.service_time_us = s.front().y;
    q.note = "no valid point at or below " + Pct(u) + " utilization; the lowest (" +
             Pct(s.front().x) + ") was used";
  }
  q.target_us = d.qos.service_multiple * *q.service_time_us;
  q.method = std::string(rule) + " (" + q.service_method + "), interpolated along the sweep of " +
             ref->key;
  // The service demand law reads the workload's CPU time, which SCHED_IDLE pollers keeping its CPUs awake
  // were measured to inflate (memcached at 20 000 QPS: 21 % without, 39-40 % with, on this
  // project's VMs; docs/notes/performance-notes.md): say so rather than pass the figure on
  // unqualified.
  if (!reported) {
    for (const auto& p : ref->points) {
      if (p.valid && p.keep_awake_workload.find(kWorkloadCpusKeptAwake) != std::string::npos) {
        q.note += std::string(q.note.empty() ? "" : "; ") +
                  "the workload's CPUs were kept awake (keep_awake), under which its measured CPU time per "
                  "request was found to double on a virtual machine "
                  "(docs/notes/performance-notes.md): compare with a run "
                  "without keep-awake before trusting this service time";
        break;
      }
    }
  }
  // A server whose own work per request is far shorter than a round trip over the network
  // gets a target no request can meet from the seed's rule alone: the client's latency carries
  // the round trip outside the server (the wire, the two hosts' stacks, wake-ups), which the
  // service time excludes. The rule then moves above that floor: the lowest p-tail measured at
  // any valid load, where the server is nearly idle (its own S in it), plus (m − 1) × S, the
  // queueing the seed's rule allows beyond one service. Where the round trip is negligible, as
  // for the seed's millisecond applications, the floor is about S and this is the seed's m × S.
  // The floor is read only below saturation (at most kFloorMaxUtilization CPU, qos.h): nearer
  // it the tail is queueing, and a floor read there lets any load "meet" QoS (a noisy memcached
  // sweep whose only valid point ran at 95.6 % CPU got a 22 ms target on 3 Dec 2026). Without
  // such a point there is no target, and the reason says so.
  const PointAnalysis* floor = nullptr;   // the lowest tail at a valid point below saturation
  const PointAnalysis* lowest = nullptr;  // the lowest tail at any valid point
  for (const auto& p : ref->points) {
    if (!p.valid) continue;
    if (!lowest || p.tail_us < lowest->tail_us) lowest = &p;
    const bool light = p.cpu_util.has() && *p.cpu_util.value <= kFloorMaxUtilization;
    if (light && (!floor || p.tail_us < floor->tail_us)) floor = &p;
  }
  if (!floor && lowest && *q.target_us < lowest->tail_us) {
    q.seed_target_us = q.target_us;
    q.target_us.reset();
    q.unavailable = "the seed's " + std::string(rule) + " gives " + Fmt(*q.seed_target_us) +
                    " us, below the lowest p" + Fmt(d.qos.percentile) + " measured at any valid load of " +
                    ref->key + " (" + Fmt(lowest->tail_us) + " us at " + Qps(lowest->target_load) +
                    "), and no valid load ran at or below " + Pct(kFloorMaxUtilization) +
                    " CPU utilization, where the round trip outside the server could be read (the least loaded "
                    "valid one ran at " + Pct(s.front().x) + ": its tail is queueing); measure lower loads, or set "
                    "[qos] target in the spec";
    return q;
  }
  if (floor && *q.target_us < floor->tail_us) {
    const double seed_target = *q.target_us;
    q.seed_target_us = seed_target;
    q.target_us = floor->tail_us + (d.qos.service_multiple - 1) * *q.service_time_us;
    q.method = "the lowest p" + Fmt(d.qos.percentile) + " measured at a valid load of " + ref->key + " (" +
               Fmt(floor->tail_us) + " us at " + Qps(floor->target_load) + ", " + Pct(*floor->cpu_util.value) +
               " CPU) plus " +
               Fmt(d.qos.service_multiple - 1) + " × the mean service time at " + Fmt(u * 100) +
               " % CPU utilization (" + q.service_method + ", " + Fmt(*q.service_time_us) +
               " us): the seed's " + rule + " (" + Fmt(seed_target) +
               " us) lies below the round trip outside the server, which no load can beat";
    if (!q.note.empty()) q.note += "; ";
    q.note += "the seed's rule alone gives " + Fmt(seed_target) + " us, below the lowest p" + Fmt(d.qos.percentile) +
              " measured at any valid load of " + ref->key + " (" + Fmt(floor->tail_us) + " us at " +
              Qps(floor->target_load) + "): the service time excludes the network and the server's I/O. The " +
              "target allows the same queueing above that floor; the seed set a fixed LQoS where its rule did not " +
              "apply (shore): [qos] target in the spec does that";
  }
  return q;
}

}  // namespace ream::analysis
