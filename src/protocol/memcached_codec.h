// The memcached text protocol, client side: `get` of one key or several (a multiget), `set`
// and `delete` of one key, replies
// matched in order on a connection (memcached answers pipelined requests in order and
// carries no request id or server-side time).
#pragma once

#include <cstddef>
#include <memory>

#include "protocol/codec.h"
#include "protocol/registry.h"

namespace ream {

// Bounds on what the parser accepts from a server, so a broken or hostile peer costs at most
// this much buffering before the connection is declared corrupt.
struct MemcachedLimits {
  static constexpr size_t kMaxKeyBytes = 250;      // memcached's own key limit
  static constexpr size_t kMaxLineBytes = 2048;    // one reply line, CRLF included
  static constexpr size_t kMaxValueBytes = 64u << 20;  // all VALUE data of one reply
  static constexpr size_t kMaxValuesPerReply = kMaxMultigetKeys;  // VALUE blocks before END
};

// Never fails today; Result keeps the factories of all codecs alike.
Result<std::unique_ptr<ClientCodec>> MakeMemcachedCodec(const CodecOptions& options);

}  // namespace ream
