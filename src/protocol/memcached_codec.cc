// memcached text protocol client codec. Replies are parsed from the front of the buffer
// without copying; every length is checked against MemcachedLimits before it is used.
#include "protocol/memcached_codec.h"
#include "protocol/printable.h"

#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

namespace ream {
namespace {

enum class LineState { kNeedMore, kOk, kCorrupt };

// Finds the CRLF-terminated line starting at data[pos]. On kOk, *line is the line without
// CRLF and *next the offset just past it.
LineState ReadLine(std::string_view data, size_t pos, std::string_view* line, size_t* next,
                   Status* error) {
  std::string_view rest = data.substr(pos);
  size_t window = rest.size() < MemcachedLimits::kMaxLineBytes ? rest.size()
                                                               : MemcachedLimits::kMaxLineBytes;
  const void* nl = std::memchr(rest.data(), '\n', window);
  if (nl == nullptr) {
    if (rest.size() >= MemcachedLimits::kMaxLineBytes) {
      *error = Corrupt("memcached reply line longer than " +
                       std::to_string(MemcachedLimits::kMaxLineBytes) + " bytes: '" +
                       Printable(rest) + "'");
      return LineState::kCorrupt;
    }
    return LineState::kNeedMore;
  }
  size_t len = static_cast<const char*>(nl) - rest.data();
  if (len == 0 || rest[len - 1] != '\r') {
    *error = Corrupt("memcached reply line not terminated by CRLF: '" +
                     Printable(rest.substr(0, len)) + "'");
    return LineState::kCorrupt;
  }
  *line = rest.substr(0, len - 1);
  *next = pos + len + 1;
  return LineState::kOk;
}

// Parses a decimal unsigned field; false on anything but 1..20 digits that fit in uint64.
bool ParseUnsigned(std::string_view s, uint64_t* value) {
  if (s.empty() || s.size() > 20) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *value);
  return ec == std::errc() && p == s.data() + s.size();
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// Splits on single spaces; at most `max` fields, false when there are more.
size_t SplitFields(std::string_view s, std::string_view* fields, size_t max, bool* too_many) {
  size_t n = 0;
  *too_many = false;
  while (!s.empty()) {
    size_t sp = s.find(' ');
    std::string_view f = s.substr(0, sp);
    if (!f.empty()) {
      if (n == max) {
        *too_many = true;
        return n;
      }
      fields[n++] = f;
    }
    if (sp == std::string_view::npos) break;
    s.remove_prefix(sp + 1);
  }
  return n;
}

bool ValidKey(std::string_view key) {
  if (key.empty() || key.size() > MemcachedLimits::kMaxKeyBytes) return false;
  for (char c : key) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return false;
  }
  return true;
}

Status CheckKey(std::string_view key) {
  if (ValidKey(key)) return Status::Ok();
  return InvalidArgument("memcached key must be 1.." + std::to_string(MemcachedLimits::kMaxKeyBytes) +
                         " bytes without spaces or control characters, got '" + Printable(key) + "'");
}

class MemcachedCodec final : public ClientCodec {
 public:
  explicit MemcachedCodec(const CodecOptions& options)
      : default_value_(options.value_bytes, 'v') {}

  std::string_view name() const override { return "memcached"; }

  CodecCapabilities capabilities() const override {
    CodecCapabilities caps;
    caps.matches_by_id = false;
    caps.reports_service_time = false;
    caps.supports_set = true;
    caps.max_multiget_keys = kMaxMultigetKeys;
    return caps;
  }

  Status EncodeRequest(const Request& request, std::string* out) override {
    if (!request.keys.empty()) {
      // A multiget: `get k1 k2 ...`, answered by the hits' VALUE blocks and one END.
      if (request.op != Op::kGet || request.keys.size() > kMaxMultigetKeys) {
        return InvalidArgument("memcached multi-key requests are gets of 1.." + std::to_string(kMaxMultigetKeys) +
                               " keys");
      }
      for (std::string_view k : request.keys) REAM_RETURN_IF_ERROR(CheckKey(k));
      out->append("get");
      for (std::string_view k : request.keys) out->append(" ").append(k);
      out->append("\r\n");
      return Status::Ok();
    }
    REAM_RETURN_IF_ERROR(CheckKey(request.key));
    switch (request.op) {
      case Op::kGet:
        out->append("get ").append(request.key).append("\r\n");
        return Status::Ok();
      case Op::kSet: {
        std::string_view value = request.value.empty() ? default_value_ : request.value;
        if (value.size() > MemcachedLimits::kMaxValueBytes) {
          return InvalidArgument("memcached value of " + std::to_string(value.size()) +
                                 " bytes exceeds the limit of " +
                                 std::to_string(MemcachedLimits::kMaxValueBytes));
        }
        char len[24];
        auto [end, ec] = std::to_chars(len, len + sizeof(len), value.size());
        (void)ec;
        out->append("set ").append(request.key).append(" 0 0 ");
        out->append(len, end).append("\r\n").append(value).append("\r\n");
        return Status::Ok();
      }
      case Op::kDelete:
        out->append("delete ").append(request.key).append("\r\n");
        return Status::Ok();
      case Op::kScan:
        break;
    }
    return InvalidArgument("memcached has no range scan; use get, set or delete");
  }

  Result<size_t> ParseResponse(std::string_view data, Response* out) override {
    *out = Response{};
    size_t pos = 0;
    size_t values = 0;
    Status error;
    for (;;) {
      std::string_view line;
      size_t next = 0;
      switch (ReadLine(data, pos, &line, &next, &error)) {
        case LineState::kNeedMore:
          return size_t{0};
        case LineState::kCorrupt:
          return error;
        case LineState::kOk:
          break;
      }
      if (line == "END") return next;  // end of a get: hit(s) before it, or a miss
      if (StartsWith(line, "VALUE ")) {
        // VALUE <key> <flags> <bytes> [<cas unique>]
        std::string_view fields[4];
        bool too_many = false;
        size_t n = SplitFields(line.substr(6), fields, 4, &too_many);
        uint64_t flags = 0, bytes = 0, cas = 0;
        if (too_many || n < 3 || !ParseUnsigned(fields[1], &flags) ||
            !ParseUnsigned(fields[2], &bytes) || (n == 4 && !ParseUnsigned(fields[3], &cas))) {
          return Corrupt("malformed memcached VALUE line: '" + Printable(line) + "'");
        }
        if (bytes > MemcachedLimits::kMaxValueBytes ||
            next + bytes > MemcachedLimits::kMaxValueBytes + MemcachedLimits::kMaxLineBytes) {
          return Corrupt("memcached VALUE of " + std::to_string(bytes) +
                         " bytes makes the reply exceed the limit of " +
                         std::to_string(MemcachedLimits::kMaxValueBytes) + " bytes");
        }
        if (++values > MemcachedLimits::kMaxValuesPerReply) {
          return Corrupt("memcached reply holds more than " +
                         std::to_string(MemcachedLimits::kMaxValuesPerReply) + " VALUE blocks");
        }
        // The data block and its CRLF.
        size_t avail = data.size() - next;
        if (avail < bytes + 2) return size_t{0};
        if (data[next + bytes] != '\r' || data[next + bytes + 1] != '\n') {
          return Corrupt("memcached VALUE data of " + std::to_string(bytes) +
                         " bytes not followed by CRLF");
        }
        pos = next + bytes + 2;
        continue;
      }
      if (values > 0) {
        return Corrupt("memcached get reply ended by '" + Printable(line) +
                       "' instead of END");
      }
      if (line == "STORED" || line == "DELETED" || line == "NOT_FOUND" || line == "TOUCHED") {
        return next;  // NOT_FOUND: delete of an absent key, a miss like a get's END
      }
      if (line == "NOT_STORED" || line == "EXISTS" || line == "ERROR" ||
          StartsWith(line, "CLIENT_ERROR") || StartsWith(line, "SERVER_ERROR")) {
        if ((StartsWith(line, "CLIENT_ERROR") || StartsWith(line, "SERVER_ERROR")) &&
            line.size() > 12 && line[12] != ' ') {
          return Corrupt("unexpected memcached reply line: '" + Printable(line) + "'");
        }
        out->ok = false;
        out->error = Printable(line, 200);
        return next;
      }
      return Corrupt("unexpected memcached reply line: '" + Printable(line) + "'");
    }
  }

 private:
  std::string default_value_;  // sent by set requests that carry no value of their own
};

}  // namespace

Result<std::unique_ptr<ClientCodec>> MakeMemcachedCodec(const CodecOptions& options) {
  return std::unique_ptr<ClientCodec>(new MemcachedCodec(options));
}

}  // namespace ream
