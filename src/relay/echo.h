// A byte echo and a bulk transfer through it: how the relay's calibration measures the
// throughput G really allows (and the relay's tests a path with no workload behind it).
//   auto echo = EchoServer::Start("127.0.0.1");            // its own thread
//   ... a relay --to 127.0.0.1:(*echo)->port() ...
//   auto s = EchoTransferSeconds("127.0.0.1", relay_port, 4 << 20, 10'000'000'000);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "platform/net.h"
#include "platform/poller.h"
#include "platform/status.h"

namespace ream::relay {

class EchoServer {
 public:
  // Listens on host (port chosen) and echoes every byte of every connection until destroyed.
  static Result<std::unique_ptr<EchoServer>> Start(const std::string& host);
  ~EchoServer();
  EchoServer(const EchoServer&) = delete;
  EchoServer& operator=(const EchoServer&) = delete;
  int port() const { return port_; }

 private:
  EchoServer() = default;
  void Loop();
  net::Fd listen_;
  net::Poller poller_;
  net::Notifier stop_;
  int port_ = 0;
  std::thread thread_;
};

// Connects to host:port, writes `bytes` bytes while reading the echo, and returns the seconds
// from the first write to the last byte echoed back. Timeout when it takes longer than
// `timeout_ns`; Unavailable when the connection closes first.
Result<double> EchoTransferSeconds(const std::string& host, int port, size_t bytes, int64_t timeout_ns);

// One round trip of `bytes` through an echo at host:port on an open connection, in ns (the
// relay's tests: each byte crosses the path twice).
Result<int64_t> EchoRoundTripNs(int fd, size_t bytes, int64_t timeout_ns);

}  // namespace ream::relay
