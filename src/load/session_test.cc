// Session load's schedule, its option checks and its verdict (load/session_schedule.h,
// load/session_load.h), without a server.
#include <gtest/gtest.h>

#include "load/session_load.h"
#include "load/session_schedule.h"

namespace ream {
namespace {

SessionLoad Load(int n, uint64_t chunks, uint64_t bytes, uint64_t bps) {
  SessionLoad s;
  s.sessions = n;
  s.session_chunks = chunks;
  s.chunk_bytes = bytes;
  s.bitrate_bps = bps;
  return s;
}

TEST(SessionSchedule, ChunksFollowTheBitrateOnAnAbsoluteSchedule) {
  // 125 000 B at 1 Mbit/s: a chunk plays for exactly 1 s.
  SessionLoad l = Load(4, 3, 125000, 1'000'000);
  EXPECT_DOUBLE_EQ(l.ChunkPlayNs(), 1e9);
  EXPECT_DOUBLE_EQ(l.ChunkRate(), 4.0);
  EXPECT_DOUBLE_EQ(l.OfferedBitsPerSecond(), 4e6);
  SessionSchedule s(l, 1000);
  // Slot 0: 1000, 1e9+1000, ...; each due a play time after the previous, never "when the
  // previous arrived".
  for (uint64_t c = 0; c < 10; ++c) {
    ScheduledChunk k = s.At(0, c);
    EXPECT_EQ(k.at_ns, 1000 + static_cast<int64_t>(c) * 1'000'000'000);
    EXPECT_EQ(k.deadline_ns, k.at_ns + 1'000'000'000);  // the play-out deadline
  }
  // Slots are staggered by a quarter period.
  EXPECT_EQ(s.At(1, 0).at_ns, 1000 + 250'000'000);
  EXPECT_EQ(s.At(3, 2).at_ns, 1000 + 750'000'000 + 2'000'000'000LL);
  // After 3 chunks the slot starts its next session, numbered over the slots.
  EXPECT_EQ(s.At(2, 2).session, 2u);
  EXPECT_EQ(s.At(2, 2).chunk, 2u);
  EXPECT_EQ(s.At(2, 3).session, 2u + 4u);
  EXPECT_EQ(s.At(2, 3).chunk, 0u);
  EXPECT_EQ(s.At(2, 7).session, 2u + 8u);
  EXPECT_EQ(s.At(2, 7).chunk, 1u);
}

TEST(SessionSchedule, NoDriftOverLongSessions) {
  // 1 Mbit/s with 3 333 B chunks: a play time of 26.664 ms, not a whole number of ns... of µs.
  SessionLoad l = Load(3, 1000, 3333, 1'000'000);
  SessionSchedule s(l, 0);
  ScheduledChunk k = s.At(0, 100000);
  EXPECT_NEAR(static_cast<double>(k.at_ns), 100000 * 26.664e6, 1.0);
}

TEST(SessionLoadOptions, BadParametersAreNamed) {
  const int64_t window = 2'000'000'000;
  EXPECT_TRUE(ValidateSessionLoad(Load(4, 8, 262144, 8'000'000), window).ok());
  auto message = [&](SessionLoad l) { return ValidateSessionLoad(l, window).message(); };
  EXPECT_NE(message(Load(20000, 8, 262144, 8'000'000)).find("--sessions"), std::string::npos);
  EXPECT_NE(message(Load(4, 0, 262144, 8'000'000)).find("--session-chunks"), std::string::npos);
  EXPECT_NE(message(Load(4, 8, 0, 8'000'000)).find("--chunk-bytes"), std::string::npos);
  EXPECT_NE(message(Load(4, 8, kMaxChunkBytes + 1, 8'000'000)).find("--chunk-bytes"), std::string::npos);
  EXPECT_NE(message(Load(4, 8, 262144, 0)).find("--bitrate"), std::string::npos);
  // 100 B at 10 Mbit/s plays 80 us: not streaming.
  EXPECT_NE(message(Load(4, 8, 100, 10'000'000)).find("below the 1 ms"), std::string::npos);
  // 4 MB at 1 Mbit/s plays 32 s, longer than the 2 s window.
  EXPECT_NE(message(Load(4, 8, 4'000'000, 1'000'000)).find("longer than the measured window"), std::string::npos);

  LoadOptions o;
  o.port = 80;
  o.protocol = "http";
  o.session = Load(4, 8, 262144, 8'000'000);
  o.qps = o.session.ChunkRate();
  o.duration_ns = window;
  EXPECT_TRUE(ValidateLoadOptions(o).ok());
  o.threads = 2;
  o.connections = 2;
  EXPECT_NE(ValidateLoadOptions(o).message().find("one generator thread"), std::string::npos);
  o.threads = 1;
  // Sizes and multigets are request load's: session load refuses them rather than ignore them.
  o.multiget = FixedDistribution(4);
  EXPECT_NE(ValidateLoadOptions(o).message().find("request load only"), std::string::npos);
  o.multiget = FixedDistribution(1);
  o.protocol = "ream";
  auto r = RunSessionLoad(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--protocol http"), std::string::npos);
}

TEST(SessionLoad, RequestsAreRangeGetsOfTheSessionsVideo) {
  EXPECT_EQ(SessionVideoPath("/video/{key}.bin", 7), "/video/key0000000000007.bin");
  EXPECT_EQ(SessionChunkRequest("/v/a.bin", "10.0.0.2:8080", 262144, 1024),
            "GET /v/a.bin HTTP/1.1\r\nHost: 10.0.0.2:8080\r\nRange: bytes=262144-263167\r\n\r\n");
}

TEST(SessionLoad, DeadlineMissesAreTheQosFigureNotInvalidity) {
  LoadResult r;
  r.options.duration_ns = 2'000'000'000;
  r.options.session = Load(4, 8, 262144, 8'000'000);
  SessionFigures& f = r.session;
  f.chunks_scheduled = f.chunks_requested = 100;
  f.chunks_completed = 98;
  f.chunks_on_time = 90;
  f.bytes_received = 98 * 262144;
  r.timely = 100;
  JudgeSessions(&r);
  EXPECT_TRUE(r.valid) << (r.invalid_reasons.empty() ? "" : r.invalid_reasons[0]);
  EXPECT_EQ(f.deadline_misses, 10u);
  EXPECT_DOUBLE_EQ(f.deadline_miss_ratio, 0.10);
  EXPECT_DOUBLE_EQ(f.throughput_bytes_per_s, 98 * 262144 / 2.0);
  EXPECT_DOUBLE_EQ(r.throughput_qps, 49);

  // The generator's own lateness makes the point invalid.
  r.timely = 90;
  JudgeSessions(&r);
  EXPECT_FALSE(r.valid);
  ASSERT_FALSE(r.invalid_reasons.empty());
  EXPECT_NE(r.invalid_reasons[0].find("fell behind its own schedule"), std::string::npos);

  // So do chunks never requested and HTTP errors.
  r.timely = 100;
  f.chunks_requested = 95;
  r.timely = 95;
  r.error_reasons["HTTP 416"] = 2;
  JudgeSessions(&r);
  EXPECT_FALSE(r.valid);
  std::string all;
  for (const auto& s : r.invalid_reasons) all += s + "\n";
  EXPECT_NE(all.find("never requested"), std::string::npos);
  EXPECT_NE(all.find("HTTP 416"), std::string::npos);
}

}  // namespace
}  // namespace ream
