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
  EXPECT_EQ(s.Depart(0, 1000), 8'000);        // an idle direction: its own bytes only
  EXPECT_EQ(s.Depart(1'000, 1000), 16'000);   // behind the first: 8 µs after it
  EXPECT_EQ(s.Depart(2'000, 500), 20'000);    // its own 500 B take 4 µs
  EXPECT_EQ(s.Depart(100'000, 1000), 108'000);  // idle again: no backlog carried
  // Offered above 1/G, the departures run at exactly 1/G.
  DepartureSchedule busy({.per_byte_ns = 10});
  int64_t last = 0;
  for (int i = 0; i < 100; ++i) last = busy.Depart(i * 500, 100);  // 200 B/µs offered, 100 B/µs allowed
  EXPECT_EQ(last, 100 * 1'000);
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
  EXPECT_EQ(s.Depart(0, 10), 120);       // L, then its 10·G
  EXPECT_EQ(s.Depart(0, 10), 1'120);     // starts g after the first started
  EXPECT_EQ(s.Depart(0, 2'000), 6'100);  // starts g later again, then 2000·G
  EXPECT_EQ(s.Depart(0, 10), 6'120);     // the 4 µs transfer held it longer than g
}

}  // namespace
}  // namespace ream::relay
