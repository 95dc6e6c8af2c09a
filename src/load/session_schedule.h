// Session load's options and its schedule: N concurrent streaming sessions, each on
// its own connection, fetching consecutive chunks of a video at the video's bitrate. Chunk c of
// session slot s is requested at start + (s / N + c) * chunk_play_time, an absolute schedule
// that never waits for the previous chunk (a chunk still in flight is pipelined behind), so a
// slow server shows as lateness of its chunks, never as a slower client. Pure; tested alone.
#pragma once

#include <cstdint>

#include "platform/status.h"

namespace ream {

struct SessionLoad {
  int sessions = 0;               // concurrent sessions; 0: request load (--qps) instead
  uint64_t session_chunks = 8;    // chunks per session; then the slot starts a new session
  uint64_t chunk_bytes = 262144;  // bytes per chunk (one HTTP Range request)
  uint64_t bitrate_bps = 0;       // the video's bitrate, bits per second
  bool enabled() const { return sessions > 0; }
  // A chunk's play time: chunk_bytes * 8 / bitrate, in ns (the period of a session's requests).
  double ChunkPlayNs() const {
    return bitrate_bps ? static_cast<double>(chunk_bytes) * 8e9 / static_cast<double>(bitrate_bps) : 0;
  }
  // Chunks requested per second over all sessions: sessions * bitrate / (8 * chunk_bytes).
  double ChunkRate() const {
    double play = ChunkPlayNs();
    return play > 0 ? static_cast<double>(sessions) * 1e9 / play : 0;
  }
  // The bits per second every session together must be sent: sessions * bitrate.
  double OfferedBitsPerSecond() const { return static_cast<double>(sessions) * static_cast<double>(bitrate_bps); }
};

// The largest chunk the HTTP codec accepts as one body (protocol/http_codec.h HttpLimits).
inline constexpr uint64_t kMaxChunkBytes = 64ull << 20;
// A chunk shorter than this to play is not streaming any more but a request storm.
inline constexpr int64_t kMinChunkPlayNs = 1'000'000;

// InvalidArgument naming the flag (--sessions, --session-chunks, --chunk-bytes, --bitrate) when
// a value is out of range; `duration_ns` is the measured window, which must hold at least one
// chunk period of every session.
Status ValidateSessionLoad(const SessionLoad& s, int64_t duration_ns);

// One chunk request of the schedule: when it is due, when it must have arrived (its play-out
// deadline), and which session and chunk of that session it is.
struct ScheduledChunk {
  int64_t at_ns = 0;        // the request's scheduled instant
  int64_t deadline_ns = 0;  // at_ns + chunk play time: when the player starts playing it
  uint64_t session = 0;     // numbered over all slots: slot + N * (the slot's session count)
  uint64_t chunk = 0;       // within its session, 0..session_chunks-1
};

class SessionSchedule {
 public:
  SessionSchedule(const SessionLoad& load, int64_t start_ns) : load_(load), start_ns_(start_ns) {}
  // The c-th chunk (0, 1, ...) requested by slot `slot` (0..sessions-1). Slots are staggered by
  // a chunk play time / sessions, so the N sessions' requests spread evenly over each period
  // instead of arriving together.
  ScheduledChunk At(int slot, uint64_t c) const;
  int64_t play_ns() const { return static_cast<int64_t>(load_.ChunkPlayNs() + 0.5); }

 private:
  SessionLoad load_;
  int64_t start_ns_;
};

}  // namespace ream
