// Shared body of the parser fuzz targets: drive one codec over the input as a reply stream and
// check the ClientCodec::ParseResponse contract at every reply boundary.
#include "fuzz/fuzz_targets.h"

#include <memory>
#include <string>
#include <string_view>

#include "protocol/http_codec.h"
#include "protocol/memcached_binary_codec.h"
#include "protocol/memcached_codec.h"
#include "protocol/redis_codec.h"

namespace ream::fuzz {
namespace {

thread_local size_t last_reply_count = 0;

// Ok(0) expected: `prefix` is a strict prefix of a reply (or of an incomplete stream).
std::string ExpectIncomplete(ClientCodec& codec, std::string_view prefix, const char* what) {
  Response r;
  auto n = codec.ParseResponse(prefix, &r);
  if (!n.ok()) {
    return std::string(what) + ": a prefix of " + std::to_string(prefix.size()) +
           " bytes is an error (" + n.status().ToString() + ") though the whole is not";
  }
  if (*n != 0) {
    return std::string(what) + ": a prefix of " + std::to_string(prefix.size()) +
           " bytes parsed as a complete reply of " + std::to_string(*n) + " bytes";
  }
  return "";
}

std::string CheckStream(ClientCodec& codec, std::string_view all) {
  last_reply_count = 0;
  std::string_view rest = all;
  size_t replies = 0;
  while (!rest.empty()) {
    Response r;
    auto n = codec.ParseResponse(rest, &r);
    if (!n.ok()) {
      if (n.status().code() != StatusCode::kCorrupt) {
        return "parse failed with a non-Corrupt status: " + n.status().ToString();
      }
      if (n.status().message().empty()) return "parse failed without a message";
      break;
    }
    if (*n == 0) {
      // Incomplete: shorter prefixes must be incomplete too.
      for (size_t cut : {rest.size() / 2, rest.size() - 1}) {
        std::string e = ExpectIncomplete(codec, rest.substr(0, cut), "incomplete stream");
        if (!e.empty()) return e;
      }
      break;
    }
    if (*n > rest.size()) {
      return "consumed " + std::to_string(*n) + " bytes of " + std::to_string(rest.size());
    }
    if (r.ok != r.error.empty()) return "ok and error text disagree";
    if (r.has_server_times) return "a protocol without server times reported them";
    // Self-delimiting: the reply alone parses to the same result.
    Response again;
    auto m = codec.ParseResponse(rest.substr(0, *n), &again);
    if (!m.ok() || *m != *n || again.ok != r.ok || again.error != r.error) {
      return "the reply parses differently without the bytes after it";
    }
    // No strict prefix of a reply is a reply (checked at a few cut points).
    for (size_t cut : {size_t{0}, *n / 3, *n / 2, *n - 1}) {
      if (cut >= *n) continue;
      std::string e = ExpectIncomplete(codec, rest.substr(0, cut), "reply prefix");
      if (!e.empty()) return e;
    }
    ++replies;
    rest.remove_prefix(*n);
  }
  last_reply_count = replies;
  return "";
}

// Encoding with a key taken from the input must either succeed or refuse with a message.
std::string CheckEncode(ClientCodec& codec, std::string_view all) {
  std::string_view key = all.substr(0, all.size() < 300 ? all.size() : 300);
  for (Op op : {Op::kGet, Op::kSet, Op::kDelete, Op::kScan}) {
    Request req;
    req.op = op;
    req.key = key;
    req.value = all.substr(key.size());
    std::string out = "x";
    Status s = codec.EncodeRequest(req, &out);
    if (!s.ok() && s.message().empty()) return "encode refused without a message";
    if (s.ok() && out.size() <= 1) return "encode succeeded without output";
  }
  return "";
}

std::string Run(Result<std::unique_ptr<ClientCodec>> made, const uint8_t* data, size_t size) {
  if (!made.ok()) return "cannot make the codec: " + made.status().ToString();
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::string e = CheckStream(**made, all);
  if (!e.empty()) return e;
  size_t replies = last_reply_count;
  e = CheckEncode(**made, all);
  last_reply_count = replies;
  return e;
}

}  // namespace

std::string MemcachedReplies(const uint8_t* data, size_t size) {
  return Run(MakeMemcachedCodec(CodecOptions()), data, size);
}

std::string MemcachedBinaryReplies(const uint8_t* data, size_t size) {
  return Run(MakeMemcachedBinaryCodec(CodecOptions()), data, size);
}

std::string RedisReplies(const uint8_t* data, size_t size) {
  return Run(MakeRedisCodec(CodecOptions()), data, size);
}

std::string HttpReplies(const uint8_t* data, size_t size) {
  CodecOptions options;
  options.http_path = "/item/{key}";
  return Run(MakeHttpCodec(options), data, size);
}

size_t LastReplyCount() { return last_reply_count; }

}  // namespace ream::fuzz
