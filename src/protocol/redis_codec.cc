// RESP client codec. The parser is a bounded recursive descent over the buffer: it never
// copies the reply, checks every declared length against RedisLimits before using it, and
// answers "need more" until the whole reply is in the buffer.
#include "protocol/redis_codec.h"
#include "protocol/printable.h"

#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

namespace ream {
namespace {

bool ParseInt(std::string_view s, int64_t* v) {
  if (s.empty() || s.size() > 20) return false;
  if (s[0] == '+') s.remove_prefix(1);  // RESP3 allows an explicit sign
  if (s.empty() || s[0] == '+') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// RESP3 double: [sign] digits [. digits] [e [sign] digits], or inf, -inf, nan.
bool ValidDouble(std::string_view s) {
  if (s == "inf" || s == "-inf" || s == "+inf" || s == "nan") return true;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == start) return false;
  if (i < s.size() && s[i] == '.') {
    size_t frac = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == frac) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == exp) return false;
  }
  return i == s.size();
}

enum class RedisStep { kNeedMore, kDone, kCorrupt };

class RespParser {
 public:
  explicit RespParser(std::string_view data) : data_(data) {}

  // Parses one value (after any attributes) starting at *pos. On kDone, *pos is past it,
  // *type its type byte and, for error replies, *error_text its message.
  RedisStep Value(size_t* pos, int depth, char* type, std::string_view* error_text) {
    if (depth > RedisLimits::kMaxDepth) {
      return Fail("RESP reply nested deeper than " + std::to_string(RedisLimits::kMaxDepth) +
                  " levels");
    }
    for (;;) {
      if (*pos > RedisLimits::kMaxReplyBytes) {
        return Fail("RESP reply longer than " + std::to_string(RedisLimits::kMaxReplyBytes) +
                    " bytes");
      }
      if (*pos >= data_.size()) return RedisStep::kNeedMore;
      char t = data_[*pos];
      std::string_view line;
      size_t next = 0;
      RedisStep s = Line(*pos + 1, &line, &next);
      if (s != RedisStep::kDone) return s;
      *type = t;
      switch (t) {
        case '+':
          if (line.find('\r') != std::string_view::npos) {
            return Fail("RESP simple string holds a CR: '" + Printable(line) + "'");
          }
          *pos = next;
          return RedisStep::kDone;
        case '-':
          if (error_text != nullptr) *error_text = line;
          *pos = next;
          return RedisStep::kDone;
        case ':': {
          int64_t v = 0;
          if (!ParseInt(line, &v)) return Fail("RESP integer is malformed: '" + Printable(line) + "'");
          *pos = next;
          return RedisStep::kDone;
        }
        case '_':
          if (!line.empty()) return Fail("RESP null carries data: '" + Printable(line) + "'");
          *pos = next;
          return RedisStep::kDone;
        case ',':
          if (!ValidDouble(line)) return Fail("RESP double is malformed: '" + Printable(line) + "'");
          *pos = next;
          return RedisStep::kDone;
        case '#':
          if (line != "t" && line != "f") {
            return Fail("RESP boolean is neither t nor f: '" + Printable(line) + "'");
          }
          *pos = next;
          return RedisStep::kDone;
        case '(': {
          std::string_view digits = line;
          if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
          if (!AllDigits(digits)) {
            return Fail("RESP big number is malformed: '" + Printable(line) + "'");
          }
          *pos = next;
          return RedisStep::kDone;
        }
        case '$':
        case '!':
        case '=': {
          if (t == '$' && line == "?") return StreamedString(next, pos);
          int64_t len = 0;
          if (!ParseInt(line, &len) || len < -1) {
            return Fail(std::string("RESP length of '") + t + "' is malformed: '" +
                        Printable(line) + "'");
          }
          if (len == -1) {
            if (t != '$') return Fail(std::string("RESP '") + t + "' cannot be null");
            *pos = next;  // RESP2 null bulk string
            return RedisStep::kDone;
          }
          std::string_view body;
          RedisStep b = Blob(next, len, &body, pos);
          if (b != RedisStep::kDone) return b;
          if (t == '=' && (body.size() < 4 || body[3] != ':')) {
            return Fail("RESP verbatim string lacks its 3-byte format prefix");
          }
          if (t == '!' && error_text != nullptr) *error_text = body;
          return RedisStep::kDone;
        }
        case '*':
        case '~':
        case '>':
        case '%':
        case '|': {
          const int64_t per_entry = (t == '%' || t == '|') ? 2 : 1;
          if (line == "?" && t != '|' && t != '>') return StreamedAggregate(next, depth, per_entry, t, pos);
          int64_t count = 0;
          if (!ParseInt(line, &count) || count < -1) {
            return Fail(std::string("RESP count of '") + t + "' is malformed: '" +
                        Printable(line) + "'");
          }
          if (count == -1) {
            if (t != '*') return Fail(std::string("RESP '") + t + "' cannot be null");
            *pos = next;  // RESP2 null array
            return RedisStep::kDone;
          }
          if (count > RedisLimits::kMaxElements) {
            return Fail("RESP aggregate of " + std::to_string(count) +
                        " entries exceeds the limit of " +
                        std::to_string(RedisLimits::kMaxElements));
          }
          size_t p = next;
          for (int64_t i = 0; i < count * per_entry; ++i) {
            char inner = 0;
            RedisStep e = Value(&p, depth + 1, &inner, nullptr);
            if (e != RedisStep::kDone) return e;
          }
          *pos = p;
          if (t == '|') continue;  // an attribute annotates the value that follows it
          return RedisStep::kDone;
        }
        default:
          return Fail("not a RESP reply: unknown type byte '" +
                      Printable(data_.substr(*pos, 1)) + "' in '" +
                      Printable(data_.substr(*pos, 32)) + "'");
      }
    }
  }

  const Status& error() const { return error_; }

 private:
  RedisStep Fail(std::string message) {
    error_ = Corrupt(std::move(message));
    return RedisStep::kCorrupt;
  }

  // The CRLF-terminated line starting at `pos`, without its CRLF; *next is past it.
  RedisStep Line(size_t pos, std::string_view* line, size_t* next) {
    if (pos >= data_.size()) return RedisStep::kNeedMore;
    std::string_view rest = data_.substr(pos);
    size_t window = rest.size() < RedisLimits::kMaxLineBytes ? rest.size()
                                                             : RedisLimits::kMaxLineBytes;
    const void* nl = std::memchr(rest.data(), '\n', window);
    if (nl == nullptr) {
      if (rest.size() >= RedisLimits::kMaxLineBytes) {
        return Fail("RESP line longer than " + std::to_string(RedisLimits::kMaxLineBytes) +
                    " bytes");
      }
      return RedisStep::kNeedMore;
    }
    size_t len = static_cast<const char*>(nl) - rest.data();
    if (len == 0 || rest[len - 1] != '\r') {
      return Fail("RESP line not terminated by CRLF: '" + Printable(rest.substr(0, len)) + "'");
    }
    *line = rest.substr(0, len - 1);
    *next = pos + len + 1;
    return RedisStep::kDone;
  }

  // `len` bytes of data at `pos` followed by CRLF; *end is past the CRLF.
  RedisStep Blob(size_t pos, int64_t len, std::string_view* body, size_t* end) {
    if (len < 0 || static_cast<uint64_t>(len) > RedisLimits::kMaxReplyBytes ||
        pos + static_cast<size_t>(len) > RedisLimits::kMaxReplyBytes) {
      return Fail("RESP string of " + std::to_string(len) +
                  " bytes makes the reply exceed the limit of " +
                  std::to_string(RedisLimits::kMaxReplyBytes) + " bytes");
    }
    size_t n = static_cast<size_t>(len);
    if (data_.size() - pos < n + 2) return RedisStep::kNeedMore;
    if (data_[pos + n] != '\r' || data_[pos + n + 1] != '\n') {
      return Fail("RESP string of " + std::to_string(n) + " bytes not followed by CRLF");
    }
    *body = data_.substr(pos, n);
    *end = pos + n + 2;
    return RedisStep::kDone;
  }

  // RESP3 streamed string: ";<len>\r\n<data>\r\n" chunks until ";0\r\n".
  RedisStep StreamedString(size_t p, size_t* pos) {
    for (;;) {
      if (p >= data_.size()) return RedisStep::kNeedMore;
      if (data_[p] != ';') {
        return Fail("RESP streamed string chunk does not start with ';': '" +
                    Printable(data_.substr(p, 32)) + "'");
      }
      std::string_view line;
      size_t next = 0;
      RedisStep s = Line(p + 1, &line, &next);
      if (s != RedisStep::kDone) return s;
      int64_t len = 0;
      if (!ParseInt(line, &len) || len < 0) {
        return Fail("RESP streamed string chunk length is malformed: '" + Printable(line) + "'");
      }
      if (len == 0) {
        *pos = next;
        return RedisStep::kDone;
      }
      std::string_view body;
      RedisStep b = Blob(next, len, &body, &p);
      if (b != RedisStep::kDone) return b;
    }
  }

  // RESP3 streamed aggregate: entries until the end marker ".\r\n".
  RedisStep StreamedAggregate(size_t p, int depth, int64_t per_entry, char t, size_t* pos) {
    int64_t values = 0;
    for (;;) {
      if (p >= data_.size()) return RedisStep::kNeedMore;
      if (data_[p] == '.') {
        std::string_view line;
        size_t next = 0;
        RedisStep s = Line(p + 1, &line, &next);
        if (s != RedisStep::kDone) return s;
        if (!line.empty() || values % per_entry != 0) {
          return Fail(std::string("RESP streamed '") + t + "' ends malformed");
        }
        *pos = next;
        return RedisStep::kDone;
      }
      if (values >= RedisLimits::kMaxElements * per_entry) {
        return Fail("RESP streamed aggregate exceeds " +
                    std::to_string(RedisLimits::kMaxElements) + " entries");
      }
      char inner = 0;
      RedisStep e = Value(&p, depth + 1, &inner, nullptr);
      if (e != RedisStep::kDone) return e;
      ++values;
    }
  }

  std::string_view data_;
  Status error_;
};

void AppendBulk(std::string_view s, std::string* out) {
  char len[24];
  auto [end, ec] = std::to_chars(len, len + sizeof(len), s.size());
  (void)ec;
  out->push_back('$');
  out->append(len, end).append("\r\n").append(s).append("\r\n");
}

class RedisCodec final : public ClientCodec {
 public:
  explicit RedisCodec(const CodecOptions& options) : default_value_(options.value_bytes, 'v') {}

  std::string_view name() const override { return "redis"; }

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
      // MGET k1 k2 ...: one array reply, a bulk string or a null per key.
      if (request.op != Op::kGet || request.keys.size() > kMaxMultigetKeys) {
        return InvalidArgument("redis multi-key requests are MGETs of 1.." + std::to_string(kMaxMultigetKeys) + " keys");
      }
      char n[24];
      auto [end, ec] = std::to_chars(n, n + sizeof(n), request.keys.size() + 1);
      (void)ec;
      out->push_back('*');
      out->append(n, end).append("\r\n$4\r\nMGET\r\n");
      for (std::string_view k : request.keys) AppendBulk(k, out);
      return Status::Ok();
    }
    switch (request.op) {
      case Op::kGet:
        out->append("*2\r\n$3\r\nGET\r\n");
        AppendBulk(request.key, out);
        return Status::Ok();
      case Op::kSet: {
        std::string_view value = request.value.empty() ? default_value_ : request.value;
        if (value.size() > RedisLimits::kMaxReplyBytes) {
          return InvalidArgument("redis value of " + std::to_string(value.size()) +
                                 " bytes exceeds the limit of " +
                                 std::to_string(RedisLimits::kMaxReplyBytes));
        }
        out->append("*3\r\n$3\r\nSET\r\n");
        AppendBulk(request.key, out);
        AppendBulk(value, out);
        return Status::Ok();
      }
      case Op::kDelete:
        out->append("*2\r\n$3\r\nDEL\r\n");
        AppendBulk(request.key, out);
        return Status::Ok();
      case Op::kScan:
        break;
    }
    return InvalidArgument("the redis protocol here has no range scan; use get, set or delete");
  }

  Result<size_t> ParseResponse(std::string_view data, Response* out) override {
    *out = Response{};
    RespParser parser(data);
    size_t pos = 0;
    for (;;) {
      char type = 0;
      std::string_view error_text;
      switch (parser.Value(&pos, 0, &type, &error_text)) {
        case RedisStep::kNeedMore:
          return size_t{0};
        case RedisStep::kCorrupt:
          return parser.error();
        case RedisStep::kDone:
          break;
      }
      if (type == '>') {
        // An out-of-band push (RESP3 pub/sub, client tracking) answers no request.
        if (pos > RedisLimits::kMaxReplyBytes) {
          return Corrupt("RESP push messages exceed " +
                         std::to_string(RedisLimits::kMaxReplyBytes) + " bytes before a reply");
        }
        continue;
      }
      if (type == '-' || type == '!') {
        out->ok = false;
        // A failed request always carries a reason, even when the server sent none.
        out->error = error_text.empty() ? "(empty error reply)" : Printable(error_text, 200);
      }
      return pos;
    }
  }

 private:
  std::string default_value_;  // sent by set requests that carry no value of their own
};

}  // namespace

Result<std::unique_ptr<ClientCodec>> MakeRedisCodec(const CodecOptions& options) {
  return std::unique_ptr<ClientCodec>(new RedisCodec(options));
}

}  // namespace ream
