// The generator's threads: schedule, send, receive, record; then merge and judge.
#include "load/generator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "load/anderson_darling.h"
#include "load/lateness.h"
#include "protocol/keyspace.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "platform/poller.h"

namespace ream {
namespace {

constexpr int64_t kMinSpinNs = 5'000;
constexpr int64_t kMaxSpinNs = 300'000;
constexpr size_t kDirectPollMaxConns = 4;
// Reconnecting a connection the server closed: the first attempt at once, then after 1 ms,
// doubling to at most 250 ms; after kMaxReconnectAttempts failures in a row (an attempt fails
// when the connect fails, times out, or the new connection closes before answering anything)
// the connection is given up. About 1.3 s of trying in all: a server restarted on its port
// comes back within that; a server that refuses costs a bounded handful of connects, never a
// busy loop.
constexpr int kMaxReconnectAttempts = 12;
constexpr int64_t kFirstRetryDelayNs = 1'000'000;
constexpr int64_t kMaxRetryDelayNs = 250'000'000;

struct Slot {
  uint64_t id = 0;
  int64_t sched_ns = 0;
  int64_t send_ns = 0;
  bool outstanding = false;
  bool measured = false;
};

struct Conn {
  int index = 0;  // over the whole run, for messages
  net::Fd fd;
  net::Buffer in;
  std::string out;
  size_t out_off = 0;
  std::vector<Slot> ring;
  uint64_t mask = 0;
  uint64_t next_id = 1;
  uint64_t oldest = 1;  // smallest id that may still be outstanding (FIFO matching)
  uint64_t outstanding = 0;
  bool dead = false;  // given up: nothing is sent on it any more
  bool dirty = false;
  bool want_write = false;
  // Down: the server closed it and a new socket is on its way. The schedule's requests that
  // fall on it meanwhile wait here (scheduled time, measured) and are sent, late, once it is up.
  bool down = false;
  bool connecting = false;        // a connect is in flight on fd (else: waiting for retry_at_ns)
  int64_t retry_at_ns = 0;
  int64_t connect_deadline_ns = 0;
  int failed_attempts = 0;        // in a row, since the last response on this connection
  uint64_t answered = 0;          // responses on the current socket
  uint64_t sent = 0;              // requests written on the current socket
  bool reconnected = false;       // the current socket replaced one the server closed
  std::string down_reason;        // why it went down
  std::string last_error;         // the last failed attempt's cause
  std::vector<std::pair<int64_t, bool>> waiting;
};

// Everything one generator thread owns; nothing here is shared while the run is on.
struct ThreadState {
  int index = 0;
  std::vector<std::unique_ptr<Conn>> conns;
  std::unique_ptr<ClientCodec> codec;
  CodecCapabilities caps;
  net::Poller poller;
  std::mt19937_64 rng;
  std::unique_ptr<ArrivalProcess> arrival;
  std::unique_ptr<KeyChooser> keys;
  std::string value;
  double rate_per_s = 0;
  size_t rr = 0;

  // Results.
  Histogram latency, latency_from_send, service, queue, lateness;
  uint64_t issued = 0, completed = 0, errors = 0, timely = 0;
  uint64_t issued_total = 0, completed_total = 0;
  std::map<std::string, uint64_t> error_reasons;
  std::vector<std::string> connection_failures;
  uint64_t reconnections = 0, reconnect_failures = 0, unanswered_total = 0;
  std::map<std::string, uint64_t> reconnect_reasons;
  int down = 0;  // connections down now (reconnecting)
  // Learned from the server: it announces a close after this many responses on a connection
  // (nginx's keepalive_requests). 0: not known.
  uint64_t close_after = 0;
  std::vector<double> gap_sample;  // normalized send gaps (Exp(1) under the null)
  uint64_t gap_stride = 1;
  size_t gap_capacity = 0;
  int64_t prev_send_ns = -1;
  int64_t cpu_begin_ns = -1, cpu_end_ns = -1;
  bool has_server_times = false;
  // Responses timed by the kernel's arrival stamps (see LoadOptions::kernel_rx_timestamps).
  bool rx_stamps = false;
  int64_t mono_minus_real_ns = 0;
  uint64_t reads_stamped = 0, reads_unstamped = 0;
  LatenessCauses late_causes;
};

class ThreadRunner {
 public:
  ThreadRunner(const LoadOptions& o, ThreadState& s, int64_t start_ns, std::atomic<bool>& cancel)
      : o_(o), s_(s), start_ns_(start_ns), cancel_(cancel), timeline_(o.timely_tolerance_ns, &ThreadContextSwitches) {}

  void Run();

 private:
  void Issue(int64_t sched_ns, bool measured);
  // `waited`: the request waited for its connection to be replaced (its lateness's cause).
  void IssueOn(Conn* c, int64_t sched_ns, bool measured, bool waited = false);
  // The server closed `c` (or it broke): counts its unanswered requests and schedules a new
  // socket in its place.
  void Down(Conn* c, const std::string& reason);
  void AttemptFailed(Conn* c, const std::string& error);
  void StartReconnect(Conn* c);
  void OnConnectDone(Conn* c);
  void GiveUp(Conn* c);
  // Starts the reconnections whose retry time came, times out the connects that took too
  // long. Returns the earliest time it needs to be called again (INT64_MAX: nothing pending).
  int64_t ServiceReconnects();
  void DropOutstanding(Conn* c, const std::string& reason);
  void RecordAnswer(const Slot& slot, const Response& resp, int64_t now);
  void FlushDirty();
  void Flush(Conn* c);
  void OnReadable(Conn* c);
  void Fail(Conn* c, const std::string& reason);
  void CountError(bool measured, const std::string& reason) {
    if (!measured) return;
    ++s_.errors;
    ++s_.error_reasons[reason];
  }
  void Poll(int64_t timeout_ns);
  void HandleEvents(int n);
  void BusyPoll();
  void NoteOversleep(int64_t over_ns);
  uint64_t Outstanding() const {
    uint64_t n = 0;
    for (const auto& c : s_.conns) n += c->dead ? 0 : c->outstanding;
    return n;
  }

  const LoadOptions& o_;
  ThreadState& s_;
  int64_t start_ns_;
  std::atomic<bool>& cancel_;
  // Starts generous; after every kOversleepWindow timed waits it becomes their 97th
  // percentile of oversleep plus kMinSpinNs.
  int64_t spin_ns_ = 100'000;
  static constexpr size_t kOversleepWindow = 64;
  int64_t oversleep_[kOversleepWindow] = {};
  size_t oversleep_count_ = 0;
  epoll_event events_[256];
  LatenessTimeline timeline_;
};

void ThreadRunner::Issue(int64_t sched_ns, bool measured) {
  Conn* c = nullptr;
  for (size_t tries = 0; tries < s_.conns.size(); ++tries) {
    Conn* cand = s_.conns[s_.rr++ % s_.conns.size()].get();
    if (!cand->dead) {
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
  FormatKey(s_.keys->Next(s_.rng), key);
  bool get = std::uniform_real_distribution<double>(0, 1)(s_.rng) < o_.get_ratio;
  Request req{.id = id, .op = get ? Op::kGet : Op::kSet, .key = std::string_view(key, kKeyBytes),
              .value = get ? std::string_view() : std::string_view(s_.value)};
  if (Status st = s_.codec->EncodeRequest(req, &c->out); !st.ok()) {
    CountError(measured, "not sent: " + st.message());
    return;
  }
  int64_t now = MonotonicNowNs();
  timeline_.Tick(now);
  slot = {.id = id, .sched_ns = sched_ns, .send_ns = now, .outstanding = true, .measured = measured};
  ++c->outstanding;
  ++c->sent;
  ++s_.issued_total;
  if (!c->dirty) c->dirty = true;
  if (measured) {
    int64_t late = now - sched_ns;
    ++s_.issued;
    s_.lateness.Record(late);
    if (late <= o_.timely_tolerance_ns) {
      ++s_.timely;
    } else {
      timeline_.Attribute(sched_ns, now, waited);
    }
    if (s_.prev_send_ns >= 0 && s_.issued % s_.gap_stride == 0 &&
        s_.gap_sample.size() < s_.gap_capacity) {
      s_.gap_sample.push_back(static_cast<double>(now - s_.prev_send_ns) * s_.rate_per_s / 1e9);
    }
  }
  s_.prev_send_ns = now;
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
  if (c->fd.valid()) {
    s_.poller.Remove(c->fd.get());
    c->fd.reset();
  }
  c->want_write = false;
}

void ThreadRunner::Fail(Conn* c, const std::string& reason) {
  if (c->dead) return;
  c->dead = true;
  char when[64];
  std::snprintf(when, sizeof when, " (%.3f s into the run)",
                static_cast<double>(MonotonicNowNs() - start_ns_) / 1e9);
  s_.connection_failures.push_back(reason + when);
  DropOutstanding(c, reason);
  if (c->down) {
    c->down = false;
    --s_.down;
  }
  for (const auto& [sched, measured] : c->waiting) {
    CountError(measured, "not sent: its connection failed: " + reason);
  }
  c->waiting.clear();
}

void ThreadRunner::Down(Conn* c, const std::string& reason) {
  if (c->dead || c->down) return;
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
  c->connecting = false;
  if (c->fd.valid()) {
    s_.poller.Remove(c->fd.get());
    c->fd.reset();
  }
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
  (void)s_.poller.Modify(c->fd.get(), EPOLLIN | EPOLLRDHUP, reinterpret_cast<uint64_t>(c));
  c->connecting = false;
  c->down = false;
  c->answered = 0;
  c->sent = 0;
  c->reconnected = true;
  --s_.down;
  ++s_.reconnections;
  // The requests due while it was down, in schedule order, each timed from its scheduled time.
  std::vector<std::pair<int64_t, bool>> due;
  due.swap(c->waiting);
  for (const auto& [sched, measured] : due) IssueOn(c, sched, measured, true);
  if (c->dirty) Flush(c);
}

int64_t ThreadRunner::ServiceReconnects() {
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
    if (!c->connecting && now >= c->retry_at_ns) StartReconnect(c);
    if (!c->down) continue;
    next = std::min(next, c->connecting ? c->connect_deadline_ns : c->retry_at_ns);
  }
  return next;
}

void ThreadRunner::OnReadable(Conn* c) {
  int64_t stamp = 0;
  int64_t before = MonotonicNowNs();
  net::IoResult r = net::ReadAvailable(c->fd.get(), &c->in, s_.rx_stamps ? &stamp : nullptr);
  int64_t now = MonotonicNowNs();
  timeline_.Syscall(Activity::kRead, before, now, c->index);
  if (s_.rx_stamps) {
    // The kernel's stamp of the last segment read: when the data arrived. A stamp that does
    // not fit (in the future, or older than a second) is not trusted; the clock is used.
    int64_t arrived = stamp + s_.mono_minus_real_ns;
    if (stamp > 0 && arrived <= now && arrived > now - 1'000'000'000) {
      now = arrived;
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
    uint64_t id = s_.caps.matches_by_id ? resp.id : c->oldest;
    Slot* slot = id >= 1 && id < c->next_id ? &c->ring[id & c->mask] : nullptr;
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
    while (c->oldest < c->next_id && !c->ring[c->oldest & c->mask].outstanding) ++c->oldest;
    ++s_.completed_total;
    ++c->answered;
    c->failed_attempts = 0;
    const char* closes = resp.closes_connection;
    if (slot->measured) {
      if (!resp.ok) {
        CountError(true, "server error: " + resp.error.substr(0, 120));
      } else {
        RecordAnswer(*slot, resp, now);
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

void ThreadRunner::RecordAnswer(const Slot& slot, const Response& resp, int64_t now) {
  ++s_.completed;
  // (A stamp can precede the send by the clocks' conversion error, never by more.)
  int64_t at = std::max(now, slot.send_ns);
  s_.latency.Record(at - slot.sched_ns);
  s_.latency_from_send.Record(at - slot.send_ns);
  if (resp.has_server_times) {
    s_.has_server_times = true;
    s_.service.Record(resp.service_ns);
    s_.queue.Record(resp.queue_ns);
  }
}

void ThreadRunner::NoteOversleep(int64_t over_ns) {
  oversleep_[oversleep_count_++ % kOversleepWindow] = over_ns;
  if (oversleep_count_ % kOversleepWindow != 0) return;
  std::vector<int64_t> v(oversleep_, oversleep_ + kOversleepWindow);
  auto at = v.begin() + (kOversleepWindow * 97) / 100;
  std::nth_element(v.begin(), at, v.end());
  spin_ns_ = std::clamp(*at + kMinSpinNs, kMinSpinNs, kMaxSpinNs);
}

void ThreadRunner::BusyPoll() {
  if (s_.conns.size() > kDirectPollMaxConns || s_.down > 0) {
    // (epoll also tells when a reconnecting socket's connect is done.)
    Poll(0);
    return;
  }
  // With few connections, reading each one directly costs one syscall instead of
  // epoll_wait plus a read.
  for (auto& c : s_.conns) {
    if (c->dead || c->down) continue;
    if (c->out_off < c->out.size()) Flush(c.get());
    if (!c->dead && !c->down) OnReadable(c.get());
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
  }
}

void ThreadRunner::Run() {
  (void)UseTightTimerSlack();
  const int64_t measure_begin = start_ns_ + o_.warmup_ns;
  const int64_t measure_end = measure_begin + o_.duration_ns;
  // The schedule starts at a random phase of the first gap so threads do not send in lockstep.
  double sched = static_cast<double>(start_ns_) + s_.arrival->NextGapNs();
  while (MonotonicNowNs() < start_ns_) {
  }
  for (;;) {
    int64_t now = MonotonicNowNs();
    timeline_.Tick(now);
    if (s_.cpu_begin_ns < 0 && now >= measure_begin) s_.cpu_begin_ns = ThreadCpuNs();
    if (cancel_.load(std::memory_order_relaxed)) break;
    bool sent = false;
    while (sched <= static_cast<double>(now) && sched < static_cast<double>(measure_end)) {
      auto sched_ns = static_cast<int64_t>(sched);
      Issue(sched_ns, sched_ns >= measure_begin);
      sched += s_.arrival->NextGapNs();
      sent = true;
      now = MonotonicNowNs();
    }
    if (sent) FlushDirty();
    const int64_t reconnect_at = ServiceReconnects();
    if (sched >= static_cast<double>(measure_end)) break;
    if (Outstanding() == 0 && std::all_of(s_.conns.begin(), s_.conns.end(), [](auto& c) { return c->dead; })) {
      // Nothing can be sent any more; count the rest of the window as not sent.
      while (sched < static_cast<double>(measure_end)) {
        CountError(static_cast<int64_t>(sched) >= measure_begin, "not sent: every connection was closed");
        sched += s_.arrival->NextGapNs();
      }
      break;
    }
    // Sleep until a response arrives or until shortly before the next send, then spin the
    // last stretch (spin_ns_: a high percentile of how late this machine's timed waits
    // wake up) so the send is on time. Spinning polls the sockets for responses, so a
    // response is timestamped when it arrives, not when the spin ends. With spin_wait the
    // thread never sleeps: it spins through every gap.
    int64_t wait = static_cast<int64_t>(sched) - MonotonicNowNs();
    int64_t sleep = o_.spin_wait ? 0 : wait - spin_ns_;
    if (reconnect_at != INT64_MAX) sleep = std::min(sleep, reconnect_at - MonotonicNowNs());
    if (sleep > 0) {
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
    }
  }
  s_.cpu_end_ns = ThreadCpuNs();
  if (s_.cpu_begin_ns < 0) s_.cpu_begin_ns = s_.cpu_end_ns;
  s_.late_causes = timeline_.causes();
  // Drain: collect outstanding responses until the response timeout.
  // Connections still reconnecting keep trying meanwhile: the requests waiting for them go
  // out (late) once they are up.
  int64_t deadline = std::max(MonotonicNowNs(), measure_end) + o_.response_timeout_ns;
  while ((Outstanding() > 0 || s_.down > 0) && !cancel_.load(std::memory_order_relaxed)) {
    int64_t next = ServiceReconnects();
    int64_t now = MonotonicNowNs();
    int64_t left = deadline - now;
    if (left <= 0) break;
    Poll(std::max<int64_t>(0, std::min({left, int64_t{10'000'000}, next - now})));
  }
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

// Percentiles in µs; null (not zeros) when nothing was recorded, so an unmeasured figure is
// never mistaken for a measured 0.
nlohmann::json Stats(const Histogram& h, bool full) {
  if (h.count() == 0) return nullptr;
  auto us = [](double ns) { return std::round(ns / 10.0) / 100.0; };  // µs, 2 decimals
  nlohmann::json j;
  if (full) {
    j["mean"] = us(h.mean());
    j["stddev"] = us(h.stddev());
  }
  j["p50"] = us(static_cast<double>(h.ValueAtQuantile(0.50)));
  if (full) j["p95"] = us(static_cast<double>(h.ValueAtQuantile(0.95)));
  j["p99"] = us(static_cast<double>(h.ValueAtQuantile(0.99)));
  if (full) j["p999"] = us(static_cast<double>(h.ValueAtQuantile(0.999)));
  j["max"] = us(static_cast<double>(h.max()));
  if (full) j["count"] = h.count();
  return j;
}

std::string FormatUs(double ns) {
  char b[32];
  if (ns >= 1e6) {
    std::snprintf(b, sizeof b, "%.2f ms", ns / 1e6);
  } else {
    std::snprintf(b, sizeof b, "%.1f us", ns / 1e3);
  }
  return b;
}

}  // namespace

Status ValidateLoadOptions(const LoadOptions& o) {
  if (o.port < 1 || o.port > 65535) return InvalidArgument("--target: the port must be in 1..65535");
  if (!(o.qps > 0) || !std::isfinite(o.qps)) return InvalidArgument("--qps must be a number > 0");
  if (o.qps > 50e6) return InvalidArgument("--qps above 50 000 000 is not something one host can send");
  if (o.duration_ns <= 0) return InvalidArgument("--duration must be > 0");
  if (o.warmup_ns < 0) return InvalidArgument("--warmup must be >= 0");
  if (o.threads < 1 || o.threads > 256) return InvalidArgument("--threads must be in 1..256");
  if (o.connections < o.threads || o.connections > 65536) {
    return InvalidArgument("--connections must be >= --threads (each thread needs one) and <= 65536");
  }
  if (o.keys < 1) return InvalidArgument("--keys must be >= 1");
  if (!(o.get_ratio >= 0 && o.get_ratio <= 1)) return InvalidArgument("--get-ratio must be in [0, 1]");
  if (o.timely_tolerance_ns < 0) return InvalidArgument("--timely-tolerance must be >= 0");
  if (!(o.min_timely_ratio >= 0 && o.min_timely_ratio <= 1)) {
    return InvalidArgument("the timely-ratio threshold must be in [0, 1]");
  }
  if (!(o.max_rate_error >= 0)) return InvalidArgument("the rate-error threshold must be >= 0");
  if (o.arrival.kind == ArrivalSpec::Kind::kTrace && o.arrival.trace_gaps.empty()) {
    return InvalidArgument("--arrival trace: the trace holds no gaps");
  }
  return Status::Ok();
}

void JudgeValidity(LoadResult* r) {
  const LoadOptions& o = r->options;
  double window_s = static_cast<double>(o.duration_ns) / 1e9;
  r->achieved_qps = static_cast<double>(r->issued) / window_s;
  r->throughput_qps = static_cast<double>(r->completed) / window_s;
  r->timely_ratio = r->issued ? static_cast<double>(r->timely) / static_cast<double>(r->issued) : 0;
  r->invalid_reasons.clear();
  char b[512];
  if (r->cancelled) r->invalid_reasons.push_back("the run was cancelled before its end");
  if (r->issued == 0) {
    r->invalid_reasons.push_back("no request was sent in the measured window");
  } else if (r->timely_ratio < o.min_timely_ratio) {
    std::snprintf(b, sizeof b, "timely ratio %.2f %% is below %.2f %% (tolerance %.0f us): the generator could not keep its schedule",
                  100 * r->timely_ratio, 100 * o.min_timely_ratio, static_cast<double>(o.timely_tolerance_ns) / 1e3);
    r->invalid_reasons.push_back(b);
  }
  double rate_err = std::abs(r->achieved_qps - o.qps) / o.qps;
  // A Poisson schedule's own count in a window of T seconds has a standard deviation of
  // sqrt(qps * T): at 2 000 QPS for 2 s that is 1.6 %, so a fixed 2 % limit would reject
  // a perfect generator one time in five. The limit is therefore widened to three of those
  // standard deviations when that is larger; the figure and the limit used are reported.
  double rate_limit = o.max_rate_error;
  if (o.arrival.kind == ArrivalSpec::Kind::kExponential && o.qps * window_s > 0) {
    rate_limit = std::max(rate_limit, 3.0 / std::sqrt(o.qps * window_s));
  }
  r->rate_error_limit = rate_limit;
  if (rate_err > rate_limit) {
    std::snprintf(b, sizeof b, "achieved rate %.1f QPS is %.2f %% off the target %.1f QPS (limit %.2f %%)",
                  r->achieved_qps, 100 * rate_err, o.qps, 100 * rate_limit);
    r->invalid_reasons.push_back(b);
  }
  r->warnings.clear();
  if (r->interarrival.applicable && !r->interarrival.passed) {
    // Reported with its figure, not a validity criterion: DESIGN.md defines a valid point by
    // its timely ratio and its rate. On a VM whose vCPU stalls (bench/loadgen.sh measures
    // how often) the gaps bunch after each stall and the test rejects them even when the
    // schedule is kept within the tolerance.
    std::snprintf(b, sizeof b, "send gaps fail the %s (A2 = %.3f > critical %.3f, n = %zu)",
                  r->interarrival.method.c_str(), r->interarrival.statistic, r->interarrival.critical,
                  r->interarrival.sample_size);
    r->warnings.push_back(b);
  }
  if (!r->connection_failures.empty()) {
    std::string all;
    for (const auto& f : r->connection_failures) all += (all.empty() ? "" : "; ") + f;
    r->invalid_reasons.push_back(std::to_string(r->connection_failures.size()) +
                                 " connection(s) failed: " + all);
  }
  if (r->errors > 0) {
    std::string top;
    for (const auto& [reason, n] : r->error_reasons) {
      if (!top.empty()) top += "; ";
      top += std::to_string(n) + " × " + reason;
    }
    std::snprintf(b, sizeof b, "%llu requests failed (%llu were sent): ",
                  static_cast<unsigned long long>(r->errors), static_cast<unsigned long long>(r->issued));
    r->invalid_reasons.push_back(b + top);
  }
  r->valid = r->invalid_reasons.empty();
}

Result<LoadResult> RunLoad(const LoadOptions& o) {
  REAM_RETURN_IF_ERROR(ValidateLoadOptions(o));
  REAM_ASSIGN_OR_RETURN(auto probe_codec, MakeClientCodec(o.protocol, o.codec));
  CodecCapabilities caps = probe_codec->capabilities();
  if (!caps.supports_set && o.get_ratio < 1) {
    return InvalidArgument("protocol '" + o.protocol + "' cannot send sets: " + caps.no_sets_because +
                           "; use --get-ratio 1");
  }
  KeyChooser keys(o.key_dist, o.keys);
  std::vector<std::unique_ptr<ThreadState>> states;
  double rate_per_thread = o.qps / o.threads;
  double expected_per_thread = rate_per_thread * static_cast<double>(o.duration_ns) / 1e9;
  // Every request unanswered for longer than the response timeout may have its slot reused.
  double per_conn_rate = o.qps / o.connections;
  size_t ring = 1024;
  while (static_cast<double>(ring) < per_conn_rate * static_cast<double>(o.response_timeout_ns) / 1e9 &&
         ring < (size_t{1} << 22)) {
    ring <<= 1;
  }
  for (int t = 0; t < o.threads; ++t) {
    auto s = std::make_unique<ThreadState>();
    s->index = t;
    REAM_ASSIGN_OR_RETURN(s->codec, MakeClientCodec(o.protocol, o.codec));
    s->caps = caps;
    REAM_ASSIGN_OR_RETURN(s->poller, net::Poller::Create());
    s->rng.seed(o.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(t) * 7919 + 1);
    s->arrival = std::make_unique<ArrivalProcess>(o.arrival, rate_per_thread, s->rng(),
                                                  static_cast<size_t>(t) * 7919);
    s->keys = std::make_unique<KeyChooser>(keys);
    s->value.assign(o.codec.value_bytes, 'x');
    s->rate_per_s = rate_per_thread;
    size_t want = (o.interarrival_sample + static_cast<size_t>(o.threads) - 1) / static_cast<size_t>(o.threads) * 2;
    s->gap_capacity = want;
    s->gap_sample.reserve(want);
    s->gap_stride = std::max<uint64_t>(1, static_cast<uint64_t>(expected_per_thread / static_cast<double>(want)));
    states.push_back(std::move(s));
  }
  std::string stamps_refused;
  for (int i = 0; i < o.connections; ++i) {
    auto c = std::make_unique<Conn>();
    c->index = i;
    REAM_ASSIGN_OR_RETURN(c->fd, net::Connect(o.host, o.port, o.connect_timeout_ns));
    if (o.kernel_rx_timestamps && stamps_refused.empty()) {
      if (Status st = net::EnableReceiveTimestamps(c->fd.get()); !st.ok()) stamps_refused = st.message();
    }
    c->ring.resize(ring);
    c->mask = ring - 1;
    ThreadState& s = *states[static_cast<size_t>(i % o.threads)];
    REAM_RETURN_IF_ERROR(s.poller.Add(c->fd.get(), EPOLLIN | EPOLLRDHUP, reinterpret_cast<uint64_t>(c.get())));
    s.conns.push_back(std::move(c));
  }

  const bool rx_stamps = o.kernel_rx_timestamps && stamps_refused.empty();
  const int64_t mono_minus_real = MonotonicMinusRealtimeNs();
  for (auto& s : states) {
    s->rx_stamps = rx_stamps;
    s->mono_minus_real_ns = mono_minus_real;
  }
  std::atomic<bool> cancel{false};
  std::atomic<int> running{o.threads};
  const int64_t start_ns = MonotonicNowNs() + 5'000'000;
  std::vector<std::thread> threads;
  for (auto& s : states) {
    ThreadState* sp = s.get();
    threads.emplace_back([&o, sp, start_ns, &cancel, &running] {
      ThreadRunner runner(o, *sp, start_ns, cancel);
      runner.Run();
      running.fetch_sub(1, std::memory_order_release);
    });
  }
  bool cancelled = false;
  if (o.cancel_fd >= 0) {
    // Watch for cancellation while the threads run; wake every 50 ms to see if they are done,
    // so a run whose responses all arrived ends then, not after the response timeout.
    auto poller = net::Poller::Create();
    if (poller.ok() && poller->Add(o.cancel_fd, EPOLLIN, 1).ok()) {
      const int64_t end = start_ns + o.warmup_ns + o.duration_ns + o.response_timeout_ns + 1'000'000'000;
      epoll_event ev;
      while (MonotonicNowNs() < end && running.load(std::memory_order_acquire) > 0) {
        auto n = poller->Wait(&ev, 1, 50'000'000);
        if (n.ok() && *n > 0) {
          cancelled = true;
          cancel.store(true);
          break;
        }
      }
    }
  }
  for (auto& t : threads) t.join();

  LoadResult r;
  r.options = o;
  r.protocol = o.protocol;
  r.server_times_supported = caps.reports_service_time;
  r.cancelled = cancelled;
  std::vector<double> gaps;
  double cpu_ns = 0;
  for (auto& s : states) {
    r.latency.Merge(s->latency);
    r.latency_from_send.Merge(s->latency_from_send);
    r.service.Merge(s->service);
    r.queue.Merge(s->queue);
    r.lateness.Merge(s->lateness);
    r.issued += s->issued;
    r.completed += s->completed;
    r.errors += s->errors;
    r.timely += s->timely;
    r.issued_total += s->issued_total;
    r.completed_total += s->completed_total;
    r.has_server_times = r.has_server_times || s->has_server_times;
    for (const auto& [k, v] : s->error_reasons) r.error_reasons[k] += v;
    r.connection_failures.insert(r.connection_failures.end(), s->connection_failures.begin(),
                                 s->connection_failures.end());
    r.reconnections += s->reconnections;
    r.server_closes_after = std::max(r.server_closes_after, s->close_after);
    r.reconnect_failures += s->reconnect_failures;
    r.unanswered_total += s->unanswered_total;
    for (const auto& [k, v] : s->reconnect_reasons) r.reconnect_reasons[k] += v;
    r.late_causes.Merge(s->late_causes);
    gaps.insert(gaps.end(), s->gap_sample.begin(), s->gap_sample.end());
    cpu_ns += static_cast<double>(s->cpu_end_ns - s->cpu_begin_ns);
  }
  r.generator_cpu_s = cpu_ns / 1e9;
  uint64_t stamped = 0, unstamped = 0;
  for (auto& s : states) {
    stamped += s->reads_stamped;
    unstamped += s->reads_unstamped;
  }
  if (!o.kernel_rx_timestamps) {
    r.response_timing = "user (clock read after each read; kernel stamps not asked for)";
  } else if (!stamps_refused.empty()) {
    r.response_timing = "user (clock read after each read): kernel stamps refused: " + stamps_refused;
  } else if (stamped == 0 && unstamped > 0) {
    r.response_timing = "user (clock read after each read): no read carried a kernel stamp";
  } else {
    char b[160];
    std::snprintf(b, sizeof b, "kernel (arrival stamps, SO_TIMESTAMPNS; %.2f %% of reads stamped)",
                  stamped + unstamped > 0 ? 100.0 * static_cast<double>(stamped) / static_cast<double>(stamped + unstamped) : 0.0);
    r.response_timing = b;
  }
  r.measured_s = static_cast<double>(o.duration_ns) / 1e9;
  r.window_begin_ns = start_ns + o.warmup_ns;

  InterarrivalTest& ad = r.interarrival;
  if (o.arrival.kind != ArrivalSpec::Kind::kExponential) {
    ad.not_applicable_reason = "the test checks exponential (Poisson) arrivals; " + o.arrival.name +
                               " arrivals have no continuous reference distribution to test against";
  } else if (gaps.size() < 20) {
    ad.not_applicable_reason = "too few send gaps sampled (" + std::to_string(gaps.size()) + ")";
  } else {
    if (gaps.size() > o.interarrival_sample) {
      std::vector<double> even;
      double step = static_cast<double>(gaps.size()) / static_cast<double>(o.interarrival_sample);
      for (size_t i = 0; i < o.interarrival_sample; ++i) even.push_back(gaps[static_cast<size_t>(i * step)]);
      gaps.swap(even);
    }
    ad.applicable = true;
    ad.method = "Anderson-Darling test vs exponential, alpha = 0.01";
    ad.sample_size = gaps.size();
    ad.statistic = AndersonDarlingStatistic(gaps, [](double x) { return x <= 0 ? 0.0 : -std::expm1(-x); });
    ad.critical = kAndersonDarlingCritical1;
    ad.passed = ad.statistic <= ad.critical;
  }
  JudgeValidity(&r);
  return r;
}

nlohmann::json LoadResult::ToJson() const {
  const LoadOptions& o = options;
  nlohmann::json j;
  j["target"] = net::JoinHostPort(o.host, o.port);
  j["protocol"] = protocol;
  j["target_qps"] = o.qps;
  j["achieved_qps"] = achieved_qps;
  j["throughput_qps"] = throughput_qps;
  j["issued"] = issued;
  j["completed"] = completed;
  j["errors"] = errors;
  j["error_reasons"] = error_reasons;
  j["connection_failures"] = connection_failures;
  j["issued_total"] = issued_total;
  j["completed_total"] = completed_total;
  j["unanswered_total"] = unanswered_total;
  j["reconnections"] = reconnections;
  j["reconnect_reasons"] = reconnect_reasons;
  j["reconnect_attempts_failed"] = reconnect_failures;
  j["server_closes_after"] = server_closes_after ? nlohmann::json(server_closes_after) : nlohmann::json(nullptr);
  j["timely_ratio"] = timely_ratio;
  j["timely_tolerance_us"] = static_cast<double>(o.timely_tolerance_ns) / 1e3;
  j["valid"] = valid;
  j["invalid_reasons"] = invalid_reasons;
  j["warnings"] = warnings;
  j["rate_error_limit"] = rate_error_limit;
  j["cancelled"] = cancelled;
  j["response_timing"] = response_timing;
  j["lateness_us"] = Stats(lateness, false);
  // Why the late requests were late: the shares add up to 1 − timely_ratio.
  j["lateness_causes"] = late_causes.ToJson(issued, window_begin_ns);
  j["latency_us"] = Stats(latency, true);
  j["latency_from_send_us"] = Stats(latency_from_send, true);
  if (has_server_times) {
    j["service_us"] = Stats(service, true);
    j["queue_us"] = Stats(queue, true);
  } else {
    // Absent, not null or zero: these figures were not measured (DESIGN: never print an
    // unmeasured metric as a number). The reason says why.
    j["server_times_unavailable"] =
        server_times_supported ? "no response carried server times (nothing completed in the window)"
                               : "protocol '" + protocol + "' does not report server service time";
  }
  nlohmann::json ad;
  if (interarrival.applicable) {
    ad["statistic"] = interarrival.statistic;
    ad["critical"] = interarrival.critical;
    ad["passed"] = interarrival.passed;
    ad["sample_size"] = interarrival.sample_size;
    ad["method"] = interarrival.method;
  } else {
    ad["statistic"] = nullptr;
    ad["critical"] = nullptr;
    ad["passed"] = nullptr;
    ad["not_applicable"] = interarrival.not_applicable_reason;
  }
  j["interarrival_test"] = ad;
  j["generator_cpu_s"] = generator_cpu_s;
  j["generator_cpu_us_per_request"] =
      issued ? nlohmann::json(generator_cpu_s * 1e6 / static_cast<double>(issued)) : nlohmann::json(nullptr);
  j["duration_s"] = static_cast<double>(o.duration_ns) / 1e9;
  j["warmup_s"] = static_cast<double>(o.warmup_ns) / 1e9;
  j["connections"] = o.connections;
  j["threads"] = o.threads;
  j["wait"] = o.spin_wait ? "spin" : "sleep";
  j["arrival"] = o.arrival.name;
  j["key_dist"] = o.key_dist.name;
  j["keys"] = o.keys;
  j["get_ratio"] = o.get_ratio;
  j["value_bytes"] = o.codec.value_bytes;
  j["seed"] = o.seed;
  // Each histogram in full, for the results store (Histogram::Decode reads it back).
  j["histograms"] = {{"latency_ns", latency.Encode()},
                     {"latency_from_send_ns", latency_from_send.Encode()},
                     {"service_ns", service.Encode()},
                     {"queue_ns", queue.Encode()},
                     {"lateness_ns", lateness.Encode()}};
  return j;
}

std::string LoadResult::Summary() const {
  const LoadOptions& o = options;
  std::string s;
  char b[512];
  std::snprintf(b, sizeof b, "target %s (%s), %s arrivals, keys %s over %llu, %d thread(s), %d connection(s)\n",
                net::JoinHostPort(o.host, o.port).c_str(), protocol.c_str(), o.arrival.name.c_str(), o.key_dist.name.c_str(),
                static_cast<unsigned long long>(o.keys), o.threads, o.connections);
  s += b;
  std::snprintf(b, sizeof b, "rate:      target %.1f QPS, achieved %.1f QPS, throughput %.1f QPS over %.1f s (+%.1f s warm-up)\n",
                o.qps, achieved_qps, throughput_qps, static_cast<double>(o.duration_ns) / 1e9,
                static_cast<double>(o.warmup_ns) / 1e9);
  s += b;
  std::snprintf(b, sizeof b, "requests:  %llu issued, %llu completed, %llu errors\n",
                static_cast<unsigned long long>(issued), static_cast<unsigned long long>(completed),
                static_cast<unsigned long long>(errors));
  s += b;
  if (issued == 0) {
    s += "timely:    unavailable (no request was sent in the measured window)\n";
  } else {
  std::snprintf(b, sizeof b, "timely:    %.2f %% within %.0f us; lateness p50 %s, p99 %s, max %s\n",
                100 * timely_ratio, static_cast<double>(o.timely_tolerance_ns) / 1e3,
                FormatUs(static_cast<double>(lateness.ValueAtQuantile(0.5))).c_str(),
                FormatUs(static_cast<double>(lateness.ValueAtQuantile(0.99))).c_str(),
                FormatUs(static_cast<double>(lateness.max())).c_str());
  s += b;
  if (late_causes.late() > 0) {
    std::snprintf(b, sizeof b, "late:      %.2f %% of requests: ",
                  100.0 * static_cast<double>(late_causes.late()) / static_cast<double>(issued));
    s += b + late_causes.Shares(issued);
    if (!late_causes.worst.empty()) {
      const LateOffender& w = late_causes.worst.front();
      std::snprintf(b, sizeof b, "; longest: %s, %s at %.3f s (%llu late)", w.What().c_str(),
                    FormatUs(static_cast<double>(w.duration_ns)).c_str(),
                    static_cast<double>(w.begin_ns - window_begin_ns) / 1e9,
                    static_cast<unsigned long long>(w.late_requests));
      s += b;
    }
    s += "\n";
  }
  }
  auto line = [&](const char* name, const Histogram& h) {
    if (h.count() == 0) {
      std::snprintf(b, sizeof b, "%-10s unavailable (nothing was recorded)\n", name);
      s += b;
      return;
    }
    std::snprintf(b, sizeof b, "%-10s mean %s, p50 %s, p95 %s, p99 %s, p99.9 %s, max %s\n", name,
                  FormatUs(h.mean()).c_str(), FormatUs(static_cast<double>(h.ValueAtQuantile(0.5))).c_str(),
                  FormatUs(static_cast<double>(h.ValueAtQuantile(0.95))).c_str(),
                  FormatUs(static_cast<double>(h.ValueAtQuantile(0.99))).c_str(),
                  FormatUs(static_cast<double>(h.ValueAtQuantile(0.999))).c_str(),
                  FormatUs(static_cast<double>(h.max())).c_str());
    s += b;
  };
  line("latency:", latency);
  line("from send:", latency_from_send);
  if (has_server_times) {
    line("service:", service);
    line("queue:", queue);
  } else {
    s += "service:   unavailable (protocol '" + protocol + "' does not report server times)\n";
  }
  if (interarrival.applicable) {
    std::snprintf(b, sizeof b, "arrivals:  %s: A2 = %.3f, critical %.3f, n = %zu: %s\n", interarrival.method.c_str(),
                  interarrival.statistic, interarrival.critical, interarrival.sample_size,
                  interarrival.passed ? "passed" : "FAILED");
  } else {
    std::snprintf(b, sizeof b, "arrivals:  not tested (%s)\n", interarrival.not_applicable_reason.c_str());
  }
  s += b;
  std::snprintf(b, sizeof b, "generator: %.3f CPU s, %.2f CPU us per request (waits by %s)\n",
                generator_cpu_s, issued ? generator_cpu_s * 1e6 / static_cast<double>(issued) : 0.0,
                o.spin_wait ? "spinning" : "sleeping, then spinning");
  s += b;
  s += "timing:    responses timed by " + response_timing + "\n";
  if (reconnections == 0 && reconnect_reasons.empty()) {
    s += "reconnect: none (no connection was closed by the server)\n";
  } else {
    std::snprintf(b, sizeof b, "reconnect: %llu reconnection(s), %llu failed attempt(s), %llu request(s) unanswered when their connection closed or timed out;",
                  static_cast<unsigned long long>(reconnections), static_cast<unsigned long long>(reconnect_failures),
                  static_cast<unsigned long long>(unanswered_total));
    s += b;
    for (const auto& [reason, n] : reconnect_reasons) s += " " + std::to_string(n) + " × " + reason + ";";
    if (server_closes_after > 0) {
      s += " the server closes a connection after " + std::to_string(server_closes_after) +
           " responses, so no more were written on one;";
    }
    s.back() = '\n';
  }
  if (valid) {
    s += "valid:     yes\n";
  } else {
    s += "valid:     NO\n";
    for (const auto& reason : invalid_reasons) s += "  - " + reason + "\n";
  }
  for (const auto& w : warnings) s += "warning:   " + w + "\n";
  return s;
}

}  // namespace ream
