// ream's own wire protocol: length-prefixed little-endian binary frames. A request carries an
// id, an operation, a key and a payload; every response echoes the id and carries the
// server-measured service time and the time the request waited inside the server. The byte
// layout is specified in docs/protocol.md; this file is its only implementation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/status.h"
#include "protocol/codec.h"

namespace ream::frame {

inline constexpr uint16_t kMagic = 0x4552;  // bytes 'R' 'E' on the wire
inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kRequestHeaderBytes = 24;
inline constexpr size_t kResponseHeaderBytes = 32;
inline constexpr size_t kMaxKeyBytes = 1024;
// Largest frame either side accepts (header included); a peer announcing more is rejected
// before anything is buffered, so a garbage length cannot make us allocate gigabytes.
inline constexpr size_t kMaxFrameBytes = 4 * 1024 * 1024;

enum class ResponseStatus : uint8_t {
  kOk = 0,
  kNotFound = 1,  // get/delete of an absent key: an answer, not an error
  kError = 2,     // the payload is the server's error text
};

// A request as the server sees it; key and value point into the parsed buffer.
struct RequestFrame {
  uint64_t id = 0;
  Op op = Op::kGet;
  uint32_t arg = 0;  // kScan: the most records to return; 0 otherwise
  std::string_view key;
  std::string_view value;  // kSet: the value to store
};

// A response as the client sees it; payload points into the parsed buffer.
struct ResponseFrame {
  uint64_t id = 0;
  ResponseStatus status = ResponseStatus::kOk;
  int64_t service_ns = 0;
  int64_t queue_ns = 0;
  std::string_view payload;
};

// Appends one request frame to *out. InvalidArgument when the key exceeds kMaxKeyBytes or the
// frame would exceed kMaxFrameBytes.
Status AppendRequest(const RequestFrame& request, std::string* out);
// Writes one request frame into `dst` (which must hold RequestBytes(request) bytes).
size_t RequestBytes(const RequestFrame& request);
void WriteRequest(const RequestFrame& request, char* dst);

// Parses at most one request from the front of `data`: the bytes consumed, 0 when `data` holds
// no complete frame yet, or Corrupt naming the defect (bad magic/version/op, a length that is
// too small, too large or inconsistent with the key length). Never reads past `data`.
Result<size_t> ParseRequest(std::string_view data, RequestFrame* out);

// Response encoding: the header is written first with placeholder times so a server can build
// the payload in place and patch the times (PatchResponseTimes) when it is done.
size_t ResponseBytes(size_t payload_bytes);
void WriteResponseHeader(uint64_t id, ResponseStatus status, size_t payload_bytes, char* dst);
void PatchResponseTimes(char* frame, int64_t service_ns, int64_t queue_ns);
// Appends a complete response (for errors and tests).
void AppendResponse(const ResponseFrame& response, std::string* out);

// As ParseRequest, for responses.
Result<size_t> ParseResponse(std::string_view data, ResponseFrame* out);

}  // namespace ream::frame
