// memcached's binary protocol, client side (`--protocol memcached-binary`): GET, SET and
// DELETE of one key, and a multiget as quiet GETKQs closed by a NOOP (the hits answer, the
// misses stay silent, the NOOP's answer ends the reply). Replies matched in order on a
// connection, as memcached answers them; no server-side time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "protocol/codec.h"
#include "protocol/registry.h"

namespace ream {

// Bounds on what the parser accepts from a server, so a broken or hostile peer costs at most
// this much buffering before the connection is declared corrupt.
struct MemcachedBinaryLimits {
  static constexpr size_t kHeaderBytes = 24;
  static constexpr size_t kMaxKeyBytes = 250;                  // memcached's own key limit
  static constexpr uint32_t kMaxBodyBytes = 64u << 20;         // one packet's extras, key and value
  static constexpr size_t kMaxReplyBytes = 64u << 20;          // all packets of one reply
  static constexpr size_t kMaxQuietPackets = kMaxMultigetKeys;  // a multiget's hits before its NOOP
};

// Never fails today; Result keeps the factories of all codecs alike.
Result<std::unique_ptr<ClientCodec>> MakeMemcachedBinaryCodec(const CodecOptions& options);

}  // namespace ream
