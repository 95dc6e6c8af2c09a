// How the relay splits a direction's byte stream into the messages g and G count: with the
// protocol's framer where ream parses the protocol in both directions (ream's own frames), else
// chunk granularity (each read is one message), and the method text stored with every point
// says which.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "platform/status.h"

namespace ream::relay {

enum class Framing {
  kChunk,          // each read() is one message
  kReamRequests,   // client -> server: ream request frames (protocol/ream_frame.h)
  kReamResponses,  // server -> client: ream response frames
};

// The framings of the two directions for `protocol` (a codec name: "ream", "memcached", ...).
struct ProtocolFraming {
  Framing to_server = Framing::kChunk;
  Framing to_client = Framing::kChunk;
  bool messages() const { return to_server != Framing::kChunk; }
};
ProtocolFraming FramingFor(std::string_view protocol);

// The length of the complete message at the front of `data`: 0 when it is not complete yet,
// Corrupt when the bytes are not this framing's (the relay then falls back to chunks).
// kChunk: the whole of `data`.
Result<size_t> NextMessage(Framing f, std::string_view data);

// "relay (message granularity, ream framing)" or "relay (chunk granularity: ream does not
// frame memcached requests)": the method stored with every point of a relay knob.
std::string RelayMethod(std::string_view protocol);

}  // namespace ream::relay
