// TCP sockets for the per-request hot paths of the load generator and the built-in servers
// (epoll and eventfd are in platform/poller.h, the clocks in platform/clock.h). These are free
// functions rather than Platform methods: a virtual call per send/recv is the wrong price on a
// path that runs 150 000 times a second. They are still platform/: errno becomes a Status
// through the one ErrnoStatus, and no layer above makes the system calls itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/status.h"

namespace ream::net {

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
  std::string host;  // as typed: an IPv4 or IPv6 address (without brackets) or a host name
  int port = 0;
  // "127.0.0.1:80", "[::1]:6379", "localhost:11211".
  std::string ToString() const;
};
// Parses "HOST:PORT" as users type it: "127.0.0.1:80", "localhost:11211", "[::1]:6379"
// (PORT 1..65535), and checks that HOST resolves (getaddrinfo: addresses, /etc/hosts, DNS).
// InvalidArgument naming the problem otherwise (a bare IPv6 address without brackets too).
Result<HostPort> ParseHostPort(std::string_view text);
// "host:port", with the brackets an IPv6 address needs.
std::string JoinHostPort(const std::string& host, int port);

// A non-blocking listening TCP socket on host:port (port 0: the kernel picks one); host is
// an IPv4 or IPv6 address or a name (its first address). InvalidArgument for a host that does
// not resolve, the bind/listen errno otherwise.
Result<Fd> Listen(const std::string& host, int port, int backlog = 1024);
// The port a socket is bound to.
Result<int> LocalPort(int fd);
// Accepts one connection, non-blocking with TCP_NODELAY. Returns an invalid Fd when none is
// pending (EAGAIN).
Result<Fd> Accept(int listen_fd);
// Connects to host:port (IPv4 or IPv6; a name's addresses are tried in getaddrinfo's order)
// within `timeout_ns`, then makes the socket non-blocking with TCP_NODELAY. Unavailable
// ("connection refused ...") when nothing listens there, InvalidArgument for a host that
// does not resolve.
Result<Fd> Connect(const std::string& host, int port, int64_t timeout_ns);
// Starts a non-blocking connection to host:port (its first address) and returns at once, so a
// caller with other sockets to serve (the generator reconnecting one of its connections) never
// blocks on it. The socket becomes writable when the connection is up or has failed; then
// FinishConnect says which. Unavailable when the attempt fails at once (connection refused).
Result<Fd> StartConnect(const std::string& host, int port);
// After StartConnect's socket became writable: Ok (and the socket set up as Connect's are,
// TCP_NODELAY) or Unavailable with the reason ("connection refused").
Status FinishConnect(int fd, const std::string& host, int port);

// Outcome of one read or write attempt on a non-blocking socket.
struct IoResult {
  size_t bytes = 0;
  bool would_block = false;  // nothing more now (EAGAIN)
  bool closed = false;       // the peer closed (read returned 0, EPIPE, ECONNRESET)
  bool reset = false;        // ... abruptly: ECONNRESET (an RST), not an orderly FIN
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

// Asks the kernel to stamp every send of this TCP socket when it leaves for the device
// (software TX stamps: SO_TIMESTAMPING with TX_SOFTWARE, OPT_ID and OPT_TSONLY). Each stamp
// comes on the socket's error queue with the stream offset of the last byte of the send it
// belongs to, counted from this call; ReadSendTimestamps collects them.
Status EnableSendTimestamps(int fd);
struct SendStamp {
  uint32_t last_byte = 0;  // stream offset of the send's last byte (mod 2^32)
  int64_t realtime_ns = 0;
};
// Reads up to `max` stamps waiting on `fd`'s error queue into `out`; returns how many (0 when
// none is waiting, or on an error).
int ReadSendTimestamps(int fd, SendStamp* out, int max);

}  // namespace ream::net
