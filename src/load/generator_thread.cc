// A generator thread's loop: schedule, send, receive, record, reconnect (generator_thread.h).
#include "load/generator_thread.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "platform/clock.h"
#include "protocol/keyspace.h"

namespace ream::load_detail {
namespace {

// The oldest request of the connection still waiting for its answer, moved past those
// answered (or given up) before it.
void SkipToOldestOutstanding(Conn* c) {
  while (c->oldest < c->next_id && !c->ring[c->oldest & c->mask].outstanding) ++c->oldest;
}

}  // namespace

void ThreadRunner::Issue(int64_t sched_ns, bool measured) {
  if (measured && s_.windows && !s_.until) {
    // A request counts in the window its scheduled instant falls in: one due after the open
    // window's end closes it first (the clock is past that end, as the request is due).
    if (sched_ns >= s_.windows->window_end_ns) WindowTick(sched_ns);
    ++s_.windows->current.scheduled;
  }
  Conn* c = nullptr;
  for (size_t tries = 0; tries < s_.conns.size(); ++tries) {
    Conn* cand = s_.conns[s_.rr++ % s_.conns.size()].get();
    if (!cand->dead && !cand->standby) {
      c = cand;
      break;
    }
  }
  if (c == nullptr) {
    CountError(measured, "not sent: every connection was closed");
    return;
  }
  if (!c->down && s_.close_after > 0 && c->sent >= s_.close_after && c->outstanding == 0) {
    s_.close_after = 0;  // every answer is in and no close came: the count was not a rule
  }
  if (c->down || (s_.close_after > 0 && c->sent >= s_.close_after)) {
    // Make before break: a spare already connected takes this connection's place at once.
    if (Conn* spare = TakeOver(c)) {
      IssueOn(spare, sched_ns, measured);
      return;
    }
    // Its new socket is not up yet: the request keeps its place in the schedule and goes out
    // on the new socket as soon as it is up (late, so non-timely) — never dropped, never moved.
    // Likewise once the connection has carried as many requests as the server answers on one
    // before it closes it: a request written now would be discarded unanswered by the server,
    // so it waits for the last answer (and its close) and goes out on the next socket.
    c->waiting.emplace_back(sched_ns, measured);
    return;
  }
  IssueOn(c, sched_ns, measured);
}

void ThreadRunner::IssueOn(Conn* c, int64_t sched_ns, bool measured, bool waited) {
  uint64_t id = c->next_id++;
  Slot& slot = c->ring[id & c->mask];
  if (slot.outstanding) {
    // The request that used this slot ring-size requests ago never got an answer.
    slot.outstanding = false;
    --c->outstanding;
    ++s_.unanswered_total;
    CountError(slot.measured, "no response (request overtaken by " + std::to_string(c->ring.size()) +
                                  " newer ones on its connection)");
  }
  char key[kKeyBytes];
  const uint64_t index = s_.keys->Next(s_.rng);
  bool get = std::uniform_real_distribution<double>(0, 1)(s_.rng) < o_.get_ratio;
  Request req{.id = id, .op = get ? Op::kGet : Op::kSet};
  size_t nkeys = 1;
  if (!s_.sized_keys && !s_.multiget) {
    FormatKey(index, key);
    req.key = std::string_view(key, kKeyBytes);
  } else {
    // Drawn sizes: each key in its own slot of key_text; a get's batch drawn after the first.
    nkeys = get ? s_.batch_sizes.Draw(s_.rng) : 1;
    for (size_t i = 0; i < nkeys; ++i) {
      const uint64_t k = i == 0 ? index : s_.keys->Next(s_.rng);
      char* text = s_.key_text.data() + i * kMaxSentKeyBytes;
      const uint64_t len = s_.sized_keys ? s_.key_sizes.Of(k) : kKeyBytes;
      if (s_.sized_keys) {
        FormatSizedKey(k, len, text);
      } else {
        FormatKey(k, text);
      }
      s_.batch[i] = std::string_view(text, len);
    }
    req.key = s_.batch[0];
    if (nkeys > 1) req.keys = std::span<const std::string_view>(s_.batch.data(), nkeys);
  }
  uint64_t value_bytes = 0;
  if (!get) {
    value_bytes = s_.value_sizes.Draw(s_.rng);
    req.value = std::string_view(s_.value.data(), value_bytes);
  }
  const size_t before = c->out.size();
  if (Status st = s_.codec->EncodeRequest(req, &c->out); !st.ok()) {
    CountError(measured, "not sent: " + st.message());
    return;
  }
  c->encoded += c->out.size() - before;
  int64_t now = MonotonicNowNs();
  timeline_.Tick(now);
  slot = {.id = id, .sched_ns = sched_ns, .send_ns = now, .end_offset = c->encoded,
          .keys = static_cast<uint16_t>(nkeys), .outstanding = true, .measured = measured};
  ++c->outstanding;
  ++c->sent;
  ++s_.issued_total;
  if (!c->dirty) c->dirty = true;
  if (measured) {
    int64_t late = now - sched_ns;
    ++s_.issued;
    s_.request_bytes += c->out.size() - before;
    if (s_.record_sizes) {
      for (size_t i = 0; i < nkeys; ++i) s_.key_bytes.Record(static_cast<int64_t>(req.keys.empty() ? req.key.size() : req.keys[i].size()));
      if (get) {
        s_.batch_keys.Record(static_cast<int64_t>(nkeys));
      } else {
        s_.value_bytes.Record(static_cast<int64_t>(value_bytes));
      }
    }
    s_.lateness.Record(late);
    if (late <= o_.timely_tolerance_ns) {
      ++s_.timely;
      if (s_.windows) ++s_.windows->current.timely;
    } else {
      timeline_.Attribute(sched_ns, now, waited);
    }
    if (s_.span_left > 0) {
      if (--s_.span_left == 0) s_.gap_sample.push_back(GapClock(now) - s_.span_start);  // ns
    } else if (s_.issued % s_.gap_stride == 0 && s_.gap_sample.size() < s_.gap_capacity) {
      s_.span_start = GapClock(now);
      s_.span_left = s_.gap_span;
    }
  }
}

void ThreadRunner::Flush(Conn* c) {
  c->dirty = false;
  if (c->dead || c->down) return;
  while (c->out_off < c->out.size()) {
    int64_t before = MonotonicNowNs();
    net::IoResult r = net::WriteSome(c->fd.get(), c->out.data() + c->out_off, c->out.size() - c->out_off);
    timeline_.Syscall(Activity::kWrite, before, MonotonicNowNs(), c->index);
    c->out_off += r.bytes;
    if (r.closed || r.error != 0) {
      Down(c, "sending: " + net::DescribeIo(r));
      return;
    }
    if (r.would_block && c->out_off < c->out.size()) {
      if (!c->want_write) {
        c->want_write = true;
        (void)s_.poller.Modify(c->fd.get(), EPOLLIN | EPOLLOUT | EPOLLRDHUP, reinterpret_cast<uint64_t>(c));
      }
      return;
    }
  }
  c->out.clear();
  c->out_off = 0;
  if (c->want_write) {
    c->want_write = false;
    (void)s_.poller.Modify(c->fd.get(), EPOLLIN | EPOLLRDHUP, reinterpret_cast<uint64_t>(c));
  }
}

void ThreadRunner::FlushDirty() {
  for (auto& c : s_.conns) {
    if (c->dirty) Flush(c.get());
  }
}

void ThreadRunner::DropOutstanding(Conn* c, const std::string& reason) {
  // Each request written on this socket and not answered is counted once, here, and never
  // sent again: resending would double it in an open-loop schedule (and the server may have
  // acted on it).
  for (auto& slot : c->ring) {
    if (!slot.outstanding) continue;
    slot.outstanding = false;
    ++s_.unanswered_total;
    CountError(slot.measured, "connection lost: " + reason);
  }
  c->outstanding = 0;
  c->oldest = c->next_id;
  c->out.clear();
  c->out_off = 0;
  c->in.Clear();
  CloseSocket(c);
  c->want_write = false;
}

void AttachToTap(ThreadState& s, Conn* c) {
  c->rx_consumed = 0;
  c->seq_known = false;
  c->segs.Clear();
  if (!s.tap || !c->fd.valid()) return;
  auto port = net::LocalPort(c->fd.get());
  if (!port.ok()) return;
  c->local_port = static_cast<uint16_t>(*port);
  s.by_port[c->local_port] = c;
}

void DetachFromTap(ThreadState& s, Conn* c) {
  if (c->local_port == 0) return;
  auto it = s.by_port.find(c->local_port);
  if (it != s.by_port.end() && it->second == c) s.by_port.erase(it);
  c->local_port = 0;
}

void ThreadRunner::DrainTap() {
  net::SegmentStamp seen[64];
  for (;;) {
    int n = s_.tap->Read(seen, 64);
    for (int i = 0; i < n; ++i) {
      const net::SegmentStamp& g = seen[i];
      auto it = s_.by_port.find(g.local_port);
      if (it == s_.by_port.end()) continue;  // another thread's connection, or a closed one
      Conn* c = it->second;
      if (g.syn) {
        c->seq_known = true;
        c->seq_base = g.seq + 1;
        c->segs.Clear();
        continue;
      }
      if (!c->seq_known || g.payload == 0) continue;
      // Offsets within 2 GiB of the furthest seen: unwrapped against it.
      uint32_t begin32 = g.seq - c->seq_base;
      int64_t delta = static_cast<int32_t>(begin32 - static_cast<uint32_t>(c->segs.hi));
      int64_t begin = static_cast<int64_t>(c->segs.hi) + delta;
      if (begin < 0) continue;
      uint64_t end = static_cast<uint64_t>(begin) + g.payload;
      if (end <= c->segs.hi) continue;  // a retransmission of what was seen
      c->segs.Push({static_cast<uint64_t>(begin), end, g.realtime_ns + s_.mono_minus_real_ns});
      c->segs.hi = end;
    }
    if (n < 64) break;
  }
}

void ThreadRunner::CloseSocket(Conn* c) {
  if (!c->fd.valid()) return;
  DetachFromTap(s_, c);
  s_.poller.Remove(c->fd.get());
  c->fd.reset();
}

void ThreadRunner::Fail(Conn* c, const std::string& reason) {
  if (c->dead) return;
  char when[64];
  std::snprintf(when, sizeof when, " (%.3f s into the run)",
                static_cast<double>(MonotonicNowNs() - start_ns_) / 1e9);
  s_.connection_failures.push_back(reason + when);
  DropOutstanding(c, reason);
  Retire(c);
  for (const auto& [sched, measured] : c->waiting) {
    CountError(measured, "not sent: its connection failed: " + reason);
  }
  c->waiting.clear();
}

// Make before break. A server that closes every connection after a count of responses
// (nginx's keepalive_requests: 1 000) would otherwise leave the schedule's requests waiting,
// at each close, for the last answers, the close and a new connect: at 61 000 QPS on one
// connection 4.8-22.5 % of the requests were late behind reconnections
// (docs/notes/performance-notes.md, "Make before break"; tens of requests a close). So once the
// count is learned the thread opens one spare connection; a connection that reaches the count (or
// goes down) hands the schedule to the spare if it is up, drains, reconnects after the server's
// close, and is the next spare. The server sees one more connection per thread.
void ThreadRunner::OpenSpare() {
  s_.spare_opened = true;
  auto c = std::make_unique<Conn>();
  c->index = o_.connections + s_.index;
  c->ring.resize(s_.conns.front()->ring.size());
  c->mask = c->ring.size() - 1;
  c->standby = true;
  c->opening_spare = true;
  c->down = true;
  c->down_reason = "spare";
  c->retry_at_ns = MonotonicNowNs();
  ++s_.down;
  s_.conns.push_back(std::move(c));
}

// Nothing is sent on it any more: a failed connection (Fail), or a spare the server will not
// keep (its connect fails, or it is closed before any use), which is dropped, not retried for
// ever and not a failure of the run: the schedule never needed it.
void ThreadRunner::Retire(Conn* c) {
  CloseSocket(c);
  if (c->down) --s_.down;
  c->down = false;
  c->connecting = false;
  c->dead = true;
}

// The spare, if one is up and fresh, takes `from`'s place; what waited on `from` goes out on it.
Conn* ThreadRunner::TakeOver(Conn* from) {
  Conn* spare = nullptr;
  for (auto& cp : s_.conns) {
    Conn* c = cp.get();
    if (c != from && c->standby && !c->dead && !c->down && c->outstanding == 0 && c->waiting.empty() &&
        (s_.close_after == 0 || c->sent < s_.close_after)) {
      spare = c;
      break;
    }
  }
  if (spare == nullptr) return nullptr;
  spare->standby = false;
  from->standby = true;
  std::vector<std::pair<int64_t, bool>> due;
  due.swap(from->waiting);
  for (const auto& [sched, measured] : due) IssueOn(spare, sched, measured, true);
  return spare;
}

void ThreadRunner::Down(Conn* c, const std::string& reason) {
  if (c->dead || c->down) return;
  if (c->standby && c->sent == 0 && c->outstanding == 0 && c->waiting.empty()) {
    ++s_.reconnect_reasons["spare dropped: " + reason];
    Retire(c);
    return;
  }
  DropOutstanding(c, reason);
  c->down = true;
  c->connecting = false;
  c->down_reason = reason;
  ++s_.down;
  ++s_.reconnect_reasons[reason];
  if (c->answered == 0 && c->reconnected) {
    // A new socket that closed before answering anything: the server accepts and drops us.
    AttemptFailed(c, reason);
    return;
  }
  c->retry_at_ns = MonotonicNowNs();
}

void ThreadRunner::AttemptFailed(Conn* c, const std::string& error) {
  ++s_.reconnect_failures;
  c->last_error = error;
  if (c->standby && c->waiting.empty()) {
    Retire(c);
    return;
  }
  c->connecting = false;
  CloseSocket(c);
  if (++c->failed_attempts >= kMaxReconnectAttempts) {
    GiveUp(c);
    return;
  }
  int64_t delay = kFirstRetryDelayNs << std::min(c->failed_attempts - 1, 20);
  c->retry_at_ns = MonotonicNowNs() + std::min(delay, kMaxRetryDelayNs);
}

void ThreadRunner::GiveUp(Conn* c) {
  char b[128];
  std::snprintf(b, sizeof b, "connection %d: gave up after %d failed reconnection attempts", c->index,
                c->failed_attempts);
  Fail(c, std::string(b) + " (closed first because " + c->down_reason + "; last attempt: " + c->last_error + ")");
}

void ThreadRunner::StartReconnect(Conn* c) {
  auto fd = net::StartConnect(o_.host, o_.port);
  if (!fd.ok()) {
    AttemptFailed(c, fd.status().message());
    return;
  }
  c->fd = std::move(fd).value();
  AttachToTap(s_, c);
  if (Status st = s_.poller.Add(c->fd.get(), EPOLLOUT, reinterpret_cast<uint64_t>(c)); !st.ok()) {
    AttemptFailed(c, st.message());
    return;
  }
  c->connecting = true;
  c->connect_deadline_ns = MonotonicNowNs() + o_.connect_timeout_ns;
}

void ThreadRunner::OnConnectDone(Conn* c) {
  if (Status st = net::FinishConnect(c->fd.get(), o_.host, o_.port); !st.ok()) {
    AttemptFailed(c, st.message());
    return;
  }
  if (s_.rx_stamps) (void)net::EnableReceiveTimestamps(c->fd.get());
  c->encoded = c->stamped = 0;
  c->tx_next = c->next_id;
  if (s_.tx_stamps && !net::EnableSendTimestamps(c->fd.get()).ok()) c->tx_next = UINT64_MAX;
  (void)s_.poller.Modify(c->fd.get(), EPOLLIN | EPOLLRDHUP, reinterpret_cast<uint64_t>(c));
  c->connecting = false;
  c->down = false;
  c->answered = 0;
  c->sent = 0;
  c->reconnected = true;
  --s_.down;
  if (c->opening_spare) {
    c->opening_spare = false;
  } else {
    ++s_.reconnections;
  }
  // The requests due while it was down, in schedule order, each timed from its scheduled time
  // — up to the count the server answers on one connection (close_after): a long outage (a
  // stalled generator, a server slow to accept) leaves more waiting than that, and the rest
  // would be written where the server discards them. They wait for the next socket.
  std::vector<std::pair<int64_t, bool>> due;
  due.swap(c->waiting);
  for (const auto& [sched, measured] : due) {
    if (s_.close_after > 0 && c->sent >= s_.close_after) {
      c->waiting.emplace_back(sched, measured);
    } else {
      IssueOn(c, sched, measured, true);
    }
  }
  if (c->dirty) Flush(c);
  if (c->standby && c->waiting.empty()) {
    // Up and fresh: take over from a connection whose requests are waiting for its close.
    for (auto& cp : s_.conns) {
      Conn* w = cp.get();
      if (w == c || w->standby || w->dead || w->waiting.empty()) continue;
      if (TakeOver(w) != nullptr && c->dirty) Flush(c);
      break;
    }
  }
}

int64_t ThreadRunner::ServiceReconnects(int64_t next_send_ns) {
  if (s_.close_after > 0 && !s_.spare_opened) OpenSpare();
  if (s_.down == 0) return INT64_MAX;
  int64_t next = INT64_MAX;
  int64_t now = MonotonicNowNs();
  for (auto& cp : s_.conns) {
    Conn* c = cp.get();
    if (!c->down) continue;
    if (c->connecting && now >= c->connect_deadline_ns) {
      AttemptFailed(c, "no answer to the connect within " + std::to_string(o_.connect_timeout_ns / 1'000'000) + " ms");
    }
    if (!c->down) continue;  // given up
    const bool spare = c->standby && c->waiting.empty();
    if (!c->connecting && now >= c->retry_at_ns &&
        (!spare || next_send_ns - now >= kSpareSlackNs || now - c->retry_at_ns >= kSpareMaxDeferNs)) {
      StartReconnect(c);
    }
    if (!c->down) continue;
    if (c->connecting) {
      next = std::min(next, c->connect_deadline_ns);
    } else {
      next = std::min(next, now >= c->retry_at_ns && spare ? c->retry_at_ns + kSpareMaxDeferNs : c->retry_at_ns);
    }
  }
  return next;
}

void ThreadRunner::CollectSendStamps(Conn* c) {
  net::SendStamp stamps[64];
  for (;;) {
    int n = net::ReadSendTimestamps(c->fd.get(), stamps, 64);
    for (int i = 0; i < n; ++i) {
      // The stamp names the send's last byte modulo 2^32: bytes up to it (inclusive) left then.
      uint64_t sent = c->stamped + ((static_cast<uint64_t>(stamps[i].last_byte) + 1 -
                                     static_cast<uint32_t>(c->stamped)) & 0xffffffffULL);
      if (sent < c->stamped || sent > c->encoded) continue;  // not one of this socket's
      c->stamped = sent;
      int64_t at = stamps[i].realtime_ns + s_.mono_minus_real_ns;
      while (c->tx_next < c->next_id) {
        Slot& slot = c->ring[c->tx_next & c->mask];
        if (slot.id == c->tx_next && slot.end_offset > sent) break;
        if (slot.id == c->tx_next) slot.tx_ns = at;
        ++c->tx_next;
      }
    }
    if (n < 64) break;
  }
}

void ThreadRunner::OnReadable(Conn* c) {
  if (s_.tx_stamps && c->tx_next < c->next_id) CollectSendStamps(c);
  int64_t stamp = 0;
  int64_t before = MonotonicNowNs();
  net::IoResult r = net::ReadAvailable(c->fd.get(), &c->in, s_.rx_stamps ? &stamp : nullptr);
  int64_t now = MonotonicNowNs();
  timeline_.Syscall(Activity::kRead, before, now, c->index);
  bool kernel_rx = false;
  if (s_.rx_stamps) {
    // The kernel's stamp of the last segment read: when the data arrived. A stamp that does
    // not fit (in the future, or older than a second) is not trusted; the clock is used.
    int64_t arrived = stamp + s_.mono_minus_real_ns;
    if (stamp > 0 && arrived <= now && arrived > now - 1'000'000'000) {
      now = arrived;
      kernel_rx = true;
      ++s_.reads_stamped;
    } else if (r.bytes > 0) {
      ++s_.reads_unstamped;
    }
  }
  Response resp;
  for (;;) {
    auto n = s_.codec->ParseResponse(c->in.view(), &resp);
    if (!n.ok()) {
      Fail(c, "garbage from the server (" + n.status().message() + ")");
      return;
    }
    if (*n == 0) break;
    c->in.Consume(*n);
    c->rx_consumed += *n;
    // Per-segment stamps: the arrival of the segment that carried the answer's last byte. Looked
    // up for every answer, measured or not, so the tap never backs up. The tap is read when the
    // segment is not in hand yet: one read of it brings the segments of every connection of the
    // thread, so the other sockets of this loop turn find theirs without a system call.
    int64_t seg = 0;
    if (s_.tap) {
      seg = c->segs.StampOf(c->rx_consumed - 1);
      if (seg == 0) {
        DrainTap();
        seg = c->segs.StampOf(c->rx_consumed - 1);
      }
      if (seg > MonotonicNowNs()) seg = 0;
    }
    uint64_t id = s_.caps.matches_by_id ? resp.id : c->oldest;
    Slot* slot = id >= 1 && id < c->next_id ? &c->ring[id & c->mask] : nullptr;
    if (slot != nullptr && slot->id > id) {
      // The answer to a request given up when ring-size newer ones overtook it on this
      // connection (counted then as unanswered): a server far behind, not one speaking
      // garbage. Discarded, never matched to the newer request in its slot; in order, the
      // next answer is the next request's.
      ++s_.late_answers;
      if (!s_.caps.matches_by_id) {
        ++c->oldest;
        SkipToOldestOutstanding(c);
      }
      continue;
    }
    if (slot == nullptr || !slot->outstanding || slot->id != id) {
      if (!resp.ok) {
        Fail(c, "the server answered with an error: " + resp.error);
      } else {
        Fail(c, "response for unknown request id " + std::to_string(resp.id));
      }
      return;
    }
    slot->outstanding = false;
    --c->outstanding;
    SkipToOldestOutstanding(c);
    ++s_.completed_total;
    ++c->answered;
    c->failed_attempts = 0;
    const char* closes = resp.closes_connection;
    if (slot->measured) {
      s_.response_bytes += *n;
      if (!resp.ok) {
        CountError(true, "server error: " + resp.error.substr(0, 120));
      } else {
        if (s_.tap) ++(seg > 0 ? s_.answers_segment_stamped : s_.answers_segment_unstamped);
        RecordAnswer(*slot, resp, seg > 0 ? seg : now, seg > 0 || kernel_rx);
      }
    }
    if (closes != nullptr) {
      // Nothing after this response will be answered on this socket: move on to a new one now
      // rather than write more requests into a connection that is going away. A server that
      // closes after a fixed count of responses (nginx: keepalive_requests) is then taken at its
      // word, so later sockets stop taking requests at that count instead of losing the ones
      // written behind its last answer.
      if (s_.close_after == 0 || c->answered < s_.close_after) s_.close_after = c->answered;
      Down(c, closes);
      return;
    }
  }
  if (r.closed) {
    ServerClose close = s_.codec->OnServerClose(c->in.view(), r.reset);
    Down(c, close.reason);
  } else if (r.error != 0) {
    Down(c, "receiving: " + net::DescribeIo(r));
  } else if (!c->waiting.empty() && c->outstanding == 0) {
    // Held back for a close at close_after that did not come: the count was not a rule of the
    // server. Forget it and send what waited.
    s_.close_after = 0;
    std::vector<std::pair<int64_t, bool>> due;
    due.swap(c->waiting);
    for (const auto& [sched, measured] : due) IssueOn(c, sched, measured, true);
    if (c->dirty) Flush(c);
  }
}

void ThreadRunner::RecordAnswer(const Slot& slot, const Response& resp, int64_t now, bool kernel_rx) {
  ++s_.completed;
  // From the schedule, from the generator's send (its clock before the write: what lateness
  // adds is the difference), and — below — on the wire. (A stamp can precede the send by the
  // clocks' conversion error, never by more.)
  int64_t at = std::max(now, slot.send_ns);
  s_.latency.Record(at - slot.sched_ns);
  if (s_.windows) {
    WindowMailbox& m = *s_.windows;
    ++m.current.answered;
    if (++m.seen % m.stride == 0) {
      m.current.latencies_ns.push_back(at - slot.sched_ns);
      if (m.from_send) m.current.from_send_ns.push_back(at - slot.send_ns);
    }
  }
  if (s_.multiget) s_.latency_per_key.RecordN(at - slot.sched_ns, slot.keys);
  s_.latency_from_send.Record(at - slot.send_ns);
  ++s_.answers_measured;
  if (slot.tx_ns > 0) {
    ++s_.answers_tx_stamped;
    // The wire round trip: the kernel's send stamp to its arrival stamp of the answer.
    if (kernel_rx) s_.wire.Record(std::max<int64_t>(0, now - slot.tx_ns));
  }
  if (resp.has_server_times) {
    s_.has_server_times = true;
    s_.service.Record(resp.service_ns);
    s_.queue.Record(resp.queue_ns);
  }
}

void ThreadRunner::NoteOversleep(int64_t over_ns) {
  oversleep_[oversleep_count_++ % kOversleepWindow] = over_ns;
  if (oversleep_count_ % kRelearnEvery == 0) LearnMargin(std::min(oversleep_count_, kOversleepWindow));
}

void ThreadRunner::LearnMargin(size_t n) {
  const int64_t largest = *std::max_element(oversleep_, oversleep_ + n);
  spin_ns_ = std::clamp(largest + kMinSpinNs, kMinSpinNs, kMaxSpinNs);
}

void ThreadRunner::CalibrateWakeMargin() {
  // Waits as long as the loop's typical short sleep; the last one ends well before the start.
  constexpr int64_t kSleepNs = 50'000, kReserveNs = 500'000;
  constexpr size_t kMinWaits = 16;
  size_t n = 0;
  while (n < kCalibrationWaits) {
    int64_t before = MonotonicNowNs();
    if (before + kSleepNs + kReserveNs > start_ns_) break;
    auto r = s_.poller.Wait(events_, 256, kSleepNs);
    int64_t after = MonotonicNowNs();
    if (!r.ok() || *r != 0) break;  // something to read already: the loop takes it
    oversleep_[n++] = after - (before + kSleepNs);
  }
  s_.wake_calibration_waits = static_cast<int>(n);
  oversleep_count_ = n;  // the run's first re-learning window includes them
  if (n < kMinWaits) return;
  LearnMargin(n);
  s_.wake_margin_calibrated_ns = spin_ns_;
}

void ThreadRunner::BusyPoll() {
  if (s_.conns.size() > kDirectPollMaxConns || s_.down > 0) {
    // (epoll also tells when a reconnecting socket's connect is done.)
    Poll(0);
    return;
  }
  // With few connections, reading each one directly costs one syscall instead of
  // epoll_wait plus a read.
  for (size_t i = 0; i < s_.conns.size(); ++i) {
    Conn* c = s_.conns[i].get();
    if (c->dead || c->down) continue;
    if (c->out_off < c->out.size()) Flush(c);
    if (!c->dead && !c->down) OnReadable(c);
    if (i + 1 < s_.conns.size()) IssueDue();
  }
}

void ThreadRunner::Poll(int64_t timeout_ns) {
  int64_t before = MonotonicNowNs();
  auto n = s_.poller.Wait(events_, 256, timeout_ns);
  int64_t after = MonotonicNowNs();
  if (timeout_ns == 0) {
    timeline_.Syscall(Activity::kPoll, before, after, -1);
  } else {
    timeline_.Slept(before, before + timeout_ns, after);
  }
  if (!n.ok()) return;
  HandleEvents(*n);
}

void ThreadRunner::HandleEvents(int n) {
  for (int i = 0; i < n; ++i) {
    auto* c = reinterpret_cast<Conn*>(events_[i].data.u64);
    if (c->dead) continue;
    if (c->down) {
      // Only a reconnecting socket is registered while down (the old one was removed).
      if (c->connecting) OnConnectDone(c);
      continue;
    }
    if (events_[i].events & EPOLLOUT) Flush(c);
    if (c->dead || c->down) continue;
    if (events_[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) OnReadable(c);
    if (i + 1 < n) IssueDue();
  }
}

void ThreadRunner::IssueDue() {
  if (!scheduling_) return;
  int64_t now = MonotonicNowNs();
  bool sent = false;
  while (sched_ <= static_cast<double>(now) && sched_ < static_cast<double>(measure_end_)) {
    auto sched_ns = static_cast<int64_t>(sched_);
    Issue(sched_ns, sched_ns >= measure_begin_);
    sched_ = NextSend(sched_);
    sent = true;
    now = MonotonicNowNs();
  }
  if (sent) FlushDirty();
}

void ThreadRunner::WindowTick(int64_t now, bool last) {
  WindowMailbox& m = *s_.windows;
  if (m.stop_at_ns != nullptr) {
    const int64_t stop = m.stop_at_ns->load(std::memory_order_relaxed);
    if (stop < measure_end_) measure_end_ = std::max(stop, measure_begin_);
  }
  while ((now >= m.window_end_ns && m.window_end_ns <= measure_end_) ||
         (last && !s_.until && m.window_end_ns - m.length_ns < measure_end_)) {
    ThreadWindow w;
    w.latencies_ns.reserve(m.reserve);
    std::swap(w, m.current);
    {
      std::lock_guard<std::mutex> lock(m.mu);
      m.ready.push_back(std::move(w));
    }
    m.window_end_ns += m.length_ns;
  }
}

double ThreadRunner::ScheduledAt(double u) {
  const auto begin = static_cast<double>(measure_begin_);
  if (u < 0) return begin + u * mean_rate_ / warmup_rate_;
  const double n = u / 1e9 * mean_rate_;
  if (n >= rate_->cum.back()) return static_cast<double>(measure_end_);
  return begin + rate_->TimeOf(n, &rate_cursor_) * 1e9;
}

double ThreadRunner::GapClock(int64_t now) const {
  if (!rate_) return static_cast<double>(now);
  const double t = static_cast<double>(now - measure_begin_);
  if (t < 0) return t * warmup_rate_ / mean_rate_;
  return rate_->Integral(t / 1e9) / mean_rate_ * 1e9;
}

void ThreadRunner::Run() {
  (void)UseTightTimerSlack();
  measure_begin_ = start_ns_ + o_.warmup_ns;
  measure_end_ = measure_begin_ + (s_.until ? o_.until->max_ns : o_.duration_ns);
  if (s_.windows) {
    s_.windows->window_end_ns = measure_begin_ + s_.windows->length_ns;
    s_.windows->current.latencies_ns.reserve(s_.windows->reserve);
  }
  // (measure_end_ moves only under until, in WindowTick: the loop's copy follows it there.)
  const int64_t measure_begin = measure_begin_;
  int64_t measure_end = measure_end_;
  // The schedule starts at a random phase of the first gap so threads do not send in lockstep.
  // (`sched` names the member IssueDue advances.) Under a rate schedule the warm-up runs at its
  // first rate (its mean where that is 0), in operational time up to the window's start.
  double& sched = sched_;
  if (o_.schedule) {
    rate_ = &*o_.schedule;
    mean_rate_ = rate_->Mean();
    warmup_rate_ = rate_->knots.front().second > 0 ? rate_->knots.front().second : mean_rate_;
    op_ns_ = -static_cast<double>(o_.warmup_ns) * warmup_rate_ / mean_rate_;
    sched = NextSend(0);
  } else {
    sched = static_cast<double>(start_ns_) + s_.arrival->NextGapNs();
  }
  if (o_.wait != Wait::kSpin) CalibrateWakeMargin();
  while (MonotonicNowNs() < start_ns_) {
  }
  scheduling_ = true;
  for (;;) {
    int64_t now = MonotonicNowNs();
    timeline_.Tick(now);
    if (s_.cpu_begin_ns < 0 && now >= measure_begin) s_.cpu_begin_ns = ThreadCpuNs();
    if (cancel_.load(std::memory_order_relaxed)) break;
    if (s_.until) {
      WindowTick(now);
      measure_end = measure_end_;
    }
    IssueDue();
    if (s_.windows && !s_.until) WindowTick(now);
    const int64_t reconnect_at = ServiceReconnects(static_cast<int64_t>(sched));
    if (sched >= static_cast<double>(measure_end)) break;
    if (Outstanding() == 0 && std::all_of(s_.conns.begin(), s_.conns.end(), [](auto& c) { return c->dead; })) {
      // Nothing can be sent any more; count the rest of the window as not sent (under until, the
      // window ends now).
      if (s_.until) measure_end = measure_end_ = std::max(measure_begin_, std::min(measure_end_, now));
      while (sched < static_cast<double>(measure_end)) {
        CountError(static_cast<int64_t>(sched) >= measure_begin, "not sent: every connection was closed");
        sched = NextSend(sched);
      }
      break;
    }
    // Sleep until a response arrives or until shortly before the next send, then spin the
    // last stretch (spin_ns_: a high percentile of how late this machine's timed waits
    // wake up) so the send is on time. Spinning polls the sockets for responses, so a
    // response is timestamped when it arrives, not when the spin ends. With Wait::kSpin the
    // thread never sleeps: it spins through every gap.
    int64_t wait = static_cast<int64_t>(sched) - MonotonicNowNs();
    int64_t sleep = o_.wait == Wait::kSpin ? 0 : wait - spin_ns_;
    if (reconnect_at != INT64_MAX) sleep = std::min(sleep, reconnect_at - MonotonicNowNs());
    // A reported window closes on time however far the next send is (a low rate, a stretch at 0).
    if (s_.windows && !s_.until) sleep = std::min(sleep, s_.windows->window_end_ns - MonotonicNowNs());
    if (sleep > 0) {
      timeline_.BeforeSleep();
      int64_t before = MonotonicNowNs();
      auto n = s_.poller.Wait(events_, 256, sleep);
      int64_t after = MonotonicNowNs();
      timeline_.Slept(before, before + sleep, after);
      if (n.ok() && *n == 0) {
        NoteOversleep(after - (before + sleep));
      } else if (n.ok()) {
        HandleEvents(*n);
      }
    } else {
      BusyPoll();
      if (o_.wait == Wait::kYield) {
        // Another task that wants this CPU (the workload, another generator thread) runs now,
        // not at the end of this thread's scheduler slice.
        int64_t before = MonotonicNowNs();
        YieldCpu();
        timeline_.Syscall(Activity::kYield, before, MonotonicNowNs(), -1);
      }
    }
  }
  scheduling_ = false;
  // The windows up to the end of the schedule: the judge sees a point that ran to its max whole.
  if (s_.until) WindowTick(std::max(MonotonicNowNs(), measure_end_));
  if (o_.wait != Wait::kSpin) s_.wake_margin_final_ns = spin_ns_;
  s_.cpu_end_ns = ThreadCpuNs();
  if (s_.cpu_begin_ns < 0) s_.cpu_begin_ns = s_.cpu_end_ns;
  s_.late_causes = timeline_.causes();
  // Drain: collect outstanding responses until the response timeout.
  // Connections still reconnecting keep trying meanwhile: the requests waiting for them go
  // out (late) once they are up.
  // Reported windows close on the clock: the last sends of a schedule can come well before its
  // end (a stretch at 0 QPS), and the answers to them count in the windows they arrive in.
  const bool windows_on_clock = s_.windows && !s_.until;
  int64_t deadline = std::max(MonotonicNowNs(), measure_end) + o_.response_timeout_ns;
  for (;;) {
    int64_t now = MonotonicNowNs();
    if (windows_on_clock) WindowTick(now);
    const bool window_open = windows_on_clock && now < measure_end;
    if (!(Outstanding() > 0 || s_.down > 0 || window_open) || cancel_.load(std::memory_order_relaxed)) break;
    int64_t next = ServiceReconnects();
    now = MonotonicNowNs();
    int64_t left = deadline - now;
    if (left <= 0) break;
    int64_t wait = std::min({left, int64_t{10'000'000}, next - now});
    if (window_open) wait = std::min(wait, s_.windows->window_end_ns - now);
    Poll(std::max<int64_t>(0, wait));
  }
  // (A cancelled run's windows end where it stopped.)
  if (windows_on_clock && !cancel_.load()) WindowTick(MonotonicNowNs(), true);
  for (auto& c : s_.conns) {
    if (c->dead) continue;
    for (auto& slot : c->ring) {
      if (!slot.outstanding) continue;
      slot.outstanding = false;
      ++s_.unanswered_total;
      CountError(slot.measured, cancel_.load() ? "cancelled before its response"
                                               : "no response within the response timeout");
    }
    c->outstanding = 0;
    for (const auto& [sched, measured] : c->waiting) {
      CountError(measured, "not sent: its connection was still reconnecting at the end (" + c->last_error + ")");
    }
    c->waiting.clear();
    if (c->down && c->standby) {
      Retire(c.get());  // a spare still connecting: nothing waited for it
      continue;
    }
    if (c->down) {
      c->down = false;
      --s_.down;
      char b[160];
      std::snprintf(b, sizeof b, "connection %d: still down at the end of the run after %d failed reconnection attempts",
                    c->index, c->failed_attempts);
      s_.connection_failures.push_back(std::string(b) + " (closed because " + c->down_reason + "; last attempt: " +
                                       c->last_error + ")");
    }
  }
  // Requests that waited for a reconnection may have gone out during the drain.
  s_.late_causes = timeline_.causes();
}

}  // namespace ream::load_detail
