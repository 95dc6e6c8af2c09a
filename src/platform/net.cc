// TCP sockets for the generator and the servers: non-blocking connect/accept/read/write.
#include "platform/net.h"

#include "platform/clock.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <charconv>
#include <cstring>
#include <ctime>

namespace ream::net {
namespace {

int64_t TimespecNs(const timespec& ts) { return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec; }

// One address getaddrinfo gave for a host and port.
struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = AF_UNSPEC;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

// Every address of `host` (an IPv4 or IPv6 address, or a name from /etc/hosts or DNS) for a
// TCP `port`, in getaddrinfo's order of preference. `passive`: for bind (an empty host is
// every local address). InvalidArgument naming the host when it does not resolve.
Result<std::vector<Address>> Resolve(const std::string& host, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0) {
    std::string why = rc == EAI_SYSTEM ? std::strerror(errno) : gai_strerror(rc);
    return InvalidArgument("cannot resolve host '" + host + "': " + why +
                           " (use an address such as 127.0.0.1 or [::1], or a host name)");
  }
  std::vector<Address> out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) || a->ai_addrlen > sizeof(sockaddr_storage)) continue;
    Address addr;
    std::memcpy(&addr.storage, a->ai_addr, a->ai_addrlen);
    addr.length = a->ai_addrlen;
    addr.family = a->ai_family;
    out.push_back(addr);
  }
  freeaddrinfo(found);
  if (out.empty()) return InvalidArgument("host '" + host + "' has no IPv4 or IPv6 address");
  return out;
}

Status SetSocketFlags(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    return ErrnoStatus(errno, "making a socket non-blocking");
  }
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
    return ErrnoStatus(errno, "setting TCP_NODELAY");
  }
  return Status::Ok();
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) reset(o.release());
  return *this;
}

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::string HostPort::ToString() const { return JoinHostPort(host, port); }

std::string JoinHostPort(const std::string& host, int port) {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<HostPort> ParseHostPort(std::string_view text) {
  std::string t(text);
  std::string host;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return InvalidArgument("'" + t + "' is not [IPV6]:PORT (e.g. [::1]:6379)");
    }
    host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return InvalidArgument("'" + t + "' is not HOST:PORT (e.g. 127.0.0.1:7000, localhost:11211, [::1]:6379)");
    }
    host = std::string(text.substr(0, colon));
    if (host.find(':') != std::string::npos) {
      return InvalidArgument("'" + t + "': an IPv6 address goes in brackets, e.g. [::1]:6379");
    }
    port_text = text.substr(colon + 1);
  }
  if (host.empty()) return InvalidArgument("'" + t + "' names no host (e.g. 127.0.0.1:7000)");
  int port = 0;
  auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || p != port_text.data() + port_text.size() || port < 1 ||
      port > 65535) {
    return InvalidArgument("'" + t + "': the port must be a number in 1..65535");
  }
  REAM_ASSIGN_OR_RETURN(auto addresses, Resolve(host, port, false));
  (void)addresses;
  return HostPort{host, port};
}

Result<Fd> Listen(const std::string& host, int port, int backlog) {
  if (port < 0 || port > 65535) return InvalidArgument("port " + std::to_string(port) + " is not in 0..65535");
  REAM_ASSIGN_OR_RETURN(std::vector<Address> addresses, Resolve(host, port, true));
  // A name with both families binds its IPv4 address, as "localhost" always has: clients
  // given 127.0.0.1 keep reaching a server started with --bind localhost.
  std::stable_partition(addresses.begin(), addresses.end(),
                        [](const Address& a) { return a.family == AF_INET; });
  const Address& addr = addresses.front();
  Fd fd(socket(addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus(errno, "socket()");
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd.get(), addr.get(), addr.length) != 0) {
    return ErrnoStatus(errno, "binding " + JoinHostPort(host, port));
  }
  if (listen(fd.get(), backlog) != 0) return ErrnoStatus(errno, "listen()");
  return fd;
}

Result<int> LocalPort(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return ErrnoStatus(errno, "getsockname()");
  }
  if (addr.ss_family == AF_INET6) {
    return static_cast<int>(ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port));
  }
  return static_cast<int>(ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port));
}

Result<Fd> Accept(int listen_fd) {
  Fd fd(accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!fd.valid()) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED || errno == EINTR) {
      return Fd();
    }
    return ErrnoStatus(errno, "accept()");
  }
  int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

namespace {

// One connection attempt to one address within `timeout_ns`.
Result<Fd> ConnectTo(const Address& addr, const std::string& where, int64_t timeout_ns) {
  Fd fd(socket(addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus(errno, "socket()");
  if (connect(fd.get(), addr.get(), addr.length) != 0) {
    if (errno != EINPROGRESS) {
      return Unavailable("connecting to " + where + ": " + std::strerror(errno) +
                         " (is the server running?)");
    }
    pollfd p{fd.get(), POLLOUT, 0};
    int n = poll(&p, 1, static_cast<int>(timeout_ns / 1000000));
    if (n == 0) return Timeout("connecting to " + where + ": no answer within " +
                               std::to_string(timeout_ns / 1000000) + " ms");
    if (n < 0) return ErrnoStatus(errno, "connecting to " + where);
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      return Unavailable("connecting to " + where + ": " + std::strerror(err) +
                         " (is the server running?)");
    }
  }
  REAM_RETURN_IF_ERROR(SetSocketFlags(fd.get()));
  return fd;
}

}  // namespace

Result<Fd> Connect(const std::string& host, int port, int64_t timeout_ns) {
  REAM_ASSIGN_OR_RETURN(std::vector<Address> addresses, Resolve(host, port, false));
  std::string where = JoinHostPort(host, port);
  // A name may have several addresses (localhost: ::1 and 127.0.0.1) and a server may listen
  // on one family only: try each in order within the one timeout, report the first failure.
  int64_t deadline = MonotonicNowNs() + timeout_ns;
  Status first;
  for (const Address& addr : addresses) {
    int64_t left = std::max<int64_t>(deadline - MonotonicNowNs(), 1'000'000);
    auto fd = ConnectTo(addr, where, left);
    if (fd.ok()) return fd;
    if (first.ok()) first = fd.status();
  }
  return first;
}

Result<Fd> StartConnect(const std::string& host, int port) {
  REAM_ASSIGN_OR_RETURN(std::vector<Address> addresses, Resolve(host, port, false));
  if (addresses.empty()) return InvalidArgument("host '" + host + "' has no address");
  const Address& addr = addresses.front();
  Fd fd(socket(addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus(errno, "socket()");
  if (connect(fd.get(), addr.get(), addr.length) != 0 && errno != EINPROGRESS) {
    return Unavailable("connecting to " + JoinHostPort(host, port) + ": " + std::strerror(errno));
  }
  return fd;
}

Status FinishConnect(int fd, const std::string& host, int port) {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0) {
    return Unavailable("connecting to " + JoinHostPort(host, port) + ": " + std::strerror(err));
  }
  return SetSocketFlags(fd);
}

namespace {

// A failed read or send: to try again later (would block, interrupted), the peer gone (closed,
// reset), or another error.
void ClassifyIoErrno(int err, IoResult& r) {
  if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR) {
    r.would_block = true;
  } else if (err == ECONNRESET || err == EPIPE) {
    r.closed = true;
    r.reset = err == ECONNRESET;
    r.error = err;
  } else {
    r.error = err;
  }
}

}  // namespace

IoResult ReadSome(int fd, char* data, size_t capacity, int64_t* arrival_realtime_ns) {
  IoResult r;
  ssize_t n;
  // Room for SCM_TIMESTAMPNS and, on a socket that also asked for send stamps, the
  // SCM_TIMESTAMPING the kernel then adds to received data too.
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec)) + CMSG_SPACE(3 * sizeof(timespec))];
  msghdr msg{};
  iovec iov{data, capacity};
  if (arrival_realtime_ns == nullptr) {
    n = ::recv(fd, data, capacity, 0);
  } else {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    n = ::recvmsg(fd, &msg, 0);
  }
  if (n > 0) {
    r.bytes = static_cast<size_t>(n);
    if (arrival_realtime_ns != nullptr) {
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
          timespec ts;
          std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
          *arrival_realtime_ns = TimespecNs(ts);
        } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING && *arrival_realtime_ns == 0) {
          timespec ts[3];
          std::memcpy(ts, CMSG_DATA(c), sizeof ts);
          if (ts[0].tv_sec != 0 || ts[0].tv_nsec != 0) *arrival_realtime_ns = TimespecNs(ts[0]);
        }
      }
    }
  } else if (n == 0) {
    r.closed = true;
  } else {
    ClassifyIoErrno(errno, r);
  }
  return r;
}

IoResult WriteSome(int fd, const char* data, size_t size) {
  IoResult r;
  ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
  if (n >= 0) {
    r.bytes = static_cast<size_t>(n);
    r.would_block = static_cast<size_t>(n) < size;
  } else {
    ClassifyIoErrno(errno, r);
  }
  return r;
}

std::string DescribeIo(const IoResult& r) {
  if (r.error != 0) return std::strerror(r.error);
  if (r.closed) return "the server closed the connection";
  return "ok";
}

void Buffer::Consume(size_t n) {
  begin_ += n;
  if (begin_ == end_) begin_ = end_ = 0;
}

char* Buffer::PrepareWrite(size_t n) {
  if (data_.size() - end_ < n) {
    if (begin_ > 0) {
      std::memmove(data_.data(), data_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (data_.size() - end_ < n) data_.resize(std::max(data_.size() * 2, end_ + n));
  }
  return data_.data() + end_;
}

IoResult ReadAvailable(int fd, Buffer* buf, int64_t* arrival_realtime_ns) {
  if (arrival_realtime_ns != nullptr) *arrival_realtime_ns = 0;
  IoResult total;
  for (;;) {
    char* dst = buf->PrepareWrite(16 * 1024);
    size_t capacity = buf->writable();
    IoResult r = ReadSome(fd, dst, capacity, arrival_realtime_ns);
    buf->Commit(r.bytes);
    total.bytes += r.bytes;
    if (r.bytes == capacity) continue;  // the socket may hold more
    if (r.bytes > 0) {
      // A short read drained the socket; skip the extra EAGAIN syscall.
      total.would_block = true;
      return total;
    }
    total.would_block = r.would_block;
    total.closed = r.closed;
    total.reset = r.reset;
    total.error = r.error;
    return total;
  }
}

Status EnableReceiveTimestamps(int fd) {
  int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) {
    return ErrnoStatus(errno, "setsockopt(SO_TIMESTAMPNS)");
  }
  return Status::Ok();
}

Status EnableSendTimestamps(int fd) {
  unsigned flags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
                   SOF_TIMESTAMPING_OPT_TSONLY;
  if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) != 0) {
    return ErrnoStatus(errno, "setsockopt(SO_TIMESTAMPING, TX_SOFTWARE)");
  }
  return Status::Ok();
}

int ReadSendTimestamps(int fd, SendStamp* out, int max) {
  int n = 0;
  while (n < max) {
    alignas(cmsghdr) char control[512];
    char data[1];
    iovec iov{data, sizeof data};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) break;
    int64_t stamp = 0;
    bool have_key = false;
    uint32_t key = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
        timespec ts[3];
        std::memcpy(ts, CMSG_DATA(c), sizeof ts);
        stamp = TimespecNs(ts[0]);
      } else if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                 (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) {
        sock_extended_err err;
        std::memcpy(&err, CMSG_DATA(c), sizeof err);
        if (err.ee_origin == SO_EE_ORIGIN_TIMESTAMPING && err.ee_info == SCM_TSTAMP_SND) {
          key = err.ee_data;
          have_key = true;
        }
      }
    }
    if (have_key && stamp > 0) out[n++] = {key, stamp};
  }
  return n;
}

}  // namespace ream::net
