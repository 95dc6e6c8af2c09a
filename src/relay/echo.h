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
#include <vector>

#include "platform/net.h"
#include "platform/poller.h"
#include "platform/status.h"

namespace ream::relay {

class EchoServer {
 public:
  // Listens on host (port chosen) and echoes every byte of every connection until destroyed,
  // its thread on `cpus` when given (as a workload on its own CPUs would).
  static Result<std::unique_ptr<EchoServer>> Start(const std::string& host, const std::vector<int>& cpus = {});
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

// A bulk transfer through an echo.
struct EchoTransfer {
  double seconds = 0;  // from the first write to the last byte echoed back
  // The echo's arrival rate after its first read: (bytes − first read) / (last − first
  // arrival), in bytes per second. A relay pacing at G lets its first chunk go at once, so this
  // (not bytes / seconds) is 1/G whatever its chunk size. 0 with a single read.
  double steady_bytes_per_s = 0;
};
// Connects to host:port, writes `bytes` bytes while reading the echo. Timeout when it takes
// longer than `timeout_ns`; Unavailable when the connection closes first.
Result<EchoTransfer> EchoTransferThrough(const std::string& host, int port, size_t bytes, int64_t timeout_ns);
// EchoTransferThrough's seconds.
Result<double> EchoTransferSeconds(const std::string& host, int port, size_t bytes, int64_t timeout_ns);

// One round trip of `bytes` through an echo at host:port on an open connection, in ns (the
// relay's tests: each byte crosses the path twice).
// `first_read_ns` / `first_read_bytes` / `last_read_ns`, when given, receive when the first
// bytes came back, how many, and when the last did.
Result<int64_t> EchoRoundTripNs(int fd, size_t bytes, int64_t timeout_ns, int64_t* first_read_ns = nullptr,
                                size_t* first_read_bytes = nullptr, int64_t* last_read_ns = nullptr);

}  // namespace ream::relay
