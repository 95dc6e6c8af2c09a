#include "workloads/builtins.h"

#include <charconv>
#include <memory>

#include "workloads/dnn.h"
#include "workloads/kv.h"
#include "workloads/service_time.h"
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
