#include "platform/segment_tap.h"

#include "platform/clock.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace ream::net {
namespace {

void SpinFor(int64_t ns) {
  for (int64_t t = MonotonicNowNs(); MonotonicNowNs() - t < ns;) {
  }
}

// Three answers sent 5 ms apart and read only after the last: the TCP socket's read carries
// one stamp (the last segment's), the tap one per segment, each near its send, in stream order
// from the SYN-ACK's sequence number. Segments from other ports and the client's own are not
// kept.
TEST(SegmentTap, StampsEachSegmentWhereOneReadHasOneStamp) {
  if (geteuid() != 0) GTEST_SKIP() << "a packet socket needs CAP_NET_RAW (root)";
  auto listener = Listen("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  int port = *LocalPort(listener->get());
  auto tap = SegmentTap::Open(port);
  ASSERT_TRUE(tap.ok()) << tap.status().ToString();
  auto client = Connect("127.0.0.1", port, 1'000'000'000);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  int local = *LocalPort(client->get());
  auto accepted = Accept(listener->get());
  ASSERT_TRUE(accepted.ok() && accepted->valid());
  Fd server = std::move(accepted).value();
  ASSERT_TRUE(EnableReceiveTimestamps(client->get()).ok());
  // Another connection to another port sends too: not this tap's.
  auto other_listener = Listen("127.0.0.1", 0);
  ASSERT_TRUE(other_listener.ok());
  auto other = Connect("127.0.0.1", *LocalPort(other_listener->get()), 1'000'000'000);
  ASSERT_TRUE(other.ok());
  auto other_peer = Accept(other_listener->get());
  ASSERT_TRUE(other_peer.ok() && other_peer->valid());

  const int64_t offset = MonotonicMinusRealtimeNs();
  ASSERT_EQ(::send(client->get(), "req", 3, 0), 3);  // the client's own segment: not kept
  std::vector<int64_t> sent;
  const char* answers[] = {"one", "two!", "three"};
  for (const char* a : answers) {
    SpinFor(5'000'000);
    sent.push_back(MonotonicNowNs());
    ASSERT_EQ(::send(server.get(), a, strlen(a), 0), static_cast<ssize_t>(strlen(a)));
    ASSERT_EQ(::send(other_peer->get(), "x", 1, 0), 1);
  }
  SpinFor(5'000'000);
  Buffer in;
  int64_t read_stamp = 0;
  IoResult r = ReadAvailable(client->get(), &in, &read_stamp);
  ASSERT_EQ(r.bytes, 12u);

  // The SYN-ACK, the three answers, and the server's pure acknowledgements (no data), which
  // are left out here.
  SegmentStamp all[16], seen[16];
  int got = tap->Read(all, 16), n = 0;
  for (int i = 0; i < got; ++i) {
    if (all[i].syn || all[i].payload > 0) seen[n++] = all[i];
  }
  ASSERT_EQ(n, 4) << "the SYN-ACK and three answers (" << got << " segments in all)";
  ASSERT_TRUE(seen[0].syn);
  EXPECT_EQ(seen[0].local_port, local);
  uint32_t base = seen[0].seq + 1;
  uint32_t offsets[] = {0, 3, 7}, sizes[] = {3, 4, 5};
  for (int i = 0; i < 3; ++i) {
    const SegmentStamp& s = seen[i + 1];
    EXPECT_FALSE(s.syn);
    EXPECT_EQ(s.local_port, local);
    EXPECT_EQ(s.seq - base, offsets[i]);
    EXPECT_EQ(s.payload, sizes[i]);
    int64_t at = s.realtime_ns + offset;
    EXPECT_GE(at, sent[static_cast<size_t>(i)] - 1'000'000);
    EXPECT_LT(at, sent[static_cast<size_t>(i)] + 4'000'000) << "answer " << i;
  }
  // What the socket gives: when TCP merged the queued answers, the read's one stamp is the
  // last's, 10 ms after the first answer's arrival. (Printed: whether the merge happens is
  // the kernel's choice.)
  std::printf("read stamp - first segment's: %.1f ms\n", static_cast<double>(read_stamp - seen[1].realtime_ns) / 1e6);
  EXPECT_EQ(tap->Read(seen, 16), 0);
  EXPECT_EQ(tap->Dropped(), 0u);
}

// Over IPv6 (loopback ::1): the SYN-ACK and an answer, at its offset; nothing for a tap of
// another port.
TEST(SegmentTap, SeesIPv6) {
  if (geteuid() != 0) GTEST_SKIP() << "a packet socket needs CAP_NET_RAW (root)";
  auto listener = Listen("::1", 0);
  if (!listener.ok()) GTEST_SKIP() << "no IPv6 loopback: " << listener.status().ToString();
  int port = *LocalPort(listener->get());
  auto tap6 = SegmentTap::Open(port);
  ASSERT_TRUE(tap6.ok()) << tap6.status().ToString();
  auto other = SegmentTap::Open(port == 65535 ? 1 : port + 1);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  auto client = Connect("::1", port, 1'000'000'000);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto accepted = Accept(listener->get());
  ASSERT_TRUE(accepted.ok() && accepted->valid());
  ASSERT_EQ(::send(accepted->get(), "hello", 5, 0), 5);
  SpinFor(2'000'000);
  SegmentStamp all[16];
  int got = tap6->Read(all, 16);
  bool syn = false;
  uint32_t base = 0;
  int answers = 0;
  for (int i = 0; i < got; ++i) {
    EXPECT_EQ(all[i].local_port, *LocalPort(client->get()));
    if (all[i].syn) syn = true, base = all[i].seq + 1;
    if (all[i].payload > 0) {
      ++answers;
      EXPECT_EQ(all[i].seq - base, 0u);
      EXPECT_EQ(all[i].payload, 5u);
    }
  }
  EXPECT_TRUE(syn);
  EXPECT_EQ(answers, 1);
  EXPECT_EQ(other->Read(all, 16), 0);
}

TEST(SegmentTap, RefusesANonPort) {
  EXPECT_FALSE(SegmentTap::Open(0).ok());
  EXPECT_FALSE(SegmentTap::Open(70000).ok());
}

}  // namespace
}  // namespace ream::net
