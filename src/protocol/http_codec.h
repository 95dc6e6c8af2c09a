// HTTP/1.1, client side: keep-alive, pipelined requests to a path template that may embed the
// key ("/item/{key}"), responses matched in order. The method follows the operation by default
// ("auto": gets are GET, sets are POST with a body of value_bytes), or is fixed to GET or POST
// for every request (then the get/set mix does not apply: supports_set is false). Responses are delimited by Content-Length or chunked encoding;
// interim 1xx responses are skipped; a non-2xx status is a failed request ("HTTP 404").
#pragma once

#include <cstddef>
#include <memory>

#include "protocol/codec.h"
#include "protocol/registry.h"

namespace ream {

// Bounds on what the parser accepts from a server, so a broken or hostile peer costs at most
// this much buffering before the connection is declared corrupt.
struct HttpLimits {
  static constexpr size_t kMaxHeaderBytes = 64u << 10;  // status line + headers (and trailers)
  static constexpr size_t kMaxHeaders = 100;            // header (or trailer) fields
  static constexpr size_t kMaxBodyBytes = 64u << 20;    // one body, all chunks together
  static constexpr size_t kMaxChunkLineBytes = 4096;    // a chunk-size line with extensions
  static constexpr size_t kMaxInterimResponses = 16;    // 1xx before the final response
  static constexpr size_t kMaxPathBytes = 8192;         // the request target after expansion
};

// InvalidArgument when the method is not GET or POST, the path template does not start with
// '/' or holds spaces or control characters, or the host is empty or malformed.
Result<std::unique_ptr<ClientCodec>> MakeHttpCodec(const CodecOptions& options);

}  // namespace ream
