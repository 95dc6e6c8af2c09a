// memcached binary protocol client codec (the packet layout of memcached's
// doc/protocol-binary.xml: a 24-byte header, then extras, key and value). Every length is
// checked against MemcachedBinaryLimits before it is used; nothing is copied.
#include "protocol/memcached_binary_codec.h"

#include <cstring>
#include <string>
#include <string_view>

#include "protocol/printable.h"

namespace ream {
namespace {

constexpr uint8_t kRequestMagic = 0x80, kResponseMagic = 0x81;
enum Opcode : uint8_t {
  kOpGet = 0x00, kOpSet = 0x01, kOpDelete = 0x04, kOpGetQ = 0x09, kOpNoop = 0x0a, kOpGetK = 0x0c, kOpGetKQ = 0x0d,
};
constexpr uint16_t kStatusOk = 0x0000, kStatusKeyNotFound = 0x0001;

void PutBe(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBe(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return v;
}

void AppendHeader(std::string* out, uint8_t opcode, size_t key, size_t extras, size_t body, uint32_t opaque) {
  out->push_back(static_cast<char>(kRequestMagic));
  out->push_back(static_cast<char>(opcode));
  PutBe(out, key, 2);
  out->push_back(static_cast<char>(extras));
  out->push_back(0);  // data type: raw bytes
  PutBe(out, 0, 2);   // vbucket
  PutBe(out, body, 4);
  PutBe(out, opaque, 4);
  PutBe(out, 0, 8);   // CAS
}

const char* StatusText(uint16_t status) {
  switch (status) {
    case 0x0001: return "key not found";
    case 0x0002: return "key exists";
    case 0x0003: return "value too large";
    case 0x0004: return "invalid arguments";
    case 0x0005: return "item not stored";
    case 0x0006: return "incr/decr on a non-numeric value";
    case 0x0081: return "unknown command";
    case 0x0082: return "out of memory";
    default: return "unknown status";
  }
}

Status CheckBinaryKey(std::string_view key) {
  if (!key.empty() && key.size() <= MemcachedBinaryLimits::kMaxKeyBytes) return Status::Ok();
  return InvalidArgument("memcached binary key must be 1.." + std::to_string(MemcachedBinaryLimits::kMaxKeyBytes) +
                         " bytes, got " + std::to_string(key.size()));
}

class MemcachedBinaryCodec final : public ClientCodec {
 public:
  explicit MemcachedBinaryCodec(const CodecOptions& options) : default_value_(options.value_bytes, 'v') {}

  std::string_view name() const override { return "memcached-binary"; }

  // In order, without server times, sets and multigets: the defaults and the batch bound.
  CodecCapabilities capabilities() const override { return {.max_multiget_keys = kMaxMultigetKeys}; }

  Status EncodeRequest(const Request& request, std::string* out) override {
    // The opaque carries the request id's low bits: replies are matched in order, the opaque
    // only helps someone reading a capture.
    const auto opaque = static_cast<uint32_t>(request.id);
    if (!request.keys.empty()) {
      if (request.op != Op::kGet || request.keys.size() > kMaxMultigetKeys) {
        return InvalidArgument("memcached binary multi-key requests are gets of 1.." +
                               std::to_string(kMaxMultigetKeys) + " keys");
      }
      for (std::string_view k : request.keys) REAM_RETURN_IF_ERROR(CheckBinaryKey(k));
      for (std::string_view k : request.keys) {
        AppendHeader(out, kOpGetKQ, k.size(), 0, k.size(), opaque);
        out->append(k);
      }
      AppendHeader(out, kOpNoop, 0, 0, 0, opaque);
      return Status::Ok();
    }
    REAM_RETURN_IF_ERROR(CheckBinaryKey(request.key));
    switch (request.op) {
      case Op::kGet:
      case Op::kDelete:
        AppendHeader(out, request.op == Op::kGet ? kOpGet : kOpDelete, request.key.size(), 0, request.key.size(), opaque);
        out->append(request.key);
        return Status::Ok();
      case Op::kSet: {
        std::string_view value = request.value.empty() ? std::string_view(default_value_) : request.value;
        const size_t body = 8 + request.key.size() + value.size();
        if (body > MemcachedBinaryLimits::kMaxBodyBytes) {
          return InvalidArgument("memcached binary value of " + std::to_string(value.size()) +
                                 " bytes exceeds the limit of " + std::to_string(MemcachedBinaryLimits::kMaxBodyBytes));
        }
        AppendHeader(out, kOpSet, request.key.size(), 8, body, opaque);
        PutBe(out, 0, 4);  // flags
        PutBe(out, 0, 4);  // expiration: never
        out->append(request.key).append(value);
        return Status::Ok();
      }
      case Op::kScan:
        break;
    }
    return InvalidArgument("memcached has no range scan; use get, set or delete");
  }

  Result<size_t> ParseResponse(std::string_view data, Response* out) override {
    *out = Response{};
    size_t pos = 0;
    size_t quiet = 0;
    for (;;) {
      // The header's fixed fields are judged as soon as they are in, so another protocol's
      // reply is refused at its first byte rather than waited on.
      const size_t have = data.size() - pos;
      const auto* h = reinterpret_cast<const unsigned char*>(data.data() + pos);
      if (have >= 1 && h[0] != kResponseMagic) {
        return Corrupt("memcached binary reply does not start with the response magic 0x81 (got 0x" + Hex(h[0]) +
                       ": '" + Printable(data.substr(pos, 16)) + "')");
      }
      if (have >= 2 && h[1] != kOpGet && h[1] != kOpSet && h[1] != kOpDelete && h[1] != kOpGetQ && h[1] != kOpNoop &&
          h[1] != kOpGetK && h[1] != kOpGetKQ) {
        return Corrupt("memcached binary reply to opcode 0x" + Hex(h[1]) + ", which ream never sends");
      }
      if (have >= 6 && h[5] != 0) return Corrupt("memcached binary reply of data type 0x" + Hex(h[5]) + ", not raw bytes");
      if (have < MemcachedBinaryLimits::kHeaderBytes) return size_t{0};
      const uint8_t opcode = h[1];
      const auto key_len = static_cast<size_t>(GetBe(h + 2, 2));
      const size_t extras = h[4];
      const auto status = static_cast<uint16_t>(GetBe(h + 6, 2));
      const auto body = static_cast<uint32_t>(GetBe(h + 8, 4));
      if (body > MemcachedBinaryLimits::kMaxBodyBytes || extras + key_len > body) {
        return Corrupt("memcached binary reply with a body of " + std::to_string(body) + " bytes for " +
                       std::to_string(extras) + " bytes of extras and " + std::to_string(key_len) +
                       " of key (limit " + std::to_string(MemcachedBinaryLimits::kMaxBodyBytes) + ")");
      }
      const size_t end = pos + MemcachedBinaryLimits::kHeaderBytes + body;
      if (end > MemcachedBinaryLimits::kMaxReplyBytes) {
        return Corrupt("memcached binary reply longer than " + std::to_string(MemcachedBinaryLimits::kMaxReplyBytes) +
                       " bytes");
      }
      if (data.size() < end) return size_t{0};
      const bool is_quiet = opcode == kOpGetQ || opcode == kOpGetKQ;
      if (status != kStatusOk && !(status == kStatusKeyNotFound && opcode != kOpSet)) {
        // A failure (a quiet get's too: only its misses are silent) fails the request; the
        // rest of a multiget's reply is still read up to its NOOP.
        if (out->ok) {
          out->ok = false;
          const std::string_view text = data.substr(pos + MemcachedBinaryLimits::kHeaderBytes + extras + key_len,
                                                    body - extras - key_len);
          out->error = "status 0x" + Hex(status >> 8) + Hex(status & 0xff) + " (" + StatusText(status) + ")" +
                       (text.empty() ? "" : ": " + Printable(text, 120));
        }
      }
      pos = end;
      if (!is_quiet) return pos;
      if (++quiet > MemcachedBinaryLimits::kMaxQuietPackets) {
        return Corrupt("memcached binary reply holds more than " +
                       std::to_string(MemcachedBinaryLimits::kMaxQuietPackets) + " quiet get answers before its end");
      }
    }
  }

 private:
  static std::string Hex(unsigned v) {
    static const char kDigits[] = "0123456789abcdef";
    return {kDigits[(v >> 4) & 0xf], kDigits[v & 0xf]};
  }
  std::string default_value_;  // sent by set requests that carry no value of their own
};

}  // namespace

Result<std::unique_ptr<ClientCodec>> MakeMemcachedBinaryCodec(const CodecOptions& options) {
  return std::unique_ptr<ClientCodec>(new MemcachedBinaryCodec(options));
}

}  // namespace ream
