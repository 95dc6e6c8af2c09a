// Session load (DESIGN.md "network / streaming ... load counted in sessions"): N
// concurrent streaming sessions over HTTP/1.1, each on its own keep-alive connection, each
// fetching consecutive chunks of a video (Range requests of chunk_bytes) on the absolute
// schedule of load/session_schedule.h. A chunk still in flight when the next is due does not
// hold it back: the next request is pipelined behind it, so a slow server shows as chunks
// arriving late, never as a client that asks less often.
//
// Per chunk: its response + transfer time, from its scheduled instant to its last byte (the
// seed's media-streaming metric; LoadResult::latency, and SessionFigures::first_byte for the
// response alone), and whether it arrived by its play-out deadline (scheduled instant + chunk
// play time: the player asks for chunk i when it starts playing chunk i-1, so chunk i must be
// whole when chunk i-1 ends). A session that has fetched session_chunks chunks ends; its slot
// starts the next session at once, on the same connection, with a video drawn by the key
// distribution (video v is the path template's {key} = KeyString(v)).
//
// Validity is the generator's own: a point is invalid when the generator fell behind its
// schedule (fewer than min_timely_ratio of the requests sent within the tolerance, which for
// sessions is the larger of timely_tolerance and 5 % of a chunk's play time), when it did not
// send every chunk the schedule held, when a connection failed for good, or when the server
// answered a chunk with an HTTP error (a video too short, a wrong path). Late and unanswered
// chunks are not invalidity: they are the deadline misses the point measures.
#pragma once

#include <cstdint>
#include <string>

#include "load/generator.h"

namespace ream {

// Runs session load (options.session.enabled()): connects every session (Unavailable when
// the target does not answer), runs the schedule over warm-up and window, drains, and judges.
Result<LoadResult> RunSessionLoad(const LoadOptions& options);

// The request for `bytes` bytes at `offset` of the video at `path`: a GET with a Range header.
std::string SessionChunkRequest(const std::string& path, const std::string& host_header, uint64_t offset,
                                uint64_t bytes);

// The path of video `video` from the template (`{key}` becomes KeyString(video)).
std::string SessionVideoPath(const std::string& path_template, uint64_t video);

// Fills the validity verdict of a session result from its counters. Exposed for tests.
void JudgeSessions(LoadResult* result);

}  // namespace ream
