// Session load's schedule and the checks of its options.
#include "load/session_schedule.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace ream {

Status ValidateSessionLoad(const SessionLoad& s, int64_t duration_ns) {
  if (s.sessions < 1 || s.sessions > 10000) return InvalidArgument("--sessions must be in 1..10000");
  if (s.session_chunks < 1 || s.session_chunks > 1'000'000) {
    return InvalidArgument("--session-chunks must be in 1..1000000 (the chunks of one session's video)");
  }
  if (s.chunk_bytes < 1 || s.chunk_bytes > kMaxChunkBytes) {
    return InvalidArgument("--chunk-bytes must be in 1.." + std::to_string(kMaxChunkBytes) +
                           " (the largest HTTP body the generator reads as one chunk)");
  }
  if (s.bitrate_bps < 1) return InvalidArgument("--bitrate must be > 0 (bits per second of the video, e.g. 4mbit)");
  char b[256];
  double play = s.ChunkPlayNs();
  if (play < static_cast<double>(kMinChunkPlayNs)) {
    std::snprintf(b, sizeof b,
                  "--chunk-bytes %llu at --bitrate %llu bit/s plays for %.3g ms, below the 1 ms a streaming "
                  "chunk is held to; use larger chunks or a lower bitrate",
                  static_cast<unsigned long long>(s.chunk_bytes), static_cast<unsigned long long>(s.bitrate_bps),
                  play / 1e6);
    return InvalidArgument(b);
  }
  if (duration_ns > 0 && play > static_cast<double>(duration_ns)) {
    std::snprintf(b, sizeof b,
                  "a chunk plays for %.3g s (--chunk-bytes * 8 / --bitrate), longer than the measured window "
                  "(--duration %.3g s): no session would request a second chunk in it; lengthen the window or "
                  "shorten the chunks",
                  play / 1e9, static_cast<double>(duration_ns) / 1e9);
    return InvalidArgument(b);
  }
  return Status::Ok();
}

ScheduledChunk SessionSchedule::At(int slot, uint64_t c) const {
  const double play = load_.ChunkPlayNs();
  const double offset = (static_cast<double>(slot) / load_.sessions + static_cast<double>(c)) * play;
  ScheduledChunk k;
  k.at_ns = start_ns_ + std::llround(offset);
  k.deadline_ns = start_ns_ + std::llround(offset + play);
  k.session = static_cast<uint64_t>(slot) + static_cast<uint64_t>(load_.sessions) * (c / load_.session_chunks);
  k.chunk = c % load_.session_chunks;
  return k;
}

}  // namespace ream
