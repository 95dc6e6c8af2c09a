// The xapian workload: corpus generation, the index's lifetime, and the query handler.
#include "workloads/xapian_search.h"

#include <xapian.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "platform/clock.h"
#include "workloads/dataset_dir.h"

namespace ream {
namespace {

// Stored in the index so a cached directory is reused only for the same corpus.
constexpr const char* kCorpusKey = "ream-corpus";

std::string CorpusDescription(const XapianOptions& o) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "documents=%llu vocabulary=%llu words=%llu zipf=%.6g seed=%llu",
                static_cast<unsigned long long>(o.documents),
                static_cast<unsigned long long>(o.vocabulary),
                static_cast<unsigned long long>(o.words_per_doc), o.zipf,
                static_cast<unsigned long long>(o.seed));
  return buf;
}

// FNV-1a: a request's key to its query's seed (the key is short; this is not a hot cost).
uint64_t HashKey(std::string_view key, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

Status ValidateOptions(const XapianOptions& o) {
  if (o.documents == 0) {
    return InvalidArgument("--documents must be >= 1: a corpus of zero documents has nothing to search");
  }
  if (o.vocabulary == 0) return InvalidArgument("--vocabulary must be >= 1");
  if (o.vocabulary > 10'000'000) return InvalidArgument("--vocabulary must be <= 10000000");
  if (o.words_per_doc == 0) return InvalidArgument("--words must be >= 1");
  if (o.query_terms == 0) return InvalidArgument("--query-terms must be >= 1");
  if (o.top_k == 0) return InvalidArgument("--top-k must be >= 1");
  if (o.stopwords >= o.vocabulary) {
    return InvalidArgument("--stopwords (" + std::to_string(o.stopwords) + ") must be below --vocabulary (" +
                           std::to_string(o.vocabulary) + "): queries need terms left to draw");
  }
  if (!(o.zipf >= 0) || o.zipf > 10) return InvalidArgument("--zipf must be in [0, 10]");
  return Status::Ok();
}

// Removes a flat directory (a Glass database holds only files).
void RemoveIndexDir(Platform& p, const std::string& dir) {
  auto entries = p.ListDir(dir);
  if (entries.ok()) {
    for (const auto& e : *entries) (void)p.RemoveFile(dir + "/" + e.name);
  }
  (void)p.RemoveDir(dir);
}

}  // namespace

ZipfTable::ZipfTable(uint64_t n, double s) : cdf_(n) {
  double sum = 0;
  for (uint64_t r = 0; r < n; ++r) {
    sum += 1.0 / std::pow(static_cast<double>(r + 1), s);
    cdf_[r] = sum;
  }
  for (double& c : cdf_) c /= sum;
}

uint64_t ZipfTable::Rank(double u) const {
  auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  if (it == cdf_.end()) return cdf_.size() - 1;
  return static_cast<uint64_t>(it - cdf_.begin());
}

std::string XapianTerm(uint64_t rank) { return "w" + std::to_string(rank); }

Result<std::shared_ptr<XapianIndex>> XapianIndex::Open(const XapianOptions& options,
                                                       std::shared_ptr<Platform> shared) {
  Platform& platform = *shared;
  REAM_RETURN_IF_ERROR(ValidateOptions(options));
  std::shared_ptr<XapianIndex> index(new XapianIndex(shared, options));
  index->terms_ = std::make_unique<ZipfTable>(options.vocabulary, options.zipf);
  index->query_terms_ = std::make_unique<ZipfTable>(options.vocabulary - options.stopwords, options.zipf);
  if (options.index_dir.empty()) {
    const std::string base = TempBase();
    // A name no other process holds: MakeDir fails on an existing directory, so try the next.
    for (int attempt = 0; attempt < 100 && index->dir_.empty(); ++attempt) {
      std::string dir = base + "/ream-xapian-" + std::to_string(platform.ProcessId()) + "-" +
                        std::to_string(attempt);
      if (platform.MakeDir(dir).ok()) index->dir_ = dir;
    }
    if (index->dir_.empty()) {
      return Internal("cannot create a temporary index directory under " + base +
                      " (set --index-dir to a writable directory)");
    }
    index->temporary_ = true;
  } else {
    index->dir_ = options.index_dir;
    if (platform.Exists(index->dir_)) {
      if (!platform.IsDirectory(index->dir_)) {
        return InvalidArgument("--index-dir " + index->dir_ + " is not a directory");
      }
      try {
        Xapian::Database db(index->dir_);
        if (db.get_metadata(kCorpusKey) == CorpusDescription(options)) {
          index->reused_ = true;
          return index;
        }
      } catch (const Xapian::Error&) {
        // Not an index: build one only in an empty directory, never over someone's files.
        auto entries = platform.ListDir(index->dir_);
        if (entries.ok() && !entries->empty()) {
          return InvalidArgument("--index-dir " + index->dir_ +
                                 " holds files that are not a Xapian index; give a new or empty directory");
        }
      }
    } else if (Status s = platform.MakeDir(index->dir_); !s.ok()) {
      return Status(s.code(), "--index-dir " + index->dir_ + ": " + s.message());
    } else {
      index->created_ = true;  // ours to remove if the build fails
    }
  }
  REAM_RETURN_IF_ERROR(index->Build());
  return index;
}

Status XapianIndex::Build() {
  const XapianOptions& o = options_;
  try {
    Xapian::WritableDatabase db(dir_, Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_BACKEND_GLASS);
    std::mt19937_64 rng(o.seed);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (uint64_t d = 0; d < o.documents; ++d) {
      Xapian::Document doc;
      // Each occurrence adds 1 to the term's within-document frequency; the document's length
      // (the sum) is what BM25 normalizes by.
      for (uint64_t w = 0; w < o.words_per_doc; ++w) doc.add_term(XapianTerm(terms_->Rank(uniform(rng))));
      doc.set_data("doc" + std::to_string(d));
      db.add_document(doc);
    }
    db.set_metadata(kCorpusKey, CorpusDescription(o));
    db.commit();
    db.close();
  } catch (const Xapian::Error& e) {
    std::string what = e.get_description();
    if (temporary_ || created_) RemoveIndexDir(*platform_, dir_);
    temporary_ = false;
    return IoError("building the Xapian index in " + dir_ + " failed: " + what);
  } catch (const std::bad_alloc&) {
    if (temporary_ || created_) RemoveIndexDir(*platform_, dir_);
    temporary_ = false;
    return Unavailable("building the Xapian index in " + dir_ + ": out of memory");
  }
  return Status::Ok();
}

XapianIndex::~XapianIndex() {
  if (temporary_) RemoveIndexDir(*platform_, dir_);
}

namespace {

class XapianHandler : public RequestHandler {
 public:
  explicit XapianHandler(std::shared_ptr<XapianIndex> index) : index_(std::move(index)) {
    try {
      db_ = Xapian::Database(index_->dir());
      enquire_ = std::make_unique<Xapian::Enquire>(db_);
    } catch (const Xapian::Error& e) {
      open_error_ = "cannot open the index in " + index_->dir() + ": " + e.get_description();
    }
  }

  frame::ResponseStatus Handle(const frame::RequestFrame& r, std::string* payload) override {
    if (!enquire_) {
      payload->assign(open_error_);
      return frame::ResponseStatus::kError;
    }
    const XapianOptions& o = index_->options();
    std::mt19937_64 rng(HashKey(r.key, o.seed));
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::vector<std::string> terms;
    terms.reserve(o.query_terms);
    for (uint64_t i = 0; i < o.query_terms; ++i) {
      terms.push_back(XapianTerm(o.stopwords + index_->query_terms().Rank(uniform(rng))));
    }
    try {
      enquire_->set_query(Xapian::Query(Xapian::Query::OP_OR, terms.begin(), terms.end()));
      Xapian::MSet hits = enquire_->get_mset(0, static_cast<Xapian::doccount>(o.top_k));
      char line[64];
      for (auto it = hits.begin(); it != hits.end(); ++it) {
        int n = std::snprintf(line, sizeof line, "%u %.6f\n", *it, it.get_weight());
        payload->append(line, static_cast<size_t>(n));
      }
    } catch (const Xapian::Error& e) {
      payload->assign("query failed: " + e.get_description());
      return frame::ResponseStatus::kError;
    }
    return frame::ResponseStatus::kOk;
  }

 private:
  std::shared_ptr<XapianIndex> index_;
  Xapian::Database db_;
  std::unique_ptr<Xapian::Enquire> enquire_;
  std::string open_error_;
};

}  // namespace

HandlerFactory MakeXapianHandlers(std::shared_ptr<XapianIndex> index) {
  return [index](int) { return std::make_unique<XapianHandler>(index); };
}

}  // namespace ream
