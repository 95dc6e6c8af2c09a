// Session load's event loop: one thread, one connection per session, sends on the schedule,
// responses parsed by the HTTP codec (protocol/http_codec.h) in the order they were asked for.
#include "load/session_load.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>
#include <vector>

#include "platform/affinity.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "platform/poller.h"
#include "protocol/keyspace.h"

namespace ream {
namespace {

// How long before a send the loop stops sleeping and spins: a wake-up from epoll costs tens
// of microseconds on a VM (docs/notes/performance-notes.md), more than the tolerance of a request.
constexpr int64_t kSpinNs = 200'000;
constexpr double kSessionToleranceShare = 0.05;

struct InFlight {
  int64_t at_ns = 0;
  int64_t deadline_ns = 0;
  bool in_window = false;
  int64_t first_byte_ns = 0;
};

struct SessionConn {
  int slot = 0;
  net::Fd fd;
  net::Buffer in{256 * 1024};
  std::string out;
  size_t out_off = 0;
  std::deque<InFlight> inflight;
  uint64_t next_chunk = 0;  // the slot's chunk count so far
  ScheduledChunk next;
  std::string video_path;
  std::unique_ptr<ClientCodec> codec;
  bool dead = false;
  bool want_write = false;
};

std::string Pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f %%", 100 * v);
  return b;
}

}  // namespace

std::string SessionVideoPath(const std::string& path_template, uint64_t video) {
  std::string p = path_template;
  const std::string key = KeyString(video);
  for (size_t at = 0; (at = p.find("{key}", at)) != std::string::npos; at += key.size()) p.replace(at, 5, key);
  return p;
}

std::string SessionChunkRequest(const std::string& path, const std::string& host_header, uint64_t offset,
                                uint64_t bytes) {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host_header + "\r\nRange: bytes=" + std::to_string(offset) + "-" +
         std::to_string(offset + bytes - 1) + "\r\n\r\n";
}

void JudgeSessions(LoadResult* r) {
  const LoadOptions& o = r->options;
  SessionFigures& f = r->session;
  const double window_s = static_cast<double>(o.duration_ns) / 1e9;
  r->issued = f.chunks_requested;
  r->completed = f.chunks_completed;
  r->achieved_qps = static_cast<double>(r->issued) / window_s;
  r->throughput_qps = static_cast<double>(r->completed) / window_s;
  r->timely_ratio = r->issued ? static_cast<double>(r->timely) / static_cast<double>(r->issued) : 0;
  f.deadline_misses = f.chunks_requested - std::min(f.chunks_on_time, f.chunks_requested);
  f.deadline_miss_ratio =
      f.chunks_requested ? static_cast<double>(f.deadline_misses) / static_cast<double>(f.chunks_requested) : 0;
  f.throughput_bytes_per_s = static_cast<double>(f.bytes_received) / window_s;
  char b[512];
  std::snprintf(b, sizeof b,
                "sessions: >= %.2f %% of chunk requests sent within %.0f us of their scheduled instant, every "
                "scheduled chunk requested, no HTTP error",
                100 * o.min_timely_ratio, f.timely_tolerance_us);
  r->validity_rule = b;
  r->invalid_reasons.clear();
  if (r->cancelled) r->invalid_reasons.push_back("the run was cancelled before its end");
  if (f.chunks_scheduled == 0) r->invalid_reasons.push_back("no chunk was due in the measured window");
  if (r->issued > 0 && r->timely_ratio < o.min_timely_ratio) {
    std::snprintf(b, sizeof b,
                  "the generator fell behind its own schedule: %s of the chunk requests were sent within %.0f us "
                  "of their scheduled instant (at least %s needed)",
                  Pct(r->timely_ratio).c_str(), f.timely_tolerance_us, Pct(o.min_timely_ratio).c_str());
    r->invalid_reasons.push_back(b);
  }
  if (f.chunks_requested < f.chunks_scheduled) {
    std::snprintf(b, sizeof b, "%llu of the %llu chunks due in the window were never requested (a connection failed)",
                  static_cast<unsigned long long>(f.chunks_scheduled - f.chunks_requested),
                  static_cast<unsigned long long>(f.chunks_scheduled));
    r->invalid_reasons.push_back(b);
  }
  for (const auto& c : r->connection_failures) r->invalid_reasons.push_back("connection failed: " + c);
  for (const auto& [reason, n] : r->error_reasons) {
    if (reason.rfind("HTTP ", 0) == 0) {
      r->invalid_reasons.push_back("the server answered " + std::to_string(n) + " chunk request(s) with " + reason +
                                   " (is the video shorter than --session-chunks * --chunk-bytes, or the path wrong?)");
    }
  }
  r->valid = r->invalid_reasons.empty();
}

Result<LoadResult> RunSessionLoad(const LoadOptions& o) {
  REAM_RETURN_IF_ERROR(ValidateLoadOptions(o));
  if (o.protocol != "http") {
    return InvalidArgument("--sessions streams over HTTP/1.1: give --protocol http (got '" + o.protocol + "')");
  }
  const SessionLoad& sl = o.session;
  LoadResult r;
  r.options = o;
  r.options.qps = sl.ChunkRate();
  r.protocol = o.protocol;
  r.server_times_supported = false;
  r.response_timing = "user";
  r.send_timing = "user";
  r.interarrival.not_applicable_reason =
      "session load: a deterministic schedule (each session asks for a chunk every chunk play time)";
  SessionFigures& f = r.session;
  const double play = sl.ChunkPlayNs();
  f.chunk_play_ms = play / 1e6;
  // The generator has fallen behind when it sends a chunk's request later than 5 % of the
  // chunk's play time: the lateness is inside the chunk's measured time anyway (it is timed
  // from its schedule), and 5 % of the deadline's margin is what it may cost before the load
  // offered is no longer the one asked for. The request tolerance (20 us) would judge a
  // schedule of chunks hundreds of ms apart by a clock its figures do not need: on this
  // 2-vCPU host under four builds a waking thread waited up to 5 ms for a CPU.
  const int64_t tolerance =
      std::max<int64_t>(o.timely_tolerance_ns, static_cast<int64_t>(play * kSessionToleranceShare));
  f.timely_tolerance_us = static_cast<double>(tolerance) / 1e3;
  const std::string host_header = net::JoinHostPort(o.host, o.port);

  std::vector<std::unique_ptr<SessionConn>> conns;
  REAM_ASSIGN_OR_RETURN(net::Poller poller, net::Poller::Create());
  for (int s = 0; s < sl.sessions; ++s) {
    auto c = std::make_unique<SessionConn>();
    c->slot = s;
    REAM_ASSIGN_OR_RETURN(c->fd, net::Connect(o.host, o.port, o.connect_timeout_ns));
    REAM_ASSIGN_OR_RETURN(c->codec, MakeClientCodec(o.protocol, o.codec));
    REAM_RETURN_IF_ERROR(poller.Add(c->fd.get(), EPOLLIN | EPOLLRDHUP, static_cast<uint64_t>(s) + 1));
    conns.push_back(std::move(c));
  }
  if (o.cancel_fd >= 0) REAM_RETURN_IF_ERROR(poller.Add(o.cancel_fd, EPOLLIN, 0));
  if (!o.cpus.empty()) (void)PinCallingThread(o.cpus.front());
  (void)UseTightTimerSlack();

  KeyChooser videos(o.key_dist, o.keys);
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + 17);
  const int64_t start_ns = MonotonicNowNs() + 1'000'000;
  const int64_t window_begin = start_ns + o.warmup_ns;
  const int64_t window_end = window_begin + o.duration_ns;
  r.window_begin_ns = window_begin;
  SessionSchedule schedule(sl, start_ns);
  for (auto& c : conns) {
    c->next = schedule.At(c->slot, 0);
    // The chunks the schedule holds inside the window, counted from the schedule itself.
    for (uint64_t k = 0;; ++k) {
      ScheduledChunk ch = schedule.At(c->slot, k);
      if (ch.at_ns >= window_end) break;
      if (ch.at_ns >= window_begin) {
        ++f.chunks_scheduled;
        if (ch.chunk == 0) ++f.sessions_started;
      }
    }
  }
  auto in_window = [&](int64_t at) { return at >= window_begin && at < window_end; };
  auto lose_all = [&](SessionConn& c, const std::string& why) {
    for (const InFlight& x : c.inflight) {
      if (!x.in_window) continue;
      ++r.errors;
      ++r.error_reasons[why];
    }
    r.unanswered_total += c.inflight.size();
    c.inflight.clear();
  };
  auto flush = [&](SessionConn& c) {
    while (c.out_off < c.out.size()) {
      net::IoResult w = net::WriteSome(c.fd.get(), c.out.data() + c.out_off, c.out.size() - c.out_off);
      c.out_off += w.bytes;
      if (w.would_block) break;
      if (w.closed || w.error) return false;
    }
    if (c.out_off == c.out.size()) {
      c.out.clear();
      c.out_off = 0;
    }
    bool want = !c.out.empty();
    if (want != c.want_write) {
      c.want_write = want;
      (void)poller.Modify(c.fd.get(), EPOLLIN | EPOLLRDHUP | (want ? EPOLLOUT : 0u), static_cast<uint64_t>(c.slot) + 1);
    }
    return true;
  };
  // The server closed the connection or broke the protocol: what was in flight is lost; a
  // new connection takes the slot's next chunks (a blocking connect: on the paths session
  // load runs, loopback or a node's veth, it takes microseconds).
  auto replace = [&](SessionConn& c, const std::string& why, bool orderly) {
    lose_all(c, "lost: " + why);
    poller.Remove(c.fd.get());
    c.fd.reset();
    c.in.Clear();
    c.out.clear();
    c.out_off = 0;
    c.want_write = false;
    ++r.reconnect_reasons[why];
    auto fd = net::Connect(o.host, o.port, o.connect_timeout_ns);
    if (!fd.ok() || !poller.Add(fd->get(), EPOLLIN | EPOLLRDHUP, static_cast<uint64_t>(c.slot) + 1).ok()) {
      ++r.reconnect_failures;
      c.dead = true;
      r.connection_failures.push_back("session slot " + std::to_string(c.slot) + ": " + why +
                                      (fd.ok() ? "" : "; reconnecting failed: " + fd.status().message()));
      return;
    }
    if (!orderly) r.connection_failures.push_back("session slot " + std::to_string(c.slot) + ": " + why);
    ++r.reconnections;
    c.fd = std::move(fd).value();
    if (auto codec = MakeClientCodec(o.protocol, o.codec); codec.ok()) c.codec = std::move(*codec);
  };
  auto send = [&](SessionConn& c, int64_t now) {
    const ScheduledChunk ch = c.next;
    if (ch.chunk == 0) c.video_path = SessionVideoPath(o.codec.http_path, videos.Next(rng));
    c.out += SessionChunkRequest(c.video_path, host_header, ch.chunk * sl.chunk_bytes, sl.chunk_bytes);
    ++r.issued_total;
    const bool w = in_window(ch.at_ns);
    if (w) {
      ++f.chunks_requested;
      int64_t late = now - ch.at_ns;
      r.lateness.Record(std::max<int64_t>(late, 0));
      if (late <= tolerance) ++r.timely;
    }
    c.inflight.push_back({ch.at_ns, ch.deadline_ns, w, 0});
    c.next = schedule.At(c.slot, ++c.next_chunk);
  };
  auto receive = [&](SessionConn& c) {
    net::IoResult io = net::ReadAvailable(c.fd.get(), &c.in);
    const int64_t now = MonotonicNowNs();
    if (io.bytes > 0 && !c.inflight.empty() && c.inflight.front().first_byte_ns == 0) {
      c.inflight.front().first_byte_ns = now;
    }
    while (c.in.readable() > 0) {
      Response resp;
      Result<size_t> used = c.codec->ParseResponse(c.in.view(), &resp);
      if (!used.ok()) {
        replace(c, "the server's bytes are not HTTP: " + used.status().message(), false);
        return;
      }
      if (*used == 0) break;
      c.in.Consume(*used);
      if (c.inflight.empty()) {
        replace(c, "a response no chunk request asked for", false);
        return;
      }
      InFlight x = c.inflight.front();
      c.inflight.pop_front();
      ++r.completed_total;
      if (!c.inflight.empty() && c.in.readable() > 0) c.inflight.front().first_byte_ns = now;
      if (x.in_window) {
        if (resp.ok) {
          ++f.chunks_completed;
          f.bytes_received += *used;
          r.latency.Record(now - x.at_ns);
          r.latency_from_send.Record(now - x.at_ns);
          f.first_byte.Record(std::max<int64_t>(x.first_byte_ns ? x.first_byte_ns - x.at_ns : now - x.at_ns, 0));
          if (now <= x.deadline_ns) ++f.chunks_on_time;
        } else {
          ++r.errors;
          ++r.error_reasons[resp.error.empty() ? "error response" : resp.error];
        }
      }
      if (resp.closes_connection) {
        replace(c, resp.closes_connection, true);
        return;
      }
    }
    if (io.closed || io.error) {
      ServerClose why = c.codec->OnServerClose(c.in.view(), io.reset);
      replace(c, io.error ? net::DescribeIo(io) : why.reason, why.orderly && c.inflight.empty());
    }
  };

  const int64_t cpu0 = ThreadCpuNs();
  epoll_event events[64];
  while (true) {
    const int64_t now = MonotonicNowNs();
    int64_t next_due = INT64_MAX;
    size_t outstanding = 0;
    for (auto& c : conns) {
      if (c->dead) continue;
      bool sent = false;
      while (c->next.at_ns <= now && c->next.at_ns < window_end) {
        send(*c, now);
        sent = true;
      }
      if (sent && !flush(*c)) replace(*c, "the server closed the connection while a request was written", false);
      if (!c->dead && c->next.at_ns < window_end) next_due = std::min(next_due, c->next.at_ns);
      outstanding += c->inflight.size();
    }
    if (r.cancelled) break;
    const bool sending_done = next_due == INT64_MAX;
    if (sending_done && outstanding == 0) break;
    if (now > window_end + o.response_timeout_ns) break;
    int64_t timeout = sending_done ? std::min<int64_t>(10'000'000, window_end + o.response_timeout_ns - now)
                      : o.wait == Wait::kSpin ? 0
                                              : next_due - now - kSpinNs;
    if (timeout <= 0 && !sending_done && o.wait == Wait::kYield) YieldCpu();
    Result<int> n = poller.Wait(events, 64, std::max<int64_t>(timeout, 0));
    if (!n.ok()) return n.status();
    for (int i = 0; i < *n; ++i) {
      uint64_t tag = events[i].data.u64;
      if (tag == 0) {
        r.cancelled = true;
        continue;
      }
      SessionConn& c = *conns[tag - 1];
      if (c.dead) continue;
      if (events[i].events & EPOLLOUT) {
        if (!flush(c)) replace(c, "the server closed the connection while a request was written", false);
      }
      if (!c.dead && (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) receive(c);
    }
  }
  r.measured_s = static_cast<double>(std::min(MonotonicNowNs(), window_end) - window_begin) / 1e9;
  r.generator_cpu_s = static_cast<double>(ThreadCpuNs() - cpu0) / 1e9;
  for (auto& c : conns) lose_all(*c, "never answered within the response timeout");
  JudgeSessions(&r);
  return r;
}

}  // namespace ream
