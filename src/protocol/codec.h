// The client side of a wire protocol, as the load generator uses it: encode a request into a
// connection's output buffer, parse responses out of its input buffer. One implementation per
// protocol (ream, memcached, redis, http), each one file with a small capability table; the
// generator checks the flags, never the protocol's name.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "platform/status.h"

namespace ream {

enum class Op : uint8_t { kGet = 1, kSet = 2, kDelete = 3, kScan = 4 };

// The most keys one multi-key get carries (memcached `get k1 k2 ...`, Redis MGET): the
// generator's batches and the reply parsers' bounds.
inline constexpr size_t kMaxMultigetKeys = 100;

struct Request {
  uint64_t id = 0;          // unique per connection; echoed by protocols that match by id
  Op op = Op::kGet;
  std::string_view key;
  std::string_view value;   // for kSet
  uint32_t scan_count = 0;  // for kScan
  // A kGet of several keys, answered by one reply (`key` is ignored): only to a codec whose
  // max_multiget_keys is at least its size; empty for a get of `key` alone.
  std::span<const std::string_view> keys;
};

struct Response {
  uint64_t id = 0;             // valid when the codec matches_by_id
  bool ok = true;              // false: the server answered with an error for this request
  std::string error;           // the server's error text / status ("-ERR ...", "HTTP 503")
  bool has_server_times = false;
  int64_t service_ns = 0;      // server-measured service time (when has_server_times)
  int64_t queue_ns = 0;        // time the request waited inside the server
  // Set when the server said it closes the connection after this response (HTTP
  // "Connection: close"): why, in words. Requests written after it will not be answered.
  const char* closes_connection = nullptr;
};

// What a connection the server closed went through, judged by its codec from the bytes that
// arrived after the last complete response. Orderly: the close fell between responses (an
// HTTP keep-alive limit or idle timeout, Redis CLIENT KILL, a server that exits cleanly).
struct ServerClose {
  bool orderly = false;
  std::string reason;
};

// The judgement every codec shares: an RST is abrupt; a FIN with nothing pending is orderly;
// a FIN inside a response cut the response short.
inline ServerClose DescribeServerClose(std::string_view unparsed, bool reset) {
  if (reset) return {false, "the server reset the connection (RST)"};
  if (unparsed.empty()) return {true, "the server closed the connection after a complete response"};
  return {false, "the server closed the connection in the middle of a response (" +
                     std::to_string(unparsed.size()) + " bytes of it had arrived)"};
}

struct CodecCapabilities {
  bool matches_by_id = false;         // responses carry the request id (may arrive out of order)
  bool reports_service_time = false;  // responses carry server service and queue time
  bool supports_set = true;
  std::string no_sets_because;  // when !supports_set: why, for the user
  // The most keys a get may carry (Request::keys); 0: one key per get only.
  size_t max_multiget_keys = 0;
};

class ClientCodec {
 public:
  virtual ~ClientCodec() = default;
  virtual std::string_view name() const = 0;
  virtual CodecCapabilities capabilities() const = 0;
  // Appends the encoded request to *out. Never fails for valid requests; an oversized key or
  // value is an InvalidArgument.
  virtual Status EncodeRequest(const Request& request, std::string* out) = 0;
  // Parses at most one response from the front of `data`. Returns the bytes it consumed,
  // 0 when `data` holds no complete response yet, or Corrupt when the bytes cannot be a
  // response of this protocol (the connection is then unusable). Never reads past `data`.
  virtual Result<size_t> ParseResponse(std::string_view data, Response* out) = 0;
  // The server closed the connection (FIN, or an RST when `reset`) with `unparsed` left over
  // after the last complete response. A protocol whose responses could end at the close would
  // say so here; the ones ream speaks all delimit their responses, so they share the default.
  virtual ServerClose OnServerClose(std::string_view unparsed, bool reset) const {
    return DescribeServerClose(unparsed, reset);
  }
};

}  // namespace ream
