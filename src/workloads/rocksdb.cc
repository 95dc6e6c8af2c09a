// The rocksdb workload: a dataset generated once with SstFileWriter, served with direct reads.
#include "workloads/rocksdb.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

#include <random>

#include "protocol/keyspace.h"
#include "workloads/dataset_dir.h"

namespace ream {

class RocksdbStore {
 public:
  RocksdbStore(std::unique_ptr<rocksdb::DB> db, const RocksdbOptions& o) : db_(std::move(db)), options_(o) {
    write_.sync = o.sync_writes;
  }
  rocksdb::DB* db() { return db_.get(); }
  const RocksdbOptions& options() const { return options_; }
  const rocksdb::WriteOptions& write_options() const { return write_; }

 private:
  std::unique_ptr<rocksdb::DB> db_;
  RocksdbOptions options_;
  rocksdb::WriteOptions write_;
};

namespace {

constexpr const char* kParamsFile = "/REAM-DATASET";
// Each SST file of the generated dataset holds about this much (RocksDB's default target).
constexpr uint64_t kSstBytes = 64ull << 20;

std::string Params(const RocksdbOptions& o) {
  return "rocksdb keys=" + std::to_string(o.keys) + " value_bytes=" + std::to_string(o.value_bytes) +
         " seed=" + std::to_string(o.seed) + "\n";
}

rocksdb::Options DbOptions(const RocksdbOptions& o) {
  rocksdb::Options opt;
  opt.compression = rocksdb::kNoCompression;  // the data on disk is what the reads fetch
  opt.use_direct_reads = o.direct_reads;
  opt.use_direct_io_for_flush_and_compaction = o.direct_reads;
  opt.max_open_files = -1;    // index and filter blocks stay in memory: a read is one data block
  opt.info_log_level = rocksdb::WARN_LEVEL;
  opt.keep_log_file_num = 1;
  rocksdb::BlockBasedTableOptions t;
  if (o.block_cache_bytes == 0) {
    t.no_block_cache = true;
  } else {
    t.block_cache = rocksdb::NewLRUCache(o.block_cache_bytes);
  }
  opt.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return opt;
}

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  std::string m = "rocksdb: " + what + ": " + s.ToString();
  if (s.IsNoSpace()) return IoError(m + " (the file system is full)");
  if (s.IsInvalidArgument()) return InvalidArgument(m);
  return IoError(m);
}

// Writes the dataset into `dir` (a new directory): sorted SST files of incompressible values,
// ingested at once (no compaction rewrites them), then the parameters file.
Status Generate(Platform& p, const RocksdbOptions& o, const std::string& dir) {
  rocksdb::Options opt = DbOptions(o);
  opt.create_if_missing = true;
  opt.error_if_exists = true;
  std::vector<std::string> files;
  {
    std::mt19937_64 rng(o.seed);
    std::string value(o.value_bytes, '\0');
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), opt);
    uint64_t per_file = std::max<uint64_t>(1, kSstBytes / (o.value_bytes + kKeyBytes));
    for (uint64_t i = 0; i < o.keys; ++i) {
      if (i % per_file == 0) {
        if (i) {
          rocksdb::Status s = writer.Finish();
          if (!s.ok()) return FromRocks(s, "writing " + files.back());
        }
        files.push_back(dir + "/gen-" + std::to_string(files.size()) + ".sst");
        rocksdb::Status s = writer.Open(files.back());
        if (!s.ok()) return FromRocks(s, "creating " + files.back());
      }
      for (size_t j = 0; j < value.size(); j += 8) {
        uint64_t r = rng();
        for (size_t b = 0; b < 8 && j + b < value.size(); ++b) value[j + b] = static_cast<char>(r >> (8 * b));
      }
      rocksdb::Status s = writer.Put(KeyString(i), value);
      if (!s.ok()) return FromRocks(s, "writing " + files.back());
    }
    rocksdb::Status s = writer.Finish();
    if (!s.ok()) return FromRocks(s, "writing " + files.back());
  }
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(opt, dir, &raw);
  if (!s.ok()) return FromRocks(s, "creating the database in " + dir);
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;
  s = db->IngestExternalFile(files, ingest);
  if (!s.ok()) return FromRocks(s, "ingesting the generated files into " + dir);
  s = db->Close();
  if (!s.ok()) return FromRocks(s, "closing " + dir);
  return p.WriteFile(dir + kParamsFile, Params(o));
}

class RocksdbHandler : public RequestHandler {
 public:
  explicit RocksdbHandler(std::shared_ptr<RocksdbStore> store) : store_(std::move(store)) {}

  frame::ResponseStatus Handle(const frame::RequestFrame& r, std::string* payload) override {
    rocksdb::Slice key(r.key.data(), r.key.size());
    rocksdb::Status s;
    switch (r.op) {
      case Op::kGet: {
        const RocksdbOptions& o = store_->options();
        uint64_t index = KeyIndex(r.key);
        for (uint64_t j = 1; j < o.reads; ++j) {
          // Further records spread over the dataset by a multiplicative hash of (key, j).
          FormatKey((index * 0x9E3779B97F4A7C15ull + j * 0xBF58476D1CE4E5B9ull) % o.keys, other_);
          s = store_->db()->Get(read_, rocksdb::Slice(other_, kKeyBytes), &scratch_);
          if (!s.ok() && !s.IsNotFound()) break;
        }
        if (!s.ok() && !s.IsNotFound()) break;
        s = store_->db()->Get(read_, key, payload);
        if (s.IsNotFound()) return frame::ResponseStatus::kNotFound;
        break;
      }
      case Op::kSet:
        s = store_->db()->Put(store_->write_options(), key, rocksdb::Slice(r.value.data(), r.value.size()));
        break;
      default:
        payload->assign("rocksdb: only get and set are served");
        return frame::ResponseStatus::kError;
    }
    if (!s.ok()) {
      payload->assign("rocksdb: " + s.ToString());
      return frame::ResponseStatus::kError;
    }
    return frame::ResponseStatus::kOk;
  }

 private:
  // The decimal index in a key ("key0000000000042" -> 42).
  static uint64_t KeyIndex(std::string_view key) {
    uint64_t n = 0;
    for (char c : key) {
      if (c >= '0' && c <= '9') n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    return n;
  }

  std::shared_ptr<RocksdbStore> store_;
  rocksdb::ReadOptions read_;
  char other_[kKeyBytes];
  std::string scratch_;
};

}  // namespace

std::string RocksdbDefaultPath(const std::string& data_dir, const RocksdbOptions& o) {
  return data_dir + "/rocksdb-" + std::to_string(o.keys) + "x" + std::to_string(o.value_bytes) + "-s" +
         std::to_string(o.seed);
}

Result<std::shared_ptr<RocksdbStore>> OpenRocksdb(Platform& p, const RocksdbOptions& o) {
  if (o.keys == 0) return InvalidArgument("--keys must be at least 1 (the dataset would be empty)");
  if (o.value_bytes == 0) return InvalidArgument("--value-bytes must be at least 1");
  if (o.reads == 0) return InvalidArgument("--reads must be at least 1");
  if (o.path.empty() || o.path[0] != '/') {
    return InvalidArgument("rocksdb: the dataset path '" + o.path + "' is not an absolute path");
  }
  std::string created;  // the outermost directory this call made, removed on failure
  if (!p.Exists(o.path)) {
    std::string parent = o.path.substr(0, o.path.find_last_of('/'));
    if (!parent.empty()) REAM_RETURN_IF_ERROR(MakeDirs(p, parent, &created));
    std::string partial = o.path + ".partial";
    Status s = RemoveTree(p, partial);  // a generation interrupted earlier
    if (s.ok()) s = p.MakeDir(partial);
    if (!s.ok()) s = Status(s.code(), "rocksdb: cannot create the dataset " + partial + ": " + s.message());
    if (s.ok()) s = Generate(p, o, partial);
    if (s.ok()) s = p.RenameFile(partial, o.path);
    if (!s.ok()) {
      (void)RemoveTree(p, partial);
      if (!created.empty()) (void)RemoveTree(p, created);
      return s;
    }
  }
  auto params = p.ReadFile(o.path + kParamsFile);
  if (!params.ok()) {
    return InvalidArgument("rocksdb: " + o.path + " exists but is not a dataset ream generated (no " +
                           std::string(kParamsFile + 1) + "); pass another --path or remove it");
  }
  if (*params != Params(o)) {
    return InvalidArgument("rocksdb: " + o.path + " was generated with " + Trim(*params) + ", not " +
                           Trim(Params(o)) + "; pass the same --keys/--value-bytes/--seed or remove it");
  }
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(DbOptions(o), o.path, &raw);
  if (!s.ok()) return FromRocks(s, "opening " + o.path);
  return std::make_shared<RocksdbStore>(std::unique_ptr<rocksdb::DB>(raw), o);
}

HandlerFactory MakeRocksdbHandlers(std::shared_ptr<RocksdbStore> store) {
  return [store](int) { return std::make_unique<RocksdbHandler>(store); };
}

}  // namespace ream
