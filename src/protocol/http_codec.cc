// HTTP/1.1 client codec. The request template is split once at construction so encoding is
// appends only; the response parser walks status line, headers and body in place, checking
// every line and length against HttpLimits.
#include "protocol/http_codec.h"
#include "protocol/printable.h"

#include <charconv>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ream {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsTchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

// Field values and reason phrases: HTAB, SP, visible ASCII and obs-text; no other controls.
bool ValidText(std::string_view s) {
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

bool ParseDecimal(std::string_view s, uint64_t* v) {
  if (s.empty() || s.size() > 19) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

enum class Step { kNeedMore, kDone, kCorrupt };

class ResponseParser {
 public:
  explicit ResponseParser(std::string_view data) : data_(data) {}

  // Parses one final response from `pos`, skipping interim 1xx responses. On kDone, *end is
  // past it and *status its status code.
  Step Parse(size_t pos, size_t* end, int* status, bool* closes = nullptr) {
    for (size_t interim = 0;; ++interim) {
      Head head;
      Step s = ParseHead(pos, &head, &pos);
      if (s != Step::kDone) return s;
      if (head.status >= 100 && head.status < 200) {
        if (head.status == 101) return Fail("HTTP server switched protocols (101)");
        if (interim >= HttpLimits::kMaxInterimResponses) {
          return Fail("HTTP server sent more than " +
                      std::to_string(HttpLimits::kMaxInterimResponses) +
                      " interim (1xx) responses");
        }
        continue;
      }
      *status = head.status;
      // HTTP/1.1 keeps the connection unless "Connection: close"; HTTP/1.0 closes it unless
      // "Connection: keep-alive" (RFC 9112, 9.3).
      if (closes != nullptr) *closes = head.close || (head.minor == 0 && !head.keep_alive);
      if (head.status == 204 || head.status == 304) {
        *end = pos;
        return Step::kDone;
      }
      if (head.chunked) return ChunkedBody(pos, end);
      if (!head.has_length) {
        return Fail("HTTP " + std::to_string(head.status) +
                    " response has neither Content-Length nor chunked encoding: its body "
                    "would end only at connection close, which pipelining cannot delimit");
      }
      if (head.length > HttpLimits::kMaxBodyBytes) {
        return Fail("HTTP body of " + std::to_string(head.length) +
                    " bytes exceeds the limit of " + std::to_string(HttpLimits::kMaxBodyBytes));
      }
      if (data_.size() - pos < head.length) return Step::kNeedMore;
      *end = pos + head.length;
      return Step::kDone;
    }
  }

  const Status& error() const { return error_; }

 private:
  struct Head {
    int status = 0;
    bool chunked = false;
    bool has_length = false;
    uint64_t length = 0;
    int minor = 1;            // HTTP/1.<minor>
    bool close = false;       // a "close" token in Connection
    bool keep_alive = false;  // a "keep-alive" token in Connection
  };

  Step Fail(std::string message) {
    error_ = Corrupt(std::move(message));
    return Step::kCorrupt;
  }

  // The CRLF-terminated line at `pos` of at most `limit` bytes including CRLF.
  Step Line(size_t pos, size_t limit, std::string_view* line, size_t* next, const char* what) {
    if (pos >= data_.size()) return Step::kNeedMore;
    std::string_view rest = data_.substr(pos);
    size_t window = rest.size() < limit ? rest.size() : limit;
    const void* nl = std::memchr(rest.data(), '\n', window);
    if (nl == nullptr) {
      if (rest.size() >= limit) {
        return Fail(std::string("HTTP ") + what + " longer than " + std::to_string(limit) +
                    " bytes: '" + Printable(rest) + "'");
      }
      return Step::kNeedMore;
    }
    size_t len = static_cast<const char*>(nl) - rest.data();
    if (len == 0 || rest[len - 1] != '\r') {
      return Fail(std::string("HTTP ") + what + " not terminated by CRLF: '" +
                  Printable(rest.substr(0, len)) + "'");
    }
    *line = rest.substr(0, len - 1);
    *next = pos + len + 1;
    return Step::kDone;
  }

  // Header or trailer fields from `pos` up to and including the empty line; `start` is where
  // the section (with its status line) began, for the size limit.
  Step Fields(size_t start, size_t pos, Head* head, size_t* end) {
    for (size_t count = 0;; ++count) {
      size_t used = pos - start;
      if (used >= HttpLimits::kMaxHeaderBytes) {
        return Fail("HTTP header section longer than " +
                    std::to_string(HttpLimits::kMaxHeaderBytes) + " bytes");
      }
      std::string_view line;
      size_t next = 0;
      Step s = Line(pos, HttpLimits::kMaxHeaderBytes - used, &line, &next, "header section");
      if (s != Step::kDone) return s;
      pos = next;
      if (line.empty()) {
        *end = pos;
        return Step::kDone;
      }
      if (count >= HttpLimits::kMaxHeaders) {
        return Fail("HTTP response has more than " + std::to_string(HttpLimits::kMaxHeaders) +
                    " header fields");
      }
      size_t colon = line.find(':');
      if (colon == std::string_view::npos || colon == 0) {
        return Fail("HTTP header field without a name and colon: '" + Printable(line) + "'");
      }
      std::string_view name = line.substr(0, colon);
      for (char c : name) {
        if (!IsTchar(c)) {
          return Fail("HTTP header field name is malformed: '" + Printable(line) + "'");
        }
      }
      std::string_view value = TrimOws(line.substr(colon + 1));
      if (!ValidText(value)) {
        return Fail("HTTP header field value holds control characters: '" + Printable(line) +
                    "'");
      }
      if (head == nullptr) continue;  // trailers: checked, otherwise ignored
      if (EqualsIgnoreCase(name, "Content-Length")) {
        // A list of identical values ("42, 42") is allowed; anything else is an error.
        uint64_t length = 0;
        bool first = true;
        while (!value.empty()) {
          size_t comma = value.find(',');
          std::string_view item = TrimOws(value.substr(0, comma));
          uint64_t v = 0;
          if (!ParseDecimal(item, &v) || (!first && v != length)) {
            return Fail("HTTP Content-Length is malformed: '" + Printable(line) + "'");
          }
          length = v;
          first = false;
          if (comma == std::string_view::npos) break;
          value.remove_prefix(comma + 1);
        }
        if (first || (head->has_length && head->length != length)) {
          return Fail("HTTP Content-Length is malformed or contradicts an earlier one: '" +
                      Printable(line) + "'");
        }
        head->has_length = true;
        head->length = length;
      } else if (EqualsIgnoreCase(name, "Connection")) {
        // A comma-separated list of tokens; "close" and "keep-alive" are the ones that matter.
        std::string_view rest = value;
        while (!rest.empty()) {
          size_t comma = rest.find(',');
          std::string_view token = TrimOws(rest.substr(0, comma));
          if (EqualsIgnoreCase(token, "close")) head->close = true;
          if (EqualsIgnoreCase(token, "keep-alive")) head->keep_alive = true;
          if (comma == std::string_view::npos) break;
          rest.remove_prefix(comma + 1);
        }
      } else if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
        // The last coding must be chunked, else the body ends at connection close.
        std::string_view last = value;
        size_t comma = value.rfind(',');
        if (comma != std::string_view::npos) last = value.substr(comma + 1);
        if (!EqualsIgnoreCase(TrimOws(last), "chunked")) {
          return Fail("HTTP Transfer-Encoding '" + Printable(value) +
                      "' does not end with chunked: the body could not be delimited");
        }
        if (head->chunked) return Fail("HTTP response has Transfer-Encoding twice");
        head->chunked = true;
      }
    }
  }

  Step ParseHead(size_t pos, Head* head, size_t* end) {
    std::string_view line;
    size_t next = 0;
    Step s = Line(pos, HttpLimits::kMaxHeaderBytes, &line, &next, "status line");
    if (s != Step::kDone) return s;
    // HTTP/1.x SP 3DIGIT [SP reason-phrase]
    if (line.size() < 12 || line.compare(0, 7, "HTTP/1.") != 0 || line[7] < '0' ||
        line[7] > '9' || line[8] != ' ' || line[9] < '1' || line[9] > '5' || line[10] < '0' ||
        line[10] > '9' || line[11] < '0' || line[11] > '9' ||
        (line.size() > 12 && line[12] != ' ') || !ValidText(line.substr(12))) {
      return Fail("not an HTTP/1.x status line: '" + Printable(line) + "'");
    }
    head->minor = line[7] - '0';
    head->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    return Fields(pos, next, head, end);
  }

  Step ChunkedBody(size_t pos, size_t* end) {
    uint64_t total = 0;
    for (;;) {
      std::string_view line;
      size_t next = 0;
      Step s = Line(pos, HttpLimits::kMaxChunkLineBytes, &line, &next, "chunk-size line");
      if (s != Step::kDone) return s;
      // chunk-size [; extensions]
      size_t digits = 0;
      uint64_t size = 0;
      while (digits < line.size()) {
        char c = line[digits];
        int v = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
        if (v < 0) break;
        if (digits >= 15) {
          return Fail("HTTP chunk size has too many digits: '" + Printable(line) + "'");
        }
        size = size * 16 + static_cast<uint64_t>(v);
        ++digits;
      }
      std::string_view rest = TrimOws(line.substr(digits));
      if (digits == 0 || (!rest.empty() && rest[0] != ';') || !ValidText(rest)) {
        return Fail("HTTP chunk-size line is malformed: '" + Printable(line) + "'");
      }
      total += size;
      if (total > HttpLimits::kMaxBodyBytes) {
        return Fail("HTTP chunked body exceeds the limit of " +
                    std::to_string(HttpLimits::kMaxBodyBytes) + " bytes");
      }
      if (size == 0) return Fields(next, next, nullptr, end);  // trailers, then the end
      if (data_.size() - next < size + 2) return Step::kNeedMore;
      if (data_[next + size] != '\r' || data_[next + size + 1] != '\n') {
        return Fail("HTTP chunk of " + std::to_string(size) + " bytes not followed by CRLF");
      }
      pos = next + size + 2;
    }
  }

  std::string_view data_;
  Status error_;
};

bool Unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~' || c == ':';
}

class HttpCodec final : public ClientCodec {
 public:
  // `method`: what every request is sent as, or kByOperation (gets as GET, sets as POST).
  enum class Method { kGet, kPost, kByOperation };
  HttpCodec(std::vector<std::string> path_parts, Method method, const CodecOptions& options)
      : path_parts_(std::move(path_parts)), method_(method), body_(options.value_bytes, 'v') {
    head_suffix_ = " HTTP/1.1\r\nHost: " + options.http_host + "\r\n";
  }

  std::string_view name() const override { return "http"; }

  CodecCapabilities capabilities() const override {
    CodecCapabilities caps;
    caps.matches_by_id = false;
    caps.reports_service_time = false;
    // With a fixed method every request is sent the same way, so a get/set mix means nothing.
    caps.supports_set = method_ == Method::kByOperation;
    if (!caps.supports_set) {
      caps.no_sets_because = std::string("its method is fixed to ") + (method_ == Method::kPost ? "POST" : "GET") +
                             " for every request (method \"auto\" sends sets as POST)";
    }
    return caps;
  }

  Status EncodeRequest(const Request& request, std::string* out) override {
    if (!request.keys.empty()) return InvalidArgument("http has no multi-key get here: one key per request");
    size_t start = out->size();
    const bool post = method_ == Method::kPost || (method_ == Method::kByOperation && request.op == Op::kSet);
    out->append(post ? "POST " : "GET ").append(path_parts_[0]);
    for (size_t i = 1; i < path_parts_.size(); ++i) {
      for (char c : request.key) {
        if (Unreserved(c)) {
          out->push_back(c);
        } else {
          static const char kHex[] = "0123456789ABCDEF";
          unsigned char u = static_cast<unsigned char>(c);
          out->push_back('%');
          out->push_back(kHex[u >> 4]);
          out->push_back(kHex[u & 15]);
        }
      }
      out->append(path_parts_[i]);
    }
    if (out->size() - start > HttpLimits::kMaxPathBytes) {
      out->resize(start);
      return InvalidArgument("HTTP request target longer than " +
                             std::to_string(HttpLimits::kMaxPathBytes) + " bytes");
    }
    out->append(head_suffix_);
    if (post) {
      std::string_view body =
          (request.op == Op::kSet && !request.value.empty()) ? request.value : body_;
      char len[24];
      auto [e, ec] = std::to_chars(len, len + sizeof(len), body.size());
      (void)ec;
      out->append("Content-Type: application/octet-stream\r\nContent-Length: ")
          .append(len, e)
          .append("\r\n\r\n")
          .append(body);
    } else {
      out->append("\r\n");
    }
    return Status::Ok();
  }

  Result<size_t> ParseResponse(std::string_view data, Response* out) override {
    *out = Response{};
    ResponseParser parser(data);
    size_t end = 0;
    int status = 0;
    bool closes = false;
    switch (parser.Parse(0, &end, &status, &closes)) {
      case Step::kNeedMore:
        return size_t{0};
      case Step::kCorrupt:
        return parser.error();
      case Step::kDone:
        break;
    }
    if (status < 200 || status > 299) {
      out->ok = false;
      out->error = "HTTP " + std::to_string(status);
    }
    if (closes) out->closes_connection = "the server announced the close (HTTP Connection: close)";
    return end;
  }

 private:
  std::vector<std::string> path_parts_;  // the template split at each "{key}"
  Method method_;
  std::string body_;  // POST body of value_bytes
  std::string head_suffix_;
};

}  // namespace

Result<std::unique_ptr<ClientCodec>> MakeHttpCodec(const CodecOptions& options) {
  HttpCodec::Method method;
  if (options.http_method == "GET") {
    method = HttpCodec::Method::kGet;
  } else if (options.http_method == "POST") {
    method = HttpCodec::Method::kPost;
  } else if (options.http_method == "auto") {
    method = HttpCodec::Method::kByOperation;
  } else {
    return InvalidArgument("--http-method must be GET, POST or auto (gets as GET, sets as POST), got '" +
                           Printable(options.http_method) + "'");
  }
  const std::string& path = options.http_path;
  if (path.empty() || path[0] != '/' || path.size() > HttpLimits::kMaxPathBytes) {
    return InvalidArgument("--http-path must start with '/' and be at most " +
                           std::to_string(HttpLimits::kMaxPathBytes) + " bytes, got '" +
                           Printable(path) + "'");
  }
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f) {
      return InvalidArgument("--http-path holds a space, control or non-ASCII character: '" +
                             Printable(path) + "' (percent-encode it)");
    }
  }
  const std::string& host = options.http_host;
  if (host.empty()) return InvalidArgument("HTTP Host header value is empty");
  for (char ch : host) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f || c == '/') {
      return InvalidArgument("HTTP Host '" + Printable(host) + "' is malformed");
    }
  }
  std::vector<std::string> parts;
  size_t from = 0;
  for (;;) {
    size_t at = path.find("{key}", from);
    parts.push_back(path.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) break;
    from = at + 5;
  }
  return std::unique_ptr<ClientCodec>(new HttpCodec(std::move(parts), method, options));
}

}  // namespace ream
