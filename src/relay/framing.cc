// The relay's framings: ream's own frames through protocol/ream_frame.h, else chunks.
#include "relay/framing.h"

#include "protocol/ream_frame.h"

namespace ream::relay {

ProtocolFraming FramingFor(std::string_view protocol) {
  if (protocol == "ream") return {Framing::kReamRequests, Framing::kReamResponses};
  return {};
}

Result<size_t> NextMessage(Framing f, std::string_view data) {
  switch (f) {
    case Framing::kChunk:
      return data.size();
    case Framing::kReamRequests: {
      frame::RequestFrame r;
      return frame::ParseRequest(data, &r);
    }
    case Framing::kReamResponses: {
      frame::ResponseFrame r;
      return frame::ParseResponse(data, &r);
    }
  }
  return data.size();
}

std::string RelayMethod(std::string_view protocol) {
  if (FramingFor(protocol).messages()) {
    return "relay (message granularity, " + std::string(protocol) + " framing)";
  }
  // The other protocols' codecs parse only responses, and some need the request to do it (an
  // HTTP HEAD): each read is one message, so g and G count TCP chunks, not requests.
  if (protocol.empty()) return "relay (chunk granularity: no protocol given)";
  return "relay (chunk granularity: no " + std::string(protocol) + " request framer)";
}

}  // namespace ream::relay
