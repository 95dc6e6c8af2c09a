// Redis's RESP protocol, client side: GET, SET and DEL of one key and MGET of several, pipelined, replies matched
// in order. Every RESP2 and RESP3 reply type is parsed (simple string, error, integer, bulk
// and null bulk, array and null array, null, double, boolean, blob error, verbatim string,
// big number, map, set, attribute, push, and the streamed strings and aggregates). An error
// reply (`-ERR ...`, `!...`) is a failed request whose text is kept; out-of-band push
// messages are skipped, attributes are consumed with the reply they annotate.
#pragma once

#include <cstddef>
#include <memory>

#include "protocol/codec.h"
#include "protocol/registry.h"

namespace ream {

// Bounds on what the parser accepts from a server, so a broken or hostile peer costs at most
// this much buffering and recursion before the connection is declared corrupt.
struct RedisLimits {
  static constexpr size_t kMaxLineBytes = 64u << 10;    // a simple string, error or header line
  static constexpr size_t kMaxReplyBytes = 64u << 20;   // one reply, bulk data included
  static constexpr int64_t kMaxElements = 1 << 20;      // elements of one aggregate
  static constexpr int kMaxDepth = 32;                  // nesting of aggregates
};

// Never fails today; Result keeps the factories of all codecs alike.
Result<std::unique_ptr<ClientCodec>> MakeRedisCodec(const CodecOptions& options);

}  // namespace ream
