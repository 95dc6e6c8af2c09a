// The generator: connects, starts one thread per LoadOptions::threads (generator_thread.cc),
// merges what they recorded, tests the send gaps, and judges the point (validity.cc).
#include "load/generator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

#include "load/anderson_darling.h"
#include "load/generator_thread.h"
#include "protocol/keyspace.h"
#include "load/session_load.h"
#include "platform/affinity.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "platform/platform.h"
#include "platform/poller.h"
#include "platform/text.h"

namespace ream {

using load_detail::Conn;
using load_detail::ThreadRunner;
using load_detail::ThreadState;
using load_detail::ThreadWindow;

const char* WaitName(Wait w) {
  switch (w) {
    case Wait::kSleep: return "sleep";
    case Wait::kSpin: return "spin";
    case Wait::kYield: return "yield";
    case Wait::kAuto: return "auto";
  }
  return "?";
}

std::optional<Wait> ParseWait(const std::string& s) {
  for (Wait w : {Wait::kSleep, Wait::kSpin, Wait::kYield, Wait::kAuto}) {
    if (s == WaitName(w)) return w;
  }
  return std::nullopt;
}

WaitChoice ChooseWait(Wait asked, int threads, const std::vector<int>& cpus, const std::vector<int>& allowed,
                      int online) {
  if (asked != Wait::kAuto) return {asked, "asked"};
  std::vector<int> used;
  if (!cpus.empty()) {
    for (int t = 0; t < threads; ++t) used.push_back(cpus[static_cast<size_t>(t) % cpus.size()]);
  } else {
    used = allowed;
  }
  std::sort(used.begin(), used.end());
  const bool repeated = std::adjacent_find(used.begin(), used.end()) != used.end();
  used.erase(std::unique(used.begin(), used.end()), used.end());
  const std::string where = "CPU" + std::string(used.size() == 1 ? " " : "s ") + FormatCpuList(used);
  if (used.empty() || online < 1) return {Wait::kSleep, "auto: sleep (the generator's CPUs are not known)"};
  if (!cpus.empty() ? repeated : static_cast<int>(used.size()) < threads) {
    return {Wait::kSleep, "auto: sleep (" + std::to_string(threads) + " threads share " + where + ")"};
  }
  if (static_cast<int>(used.size()) >= online) {
    return {Wait::kSleep, "auto: sleep (the generator may run on every CPU of the machine, " + where +
                              ", so it may share one with the server)"};
  }
  return {Wait::kSpin, "auto: spin (each thread has a CPU of its own, " + where + "; the machine's other " +
                           std::to_string(online - static_cast<int>(used.size())) + " left to the rest)"};
}

int GapSpan(int64_t tolerance_ns, double rate_per_thread) {
  constexpr double kSpanTolerances = 10;
  constexpr int kMaxSpan = 64;
  double k = std::ceil(kSpanTolerances * static_cast<double>(tolerance_ns) * rate_per_thread / 1e9 - 1e-9);
  return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(kMaxSpan)));
}

namespace {

// The distortion rule on the reported windows when it is the run's (ValidityRule::kDistortion).
std::optional<WindowDistortion> WindowDistortionRule(const LoadOptions& o) {
  if (o.validity != ValidityRule::kDistortion) return std::nullopt;
  return WindowDistortion{.max_share = o.max_distortion,
                          .floor_ns = std::min(o.timely_tolerance_ns, kDistortionFloorNs)};
}

// The windows all the threads have closed, merged, go to their reader on RunLoad's thread:
// under until the judge, whose stop instant then goes to the threads (a little ahead, so each
// sees it before it passes and the window ends on the schedule's own instant); with reported
// windows (LoadOptions::window_ns) the window's figures and verdict, to `on_window` and the
// result.
struct WindowReader {
  const LoadOptions& o;
  UntilJudge* judge = nullptr;
  const std::function<void(const LoadWindow&)>* on_window = nullptr;
  std::vector<LoadWindow>* windows = nullptr;
  std::atomic<int64_t>* stop_ns = nullptr;

  // True when the judge has stopped the point.
  bool Collect(std::vector<std::unique_ptr<ThreadState>>& states) {
    for (;;) {
      if (judge && judge->verdict().stop) return true;
      size_t common = SIZE_MAX;
      for (auto& s : states) {
        std::lock_guard<std::mutex> lock(s->windows->mu);
        common = std::min(common, s->windows->ready.size());
      }
      if (common == 0 || common == SIZE_MAX) return false;
      WindowCounts merged;
      for (auto& s : states) {
        ThreadWindow w;
        {
          std::lock_guard<std::mutex> lock(s->windows->mu);
          w = std::move(s->windows->ready.front());
          s->windows->ready.erase(s->windows->ready.begin());
        }
        merged.latencies_ns.insert(merged.latencies_ns.end(), w.latencies_ns.begin(), w.latencies_ns.end());
        merged.from_send_ns.insert(merged.from_send_ns.end(), w.from_send_ns.begin(), w.from_send_ns.end());
        merged.scheduled += w.scheduled;
        merged.timely += w.timely;
        merged.answered += w.answered;
        merged.errors += w.errors;
      }
      if (judge) {
        UntilWindow u;
        u.seconds = static_cast<double>(kUntilWindowNs) / 1e9;
        u.latencies_ns = std::move(merged.latencies_ns);
        if (judge->Add(u).stop) {
          constexpr int64_t kAheadNs = 2'000'000;
          int64_t expected = INT64_MAX;
          stop_ns->compare_exchange_strong(expected, MonotonicNowNs() + kAheadNs);
          return true;
        }
        continue;
      }
      const auto index = static_cast<int64_t>(windows->size());
      const double length_s = static_cast<double>(o.window_ns) / 1e9;
      const double start = static_cast<double>(index) * length_s;
      const double end = std::min(start + length_s, static_cast<double>(o.duration_ns) / 1e9);
      const double target = o.schedule ? o.schedule->MeanRate(start, end) : o.qps;
      windows->push_back(JudgeWindow(index, start, end, target, std::move(merged), o.validity_percentile,
                                     o.min_timely_ratio, WindowDistortionRule(o)));
      if (*on_window) (*on_window)(windows->back());
    }
  }
};

// RunLoad's thread while the generator threads run with windows: every until window (or every
// 25 ms at most with reported ones), the windows closed so far to their reader; the cancel fd
// watched as without them. True when cancelled.
bool ReadWindows(const LoadOptions& o, std::vector<std::unique_ptr<ThreadState>>& states, WindowReader& reader,
                 const std::atomic<int>& running, std::atomic<bool>& cancel) {
  auto poller = net::Poller::Create();
  if (!poller.ok()) return false;
  const bool watch = o.cancel_fd >= 0 && poller->Add(o.cancel_fd, EPOLLIN, 1).ok();
  const int64_t every = o.until ? kUntilWindowNs : std::min<int64_t>(o.window_ns, 25'000'000);
  epoll_event ev;
  while (running.load(std::memory_order_acquire) > 0) {
    auto n = poller->Wait(&ev, 1, every);
    if (watch && n.ok() && *n > 0) {
      cancel.store(true);
      return true;
    }
    reader.Collect(states);
  }
  return false;
}

}  // namespace

void ApplySchedule(LoadOptions* o) {
  if (!o->schedule) return;
  o->qps = o->schedule->Mean();
  o->duration_ns = o->schedule->duration_ns();
}

Result<LoadResult> RunLoad(const LoadOptions& asked, const std::function<void(const LoadWindow&)>& on_window) {
  // kAuto resolved once, here: the threads and the result see the wait they ran with.
  LoadOptions o = asked;
  ApplySchedule(&o);
  const WaitChoice choice =
      ChooseWait(asked.wait, asked.threads, asked.cpus, CallingThreadCpus().value_or(std::vector<int>{}),
                 static_cast<int>(std::thread::hardware_concurrency()));
  o.wait = choice.wait;
  if (o.session.enabled()) {
    REAM_ASSIGN_OR_RETURN(LoadResult sr, RunSessionLoad(o));
    sr.wait_why = choice.why;
    return sr;
  }
  REAM_RETURN_IF_ERROR(ValidateLoadOptions(o));
  REAM_ASSIGN_OR_RETURN(auto probe_codec, MakeClientCodec(o.protocol, o.codec));

  CodecCapabilities caps = probe_codec->capabilities();
  if (!caps.supports_set && o.get_ratio < 1) {
    return InvalidArgument("protocol '" + o.protocol + "' cannot send sets: " + caps.no_sets_because +
                           "; use --get-ratio 1");
  }
  // Sizes: any that is drawn (or a fixed key size other than FormatKey's) takes the sized path.
  const bool sized_keys = !(o.key_sizes.fixed() && o.key_sizes.a == static_cast<double>(kKeyBytes));
  const bool multiget = !(o.multiget.fixed() && o.multiget.a == 1);
  const bool drawn_values = !o.value_sizes.fixed();
  if (multiget && caps.max_multiget_keys == 0) {
    return InvalidArgument("--multiget " + o.multiget.name + ": protocol '" + o.protocol +
                           "' has no multi-key get here (memcached and redis have)");
  }
  // A drawn value of 0 bytes is sent empty: the codecs' own default value (sent for an empty
  // one) must then be empty too.
  CodecOptions codec_options = o.codec;
  if (drawn_values) codec_options.value_bytes = 0;
  KeyChooser keys(o.key_dist, o.keys);
  std::vector<std::unique_ptr<ThreadState>> states;
  double rate_per_thread = o.qps / o.threads;
  double top_rate = rate_per_thread;  // a thread's highest rate (a schedule's peak)
  if (o.schedule) {
    for (const auto& k : o.schedule->knots) top_rate = std::max(top_rate, k.second / o.threads);
  }
  // (Under until, the send gaps are sampled over the fixed window's length or the max, whichever
  // is shorter: a point known early still has its sample; a long one samples its beginning.)
  double expected_per_thread =
      rate_per_thread * static_cast<double>(o.until ? std::min(o.until->max_ns, o.duration_ns) : o.duration_ns) / 1e9;
  // Every request unanswered for longer than the response timeout may have its slot reused.
  double per_conn_rate = o.qps / o.connections;
  // (At least 64: with hundreds of connections the rings stay small — 1 000 connections at
  // 20 QPS each need 64 slots apiece, not the 1 024 one busy connection starts with.)
  size_t ring = per_conn_rate >= 512 ? 1024 : 64;
  while (static_cast<double>(ring) < per_conn_rate * static_cast<double>(o.response_timeout_ns) / 1e9 &&
         ring < (size_t{1} << 22)) {
    ring <<= 1;
  }
  for (int t = 0; t < o.threads; ++t) {
    auto s = std::make_unique<ThreadState>();
    s->index = t;
    REAM_ASSIGN_OR_RETURN(s->codec, MakeClientCodec(o.protocol, codec_options));
    s->caps = caps;
    REAM_ASSIGN_OR_RETURN(s->poller, net::Poller::Create());
    s->rng.seed(o.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(t) * 7919 + 1);
    s->arrival = std::make_unique<ArrivalProcess>(o.arrival, rate_per_thread, s->rng(),
                                                  static_cast<size_t>(t) * 7919);
    s->keys = std::make_unique<KeyChooser>(keys);
    s->key_sizes = SizeSampler(o.key_sizes, MinKeyBytes(o.keys), kMaxSentKeyBytes);
    s->value_sizes = drawn_values ? SizeSampler(o.value_sizes, 0, kMaxSentValueBytes)
                                  : SizeSampler(FixedDistribution(static_cast<double>(o.codec.value_bytes)), 0,
                                                o.codec.value_bytes);
    s->batch_sizes = SizeSampler(o.multiget, 1, std::max<size_t>(1, std::min(caps.max_multiget_keys, kMaxMultigetKeys)));
    s->sized_keys = sized_keys;
    s->multiget = multiget;
    s->record_sizes = sized_keys || multiget || drawn_values;
    if (sized_keys || multiget) {
      s->key_text.resize(kMaxMultigetKeys * kMaxSentKeyBytes);
      s->batch.resize(kMaxMultigetKeys);
    }
    s->value.assign(drawn_values ? kMaxSentValueBytes : o.codec.value_bytes, 'x');
    s->rate_per_s = rate_per_thread;
    size_t want = (o.interarrival_sample + static_cast<size_t>(o.threads) - 1) / static_cast<size_t>(o.threads) * 2;
    s->gap_capacity = want;
    s->gap_sample.reserve(want);
    s->gap_stride = std::max<uint64_t>(1, static_cast<uint64_t>(expected_per_thread / static_cast<double>(want)));
    // Under a schedule the gaps are tested in operational time, where lateness at the peak rate
    // weighs peak / mean times more: the spans are chosen at the peak.
    s->gap_span = GapSpan(o.timely_tolerance_ns, top_rate);
    if (o.until || o.window_ns > 0) {
      auto m = std::make_unique<load_detail::WindowMailbox>();
      m->length_ns = o.until ? kUntilWindowNs : o.window_ns;
      // Reported windows keep every answer's latency; until's judge about kUntilAnswersPerWindow.
      const double per_window = top_rate * static_cast<double>(m->length_ns) / 1e9;
      if (o.until) {
        m->stride = std::max<uint64_t>(1, static_cast<uint64_t>(per_window / static_cast<double>(kUntilAnswersPerWindow)));
      }
      m->reserve = static_cast<size_t>(per_window / static_cast<double>(m->stride) * 1.5) + 64;
      m->from_send = !o.until && o.validity == ValidityRule::kDistortion;
      s->until = o.until.has_value();
      s->windows = std::move(m);
    }
    states.push_back(std::move(s));
  }
  // Send stamps only where the wire is timed per segment: each costs the thread an error-queue
  // read and a wake-up of its poll (docs/notes/performance-notes.md, "Send stamps cost
  // timeliness").
  const bool want_tx_stamps = o.kernel_rx_timestamps && o.segment_rx_timestamps;
  std::string stamps_refused, tx_refused, segments_refused;
  if (o.kernel_rx_timestamps && o.segment_rx_timestamps) {
    // Before the connections, so each thread's tap sees their SYN-ACKs.
    for (auto& s : states) {
      auto tap = net::SegmentTap::Open(o.port);
      if (!tap.ok()) {
        segments_refused = tap.status().message();
        break;
      }
      s->tap.emplace(std::move(tap).value());
    }
    if (!segments_refused.empty()) {
      for (auto& s : states) s->tap.reset();
    }
  }
  for (int i = 0; i < o.connections; ++i) {
    auto c = std::make_unique<Conn>();
    c->index = i;
    REAM_ASSIGN_OR_RETURN(c->fd, net::Connect(o.host, o.port, o.connect_timeout_ns));
    if (o.kernel_rx_timestamps && stamps_refused.empty()) {
      if (Status st = net::EnableReceiveTimestamps(c->fd.get()); !st.ok()) stamps_refused = st.message();
    }
    if (want_tx_stamps && tx_refused.empty()) {
      if (Status st = net::EnableSendTimestamps(c->fd.get()); !st.ok()) tx_refused = st.message();
    }
    c->ring.resize(ring);
    c->mask = ring - 1;
    ThreadState& s = *states[static_cast<size_t>(i % o.threads)];
    AttachToTap(s, c.get());
    REAM_RETURN_IF_ERROR(s.poller.Add(c->fd.get(), EPOLLIN | EPOLLRDHUP, reinterpret_cast<uint64_t>(c.get())));
    s.conns.push_back(std::move(c));
  }

  const bool rx_stamps = o.kernel_rx_timestamps && stamps_refused.empty();
  const int64_t mono_minus_real = MonotonicMinusRealtimeNs();
  const bool tx_stamps = want_tx_stamps && tx_refused.empty();
  for (auto& s : states) {
    s->rx_stamps = rx_stamps;
    s->tx_stamps = tx_stamps;
    s->mono_minus_real_ns = mono_minus_real;
  }
  std::atomic<bool> cancel{false};
  std::atomic<int> running{o.threads};
  std::atomic<int64_t> until_stop_ns{INT64_MAX};
  for (auto& s : states) {
    if (s->until) s->windows->stop_at_ns = &until_stop_ns;
  }
  // 10 ms for the threads to start, pin and calibrate their wake-up margin.
  const int64_t start_ns = std::max(MonotonicNowNs() + 10'000'000, o.start_at_ns);
  std::vector<std::thread> threads;
  for (auto& s : states) {
    ThreadState* sp = s.get();
    threads.emplace_back([&o, sp, start_ns, &cancel, &running] {
      if (!o.cpus.empty()) {
        Status pinned = PinCallingThread(o.cpus[static_cast<size_t>(sp->index) % o.cpus.size()]);
        if (!pinned.ok()) {
          sp->pin_error = pinned.message();
          cancel.store(true);
        }
      }
      ThreadRunner runner(o, *sp, start_ns, cancel);
      runner.Run();
      running.fetch_sub(1, std::memory_order_release);
    });
  }
  bool cancelled = false;
  std::optional<UntilJudge> judge;
  std::vector<LoadWindow> windows;
  WindowReader reader{.o = o, .on_window = &on_window, .windows = &windows, .stop_ns = &until_stop_ns};
  if (o.until) {
    judge.emplace(*o.until);
    reader.judge = &*judge;
  }
  if (o.until || o.window_ns > 0) {
    cancelled = ReadWindows(o, states, reader, running, cancel);
  } else if (o.cancel_fd >= 0) {
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
  int64_t measured_ns = o.duration_ns;
  // Windows closed after the reader's last look (the last ones, after the drain).
  if (!judge && o.window_ns > 0) reader.Collect(states);
  if (judge) {
    // Windows closed after the judge's last look (a point run to its max): judged now.
    reader.Collect(states);
    const int64_t end = cancelled ? MonotonicNowNs() : until_stop_ns.load();
    measured_ns = std::min(end, start_ns + o.warmup_ns + o.until->max_ns) - (start_ns + o.warmup_ns);
    o.duration_ns = std::max<int64_t>(1, measured_ns);
  }
  for (auto& st : states) {
    if (!st->pin_error.empty()) return Unavailable("--cpus: generator thread " + std::to_string(st->index) + ": " + st->pin_error);
  }
  // The host's limit at this rate, after the window (a driver that samples the workload over
  // the window from the start's warm-up keeps its timing) on connections of its own.
  SendFloor floor;
  floor.unavailable = "not asked for (--send-floor off)";
  if (cancelled) {
    floor.unavailable = "the run was cancelled";
  } else if (o.send_floor != LoadOptions::SendFloorMode::kOff) {
    floor = SendFloorFor(o, o.send_floor_cache);
    // A cached floor below the threshold would judge a late run against an hour-old reading of
    // a host that may have quietened since: such a run is judged against one measured now.
    uint64_t issued = 0, timely = 0;
    for (auto& s : states) issued += s->issued, timely += s->timely;
    const bool late_run = issued > 0 && static_cast<double>(timely) < o.min_timely_ratio * static_cast<double>(issued);
    if (floor.cached && floor.timely_ratio < o.min_timely_ratio && late_run) {
      LoadOptions now = o;
      now.send_floor = LoadOptions::SendFloorMode::kMeasure;
      floor = SendFloorFor(now, o.send_floor_cache);
    }
  }

  LoadResult r;
  r.options = o;
  r.wait_why = choice.why;
  r.send_floor = floor;
  r.protocol = o.protocol;
  r.server_times_supported = caps.reports_service_time;
  r.cancelled = cancelled;
  r.windows = std::move(windows);
  std::vector<double> gaps;
  double cpu_ns = 0;
  for (auto& s : states) {
    r.latency.Merge(s->latency);
    r.latency_from_send.Merge(s->latency_from_send);
    r.service.Merge(s->service);
    r.queue.Merge(s->queue);
    r.lateness.Merge(s->lateness);
    r.wire.Merge(s->wire);
    r.sizes.key_bytes.Merge(s->key_bytes);
    r.sizes.value_bytes.Merge(s->value_bytes);
    r.sizes.multiget_keys.Merge(s->batch_keys);
    r.latency_per_key.Merge(s->latency_per_key);
    r.sizes.request_bytes += s->request_bytes;
    r.sizes.response_bytes += s->response_bytes;
    r.sizes.key_clamped += s->key_sizes.clamped();
    r.sizes.value_clamped += s->value_sizes.clamped();
    r.sizes.multiget_clamped += s->batch_sizes.clamped();
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
    r.late_answers += s->late_answers;
    for (const auto& [k, v] : s->reconnect_reasons) r.reconnect_reasons[k] += v;
    r.late_causes.Merge(s->late_causes);
    if (&s == &states.front()) {
      r.wake_margin_calibrated_ns = s->wake_margin_calibrated_ns;
      r.wake_calibration_waits = s->wake_calibration_waits;
    } else {  // calibrated only when every thread was
      r.wake_margin_calibrated_ns = r.wake_margin_calibrated_ns < 0 || s->wake_margin_calibrated_ns < 0
                                        ? -1
                                        : std::max(r.wake_margin_calibrated_ns, s->wake_margin_calibrated_ns);
      r.wake_calibration_waits = std::min(r.wake_calibration_waits, s->wake_calibration_waits);
    }
    r.wake_margin_final_ns = std::max(r.wake_margin_final_ns, s->wake_margin_final_ns);
    // Each thread's spans in units of its achieved mean gap (Erlang(span) under the null): the
    // test asks whether the sends were Poisson, the rate check whether they were as many as asked.
    double achieved_per_ns = static_cast<double>(s->issued) / static_cast<double>(o.duration_ns);
    if (achieved_per_ns <= 0) achieved_per_ns = s->rate_per_s / 1e9;
    for (double g : s->gap_sample) gaps.push_back(g * achieved_per_ns);
    cpu_ns += static_cast<double>(s->cpu_end_ns - s->cpu_begin_ns);
  }
  r.generator_cpu_s = cpu_ns / 1e9;
  uint64_t stamped = 0, unstamped = 0, tx_answers = 0, answers = 0;
  for (auto& s : states) {
    stamped += s->reads_stamped;
    unstamped += s->reads_unstamped;
    tx_answers += s->answers_tx_stamped;
    answers += s->answers_measured;
  }
  if (!o.kernel_rx_timestamps) {
    r.send_timing = "user (clock read before the write; kernel stamps not asked for)";
  } else if (!o.segment_rx_timestamps) {
    r.send_timing = "user (clock read before the write; kernel send stamps are taken with --response-timing packet)";
  } else if (!tx_refused.empty()) {
    r.send_timing = "user (clock read before the write): kernel send stamps refused: " + tx_refused;
  } else if (answers > 0 && tx_answers == 0) {
    r.send_timing = "user (clock read before the write): no request carried a kernel send stamp";
  } else {
    char b[160];
    std::snprintf(b, sizeof b, "kernel (software TX stamps, SO_TIMESTAMPING; %.2f %% of answered requests stamped)",
                  answers > 0 ? 100.0 * static_cast<double>(tx_answers) / static_cast<double>(answers) : 0.0);
    r.send_timing = b;
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
    if (o.segment_rx_timestamps) {
      uint64_t seg = 0, noseg = 0, dropped = 0;
      for (auto& s : states) {
        seg += s->answers_segment_stamped;
        noseg += s->answers_segment_unstamped;
        if (s->tap) dropped += s->tap->Dropped();
      }
      if (!segments_refused.empty()) {
        r.response_timing = "kernel, per read (per-segment stamps refused: " + segments_refused + "): " + r.response_timing;
      } else {
        char t[256];
        std::snprintf(t, sizeof t,
                      "kernel, per segment (arrival stamps from a packet socket: %.2f %% of answers; "
                      "%llu segments dropped by the tap); otherwise per read: ",
                      seg + noseg > 0 ? 100.0 * static_cast<double>(seg) / static_cast<double>(seg + noseg) : 0.0,
                      static_cast<unsigned long long>(dropped));
        r.response_timing = t + r.response_timing;
      }
    }
  }
  r.measured_s = static_cast<double>(o.duration_ns) / 1e9;
  r.window_begin_ns = start_ns + o.warmup_ns;
  if (judge) {
    r.until = judge->verdict();
    r.until->measured_s = r.measured_s;
  }

  InterarrivalTest& ad = r.interarrival;
  const bool parametric = o.arrival.kind == ArrivalSpec::Kind::kDistribution;
  if (o.arrival.kind != ArrivalSpec::Kind::kExponential && !parametric) {
    ad.not_applicable_reason = "the test checks exponential (Poisson) or parametric arrivals; " + o.arrival.name +
                               " arrivals have no continuous reference distribution to test against";
  } else if (parametric && states.front()->gap_span > 1) {
    // Single gaps are on time to within the tolerance only up to 1 / (10 tolerances) per thread
    // (GapSpan); beyond, spans of gaps are tested, and a sum of non-exponential gaps has no
    // closed-form CDF to test them against.
    ad.not_applicable_reason = o.arrival.name + " gaps are tested one by one, at up to " +
                               Fmt("%.0f", 1e9 / (10.0 * static_cast<double>(std::max<int64_t>(1, o.timely_tolerance_ns)))) +
                               " requests/s per thread at this tolerance; spans of " +
                               std::to_string(states.front()->gap_span) + " gaps would be needed here";
  } else if (gaps.size() < 20) {
    ad.not_applicable_reason = "too few spans of send gaps sampled (" + std::to_string(gaps.size()) + ")";
  } else {
    if (gaps.size() > o.interarrival_sample) {
      std::vector<double> even;
      double step = static_cast<double>(gaps.size()) / static_cast<double>(o.interarrival_sample);
      for (size_t i = 0; i < o.interarrival_sample; ++i) even.push_back(gaps[static_cast<size_t>(i * step)]);
      gaps.swap(even);
    }
    ad.applicable = true;
    const int k = states.front()->gap_span;
    ad.span = k;
    if (parametric) {
      ad.method = "Anderson-Darling test vs " + o.arrival.name + " gaps scaled to the achieved rate, alpha = 0.01";
    } else if (k == 1) {
      ad.method = "Anderson-Darling test vs exponential at the achieved rate, alpha = 0.01";
    } else {
      ad.method = "Anderson-Darling test of spans of " + std::to_string(k) +
                  " send gaps (>= 10 tolerances) vs Erlang(" + std::to_string(k) + ") at the achieved rate, alpha = 0.01";
    }
    ad.sample_size = gaps.size();
    ad.statistic = parametric ? AndersonDarlingStatistic(gaps, [&o](double x) { return o.arrival.UnitCdf(x); })
                              : AndersonDarlingStatistic(gaps, [k](double x) { return ErlangCdf(k, x); });
    ad.critical = kAndersonDarlingCritical1;
    ad.passed = ad.statistic <= ad.critical;
  }
  MeasureDistortion(&r, o.validity_percentile);
  JudgeValidity(&r);
  return r;
}

}  // namespace ream
