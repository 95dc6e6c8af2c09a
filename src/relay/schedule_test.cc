#include "relay/schedule.h"

#include <gtest/gtest.h>

namespace ream::relay {
namespace {

TEST(DepartureSchedule, LatencyDelaysEveryMessageByLAfterItWasRead) {
  DepartureSchedule s({.latency_ns = 200'000});
  EXPECT_EQ(s.Depart(1'000, 64), 201'000);
  // Read 10 µs later: departs 10 µs later; L does not accumulate or space messages.
  EXPECT_EQ(s.Depart(11'000, 64), 211'000);
  EXPECT_EQ(s.Depart(11'000, 64), 211'000);
}

TEST(DepartureSchedule, NothingSetForwardsAtOnce) {
  DepartureSchedule s({});
  EXPECT_EQ(s.Depart(5, 1 << 20), 5);
  EXPECT_EQ(s.Depart(5, 1 << 20), 5);
}

TEST(DepartureSchedule, PerByteTimeOccupiesTheDirection) {
  // G = 8 ns/B: a 1000-byte message occupies 8 µs.
  DepartureSchedule s({.per_byte_ns = 8});
  EXPECT_EQ(s.Depart(0, 1000), 0);             // an idle direction: departs when read
  EXPECT_EQ(s.Depart(1'000, 1000), 8'000);     // behind the first: its 8 µs
  EXPECT_EQ(s.Depart(2'000, 500), 16'000);     // behind the second's 8 µs
  EXPECT_EQ(s.Depart(17'000, 10), 20'000);     // behind the third's 500 B = 4 µs
  EXPECT_EQ(s.Depart(100'000, 1000), 100'000);  // idle again: no backlog carried
  // Offered below 1/G nothing waits; above it the departures run at exactly 1/G.
  DepartureSchedule light({.per_byte_ns = 10});
  for (int i = 0; i < 100; ++i) EXPECT_EQ(light.Depart(i * 2'000, 100), i * 2'000);  // 50 B/µs of 100
  DepartureSchedule busy({.per_byte_ns = 10});
  int64_t last = 0;
  for (int i = 0; i < 100; ++i) last = busy.Depart(i * 500, 100);  // 200 B/µs offered, 100 B/µs allowed
  EXPECT_EQ(last, 99 * 1'000);
}

TEST(DepartureSchedule, GapKeepsConsecutiveMessagesApart) {
  DepartureSchedule s({.gap_ns = 50'000});
  EXPECT_EQ(s.Depart(0, 10), 0);
  EXPECT_EQ(s.Depart(1'000, 10), 50'000);
  EXPECT_EQ(s.Depart(2'000, 10), 100'000);
  EXPECT_EQ(s.Depart(400'000, 10), 400'000);  // already further apart than g
}

TEST(DepartureSchedule, TheLargerOfGapAndBytesTimesGWinsAndLStillApplies) {
  DepartureSchedule s({.latency_ns = 100, .gap_ns = 1'000, .per_byte_ns = 2});
  EXPECT_EQ(s.Depart(0, 10), 100);       // L
  EXPECT_EQ(s.Depart(0, 10), 1'100);     // g after the first (g > 10·G)
  EXPECT_EQ(s.Depart(0, 2'000), 2'100);  // g after the second
  EXPECT_EQ(s.Depart(0, 10), 6'100);     // the third's 2000·G = 4 µs, longer than g
}

TEST(DepartureSchedule, PerByteTimeIsTheLinksSharedByItsConnectionsGapIsEachConnections) {
  LinkState link;
  DepartureSchedule a({.gap_ns = 1'000, .per_byte_ns = 10}, &link), b({.gap_ns = 1'000, .per_byte_ns = 10}, &link);
  EXPECT_EQ(a.Depart(0, 100), 0);      // the link is busy until 1 µs
  EXPECT_EQ(b.Depart(0, 100), 1'000);  // another connection waits for the link, not for a's g
  EXPECT_EQ(a.Depart(0, 10), 2'000);   // a: the link (2 µs) and its own g (1 µs after 0)
  EXPECT_EQ(b.Depart(2'500, 10), 2'500);
  EXPECT_EQ(b.Depart(2'500, 10), 3'500);  // b's own g
}

}  // namespace
}  // namespace ream::relay
