// The LogGP knobs' path between the generator and the workload: the relay
// (relay/relay.h, `ream relay`) started beside the workload when L, g or G is set, and the
// calibration that measures, before the sweep, what each knob really adds (stored with every
// point as the point's NetworkPath).
#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "experiment/load_driver.h"
#include "partition/spec.h"
#include "platform/platform.h"
#include "relay/schedule.h"
#include "sandbox/sandbox.h"
#include "store/store.h"

namespace ream {

struct LaunchedWorkload;

// The relay process, ready.
struct StartedRelay {
  std::unique_ptr<Sandbox> sandbox;
  int port = 0;            // at 127.0.0.1
  std::string what;        // its command line, for messages
};

// The knobs of `ps` the relay applies.
relay::LogGpParams RelayParams(const PartitionSpec& ps);

// `ream relay` towards to_host:to_port on `cpus` (the generator's: never the workload's), with
// the stream split by `protocol`'s framing, accepting on `listen_host` (127.0.0.1 for the local
// generator; 0.0.0.0 when client nodes' agents connect to it). Waits for its readiness line.
// Unavailable (it exited first, with its output) or the sandbox's error; nothing is left
// running on failure.
Result<StartedRelay> StartRelay(Platform& p, SandboxKind& sandboxes, const std::string& ream,
                                const std::vector<int>& cpus, const std::string& to_host, int to_port,
                                const relay::LogGpParams& params, const std::string& protocol,
                                const std::string& state_dir, const std::string& listen_host = "127.0.0.1");

// The methods of the knobs `ps` sets, before any calibration: the relay's for L, g, G (its
// framing for `protocol`); o is the workload's own.
NetworkPath NetworkMethods(const PartitionSpec& ps, const std::string& protocol);

// How the calibration measures.
struct CalibrationOptions {
  double qps = 200;                                   // low: no queueing in the round trips
  std::chrono::milliseconds duration{1000}, warmup{200};
  size_t bulk_bytes = 4 << 20;                        // G's transfer
  double tolerance = 0.10;                            // a knob off by more warns
};

// Measures L (the median round trip through the relay at L against the relay at 0, halved), the
// relay's own added latency (the relay at 0 against the direct path) and G (a bulk transfer
// through a relay with G alone in front of an echo, against 1/G), at a low rate through
// `driver`, and fills `path`'s calibrations. g is recorded as not measured, with why. Cancelled
// when interrupted; a step that cannot run leaves its knob unmeasured with the reason.
Status Calibrate(Platform& p, LoadDriver& driver, SandboxKind& sandboxes, const std::string& ream,
                 const std::vector<int>& relay_cpus, const LoadOptions& base, LaunchedWorkload& wl,
                 const PartitionSpec& ps, const std::string& state_dir, const CalibrationOptions& co,
                 std::chrono::nanoseconds sample_interval, const std::function<bool()>& interrupted,
                 NetworkPath* path);

// What a relay with L adds for a client that is not ream's generator: a pinger that sends one
// small message, waits for the answer in epoll (asleep, as such a client is) and pauses
// `interval` — the way `ream exec` users reach COMMAND through the relay. COMMAND's protocol is
// not ream's to speak, so the pings go to twins of the relay (the same L, g, G, on the same
// CPUs) in front of ream's echo, and, interleaved in `rounds`, through a twin at 0 and to the
// echo directly. The relay delays a message from the kernel's arrival stamp (relay/relay.cc),
// so at L its own wake-up is hidden in the delay: what it adds at L is 2·L and a few µs, while
// at 0 it adds that wake-up.
struct PingerCalibration {
  double requested_us = 0;
  double direct_us = 0, zero_us = 0, with_l_us = 0;  // median round trips
  int pings = 0;                                      // per path
  // The one-way L the pinger sees: half the round trip through the relay at L beyond the direct one.
  double l_us() const { return (with_l_us - direct_us) / 2; }
  double cost_at_l_us() const { return with_l_us - direct_us - 2 * requested_us; }  // the relay's own, at L
  double cost_at_zero_us() const { return zero_us - direct_us; }
  // L off by more than `tolerance` of the request.
  bool off(double tolerance = 0.10) const { return std::abs(l_us() - requested_us) > tolerance * requested_us; }
  // "L 203.1 us one way for 200 us requested (+1.6 %): a round trip through the relay adds 406.2
  // us (2·L + 6.2 us, the relay's own cost at L; 41.0 us at 0); medians of 150 pings per path:
  // 88.2 us direct, 129.2 us through the relay at 0, 494.4 us at L".
  std::string Describe() const;
};
// The echo runs on `echo_cpus` (COMMAND's), the pinger on `relay_cpus` (the generator's, where a
// client of the relay runs): each answer wakes the CPU it goes to, as the user's would.
Result<PingerCalibration> CalibrateRelayByPinging(Platform& p, SandboxKind& sandboxes, const std::string& ream,
                                                  const std::vector<int>& relay_cpus, const std::vector<int>& echo_cpus,
                                                  const relay::LogGpParams& params, const std::string& state_dir,
                                                  int pings = 150, std::chrono::milliseconds interval = std::chrono::milliseconds(2),
                                                  int rounds = 3);

// The median response time of one measured level (µs), or why there is none. The calibration
// compares medians: one scheduling stall of a shared machine moves a 200-sample mean by more
// than the relay's own cost.
Result<double> MedianResponseUs(const PointData& d);

}  // namespace ream
