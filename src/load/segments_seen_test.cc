// The per-connection record of segments seen by the segment tap: an answer is timed by the
// segment that holds its last byte, and an answer whose segment was not seen gets no stamp
// (it is then timed by its read), never a later segment's.
#include <gtest/gtest.h>

#include "load/generator_thread.h"

namespace ream::load_detail {
namespace {

TEST(SegmentsSeen, AnAnswerIsTimedByTheSegmentHoldingItsLastByte) {
  SegmentsSeen s;
  s.Push({0, 10, 100});
  s.Push({10, 25, 200});
  s.Push({25, 26, 300});
  EXPECT_EQ(s.StampOf(4), 100);   // an answer inside the first segment
  EXPECT_EQ(s.StampOf(9), 100);   // ... ending at its last byte
  EXPECT_EQ(s.StampOf(17), 200);  // one that began in the first and ended in the second
  EXPECT_EQ(s.StampOf(24), 200);
  EXPECT_EQ(s.StampOf(25), 300);
  EXPECT_EQ(s.StampOf(26), 0);    // not arrived yet (as far as the tap knows)
}

TEST(SegmentsSeen, AMissingSegmentGivesNoStampNotTheNextOnes) {
  SegmentsSeen s;
  s.Push({0, 10, 100});
  s.Push({20, 30, 300});  // [10, 20) was never seen (the tap dropped it)
  EXPECT_EQ(s.StampOf(15), 0);
  EXPECT_EQ(s.StampOf(25), 300);
}

TEST(SegmentsSeen, AFullRingDropsItsOldestAndClearForgetsAll) {
  SegmentsSeen s;
  for (uint64_t i = 0; i < SegmentsSeen::kCapacity + 5; ++i) s.Push({i, i + 1, static_cast<int64_t>(i + 1)});
  EXPECT_EQ(s.size, SegmentsSeen::kCapacity);
  EXPECT_EQ(s.StampOf(2), 0);  // dropped with the oldest
  EXPECT_EQ(s.StampOf(SegmentsSeen::kCapacity + 4), static_cast<int64_t>(SegmentsSeen::kCapacity + 5));
  s.Clear();
  EXPECT_EQ(s.size, 0u);
  EXPECT_EQ(s.StampOf(0), 0);
}

}  // namespace
}  // namespace ream::load_detail
