// The relay on loopback, with an echo as its upstream: what L and G add, measured.
#include "relay/relay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "platform/clock.h"
#include "platform/poller.h"
#include "protocol/ream_frame.h"
#include "relay/echo.h"

namespace ream::relay {
namespace {

// A relay in a thread of the test, in front of an echo.
class RelayFixture {
 public:
  // `start` false: the relay listens but runs (accepts, reads) only from Start().
  explicit RelayFixture(LogGpParams p, ProtocolFraming f = {}, bool start = true) {
    auto e = EchoServer::Start("127.0.0.1");
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    echo_ = std::move(*e);
    auto r = Relay::Create({.to_host = "127.0.0.1", .to_port = echo_->port(), .params = p, .framing = f});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    relay_ = std::move(*r);
    auto s = net::Notifier::Create();
    EXPECT_TRUE(s.ok());
    stop_ = std::move(*s);
    if (start) Start();
  }
  void Start() {
    thread_ = std::thread([this] { run_ = relay_->Run(stop_.fd()); });
  }
  ~RelayFixture() {
    stop_.Notify();
    if (thread_.joinable()) thread_.join();
    EXPECT_TRUE(run_.ok()) << run_.ToString();
  }
  int port() const { return relay_->port(); }
  int echo_port() const { return echo_->port(); }
  const RelayStats& stats() const { return relay_->stats(); }

  // The median of `n` round trips of `bytes` through host:port.
  static int64_t MedianRttNs(int port, size_t bytes, int n) {
    auto fd = net::Connect("127.0.0.1", port, 1'000'000'000);
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    std::vector<int64_t> v;
    for (int i = 0; i < n; ++i) {
      auto rtt = EchoRoundTripNs(fd->get(), bytes, 2'000'000'000);
      EXPECT_TRUE(rtt.ok()) << rtt.status().ToString();
      if (rtt.ok()) v.push_back(*rtt);
    }
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  }

 private:
  std::unique_ptr<EchoServer> echo_;
  std::unique_ptr<Relay> relay_;
  net::Notifier stop_;
  std::thread thread_;
  Status run_;
};

TEST(Relay, LatencyAddsTwoLToTheRoundTripAndNoMore) {
  // 5 ms: well above this machine's scheduling noise. (At 1 ms a clean clone in a noisy hour,
  // with timed waits waking 300 us late at their 97th percentile, measured 2L + 29 %.)
  constexpr int64_t kL = 5'000'000;
  RelayFixture zero({});
  RelayFixture delayed({.latency_ns = kL});
  int64_t rtt0 = RelayFixture::MedianRttNs(zero.port(), 64, 30);
  int64_t rttL = RelayFixture::MedianRttNs(delayed.port(), 64, 30);
  // Each direction waits L after the read: the round trip grows by 2L, within 20 %.
  EXPECT_GE(rttL - rtt0, 2 * kL * 8 / 10) << rtt0 << " " << rttL;
  EXPECT_LE(rttL - rtt0, 2 * kL * 12 / 10) << rtt0 << " " << rttL;
  EXPECT_GE(rttL, 2 * kL);  // never early
  EXPECT_EQ(delayed.stats().connections, 1);
  EXPECT_GE(delayed.stats().messages_to_server, 30);
}

TEST(Relay, DelaysAMessageFromItsArrivalNotFromWhenTheRelayGotRoundToReadingIt) {
  // The message reaches the relay's socket while the relay is not running (as when its CPU is
  // idle and wakes late, or the host has it): L counts from the kernel's arrival stamp, so the
  // round trip is 2L, not 2L plus the time the relay was away.
  constexpr int64_t kL = 100'000'000, kAway = 60'000'000;
  RelayFixture late({.latency_ns = kL}, {}, /*start=*/false);
  auto fd = net::Connect("127.0.0.1", late.port(), 1'000'000'000);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  // The kernel stamps arriving segments only while some socket asks for stamps (a global
  // switch): this one asks before the message is sent, as the relay's own would once running.
  ASSERT_TRUE(net::EnableReceiveTimestamps(fd->get()).ok());
  // The kernel turns the switch on from a work queue when no socket had it (net_enable_timestamp),
  // e.g. after the previous test closed its sockets: give that a moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const char msg[64] = "ping";
  int64_t t0 = MonotonicNowNs();
  ASSERT_EQ(net::WriteSome(fd->get(), msg, sizeof msg).bytes, sizeof msg);
  while (MonotonicNowNs() - t0 < kAway) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  late.Start();
  auto poller = net::Poller::Create();
  ASSERT_TRUE(poller.ok() && poller->Add(fd->get(), EPOLLIN, 0).ok());
  char buf[128];
  size_t got = 0;
  epoll_event ev[1];
  while (got < sizeof msg && MonotonicNowNs() - t0 < 2'000'000'000) {
    ASSERT_TRUE(poller->Wait(ev, 1, 100'000'000).ok());
    got += net::ReadSome(fd->get(), buf, sizeof buf).bytes;
  }
  int64_t rtt = MonotonicNowNs() - t0;
  ASSERT_EQ(got, sizeof msg);
  EXPECT_GE(rtt, 2 * kL);                  // never early
  EXPECT_LT(rtt, 2 * kL + kAway * 2 / 3);  // the 60 ms away are not added (a read-timed L gives 2L + 60)
  EXPECT_GE(late.stats().stamped_reads, 2);
}

TEST(Relay, PerByteTimeLimitsABulkTransferToOneOverG) {
  constexpr int64_t kG = 100;  // ns per byte: 10 MB/s
  constexpr size_t kBytes = 1 << 20;
  RelayFixture g({.per_byte_ns = kG});
  auto t = EchoTransferThrough("127.0.0.1", g.port(), kBytes, 5'000'000'000);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  double expected = kBytes * kG / 1e9;  // both directions pace at once: one n·G in total
  // Paced chunk by chunk (16 KiB reads): the last chunk's own n·G is not waited for.
  EXPECT_GE(t->seconds, expected * 0.95);
  EXPECT_LE(t->seconds, expected * 1.3);
  // The steady rate is 1/G within 10 % (what the calibration reports).
  EXPECT_NEAR(t->steady_bytes_per_s, 1e9 / kG, 0.1 * 1e9 / kG);
  // The same transfer straight to the echo is far faster than 1/G.
  auto direct = EchoTransferSeconds("127.0.0.1", g.echo_port(), kBytes, 5'000'000'000);
  ASSERT_TRUE(direct.ok());
  EXPECT_LT(*direct, expected / 3);
}

TEST(Relay, GapSpacesConsecutiveMessagesOfTheProtocol) {
  constexpr int64_t kGap = 5'000'000;  // well above this shared machine's scheduling noise
  // Requests split by ream's framing; the echo's copies come back as chunks.
  RelayFixture g({.gap_ns = kGap}, {.to_server = Framing::kReamRequests, .to_client = Framing::kChunk});
  auto fd = net::Connect("127.0.0.1", g.port(), 1'000'000'000);
  ASSERT_TRUE(fd.ok());
  std::string five;
  for (uint64_t i = 0; i < 5; ++i) ASSERT_TRUE(frame::AppendRequest({.id = i, .op = Op::kGet, .key = "k"}, &five).ok());
  // Five requests in one write, so one read at the relay: still five messages, g apart.
  auto poller = net::Poller::Create();
  ASSERT_TRUE(poller.ok() && poller->Add(fd->get(), EPOLLIN, 0).ok());
  int64_t t0 = MonotonicNowNs();
  ASSERT_EQ(net::WriteSome(fd->get(), five.data(), five.size()).bytes, five.size());
  char buf[512];
  size_t got = 0;
  epoll_event ev[1];
  while (got < five.size() && MonotonicNowNs() - t0 < 2'000'000'000) {
    ASSERT_TRUE(poller->Wait(ev, 1, 100'000'000).ok());  // blocks: no spinning beside the relay
    got += net::ReadSome(fd->get(), buf, sizeof buf).bytes;
  }
  int64_t took = MonotonicNowNs() - t0;
  EXPECT_EQ(got, five.size());
  EXPECT_GE(took, 4 * kGap);  // the last request starts 4 g after the first
  EXPECT_LT(took, 6 * kGap);  // and the copies coming back are not spaced a second time
  EXPECT_EQ(g.stats().messages_to_server, 5);
}

TEST(RelayFraming, ReamFramesAreMessagesOtherProtocolsChunks) {
  std::string two;
  ASSERT_TRUE(frame::AppendRequest({.id = 1, .op = Op::kGet, .key = "k1"}, &two).ok());
  size_t first = two.size();
  ASSERT_TRUE(frame::AppendRequest({.id = 2, .op = Op::kGet, .key = "key2"}, &two).ok());
  auto n = NextMessage(Framing::kReamRequests, two);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, first);  // one request, not the whole read
  EXPECT_EQ(*NextMessage(Framing::kReamRequests, std::string_view(two).substr(0, first - 1)), 0u);
  EXPECT_EQ(*NextMessage(Framing::kChunk, two), two.size());
  EXPECT_FALSE(NextMessage(Framing::kReamRequests, "GET / HTTP/1.1\r\n\r\n").ok());
  EXPECT_TRUE(FramingFor("ream").messages());
  EXPECT_FALSE(FramingFor("memcached").messages());
  EXPECT_EQ(RelayMethod("ream"), "relay (message granularity, ream framing)");
  EXPECT_NE(RelayMethod("http").find("chunk granularity"), std::string::npos);
}

}  // namespace
}  // namespace ream::relay
