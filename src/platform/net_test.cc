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

}  // namespace
}  // namespace ream::net
