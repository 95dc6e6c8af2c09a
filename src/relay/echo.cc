// EchoServer's loop and the transfers through it.
#include "relay/echo.h"

#include <map>
#include <vector>

#include "platform/affinity.h"
#include "platform/clock.h"

namespace ream::relay {
namespace {
constexpr uint64_t kEchoListenTag = ~uint64_t{0};
constexpr uint64_t kEchoStopTag = ~uint64_t{0} - 1;
}  // namespace

Result<std::unique_ptr<EchoServer>> EchoServer::Start(const std::string& host, const std::vector<int>& cpus) {
  std::unique_ptr<EchoServer> e(new EchoServer());
  REAM_ASSIGN_OR_RETURN(e->listen_, net::Listen(host, 0));
  REAM_ASSIGN_OR_RETURN(e->port_, net::LocalPort(e->listen_.get()));
  REAM_ASSIGN_OR_RETURN(e->poller_, net::Poller::Create());
  REAM_ASSIGN_OR_RETURN(e->stop_, net::Notifier::Create());
  REAM_RETURN_IF_ERROR(e->poller_.Add(e->listen_.get(), EPOLLIN, kEchoListenTag));
  REAM_RETURN_IF_ERROR(e->poller_.Add(e->stop_.fd(), EPOLLIN, kEchoStopTag));
  e->thread_ = std::thread([p = e.get(), cpus] {
    if (!cpus.empty()) (void)SetThisThreadAffinity(cpus);  // else wherever the process may run
    p->Loop();
  });
  return e;
}

EchoServer::~EchoServer() {
  if (thread_.joinable()) {
    stop_.Notify();
    thread_.join();
  }
}

void EchoServer::Loop() {
  struct Conn {
    net::Fd fd;
    net::Buffer buf{64 * 1024};
  };
  std::map<int, Conn> conns;
  epoll_event events[32];
  while (true) {
    auto n = poller_.Wait(events, 32, -1);
    if (!n.ok()) return;
    for (int i = 0; i < *n; ++i) {
      uint64_t tag = events[i].data.u64;
      if (tag == kEchoStopTag) return;
      if (tag == kEchoListenTag) {
        while (true) {
          auto fd = net::Accept(listen_.get());
          if (!fd.ok() || !fd->valid()) break;
          int raw = fd->get();
          if (!poller_.Add(raw, EPOLLIN, static_cast<uint64_t>(raw)).ok()) continue;
          conns[raw].fd = std::move(*fd);
        }
        continue;
      }
      auto it = conns.find(static_cast<int>(tag));
      if (it == conns.end()) continue;
      Conn& c = it->second;
      net::IoResult r = net::ReadAvailable(c.fd.get(), &c.buf);
      bool gone = r.closed || r.error;
      while (!gone && c.buf.readable() > 0) {
        net::IoResult w = net::WriteSome(c.fd.get(), c.buf.read_ptr(), c.buf.readable());
        c.buf.Consume(w.bytes);
        if (w.closed || w.error) gone = true;
        // A full socket: the echo blocks this connection only as long as the reader lags,
        // which in a transfer test is never long (it reads while it writes).
      }
      if (gone) {
        poller_.Remove(c.fd.get());
        conns.erase(it);
      }
    }
  }
}

Result<int64_t> EchoRoundTripNs(int fd, size_t bytes, int64_t timeout_ns, int64_t* first_read_ns,
                                size_t* first_read_bytes, int64_t* last_read_ns) {
  // Blocks in epoll rather than spinning: on a small machine a spinning client would take the
  // CPU the relay or the echo needs and measure the scheduler instead.
  REAM_ASSIGN_OR_RETURN(net::Poller poller, net::Poller::Create());
  REAM_RETURN_IF_ERROR(poller.Add(fd, EPOLLIN | EPOLLOUT, 0));
  std::vector<char> out(bytes, 'x'), in(64 * 1024);
  int64_t start = MonotonicNowNs();
  size_t sent = 0, got = 0;
  bool want_out = true;
  epoll_event ev[1];
  while (got < bytes) {
    int64_t left = timeout_ns - (MonotonicNowNs() - start);
    if (left <= 0) return Timeout("the echo did not come back in time");
    if (sent < bytes) {
      net::IoResult w = net::WriteSome(fd, out.data() + sent, bytes - sent);
      if (w.closed || w.error) return Unavailable("the connection closed: " + net::DescribeIo(w));
      sent += w.bytes;
    }
    if (want_out && sent == bytes) {
      REAM_RETURN_IF_ERROR(poller.Modify(fd, EPOLLIN, 0));
      want_out = false;
    }
    net::IoResult r = net::ReadSome(fd, in.data(), in.size());
    if (r.closed || r.error) return Unavailable("the connection closed: " + net::DescribeIo(r));
    if (r.bytes > 0) {
      int64_t t = MonotonicNowNs();
      if (got == 0 && first_read_ns) *first_read_ns = t;
      if (got == 0 && first_read_bytes) *first_read_bytes = r.bytes;
      if (last_read_ns) *last_read_ns = t;
    }
    got += r.bytes;
    if (got < bytes && r.bytes == 0) REAM_RETURN_IF_ERROR(poller.Wait(ev, 1, left).status());
  }
  poller.Remove(fd);
  return MonotonicNowNs() - start;
}

Result<EchoTransfer> EchoTransferThrough(const std::string& host, int port, size_t bytes, int64_t timeout_ns) {
  REAM_ASSIGN_OR_RETURN(net::Fd fd, net::Connect(host, port, timeout_ns));
  int64_t first = 0, last = 0;
  size_t first_bytes = 0;
  REAM_ASSIGN_OR_RETURN(int64_t ns, EchoRoundTripNs(fd.get(), bytes, timeout_ns, &first, &first_bytes, &last));
  EchoTransfer t;
  t.seconds = static_cast<double>(ns) / 1e9;
  if (last > first && bytes > first_bytes) {
    t.steady_bytes_per_s = static_cast<double>(bytes - first_bytes) / (static_cast<double>(last - first) / 1e9);
  }
  return t;
}

Result<double> EchoTransferSeconds(const std::string& host, int port, size_t bytes, int64_t timeout_ns) {
  REAM_ASSIGN_OR_RETURN(EchoTransfer t, EchoTransferThrough(host, port, bytes, timeout_ns));
  return t.seconds;
}

}  // namespace ream::relay
