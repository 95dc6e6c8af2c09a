// The relay's event loop: per connection two directions, each a byte buffer holding what was
// read and not yet written, and a ring of (departure, length) for the messages in it.
#include "relay/relay.h"

#include <algorithm>
#include <vector>

#include "platform/clock.h"
#include "platform/net.h"
#include "platform/poller.h"

namespace ream::relay {
namespace {

constexpr uint64_t kStopTag = ~uint64_t{0};
constexpr uint64_t kListenTag = ~uint64_t{0} - 1;
constexpr int64_t kLateNs = 20'000;
constexpr int64_t kConnectTimeoutNs = 2'000'000'000;
constexpr size_t kMaxChunk = 16 * 1024;

}  // namespace

// A connection's types: named, not anonymous, because Relay::Impl (a member of a class with
// linkage) holds them, which an anonymous type must not be in a unity build
// (-Wsubobject-linkage).
namespace relay_detail {

struct Pending {
  int64_t depart_ns;
  size_t bytes;  // left to write of this message
};

// A FIFO of pending messages that grows by doubling and never shrinks: no allocation per
// message once a connection has seen its largest backlog.
class PendingRing {
 public:
  PendingRing() : slots_(64) {}
  bool empty() const { return count_ == 0; }
  Pending& front() { return slots_[head_]; }
  void pop() {
    head_ = (head_ + 1) % slots_.size();
    --count_;
  }
  void push(Pending p) {
    if (count_ == slots_.size()) {
      std::vector<Pending> bigger(slots_.size() * 2);
      for (size_t i = 0; i < count_; ++i) bigger[i] = slots_[(head_ + i) % slots_.size()];
      slots_ = std::move(bigger);
      head_ = 0;
    }
    slots_[(head_ + count_) % slots_.size()] = p;
    ++count_;
  }

 private:
  std::vector<Pending> slots_;
  size_t head_ = 0, count_ = 0;
};

struct Direction {
  Direction(Framing f, LogGpParams p, LinkState* link) : framing(f), schedule(p, link) {}
  Framing framing;
  DepartureSchedule schedule;
  net::Buffer buf{256 * 1024};
  size_t framed = 0;  // bytes at the front of buf that belong to queued messages
  PendingRing pending;
  bool read_closed = false;  // the sender closed its side
  bool write_blocked = false;
};

struct Conn {
  Conn(net::Fd c, net::Fd u, const RelayOptions& o, LinkState* to_server_link, LinkState* to_client_link)
      : client(std::move(c)),
        upstream(std::move(u)),
        to_server(o.framing.to_server, o.params, to_server_link),
        to_client(o.framing.to_client, o.params, to_client_link) {}
  net::Fd client, upstream;
  Direction to_server, to_client;  // client -> upstream, upstream -> client
  uint32_t client_events = 0, upstream_events = 0;
  bool dead = false;
};

}  // namespace relay_detail

struct Relay::Impl {
  using Conn = relay_detail::Conn;
  using Direction = relay_detail::Direction;
  using Pending = relay_detail::Pending;


  RelayOptions o;
  net::Fd listen;
  net::Poller poller;
  std::vector<std::unique_ptr<Conn>> conns;  // by slot; null: free
  LinkState to_server_link, to_client_link;  // G is the link's, shared by every connection
  RelayStats* stats = nullptr;
  int64_t mono_minus_real_ns = 0;  // turns the kernel's arrival stamps (CLOCK_REALTIME) monotonic

  // Frames what `d` read since the last call into messages departing per the schedule.
  void Frame(Direction& d, int64_t read_ns, int64_t* messages) {
    while (d.framed < d.buf.readable()) {
      std::string_view rest(d.buf.read_ptr() + d.framed, d.buf.readable() - d.framed);
      auto n = NextMessage(d.framing, rest);
      if (!n.ok()) {
        // Not this protocol's frames after all: chunks from here on.
        d.framing = Framing::kChunk;
        ++stats->framing_fallbacks;
        continue;
      }
      if (*n == 0) break;
      d.pending.push({d.schedule.Depart(read_ns, *n), *n});
      d.framed += *n;
      ++*messages;
    }
  }

  // Writes every message that is due; returns the next departure still waiting (INT64_MAX:
  // none, or the socket is full and EPOLLOUT will say when). False when the peer is gone.
  bool Flush(Direction& d, int to_fd, int64_t now, int64_t* next, int64_t* bytes_counter) {
    while (!d.pending.empty()) {
      Pending& head = d.pending.front();
      if (head.depart_ns > now) {
        *next = std::min(*next, head.depart_ns);
        return true;
      }
      net::IoResult w = net::WriteSome(to_fd, d.buf.read_ptr(), head.bytes);
      if (w.closed || w.error) return false;
      // Counted once, when the message's last byte goes.
      if (w.bytes > 0 && head.bytes == w.bytes && now - head.depart_ns > kLateNs) {
        ++stats->late_departures;
        stats->max_late_ns = std::max(stats->max_late_ns, now - head.depart_ns);
      }
      d.buf.Consume(w.bytes);
      d.framed -= w.bytes;
      head.bytes -= w.bytes;
      *bytes_counter += static_cast<int64_t>(w.bytes);
      if (head.bytes == 0) {
        d.pending.pop();
      } else {
        d.write_blocked = true;
        return true;
      }
    }
    d.write_blocked = false;
    return true;
  }

  void UpdateInterest(Conn& c, size_t slot) {
    auto want = [&](const Direction& reading, const Direction& writing) {
      uint32_t e = 0;
      if (!reading.read_closed && reading.buf.readable() < o.max_buffered_bytes) e |= EPOLLIN;
      if (writing.write_blocked) e |= EPOLLOUT;
      return e;
    };
    uint32_t ce = want(c.to_server, c.to_client), ue = want(c.to_client, c.to_server);
    if (ce != c.client_events) {
      (void)poller.Modify(c.client.get(), ce, slot * 2);
      c.client_events = ce;
    }
    if (ue != c.upstream_events) {
      (void)poller.Modify(c.upstream.get(), ue, slot * 2 + 1);
      c.upstream_events = ue;
    }
  }

  void Close(size_t slot) {
    Conn& c = *conns[slot];
    poller.Remove(c.client.get());
    poller.Remove(c.upstream.get());
    conns[slot].reset();
  }

  void AcceptAll() {
    while (true) {
      auto fd = net::Accept(listen.get());
      if (!fd.ok() || !fd->valid()) return;
      auto up = net::Connect(o.to_host, o.to_port, kConnectTimeoutNs);
      if (!up.ok()) continue;  // the client sees its connection close
      size_t slot = 0;
      while (slot < conns.size() && conns[slot]) ++slot;
      if (slot == conns.size()) conns.emplace_back();
      // Both directions are timed from the kernel's arrival stamps (ReadSome); without them
      // (an old kernel) from the read.
      (void)net::EnableReceiveTimestamps(fd->get());
      (void)net::EnableReceiveTimestamps(up->get());
      conns[slot] = std::make_unique<Conn>(std::move(*fd), std::move(*up), o, &to_server_link, &to_client_link);
      Conn& c = *conns[slot];
      c.client_events = c.upstream_events = EPOLLIN;
      if (!poller.Add(c.client.get(), EPOLLIN, slot * 2).ok() ||
          !poller.Add(c.upstream.get(), EPOLLIN, slot * 2 + 1).ok()) {
        Close(slot);
        continue;
      }
      ++stats->connections;
    }
  }

  // Reads what `from` holds into `d`. False when the connection is to be closed now.
  bool ReadInto(Direction& d, int from, int64_t* messages) {
    if (d.read_closed || d.buf.readable() >= o.max_buffered_bytes) return true;
    // At most kMaxChunk (16 KiB) per event (level-triggered epoll comes back for the rest), so a bulk
    // stream read in chunks is paced chunk by chunk rather than stored whole and forwarded late.
    char* dst = d.buf.PrepareWrite(kMaxChunk);
    int64_t stamp = 0;
    net::IoResult r = net::ReadSome(from, dst, kMaxChunk, &stamp);
    d.buf.Commit(r.bytes);
    int64_t now = MonotonicNowNs();
    // A message arrived when the kernel stamped its last segment, not when the relay got round
    // to reading it: a relay woken late (its CPU idle, or taken by the host) would otherwise add
    // its wake-up to L, and a client that sends one message at a time pays a wake-up on every
    // one (+140 to +270 us on 2 x 200 us seen by a pinger). A stamp after the read or
    // more than a second before it (a step of the wall clock) is not used.
    int64_t arrived = now;
    if (stamp > 0) {
      const int64_t at = stamp + mono_minus_real_ns;
      if (at <= now && now - at < 1'000'000'000) arrived = at;
      ++stats->stamped_reads;
    }
    if (r.bytes > 0) Frame(d, arrived, messages);
    if (r.error) return false;
    if (r.closed) {
      d.read_closed = true;
      // What did not make a whole message still goes, as one chunk.
      if (d.framed < d.buf.readable()) {
        size_t left = d.buf.readable() - d.framed;
        d.pending.push({d.schedule.Depart(now, left), left});
        d.framed += left;
      }
    }
    return true;
  }
};

Relay::Relay(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->stats = &stats_; }
Relay::~Relay() = default;

Result<std::unique_ptr<Relay>> Relay::Create(const RelayOptions& o) {
  if (o.to_host.empty() || o.to_port <= 0) return InvalidArgument("the relay needs --to HOST:PORT");
  if (o.params.latency_ns < 0 || o.params.gap_ns < 0 || o.params.per_byte_ns < 0) {
    return InvalidArgument("the relay's latency, gap and per-byte time must not be negative");
  }
  auto impl = std::make_unique<Impl>();
  impl->o = o;
  REAM_ASSIGN_OR_RETURN(impl->listen, net::Listen(o.listen_host, o.listen_port));
  REAM_ASSIGN_OR_RETURN(impl->poller, net::Poller::Create());
  REAM_RETURN_IF_ERROR(impl->poller.Add(impl->listen.get(), EPOLLIN, kListenTag));
  REAM_ASSIGN_OR_RETURN(int port, net::LocalPort(impl->listen.get()));
  std::unique_ptr<Relay> r(new Relay(std::move(impl)));
  r->port_ = port;
  return r;
}

Status Relay::Run(int stop_fd) {
  Impl& m = *impl_;
  (void)UseTightTimerSlack();  // timed waits wake when asked, not 50 µs later
  m.mono_minus_real_ns = MonotonicMinusRealtimeNs();
  REAM_RETURN_IF_ERROR(m.poller.Add(stop_fd, EPOLLIN, kStopTag));
  epoll_event events[64];
  // The spin margin starts at the option and then follows this host: after every 64 timed
  // waits it becomes their 97th percentile of oversleep plus 5 µs (as the generator does), so
  // a departure is not late by a wake-up that the margin was too short for.
  int64_t spin_ns = m.o.spin_ns;
  int64_t oversleep[64] = {};
  size_t overs = 0;
  while (true) {
    // Send what is due; the earliest departure still waiting decides how long to wait.
    int64_t now = MonotonicNowNs();
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < m.conns.size(); ++i) {
      if (!m.conns[i]) continue;
      Impl::Conn& c = *m.conns[i];
      bool ok = m.Flush(c.to_server, c.upstream.get(), now, &next, &stats_.bytes_to_server) &&
                m.Flush(c.to_client, c.client.get(), now, &next, &stats_.bytes_to_client);
      // The client closed and everything both ways went, or the workload closed and what it
      // sent went.
      bool drained = (c.to_server.read_closed && c.to_server.pending.empty() && c.to_client.pending.empty()) ||
                     (c.to_client.read_closed && c.to_client.pending.empty());
      if (!ok || drained) {
        m.Close(i);
        continue;
      }
      m.UpdateInterest(c, i);
    }
    int64_t timeout = -1;
    if (next != INT64_MAX) {
      int64_t wait = next - MonotonicNowNs();
      timeout = wait > spin_ns ? wait - spin_ns : 0;
    }
    const int64_t before = MonotonicNowNs();
    REAM_ASSIGN_OR_RETURN(int n, m.poller.Wait(events, 64, timeout));
    if (n == 0 && timeout > 0) {
      oversleep[overs++ % 64] = MonotonicNowNs() - (before + timeout);
      if (overs % 64 == 0) {
        std::vector<int64_t> v(oversleep, oversleep + 64);
        std::nth_element(v.begin(), v.begin() + 62, v.end());
        spin_ns = std::clamp<int64_t>(v[62] + 5'000, 5'000, 300'000);
      }
    }
    for (int e = 0; e < n; ++e) {
      uint64_t tag = events[e].data.u64;
      if (tag == kStopTag) return Status::Ok();
      if (tag == kListenTag) {
        m.AcceptAll();
        continue;
      }
      size_t slot = tag / 2;
      if (slot >= m.conns.size() || !m.conns[slot]) continue;
      Impl::Conn& c = *m.conns[slot];
      bool from_client = tag % 2 == 0;
      uint32_t ev = events[e].events;
      bool ok = true;
      if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        ok = from_client ? m.ReadInto(c.to_server, c.client.get(), &stats_.messages_to_server)
                         : m.ReadInto(c.to_client, c.upstream.get(), &stats_.messages_to_client);
      }
      if (ev & EPOLLOUT) (from_client ? c.to_client : c.to_server).write_blocked = false;
      if (!ok) m.Close(slot);
    }
  }
}

}  // namespace ream::relay
