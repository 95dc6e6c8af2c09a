// `ream serve kv`: a real in-memory ordered key-value store (get, set, delete, range scan),
// preloaded with N records — the stand-in for the seed's in-memory stores (masstree, silo).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "workloads/server.h"

namespace ream {

// Thread-safe: readers share a lock, writers take it exclusively.
class KvStore {
 public:
  // Preloads records KeyString(0..records-1), each with a `value_bytes` deterministic value.
  KvStore(uint64_t records, size_t value_bytes);

  // Appends the value to *out; false when absent.
  bool Get(std::string_view key, std::string* out) const;
  void Set(std::string_view key, std::string_view value);
  // False when absent.
  bool Delete(std::string_view key);
  // Appends up to `count` records with key >= `from`, in key order, each encoded as
  // u16 key length, u32 value length (little-endian), key, value; stops before `max_bytes`.
  // Returns the number of records appended.
  size_t Scan(std::string_view from, size_t count, size_t max_bytes, std::string* out) const;
  size_t size() const;

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::string, std::less<>> map_;
};

// Handlers serving get/set/delete/scan from one shared store. get/delete of an absent key
// answer kNotFound; a scan's count is capped at 10 000 records.
HandlerFactory MakeKvHandlers(std::shared_ptr<KvStore> store);

}  // namespace ream
