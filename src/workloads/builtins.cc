#include "workloads/builtins.h"

#include <charconv>
#include <cstdio>
#include <memory>

#include "workloads/dnn.h"
#include "workloads/kv.h"
#include "workloads/rocksdb.h"
#include "workloads/service_time.h"
#include "workloads/sphinx.h"
#include "workloads/stream.h"
#include "workloads/synthetic.h"
#include "workloads/xapian_search.h"

namespace ream {
namespace {

Result<uint64_t> Unsigned(const std::map<std::string, std::string>& v, const std::string& flag, uint64_t max) {
  const std::string& text = v.at(flag);
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) {
    return InvalidArgument(flag + " '" + text + "' is not a non-negative integer");
  }
  if (n > max) return InvalidArgument(flag + " must be <= " + std::to_string(max));
  return n;
}

Result<bool> Bool(const std::map<std::string, std::string>& v, const std::string& flag) {
  const std::string& text = v.at(flag);
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return InvalidArgument(flag + " '" + text + "' is not true or false");
}

// An option whose empty default means "from elsewhere" (dnn's --size preset).
Result<uint64_t> UnsignedOr(const std::map<std::string, std::string>& v, const std::string& flag, uint64_t max,
                            uint64_t fallback) {
  if (v.at(flag).empty()) return fallback;
  return Unsigned(v, flag, max);
}

Result<double> Real(const std::map<std::string, std::string>& v, const std::string& flag) {
  const std::string& text = v.at(flag);
  double x = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) {
    return InvalidArgument(flag + " '" + text + "' is not a number");
  }
  return x;
}

// "4mbit", "500kbit", "1gbit", "4000000bit" or a plain number of bits per second (decimal, as
// the spec's net_rate and `ream load --bitrate` write them).
Result<uint64_t> BitRate(const std::map<std::string, std::string>& v, const std::string& flag) {
  const std::string& text = v.at(flag);
  double x = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  std::string unit(p, text.data() + text.size());
  double scale = unit.empty() || unit == "bit" ? 1 : unit == "kbit" ? 1e3 : unit == "mbit" ? 1e6 : unit == "gbit" ? 1e9 : 0;
  if (text.empty() || ec != std::errc() || scale == 0 || !(x > 0)) {
    return InvalidArgument(flag + " '" + text + "' is not a bitrate (e.g. 4mbit, 500kbit, 4000000)");
  }
  return static_cast<uint64_t>(x * scale + 0.5);
}

}  // namespace

Status WorkloadTable::Add(BuiltinWorkload w) {
  if (Find(w.name)) return InvalidArgument("workload '" + w.name + "' is already in the table");
  workloads_.push_back(std::move(w));
  return Status::Ok();
}

const BuiltinWorkload* WorkloadTable::Find(const std::string& name) const {
  for (const auto& w : workloads_) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::vector<std::string> WorkloadTable::Names() const {
  std::vector<std::string> out;
  for (const auto& w : workloads_) out.push_back(w.name);
  return out;
}

void RegisterBuiltinWorkloads(WorkloadTable& t) {
  (void)t.Add({
      .name = "synthetic",
      .help = "Each request busy-spins a service time drawn from --service (calibration workload)",
      .options = {{"--service", "const:20us | exp:100us | lognormal:mean=100us,sigma=1 | bimodal:10us,1ms,p=0.01",
                   "", true},
                  {"--seed", "Seed of the service-time draws", "1"}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        REAM_ASSIGN_OR_RETURN(ServiceTime service, ServiceTime::Parse(v.at("--service")));
        REAM_ASSIGN_OR_RETURN(uint64_t seed, Unsigned(v, "--seed", UINT64_MAX));
        return WorkloadServer{MakeSyntheticHandlers(service, seed), "service=" + v.at("--service")};
      },
  });
  (void)t.Add({
      .name = "kv",
      .help = "In-memory ordered key-value store: get, set, delete, scan",
      .options = {{"--records", "Records preloaded (keys key0000000000000..)", "100000"},
                  {"--value-bytes", "Bytes per preloaded value", "64"}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        REAM_ASSIGN_OR_RETURN(uint64_t records, Unsigned(v, "--records", 100'000'000));
        REAM_ASSIGN_OR_RETURN(uint64_t value_bytes, Unsigned(v, "--value-bytes", 1024 * 1024));
        auto store = std::make_shared<KvStore>(records, static_cast<size_t>(value_bytes));
        return WorkloadServer{MakeKvHandlers(store), "records=" + std::to_string(records) +
                                                         " value_bytes=" + std::to_string(value_bytes)};
      },
  });
  (void)t.Add({
      .name = "xapian",
      .help = "Full-text search (Xapian): ranked top-k BM25 queries of Zipf-drawn terms over a generated corpus",
      .options = {{"--documents", "Documents in the generated corpus", "20000"},
                  {"--vocabulary", "Distinct terms in the corpus", "50000"},
                  {"--words", "Term occurrences per document", "60"},
                  {"--zipf", "Exponent of the terms' Zipfian frequencies", "1.0"},
                  {"--query-terms", "Terms per query (OR, ranked by BM25)", "3"},
                  {"--top-k", "Results per query", "10"},
                  {"--stopwords", "Most frequent terms that queries leave out (a stop-list)", "100"},
                  {"--seed", "Seeds the corpus and, with each request's key, its query", "1"},
                  {"--index-dir", "Directory caching the index (reused for the same corpus); "
                                  "default: a temporary one removed at exit", ""}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        XapianOptions o;
        REAM_ASSIGN_OR_RETURN(o.documents, Unsigned(v, "--documents", 100'000'000));
        REAM_ASSIGN_OR_RETURN(o.vocabulary, Unsigned(v, "--vocabulary", 10'000'000));
        REAM_ASSIGN_OR_RETURN(o.words_per_doc, Unsigned(v, "--words", 100'000));
        REAM_ASSIGN_OR_RETURN(o.zipf, Real(v, "--zipf"));
        REAM_ASSIGN_OR_RETURN(o.query_terms, Unsigned(v, "--query-terms", 1000));
        REAM_ASSIGN_OR_RETURN(o.top_k, Unsigned(v, "--top-k", 10000));
        REAM_ASSIGN_OR_RETURN(o.stopwords, Unsigned(v, "--stopwords", 10'000'000));
        REAM_ASSIGN_OR_RETURN(o.seed, Unsigned(v, "--seed", UINT64_MAX));
        o.index_dir = v.at("--index-dir");
        REAM_ASSIGN_OR_RETURN(std::shared_ptr<XapianIndex> index,
                              XapianIndex::Open(o, std::shared_ptr<Platform>(MakePosixPlatform())));
        std::string detail = "documents=" + std::to_string(o.documents) + " vocabulary=" +
                             std::to_string(o.vocabulary) + " words=" + std::to_string(o.words_per_doc) +
                             " index=" + index->dir() + (index->reused() ? " (reused)" : "");
        return WorkloadServer{MakeXapianHandlers(std::move(index)), detail};
      },
  });
  (void)t.Add({
      .name = "dnn",
      .help = "Image-classification inference (OpenBLAS): a fully connected network with generated weights",
      .options = {{"--size", "Preset network: small (~0.5 ms/request), medium (~10 ms), large (~100 ms)", "small"},
                  {"--width", "Units per hidden layer (default: the preset's)", ""},
                  {"--depth", "Hidden layers (default: the preset's)", ""},
                  {"--batch", "Inputs evaluated per request (default: the preset's)", ""},
                  {"--inputs", "Input features per image", "784"},
                  {"--classes", "Output classes", "10"},
                  {"--seed", "Seeds the weights and, with each request's key, its input", "1"},
                  {"--max-weight-bytes", "Largest network accepted, in bytes of weights", "1073741824"}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        REAM_ASSIGN_OR_RETURN(DnnOptions o, DnnPreset(v.at("--size")));
        REAM_ASSIGN_OR_RETURN(o.width, UnsignedOr(v, "--width", UINT32_MAX, o.width));
        REAM_ASSIGN_OR_RETURN(o.depth, UnsignedOr(v, "--depth", UINT32_MAX, o.depth));
        REAM_ASSIGN_OR_RETURN(o.batch, UnsignedOr(v, "--batch", UINT32_MAX, o.batch));
        REAM_ASSIGN_OR_RETURN(o.inputs, Unsigned(v, "--inputs", UINT32_MAX));
        REAM_ASSIGN_OR_RETURN(o.classes, Unsigned(v, "--classes", UINT32_MAX));
        REAM_ASSIGN_OR_RETURN(o.seed, Unsigned(v, "--seed", UINT64_MAX));
        REAM_ASSIGN_OR_RETURN(o.max_weight_bytes, Unsigned(v, "--max-weight-bytes", UINT64_MAX));
        REAM_ASSIGN_OR_RETURN(std::shared_ptr<const DnnNetwork> net, DnnNetwork::Make(o));
        std::string detail = "inputs=" + std::to_string(o.inputs) + " width=" + std::to_string(o.width) +
                             " depth=" + std::to_string(o.depth) + " batch=" + std::to_string(o.batch) +
                             " classes=" + std::to_string(o.classes) +
                             " weight_bytes=" + std::to_string(net->weight_bytes()) +
                             " flops=" + std::to_string(net->flops_per_request());
        return WorkloadServer{MakeDnnHandlers(std::move(net)), detail};
      },
  });
  (void)t.Add({
      .name = "sphinx",
      .help = "Speech recognition (TailBench's sphinx): each request decodes one synthesized utterance "
              "with PocketSphinx (CPU-intensive)",
      .options = {{"--cache-dir", "Directory of the synthesized utterances (made once, reused)",
                   "/var/cache/ream/sphinx"},
                  {"--model", "PocketSphinx model directory (Debian's pocketsphinx-en-us)",
                   "/usr/share/pocketsphinx/model/en-us"},
                  {"--utterances", "Distinct utterances; a request's key picks one", "8"},
                  {"--words", "Words per utterance (~0.35 s of speech each)", "12"},
                  {"--seed", "Seed of the utterances' word lists", "1"}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        SphinxOptions o;
        o.cache_dir = v.at("--cache-dir");
        o.model_dir = v.at("--model");
        REAM_ASSIGN_OR_RETURN(o.utterances, Unsigned(v, "--utterances", 10'000));
        REAM_ASSIGN_OR_RETURN(o.words, Unsigned(v, "--words", 1'000));
        REAM_ASSIGN_OR_RETURN(o.seed, Unsigned(v, "--seed", UINT64_MAX));
        auto platform = MakePosixPlatform();
        REAM_ASSIGN_OR_RETURN(std::vector<Utterance> utts, PrepareSphinxUtterances(*platform, o));
        double seconds = 0;
        for (const auto& u : utts) seconds += static_cast<double>(u.samples.size()) / 16000;
        auto shared = std::make_shared<const std::vector<Utterance>>(std::move(utts));
        REAM_ASSIGN_OR_RETURN(HandlerFactory f, MakeSphinxHandlers(*platform, shared, o));
        char detail[128];
        std::snprintf(detail, sizeof detail, "utterances=%llu words=%llu audio=%.1fs",
                      static_cast<unsigned long long>(o.utterances), static_cast<unsigned long long>(o.words),
                      seconds);
        return WorkloadServer{std::move(f), detail};
      },
  });
  (void)t.Add({
      .name = "rocksdb",
      .help = "Disk-resident key-value store (the seed's shore/moses): point reads and synced writes "
              "on a RocksDB dataset generated once, read with O_DIRECT (disk-bound)",
      .options = {{"--path", "Dataset directory (default: <data-dir>/rocksdb-<keys>x<value-bytes>-s<seed>)", ""},
                  {"--data-dir", "Directory holding the default dataset path", "/var/tmp/ream"},
                  {"--keys", "Records (keys key0000000000000.., the generator's keys)", "1000000"},
                  {"--value-bytes", "Bytes per value (incompressible)", "1000"},
                  {"--seed", "Seed of the values", "1"},
                  {"--reads", "Point reads per get: its key and reads-1 keys derived from it", "1"},
                  {"--block-cache-bytes", "RocksDB block cache (small, so reads reach the disk)", "1048576"},
                  {"--direct-reads", "Read with O_DIRECT, bypassing the page cache (true/false)", "true"},
                  {"--sync-writes", "Sync each set to disk before answering (true/false)", "true"}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        RocksdbOptions o;
        REAM_ASSIGN_OR_RETURN(o.keys, Unsigned(v, "--keys", 10'000'000'000ull));
        REAM_ASSIGN_OR_RETURN(o.value_bytes, Unsigned(v, "--value-bytes", 1024 * 1024));
        REAM_ASSIGN_OR_RETURN(o.seed, Unsigned(v, "--seed", UINT64_MAX));
        REAM_ASSIGN_OR_RETURN(o.reads, Unsigned(v, "--reads", 1000));
        REAM_ASSIGN_OR_RETURN(o.block_cache_bytes, Unsigned(v, "--block-cache-bytes", 1ull << 40));
        REAM_ASSIGN_OR_RETURN(o.direct_reads, Bool(v, "--direct-reads"));
        REAM_ASSIGN_OR_RETURN(o.sync_writes, Bool(v, "--sync-writes"));
        o.path = v.at("--path").empty() ? RocksdbDefaultPath(v.at("--data-dir"), o) : v.at("--path");
        auto platform = MakePosixPlatform();
        REAM_ASSIGN_OR_RETURN(std::shared_ptr<RocksdbStore> store, OpenRocksdb(*platform, o));
        return WorkloadServer{MakeRocksdbHandlers(store),
                              "path=" + o.path + " keys=" + std::to_string(o.keys) +
                                  " value_bytes=" + std::to_string(o.value_bytes) +
                                  " reads=" + std::to_string(o.reads)};
      },
  });
  (void)t.Add({
      .name = "stream",
      .help = "Media streaming (the seed's CloudSuite media-streaming): nginx serving generated videos of a "
              "given bitrate over HTTP, driven by session load (network / streaming)",
      .protocol = "http",
      .options = {{"--videos", "Distinct videos (/video/key0000000000000.bin ..; the generator's --keys)", "8"},
                  {"--bitrate", "Each video's bitrate (4mbit, 500kbit)", "4mbit"},
                  {"--seconds", "Each video's length in seconds (bytes = seconds * bitrate / 8)", "20"},
                  {"--seed", "Seed of the videos' bytes", "1"},
                  {"--path", "Dataset directory (default: <data-dir>/stream-<videos>x<bytes>-s<seed>)", ""},
                  {"--data-dir", "Directory holding the default dataset path", "/var/tmp/ream"},
                  {"--max-bytes", "Largest dataset accepted (videos * bytes)", "8589934592"},
                  {"--nginx", "The nginx executable (Debian's)", "nginx"}},
      .make = [](const std::map<std::string, std::string>& v) -> Result<WorkloadServer> {
        StreamOptions o;
        REAM_ASSIGN_OR_RETURN(o.videos, Unsigned(v, "--videos", 10'000'000));
        REAM_ASSIGN_OR_RETURN(o.bitrate_bps, BitRate(v, "--bitrate"));
        REAM_ASSIGN_OR_RETURN(o.seconds, Unsigned(v, "--seconds", 100'000'000));
        REAM_ASSIGN_OR_RETURN(o.seed, Unsigned(v, "--seed", UINT64_MAX));
        REAM_ASSIGN_OR_RETURN(o.max_bytes, Unsigned(v, "--max-bytes", UINT64_MAX));
        o.data_dir = v.at("--data-dir");
        o.nginx = v.at("--nginx");
        o.path = v.at("--path").empty() ? StreamDefaultPath(o) : v.at("--path");
        REAM_RETURN_IF_ERROR(ValidateStreamOptions(o));
        auto platform = std::shared_ptr<Platform>(MakePosixPlatform());
        REAM_RETURN_IF_ERROR(PrepareStreamDataset(*platform, o));
        WorkloadServer w;
        w.detail = "videos=" + std::to_string(o.videos) + " bitrate=" + std::to_string(o.bitrate_bps) +
                   " video_bytes=" + std::to_string(o.video_bytes()) + " path=" + o.path;
        w.external = [platform, o](const ServerOptions& so) { return StartStreamServer(*platform, o, so); };
        return w;
      },
  });
}

const WorkloadTable& BuiltinWorkloads() {
  static const WorkloadTable* table = [] {
    auto* t = new WorkloadTable;
    RegisterBuiltinWorkloads(*t);
    return t;
  }();
  return *table;
}

}  // namespace ream
