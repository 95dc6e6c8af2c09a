// Inside the generator (not part of its interface): what one thread owns — its connections,
// their request slots, its schedule and results — and the loop that runs it. generator.cc
// starts the threads and merges what they recorded.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <random>
#include <string>
#include <vector>

#include "load/arrival.h"
#include "load/generator.h"
#include "load/histogram.h"
#include "load/key_chooser.h"
#include "load/lateness.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "platform/poller.h"
#include "platform/segment_tap.h"
#include "protocol/registry.h"

namespace ream::load_detail {

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
// A spare's connect (socket, connect, then the options and epoll calls: ~10 system calls,
// 100-200 us here) is done where the schedule leaves room for it.
constexpr int64_t kSpareSlackNs = 50'000;
constexpr int64_t kSpareMaxDeferNs = 5'000'000;

struct Slot {
  uint64_t id = 0;
  int64_t sched_ns = 0;
  int64_t send_ns = 0;
  int64_t tx_ns = 0;        // when the kernel sent its last byte (monotonic; 0: not stamped)
  uint64_t end_offset = 0;  // its last byte's end in the socket's stream
  uint16_t keys = 1;        // keys it carries (a multiget's batch)
  bool outstanding = false;
  bool measured = false;
};

// Segments of the answers' stream seen by the segment tap and not yet consumed by the parser
// (--response-timing packet): a fixed ring, oldest first; full, the oldest is dropped (the
// answers in it are then timed by the read's stamp).
struct SegmentsSeen {
  struct Seg {
    uint64_t begin = 0, end = 0;  // stream offsets (the first data byte is 0)
    int64_t stamp_ns = 0;         // arrival (monotonic)
  };
  static constexpr size_t kCapacity = 1024;
  std::vector<Seg> ring;  // allocated at the first segment: only with a tap
  size_t head = 0, size = 0;
  uint64_t hi = 0;  // the end of the furthest segment seen
  void Clear() { head = size = 0, hi = 0; }
  void Push(const Seg& s) {
    if (ring.empty()) ring.resize(kCapacity);
    if (size == kCapacity) head = (head + 1) % kCapacity, --size;
    ring[(head + size++) % kCapacity] = s;
  }
  // The arrival of the segment that carried byte `last` (offset), or 0 when it was not seen.
  int64_t StampOf(uint64_t last) {
    while (size > 0 && ring[head].end <= last) head = (head + 1) % kCapacity, --size;
    if (size == 0 || ring[head].begin > last) return 0;
    return ring[head].stamp_ns;
  }
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
  // Takes no new requests from the schedule: the thread's spare (opened once the server is
  // known to close after a count, ready to take over a connection that reaches it), or a
  // connection that reached the count and waits for its last answers and the close, after
  // which it reconnects and is the spare (generator_thread.cc, "make before break").
  bool standby = false;
  bool opening_spare = false;     // its first connect: not a reconnection
  std::string down_reason;        // why it went down
  std::string last_error;         // the last failed attempt's cause
  std::vector<std::pair<int64_t, bool>> waiting;
  // Send stamps (LoadOptions::kernel_rx_timestamps also asks for them): bytes encoded into the
  // current socket's stream, bytes the kernel has stamped as sent, and the oldest request not
  // yet known to have left.
  uint64_t encoded = 0;
  uint64_t stamped = 0;
  uint64_t tx_next = 1;
  // Per-segment arrival stamps (ThreadState::tap): the current socket's local port, its
  // stream's first sequence number once the server's SYN-ACK was seen, the bytes of answers
  // parsed, and the segments seen ahead of the parser.
  uint16_t local_port = 0;
  bool seq_known = false;
  uint32_t seq_base = 0;
  uint64_t rx_consumed = 0;
  SegmentsSeen segs;
};

// One window of a thread's measured stretch: what it counted and (every stride-th of) its
// answers' latencies from the schedule.
struct ThreadWindow {
  std::vector<int64_t> latencies_ns;  // in the order the answers came
  // The same answers' latencies from the generator's actual send (windows reported as they end:
  // the distortion rule's other side; empty under until, whose judge reads the first only).
  std::vector<int64_t> from_send_ns;
  uint64_t scheduled = 0, timely = 0, answered = 0, errors = 0;
};

// The measured window in consecutive windows of length_ns, each handed to RunLoad's thread at
// its end through `ready`, under `mu` once a window: for measure until known (LoadOptions::until,
// kUntilWindowNs, whose judge reads the latencies and sets the instant at which it ended the
// point, which every thread reads) or for windows reported as they end (LoadOptions::window_ns).
struct WindowMailbox {
  int64_t length_ns = 0;
  bool from_send = false;  // keep ThreadWindow::from_send_ns
  ThreadWindow current;
  int64_t window_end_ns = 0;
  size_t reserve = 0;            // answers a window is expected to hold, with room
  uint64_t stride = 1;           // every stride-th answer's latency is kept (until: kUntilAnswersPerWindow)
  uint64_t seen = 0;
  std::mutex mu;
  std::vector<ThreadWindow> ready;  // closed windows, oldest first
  const std::atomic<int64_t>* stop_at_ns = nullptr;  // until only
};

// Everything one generator thread owns; nothing here is shared while the run is on (but the
// window mailbox's `ready` and until's stop instant, once a window).
struct ThreadState {
  int index = 0;
  std::vector<std::unique_ptr<Conn>> conns;
  std::unique_ptr<ClientCodec> codec;
  CodecCapabilities caps;
  net::Poller poller;
  std::mt19937_64 rng;
  std::unique_ptr<ArrivalProcess> arrival;
  std::unique_ptr<KeyChooser> keys;
  std::string value;  // the longest value a set may carry; a set sends a prefix of it
  // Sizes drawn per request (LoadOptions::key_sizes, value_sizes, multiget); all fixed by
  // default, when a request is built exactly as it always was.
  SizeSampler key_sizes, value_sizes, batch_sizes;
  bool sized_keys = false;     // key sizes other than FormatKey's fixed 16
  bool record_sizes = false;   // some size is drawn: the sizes sent are recorded
  bool multiget = false;       // gets may carry several keys: latency per key is recorded
  std::vector<char> key_text;  // kMaxMultigetKeys keys of kMaxSentKeyBytes
  std::vector<std::string_view> batch;
  double rate_per_s = 0;
  size_t rr = 0;

  // Results.
  Histogram latency, latency_from_send, service, queue, lateness, wire;
  // What the measured requests carried: each key's size, each set's value size, each get's
  // keys (record_sizes), a latency per key (each of a request's keys answered with it), and the
  // bytes each way of the measured requests and their answers.
  Histogram key_bytes, value_bytes, batch_keys, latency_per_key;
  uint64_t request_bytes = 0, response_bytes = 0;
  uint64_t issued = 0, completed = 0, errors = 0, timely = 0;
  uint64_t issued_total = 0, completed_total = 0;
  std::map<std::string, uint64_t> error_reasons;
  std::vector<std::string> connection_failures;
  uint64_t reconnections = 0, reconnect_failures = 0, unanswered_total = 0;
  // Answers that came for requests already given up (overtaken by newer ones on their
  // connection, so counted unanswered): discarded, counted here.
  uint64_t late_answers = 0;
  std::map<std::string, uint64_t> reconnect_reasons;
  int down = 0;  // connections down now (reconnecting)
  // Learned from the server: it announces a close after this many responses on a connection
  // (nginx's keepalive_requests). 0: not known.
  uint64_t close_after = 0;
  // The spare is opened once per thread, when close_after is first learned, from
  // ServiceReconnects (not while the connections are iterated); one the server drops is not
  // reopened.
  bool spare_opened = false;
  // Sampled spans of gap_span consecutive send gaps (ns): Erlang(gap_span) at the achieved rate
  // under the null (generator.cc, "spans"). A span starts every gap_stride-th measured send.
  std::vector<double> gap_sample;
  uint64_t gap_stride = 1;
  size_t gap_capacity = 0;
  int gap_span = 1;
  int span_left = 0;  // sends until the open span closes (0: none open)
  double span_start = 0;  // the open span's first send, on the gap clock (ThreadRunner::GapClock)
  int64_t cpu_begin_ns = -1, cpu_end_ns = -1;
  bool has_server_times = false;
  // Responses timed by the kernel's arrival stamps (see LoadOptions::kernel_rx_timestamps).
  bool rx_stamps = false;
  int64_t mono_minus_real_ns = 0;
  uint64_t reads_stamped = 0, reads_unstamped = 0;
  // --response-timing packet: the segment tap (opened before the connections, so it sees their
  // SYN-ACKs), each connection by its local port, and the answers timed by their segment.
  std::optional<net::SegmentTap> tap;
  std::unordered_map<uint16_t, Conn*> by_port;
  uint64_t answers_segment_stamped = 0, answers_segment_unstamped = 0;
  // Requests stamped by the kernel when sent (SO_TIMESTAMPING), and whether it was asked.
  bool tx_stamps = false;
  uint64_t answers_tx_stamped = 0, answers_measured = 0;
  LatenessCauses late_causes;
  // Waking on time (sleeping threads only): the margin spun before each send as calibrated by
  // timed waits before the schedule started (-1: not calibrated; calibration_waits says how
  // many there was time for), and as it stood at the end of the run.
  int64_t wake_margin_calibrated_ns = -1, wake_margin_final_ns = -1;
  int wake_calibration_waits = 0;
  std::string pin_error;  // the thread could not be pinned to its CPU (LoadOptions::cpus)
  std::unique_ptr<WindowMailbox> windows;  // with LoadOptions::until or window_ns only
  bool until = false;                      // the mailbox is until's
};

// A new socket on `c` (its first, or a reconnection's): known to the thread's segment tap by
// its local port, with nothing of its stream seen yet. Does nothing without a tap.
void AttachToTap(ThreadState& s, Conn* c);
// Its socket is going away: the tap forgets its port.
void DetachFromTap(ThreadState& s, Conn* c);

class ThreadRunner {
 public:
  ThreadRunner(const LoadOptions& o, ThreadState& s, int64_t start_ns, std::atomic<bool>& cancel)
      : o_(o), s_(s), start_ns_(start_ns), cancel_(cancel), timeline_(o.timely_tolerance_ns, &ThreadRunQueueWaitNs) {}

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
  void OpenSpare();
  void Retire(Conn* c);
  void CloseSocket(Conn* c);  // out of the poller and closed, if open
  Conn* TakeOver(Conn* from);
  // Opens the spare once the server's count is known, starts the reconnections whose retry time
  // came (a spare's waits for a gap of kSpareSlackNs before the next send, next_send_ns, or
  // kSpareMaxDeferNs at most), times out the connects that took too long. Returns the earliest
  // time it needs to be called again (INT64_MAX: nothing pending).
  int64_t ServiceReconnects(int64_t next_send_ns = INT64_MAX);
  void DropOutstanding(Conn* c, const std::string& reason);
  // `kernel_rx`: `now` is the kernel's arrival stamp of the answer.
  void RecordAnswer(const Slot& slot, const Response& resp, int64_t now, bool kernel_rx);
  void FlushDirty();
  void Flush(Conn* c);
  void OnReadable(Conn* c);
  // Collects the kernel's send stamps waiting on `c`'s error queue into its requests' slots.
  void CollectSendStamps(Conn* c);
  // Moves what the segment tap holds into its connections' SegmentsSeen.
  void DrainTap();
  void Fail(Conn* c, const std::string& reason);
  void CountError(bool measured, const std::string& reason) {
    if (!measured) return;
    if (s_.windows) ++s_.windows->current.errors;
    ++s_.errors;
    ++s_.error_reasons[reason];
  }
  void Poll(int64_t timeout_ns);
  void HandleEvents(int n);
  // Issues every request whose scheduled time has come (up to the window's end) and flushes
  // them; called between the sockets a loop turn handles as well as at its top, so a send
  // that falls due while answers are being read waits for one read, not all of them.
  void IssueDue();
  void BusyPoll();
  // With windows: under until, ends the schedule where the judge stopped it; hands over every
  // window that has closed by `now` (and, `last`, the one still open: the measured window is over).
  void WindowTick(int64_t now, bool last = false);
  // The next send's instant after `prev`: the arrival process's next gap added to the absolute
  // schedule, or, under a rate schedule, to operational time (load/schedule.h).
  double NextSend(double prev) {
    if (!rate_) return prev + s_.arrival->NextGapNs();
    op_ns_ += s_.arrival->NextGapNs();
    return ScheduledAt(op_ns_);
  }
  // Under a rate schedule: the instant of operational time `u` (ns at the schedule's mean rate
  // from the measured window's start; negative in the warm-up, which runs at warmup_rate_).
  double ScheduledAt(double u);
  // The clock the send gaps are sampled on: the monotonic clock, or under a rate schedule
  // operational time, where the gaps are the arrival process's whatever the rate.
  double GapClock(int64_t now) const;
  void NoteOversleep(int64_t over_ns);
  // spin_ns_ from the first `n` oversleeps: their largest plus kMinSpinNs, clamped.
  void LearnMargin(size_t n);
  // Before the schedule starts (sleeping threads): timed waits like the loop's measure how
  // late this host wakes the thread, and the spin margin starts from them.
  void CalibrateWakeMargin();
  uint64_t Outstanding() const {
    uint64_t n = 0;
    for (const auto& c : s_.conns) n += c->dead ? 0 : c->outstanding;
    return n;
  }

  const LoadOptions& o_;
  ThreadState& s_;
  int64_t start_ns_;
  std::atomic<bool>& cancel_;
  // Starts generous, then calibrated before the schedule (CalibrateWakeMargin); after every
  // kRelearnEvery timed waits it becomes the largest oversleep of the last kOversleepWindow plus
  // kMinSpinNs. The largest, not a high percentile: a margin at the 97th percentile is overshot
  // by 3 % of the waits by construction, and each overshoot is a late send (1.0 point of
  // timeliness at 1 000 QPS here). The next wait exceeds the largest of the last 256 about
  // one time in 257.
  int64_t spin_ns_ = 100'000;
  static constexpr size_t kOversleepWindow = 256;
  static constexpr size_t kRelearnEvery = 64;
  static constexpr size_t kCalibrationWaits = 64;
  int64_t oversleep_[kOversleepWindow] = {};
  size_t oversleep_count_ = 0;
  epoll_event events_[256];
  // The schedule: the next send's time, and the measured window.
  double sched_ = 0;
  int64_t measure_begin_ = 0, measure_end_ = 0;
  bool scheduling_ = false;  // in the sending loop (not before it, not in the drain after it)
  // LoadOptions::schedule: the schedule, its mean and warm-up rates, operational time so far and
  // the schedule's segment it is in.
  const RateSchedule* rate_ = nullptr;
  double mean_rate_ = 0, warmup_rate_ = 0;
  double op_ns_ = 0;
  size_t rate_cursor_ = 0;
  LatenessTimeline timeline_;
};

}  // namespace ream::load_detail
