#include "platform/net.h"

#include "platform/clock.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <string>

namespace ream::net {
namespace {

// Kernel arrival stamps, converted to the monotonic clock, fall between the write that sent
// the data and the read that got it, and record the arrival, not the (later) read.
TEST(ReceiveTimestamps, StampTheArrivalOnTheMonotonicClock) {
  auto listener = Listen("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  auto bound = LocalPort(listener->get());
  ASSERT_TRUE(bound.ok());
  int port = *bound;
  auto client = Connect("127.0.0.1", port, 1'000'000'000);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto accepted = Accept(listener->get());
  ASSERT_TRUE(accepted.ok() && accepted->valid());
  Fd server = std::move(accepted).value();
  ASSERT_TRUE(EnableReceiveTimestamps(client->get()).ok());
  const int64_t offset = MonotonicMinusRealtimeNs();
  // The kernel turns stamping on for the whole stack a moment after the first socket asks
  // (a deferred static key), so the first segments may come unstamped: wait for a stamp.
  Buffer warm;
  int64_t stamp = 0;
  for (int64_t begin = MonotonicNowNs(); stamp == 0 && MonotonicNowNs() - begin < 2'000'000'000;) {
    ASSERT_EQ(::send(server.get(), "w", 1, 0), 1);
    IoResult w{};
    while (w.bytes == 0 && !w.closed && w.error == 0) w = ReadAvailable(client->get(), &warm, &stamp);
  }
  ASSERT_GT(stamp, 0) << "no read carried SCM_TIMESTAMPNS within 2 s";

  int64_t sent = MonotonicNowNs();
  ASSERT_EQ(::send(server.get(), "pong", 4, 0), 4);
  // Read well after the arrival: the stamp must say when the data came, not when it was read.
  while (MonotonicNowNs() - sent < 20'000'000) {
  }
  Buffer in;
  IoResult r = ReadAvailable(client->get(), &in, &stamp);
  int64_t read_at = MonotonicNowNs();
  ASSERT_EQ(r.bytes, 4u);
  EXPECT_EQ(in.view(), "pong");
  ASSERT_GT(stamp, 0) << "no SCM_TIMESTAMPNS came with the data";
  int64_t arrived = stamp + offset;
  EXPECT_GE(arrived, sent - 1'000'000);  // the conversion may be off by far less than 1 ms
  EXPECT_LT(arrived, sent + 10'000'000) << "stamped " << (arrived - sent) / 1000 << " us after the send";
  EXPECT_LT(arrived, read_at - 10'000'000);

  // Without the option, no stamp.
  auto plain = Connect("127.0.0.1", port, 1'000'000'000);
  ASSERT_TRUE(plain.ok());
  auto peer = Accept(listener->get());
  ASSERT_TRUE(peer.ok() && peer->valid());
  ASSERT_EQ(::send(peer->get(), "x", 1, 0), 1);
  Buffer in2;
  IoResult r2{};
  for (int i = 0; i < 100000 && r2.bytes == 0; ++i) r2 = ReadAvailable(plain->get(), &in2, &stamp);
  EXPECT_EQ(r2.bytes, 1u);
  EXPECT_EQ(stamp, 0);
}

TEST(HostPort, ParsesAddressesNamesAndBracketedIPv6AsTyped) {
  auto v4 = ParseHostPort("127.0.0.1:80");
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 80);
  EXPECT_EQ(v4->ToString(), "127.0.0.1:80");
  auto name = ParseHostPort("localhost:11211");
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  EXPECT_EQ(name->host, "localhost");
  EXPECT_EQ(name->port, 11211);
  auto v6 = ParseHostPort("[::1]:6379");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 6379);
  EXPECT_EQ(v6->ToString(), "[::1]:6379");
}

TEST(HostPort, RejectsWhatIsNotHostColonPort) {
  auto bare_v6 = ParseHostPort("::1:6379");
  EXPECT_EQ(bare_v6.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bare_v6.status().message().find("brackets"), std::string::npos) << bare_v6.status().message();
  for (const char* bad : {"localhost", "[::1]6379", "[::1]:", "[::1", ":80", "127.0.0.1:0", "127.0.0.1:65536",
                          "127.0.0.1:http", "[]:80"}) {
    auto r = ParseHostPort(bad);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_NE(ParseHostPort("localhost").status().message().find("HOST:PORT"), std::string::npos);
}

// Loopback only: a listener on [::1] is reached by address and through ParseHostPort.
TEST(Connect, ReachesAListenerOnIPv6Loopback) {
  auto listener = Listen("::1", 0);
  if (!listener.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << listener.status().ToString();
  int port = *LocalPort(listener->get());
  ASSERT_GT(port, 0);
  auto target = ParseHostPort("[::1]:" + std::to_string(port));
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  auto client = Connect(target->host, target->port, 1'000'000'000);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  Result<Fd> server = Fd();
  for (int64_t begin = MonotonicNowNs(); MonotonicNowNs() - begin < 2'000'000'000;) {
    server = Accept(listener->get());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    if (server->valid()) break;
  }
  ASSERT_TRUE(server->valid());
  ASSERT_EQ(WriteSome(client->get(), "v6", 2).bytes, 2u);
  Buffer buf;
  for (int64_t begin = MonotonicNowNs(); buf.readable() < 2 && MonotonicNowNs() - begin < 2'000'000'000;) {
    ReadAvailable(server->get(), &buf);
  }
  EXPECT_EQ(buf.view(), "v6");
}

// "localhost" may resolve to ::1 first; a server listening on 127.0.0.1 only is still reached.
TEST(Connect, TriesEveryAddressOfAName) {
  auto listener = Listen("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  int port = *LocalPort(listener->get());
  auto client = Connect("localhost", port, 1'000'000'000);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
}

TEST(Connect, NothingListeningIsUnavailableAndNamesTheTarget) {
  int port;
  {
    auto l = Listen("::1", 0);
    if (!l.ok()) GTEST_SKIP() << "no IPv6 loopback here";
    port = *LocalPort(l->get());
  }
  auto r = Connect("::1", port, 1'000'000'000);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("[::1]:" + std::to_string(port)), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace ream::net
