// The `rocksdb` workload (the seed's disk-bound shore and moses): point reads, and optionally
// synced writes, on a RocksDB database generated once on disk and read with O_DIRECT through a
// small block cache, so the page cache cannot hide the disk and disk bandwidth follows load.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "platform/platform.h"
#include "platform/status.h"
#include "workloads/server.h"

namespace ream {

struct RocksdbOptions {
  std::string path;                     // the database directory (see RocksdbDefaultPath)
  uint64_t keys = 1'000'000;            // records key0000000000000.. (the generator's keys)
  uint64_t value_bytes = 1000;          // bytes per value (incompressible)
  uint64_t seed = 1;                    // seed of the values
  // Point reads per get: the request's key, then reads-1 keys derived from it and spread over
  // the dataset (a query touching several records, as shore's transactions do).
  uint64_t reads = 1;
  uint64_t block_cache_bytes = 1 << 20;  // RocksDB's LRU block cache (0: none)
  bool direct_reads = true;             // O_DIRECT reads (use_direct_reads): bypass the page cache
  bool sync_writes = true;              // a set is durable (WAL fsync) before it is answered
};

// "<data_dir>/rocksdb-<keys>x<value_bytes>-s<seed>".
std::string RocksdbDefaultPath(const std::string& data_dir, const RocksdbOptions& o);

// The opened database, shared by the workers (a RocksDB DB is thread-safe).
class RocksdbStore;

// Opens the database at options.path, generating it first when the path is absent (into
// "<path>.partial", renamed when complete). InvalidArgument for zero keys or values, for a path
// holding something else or a dataset generated with other parameters (naming both); the
// file system's error (read-only, no space left) with the path otherwise. On failure nothing
// this call created is left behind.
Result<std::shared_ptr<RocksdbStore>> OpenRocksdb(Platform& platform, const RocksdbOptions& options);

// kGet: the value of the request's key (kNotFound for a key outside the dataset), after the
// options.reads - 1 further reads; kSet: stores the value (synced
// when options.sync_writes); other operations are refused.
HandlerFactory MakeRocksdbHandlers(std::shared_ptr<RocksdbStore> store);

}  // namespace ream
