// ClientCodec over ream_frame.
#include "protocol/ream_codec.h"

#include "protocol/ream_frame.h"

namespace ream {
namespace {

class ReamCodec : public ClientCodec {
 public:
  std::string_view name() const override { return "ream"; }
  CodecCapabilities capabilities() const override {
    return {.matches_by_id = true, .reports_service_time = true, .supports_set = true};
  }
  Status EncodeRequest(const Request& r, std::string* out) override {
    if (!r.keys.empty()) return InvalidArgument("ream's protocol has no multi-key get: one key per request");
    frame::RequestFrame f{.id = r.id, .op = r.op, .arg = r.scan_count, .key = r.key,
                          .value = r.value};
    return frame::AppendRequest(f, out);
  }
  Result<size_t> ParseResponse(std::string_view data, Response* out) override {
    frame::ResponseFrame f;
    REAM_ASSIGN_OR_RETURN(size_t n, frame::ParseResponse(data, &f));
    if (n == 0) return size_t{0};
    out->id = f.id;
    out->ok = f.status != frame::ResponseStatus::kError;
    if (out->ok) {
      out->error.clear();
    } else {
      out->error.assign(f.payload);
    }
    out->has_server_times = true;
    out->service_ns = f.service_ns;
    out->queue_ns = f.queue_ns;
    return n;
  }
};

}  // namespace

std::unique_ptr<ClientCodec> MakeReamCodec() { return std::make_unique<ReamCodec>(); }

}  // namespace ream
