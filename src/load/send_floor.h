// The host's limit of sending at a rate (docs/performance.md, "The generator at the host's
// limit"): how timely the simplest open-loop sender is against the same server, at the same
// rate, on the same connections and CPU — one thread that spins, writes a request encoded once
// at each instant of the schedule, drains the answers unparsed and counts a request late when its
// write starts more than the tolerance after its instant (bench/bare_sender.sh in C++). What it
// loses is the host's send path (a loopback write that wakes the server's vCPU, the hypervisor
// taking the CPU); what the generator loses beyond it is its own.
//
// A measurement takes 0.5-1 s of the server's time at the point's rate, so it is cached on the
// host (LoadOptions::send_floor_cache) for kSendFloorMaxAgeS, by protocol, connections, tolerance,
// the target's address (not its port), the sender's CPUs and the rate within a factor of
// sqrt(2): runs on this host pay it once per level and hour, not once per point.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/status.h"

namespace ream {

struct LoadOptions;  // load/generator.h

struct SendFloor {
  bool available = false;
  std::string unavailable;  // why not, when not
  double qps = 0;           // the rate it was measured at
  int connections = 0;
  int64_t tolerance_ns = 0;
  uint64_t requests = 0;    // measured
  double timely_ratio = 0;  // sent within the tolerance of their instant
  double measured_s = 0;
  int64_t measured_at_unix_s = 0;  // wall clock
  bool cached = false;             // read from the host's cache, not measured by this run
  std::string key;                 // the cache's key

  double late_share() const { return 1 - timely_ratio; }
  // "96.52 % timely at 30 000 QPS on 1 connection (measured 2026-12-07 05:40 UTC, cached)".
  std::string Describe() const;
  // {"available", "timely_ratio", "qps", "connections", "requests", "measured_s",
  //  "measured_at", "cached"} or {"available": false, "unavailable": why}.
  nlohmann::json ToJson() const;
  static SendFloor FromJson(const nlohmann::json& j);
};

inline constexpr int64_t kSendFloorMaxAgeS = 3600;

// The bare sender against o's target at o.qps on o.connections for `duration_ns` (after a tenth
// of it unmeasured), on the CPU o's first thread would use (o.cpus[0], else where the caller may
// run). Unavailable naming the cause when the server cannot be reached or closes a connection.
Result<SendFloor> MeasureSendFloor(const LoadOptions& o, int64_t duration_ns);

// How long a measurement at `qps` runs: 1 000 requests' worth, within 0.5-1 s.
int64_t SendFloorDurationNs(double qps);

// The cache's key for o: "memcached|127.0.0.1|1 conn|20000 ns|exponential|0|rate bucket 20".
std::string SendFloorKey(const LoadOptions& o, const std::string& cpus);

// The floor for o: from the cache at `cache_path` when one younger than kSendFloorMaxAgeS is
// there, else measured now and written back. Never fails: a floor that could not be had says
// why (available = false).
SendFloor SendFloorFor(const LoadOptions& o, const std::string& cache_path);

}  // namespace ream
