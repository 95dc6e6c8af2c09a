// TCP sockets, epoll, eventfd and clocks for the per-request hot paths of the load generator
// and the built-in servers. These touch the OS directly rather than through Platform: a virtual
// call and a Status per send/recv is the wrong price on a path that runs 150 000 times a
// second, and errno still becomes a Status in this one file (net.cc), as in platform/.
#pragma once

#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/status.h"

namespace ream::net {

// CLOCK_MONOTONIC in nanoseconds (vDSO, ~20 ns).
int64_t NowNs();
// CPU time (user + system) of the calling thread / of this whole process, in nanoseconds.
int64_t ThreadCpuNs();
int64_t ProcessCpuNs();
// Sets the calling thread's timer slack to 1 ns so timed waits wake when asked, not up to
// 50 µs later (the Linux default). Returns the error when prctl refuses.
Status UseTightTimerSlack();

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

struct HostPort {
  std::string host;
  int port = 0;
};
// Parses "HOST:PORT" (PORT 1..65535; HOST an IPv4 address or "localhost"). InvalidArgument
// naming the problem otherwise.
Result<HostPort> ParseHostPort(std::string_view text);

// A non-blocking listening TCP socket on host:port (port 0: the kernel picks one).
// InvalidArgument for a bad address, the bind/listen errno otherwise.
Result<Fd> Listen(const std::string& host, int port, int backlog = 1024);
// The port a socket is bound to.
Result<int> LocalPort(int fd);
// Accepts one connection, non-blocking with TCP_NODELAY. Returns an invalid Fd when none is
// pending (EAGAIN).
Result<Fd> Accept(int listen_fd);
// Connects to host:port within `timeout_ns`, then makes the socket non-blocking with
// TCP_NODELAY. Unavailable ("connection refused ...") when nothing listens there.
Result<Fd> Connect(const std::string& host, int port, int64_t timeout_ns);

// Outcome of one read or write attempt on a non-blocking socket.
struct IoResult {
  size_t bytes = 0;
  bool would_block = false;  // nothing more now (EAGAIN)
  bool closed = false;       // the peer closed (read returned 0, EPIPE, ECONNRESET)
  int error = 0;             // any other errno
};
// With `arrival_realtime_ns`, the kernel's arrival stamp of the data read (CLOCK_REALTIME, ns;
// see EnableReceiveTimestamps) is stored there when one came with it, and left alone otherwise.
IoResult ReadSome(int fd, char* data, size_t capacity, int64_t* arrival_realtime_ns = nullptr);
IoResult WriteSome(int fd, const char* data, size_t size);
// "connection reset by peer" etc. for an IoResult that failed.
std::string DescribeIo(const IoResult& r);

// A growable byte buffer with a read cursor: append at the back, consume at the front;
// compacts instead of reallocating when the consumed prefix is large.
class Buffer {
 public:
  explicit Buffer(size_t initial = 64 * 1024) : data_(initial) {}
  const char* read_ptr() const { return data_.data() + begin_; }
  size_t readable() const { return end_ - begin_; }
  std::string_view view() const { return {read_ptr(), readable()}; }
  void Consume(size_t n);
  // Makes at least `n` bytes writable and returns where to write them.
  char* PrepareWrite(size_t n);
  size_t writable() const { return data_.size() - end_; }
  void Commit(size_t n) { end_ += n; }
  void Clear() { begin_ = end_ = 0; }

 private:
  std::vector<char> data_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

// Reads everything the socket holds now into `buf`. The last IoResult tells whether the peer
// closed or failed; `bytes` is the total read.
// With `arrival_realtime_ns`: the kernel's arrival stamp of the last segment read, or 0 when no
// stamp came with the data. Segments that waited unread may have been merged by TCP into one
// carrying the latest arrival's stamp.
IoResult ReadAvailable(int fd, Buffer* buf, int64_t* arrival_realtime_ns = nullptr);

// Asks the kernel to stamp every segment this socket receives with the time it arrived
// (SO_TIMESTAMPNS), so a reader can tell when data came in, not when it got around to reading.
Status EnableReceiveTimestamps(int fd);
// CLOCK_MONOTONIC minus CLOCK_REALTIME, in ns, from the tightest of a few paired reads:
// converts a kernel arrival stamp to the monotonic clock the generator schedules with.
int64_t MonotonicMinusRealtimeNs();

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
