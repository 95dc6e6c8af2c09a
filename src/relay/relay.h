// ream's in-path relay for the LogGP knobs L, g and G (`ream relay`): it accepts the generator's
// connections, opens one upstream connection to the workload per client connection, and
// forwards both directions, each message departing when DepartureSchedule says. One thread, one
// epoll loop over every connection; it sleeps until shortly before the next departure and spins
// the rest (as the generator does), and reads its timestamps from the platform clock.
//
//   RelayOptions o{.to_host = "127.0.0.1", .to_port = 7000, .params = {.latency_ns = 200'000}};
//   auto r = Relay::Create(o);              // listening, port chosen
//   ... print (*r)->port() ...
//   Status s = (*r)->Run(stop_fd);          // until stop_fd is readable (a signalfd)
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "platform/status.h"
#include "relay/framing.h"
#include "relay/schedule.h"

namespace ream::relay {

struct RelayOptions {
  std::string listen_host = "127.0.0.1";
  int listen_port = 0;  // 0: the kernel picks one (Relay::port())
  std::string to_host;  // the workload
  int to_port = 0;
  LogGpParams params;
  // The framing of both directions (relay/framing.h); chunks by default.
  ProtocolFraming framing;
  // How long before a departure the loop stops sleeping and spins: a little more than this
  // machine's timed-wait oversleep with 1 ns timer slack (docs/notes/performance-notes.md).
  int64_t spin_ns = 30'000;
  // A direction holding this many bytes not yet forwarded stops reading until it drains (the
  // sender then sees TCP's own backpressure).
  size_t max_buffered_bytes = 8 << 20;
};

// What the relay did, for its exit line and the tests.
struct RelayStats {
  int64_t connections = 0;
  int64_t messages_to_server = 0, messages_to_client = 0;
  int64_t bytes_to_server = 0, bytes_to_client = 0;
  // Departures written later than scheduled by more than 20 µs (the loop was busy or preempted).
  int64_t late_departures = 0;
  int64_t max_late_ns = 0;
  int64_t framing_fallbacks = 0;  // connections whose bytes were not the protocol's frames
  // Reads that came with the kernel's arrival stamp: their messages are delayed from it.
  int64_t stamped_reads = 0;
};

class Relay {
 public:
  // Listens on listen_host:listen_port. InvalidArgument for missing upstream, the bind error.
  static Result<std::unique_ptr<Relay>> Create(const RelayOptions& options);
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  int port() const { return port_; }
  // Forwards until `stop_fd` becomes readable; the error of the poller otherwise. Connections
  // whose upstream cannot be reached are closed (counted, not fatal).
  Status Run(int stop_fd);
  const RelayStats& stats() const { return stats_; }

 private:
  struct Impl;
  explicit Relay(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  RelayStats stats_;
};

}  // namespace ream::relay
