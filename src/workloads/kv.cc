// The kv store and its request handler.
#include "workloads/kv.h"

#include <mutex>

#include "protocol/keyspace.h"
#include "protocol/ream_frame.h"

namespace ream {

KvStore::KvStore(uint64_t records, size_t value_bytes) {
  std::string value(value_bytes, 'v');
  for (uint64_t i = 0; i < records; ++i) {
    // A value that names its record, so a test can tell records apart.
    std::string key = KeyString(i);
    for (size_t j = 0; j < value_bytes; ++j) value[j] = key[j % kKeyBytes];
    map_.emplace_hint(map_.end(), std::move(key), value);
  }
}

bool KvStore::Get(std::string_view key, std::string* out) const {
  std::shared_lock lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  out->append(it->second);
  return true;
}

void KvStore::Set(std::string_view key, std::string_view value) {
  std::unique_lock lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) {
    map_.emplace(std::string(key), std::string(value));
  } else {
    it->second.assign(value);
  }
}

bool KvStore::Delete(std::string_view key) {
  std::unique_lock lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  map_.erase(it);
  return true;
}

size_t KvStore::Scan(std::string_view from, size_t count, size_t max_bytes, std::string* out) const {
  std::shared_lock lock(mu_);
  size_t n = 0;
  for (auto it = map_.lower_bound(from); it != map_.end() && n < count; ++it, ++n) {
    size_t rec = 6 + it->first.size() + it->second.size();
    if (out->size() + rec > max_bytes) break;
    char head[6];
    uint16_t kl = static_cast<uint16_t>(it->first.size());
    uint32_t vl = static_cast<uint32_t>(it->second.size());
    head[0] = static_cast<char>(kl);
    head[1] = static_cast<char>(kl >> 8);
    for (int i = 0; i < 4; ++i) head[2 + i] = static_cast<char>(vl >> (8 * i));
    out->append(head, 6);
    out->append(it->first);
    out->append(it->second);
  }
  return n;
}

size_t KvStore::size() const {
  std::shared_lock lock(mu_);
  return map_.size();
}

namespace {

constexpr size_t kMaxScanRecords = 10000;

class KvHandler : public RequestHandler {
 public:
  explicit KvHandler(std::shared_ptr<KvStore> store) : store_(std::move(store)) {}

  frame::ResponseStatus Handle(const frame::RequestFrame& r, std::string* payload) override {
    switch (r.op) {
      case Op::kGet:
        return store_->Get(r.key, payload) ? frame::ResponseStatus::kOk
                                           : frame::ResponseStatus::kNotFound;
      case Op::kSet:
        store_->Set(r.key, r.value);
        return frame::ResponseStatus::kOk;
      case Op::kDelete:
        return store_->Delete(r.key) ? frame::ResponseStatus::kOk
                                     : frame::ResponseStatus::kNotFound;
      case Op::kScan: {
        size_t count = std::min<size_t>(r.arg, kMaxScanRecords);
        store_->Scan(r.key, count, frame::kMaxFrameBytes - frame::kResponseHeaderBytes, payload);
        return frame::ResponseStatus::kOk;
      }
    }
    payload->assign("unknown operation");
    return frame::ResponseStatus::kError;
  }

 private:
  std::shared_ptr<KvStore> store_;
};

}  // namespace

HandlerFactory MakeKvHandlers(std::shared_ptr<KvStore> store) {
  return [store](int) { return std::make_unique<KvHandler>(store); };
}

}  // namespace ream
