// epoll, eventfd and signalfd: the event loops of the load generator and the built-in servers.
// Events carry a caller-chosen 64-bit tag; errno becomes a Status through ErrnoStatus.
#pragma once

#include <sys/epoll.h>

#include <cstdint>

#include "platform/net.h"
#include "platform/status.h"

namespace ream::net {

// An epoll instance. Events carry a caller-chosen 64-bit tag.
class Poller {
 public:
  static Result<Poller> Create();
  Status Add(int fd, uint32_t events, uint64_t tag);
  Status Modify(int fd, uint32_t events, uint64_t tag);
  void Remove(int fd);
  // Waits up to `timeout_ns` (< 0: forever, 0: just look) with nanosecond precision
  // (epoll_pwait2). Returns the number of events filled in; EINTR counts as 0 events.
  Result<int> Wait(epoll_event* events, int max_events, int64_t timeout_ns);
  int fd() const { return fd_.get(); }

 private:
  Fd fd_;
};

// An eventfd used to wake a thread blocked in a Poller.
class Notifier {
 public:
  static Result<Notifier> Create();
  void Notify();
  void Drain();
  int fd() const { return fd_.get(); }

 private:
  Fd fd_;
};

// Blocks SIGINT and SIGTERM in the calling thread (threads created afterwards inherit it) and
// returns a signalfd that becomes readable when one arrives.
Result<Fd> BlockTerminationSignals();

}  // namespace ream::net
