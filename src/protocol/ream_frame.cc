// Encoding and bounds-checked parsing of ream frames (layout in docs/protocol.md).
#include "protocol/ream_frame.h"

#include <cstring>

namespace ream::frame {
namespace {

// Explicit little-endian byte order, independent of the host.
void Put16(char* p, uint16_t v) {
  p[0] = static_cast<char>(v);
  p[1] = static_cast<char>(v >> 8);
}
void Put32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void Put64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
uint16_t Get16(const char* p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | (static_cast<uint8_t>(p[1]) << 8));
}
uint32_t Get32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint64_t Get64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// Checks the common prefix (length, magic, version). Returns the frame length, 0 when more
// bytes are needed, or Corrupt.
Result<size_t> CheckPrefix(std::string_view data, size_t header_bytes, const char* what) {
  if (data.size() < 4) return size_t{0};
  uint32_t len = Get32(data.data());
  if (len < header_bytes) {
    return Corrupt(std::string(what) + " frame length " + std::to_string(len) +
                   " is shorter than its " + std::to_string(header_bytes) + "-byte header");
  }
  if (len > kMaxFrameBytes) {
    return Corrupt(std::string(what) + " frame length " + std::to_string(len) +
                   " exceeds the limit of " + std::to_string(kMaxFrameBytes) + " bytes");
  }
  // Reject a wrong magic as soon as its bytes are here, before waiting for a body that a
  // garbage length may never deliver.
  if (data.size() >= 6 && Get16(data.data() + 4) != kMagic) {
    return Corrupt(std::string(what) + " frame has a bad magic number (not ream protocol?)");
  }
  if (data.size() >= 7 && static_cast<uint8_t>(data[6]) != kVersion) {
    return Corrupt(std::string(what) + " frame has unsupported version " +
                   std::to_string(static_cast<uint8_t>(data[6])));
  }
  if (data.size() < len) return size_t{0};
  return size_t{len};
}

}  // namespace

size_t RequestBytes(const RequestFrame& r) {
  return kRequestHeaderBytes + r.key.size() + (r.op == Op::kSet ? r.value.size() : 0);
}

void WriteRequest(const RequestFrame& r, char* dst) {
  size_t value_bytes = r.op == Op::kSet ? r.value.size() : 0;
  Put32(dst, static_cast<uint32_t>(RequestBytes(r)));
  Put16(dst + 4, kMagic);
  dst[6] = static_cast<char>(kVersion);
  dst[7] = static_cast<char>(r.op);
  Put64(dst + 8, r.id);
  Put16(dst + 16, static_cast<uint16_t>(r.key.size()));
  Put16(dst + 18, 0);
  Put32(dst + 20, r.arg);
  if (!r.key.empty()) std::memcpy(dst + kRequestHeaderBytes, r.key.data(), r.key.size());
  if (value_bytes) std::memcpy(dst + kRequestHeaderBytes + r.key.size(), r.value.data(), value_bytes);
}

Status AppendRequest(const RequestFrame& r, std::string* out) {
  if (r.key.size() > kMaxKeyBytes) {
    return InvalidArgument("key of " + std::to_string(r.key.size()) + " bytes exceeds the " +
                           std::to_string(kMaxKeyBytes) + "-byte limit");
  }
  size_t n = RequestBytes(r);
  if (n > kMaxFrameBytes) {
    return InvalidArgument("request of " + std::to_string(n) + " bytes exceeds the " +
                           std::to_string(kMaxFrameBytes) + "-byte frame limit");
  }
  size_t at = out->size();
  out->resize(at + n);
  WriteRequest(r, out->data() + at);
  return Status::Ok();
}

Result<size_t> ParseRequest(std::string_view data, RequestFrame* out) {
  REAM_ASSIGN_OR_RETURN(size_t len, CheckPrefix(data, kRequestHeaderBytes, "request"));
  if (len == 0) return size_t{0};
  const char* p = data.data();
  uint8_t op = static_cast<uint8_t>(p[7]);
  if (op < static_cast<uint8_t>(Op::kGet) || op > static_cast<uint8_t>(Op::kScan)) {
    return Corrupt("request has unknown operation " + std::to_string(op));
  }
  size_t key_len = Get16(p + 16);
  if (key_len > kMaxKeyBytes) {
    return Corrupt("request key length " + std::to_string(key_len) + " exceeds the limit of " +
                   std::to_string(kMaxKeyBytes));
  }
  if (kRequestHeaderBytes + key_len > len) {
    return Corrupt("request key length " + std::to_string(key_len) +
                   " runs past the end of its " + std::to_string(len) + "-byte frame");
  }
  out->id = Get64(p + 8);
  out->op = static_cast<Op>(op);
  out->arg = Get32(p + 20);
  out->key = std::string_view(p + kRequestHeaderBytes, key_len);
  out->value = std::string_view(p + kRequestHeaderBytes + key_len, len - kRequestHeaderBytes - key_len);
  if (out->op != Op::kSet && !out->value.empty()) {
    return Corrupt("request with operation " + std::to_string(op) + " carries a " +
                   std::to_string(out->value.size()) + "-byte payload (only set has one)");
  }
  return len;
}

size_t ResponseBytes(size_t payload_bytes) { return kResponseHeaderBytes + payload_bytes; }

void WriteResponseHeader(uint64_t id, ResponseStatus status, size_t payload_bytes, char* dst) {
  Put32(dst, static_cast<uint32_t>(ResponseBytes(payload_bytes)));
  Put16(dst + 4, kMagic);
  dst[6] = static_cast<char>(kVersion);
  dst[7] = static_cast<char>(status);
  Put64(dst + 8, id);
  Put64(dst + 16, 0);
  Put64(dst + 24, 0);
}

void PatchResponseTimes(char* frame, int64_t service_ns, int64_t queue_ns) {
  Put64(frame + 16, static_cast<uint64_t>(service_ns < 0 ? 0 : service_ns));
  Put64(frame + 24, static_cast<uint64_t>(queue_ns < 0 ? 0 : queue_ns));
}

void AppendResponse(const ResponseFrame& r, std::string* out) {
  size_t at = out->size();
  out->resize(at + ResponseBytes(r.payload.size()));
  char* dst = out->data() + at;
  WriteResponseHeader(r.id, r.status, r.payload.size(), dst);
  PatchResponseTimes(dst, r.service_ns, r.queue_ns);
  if (!r.payload.empty()) std::memcpy(dst + kResponseHeaderBytes, r.payload.data(), r.payload.size());
}

Result<size_t> ParseResponse(std::string_view data, ResponseFrame* out) {
  REAM_ASSIGN_OR_RETURN(size_t len, CheckPrefix(data, kResponseHeaderBytes, "response"));
  if (len == 0) return size_t{0};
  const char* p = data.data();
  uint8_t status = static_cast<uint8_t>(p[7]);
  if (status > static_cast<uint8_t>(ResponseStatus::kError)) {
    return Corrupt("response has unknown status " + std::to_string(status));
  }
  uint64_t service = Get64(p + 16);
  uint64_t queue = Get64(p + 24);
  // Times are nanoseconds; anything above an hour is not a time this protocol produces.
  constexpr uint64_t kHourNs = 3600ULL * 1000000000ULL;
  if (service > kHourNs || queue > kHourNs) {
    return Corrupt("response carries an implausible server time (service " +
                   std::to_string(service) + " ns, queue " + std::to_string(queue) + " ns)");
  }
  out->id = Get64(p + 8);
  out->status = static_cast<ResponseStatus>(status);
  out->service_ns = static_cast<int64_t>(service);
  out->queue_ns = static_cast<int64_t>(queue);
  out->payload = std::string_view(p + kResponseHeaderBytes, len - kResponseHeaderBytes);
  return len;
}

}  // namespace ream::frame
