// `ream serve xapian`: full-text search with the Xapian library (TailBench's xapian) — an index
// built once at start-up over a generated corpus whose term frequencies follow Zipf's law, and
// per request a ranked top-k query (BM25, Xapian's default weighting) of Zipf-drawn terms.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "platform/status.h"
#include "workloads/server.h"

namespace ream {

struct XapianOptions {
  uint64_t documents = 20000;     // documents in the corpus, >= 1
  uint64_t vocabulary = 50000;    // distinct terms, >= 1
  uint64_t words_per_doc = 60;    // term occurrences drawn per document, >= 1
  double zipf = 1.0;              // exponent of the term-frequency law (1: natural language)
  uint64_t query_terms = 3;       // terms per query (OR-ed, ranked by BM25), >= 1
  // The most frequent terms, which queries leave out as a search engine's stop-list does (each
  // is in nearly every document); queries draw from the other ranks by the same Zipf law.
  uint64_t stopwords = 100;       // < vocabulary
  uint64_t top_k = 10;            // results per query, >= 1
  uint64_t seed = 1;              // seeds the corpus and, with each request's key, its query
  std::string index_dir;          // "": a temporary directory removed when the index goes
};

// Draws ranks 0..n-1 with P(rank r) proportional to 1 / (r + 1)^s, from a cumulative table.
class ZipfTable {
 public:
  ZipfTable(uint64_t n, double s);
  // `u` uniform in [0, 1).
  uint64_t Rank(double u) const;

 private:
  std::vector<double> cdf_;
};

// The corpus's index on disk, built or reused; removes its directory when it is temporary.
class XapianIndex {
 public:
  // Builds the index in options.index_dir (reused when it holds an index of the same corpus
  // parameters; built when the directory is new or empty), or in a new temporary directory.
  // InvalidArgument naming the option for a bad parameter (zero documents, ...); the
  // directory's or Xapian's error (read-only file system, not an index, ...) otherwise.
  static Result<std::shared_ptr<XapianIndex>> Open(const XapianOptions& options,
                                                   std::shared_ptr<Platform> platform);
  ~XapianIndex();
  XapianIndex(const XapianIndex&) = delete;
  XapianIndex& operator=(const XapianIndex&) = delete;

  const std::string& dir() const { return dir_; }
  const XapianOptions& options() const { return options_; }
  bool reused() const { return reused_; }
  const ZipfTable& terms() const { return *terms_; }
  // Ranks past the stop-list, for queries.
  const ZipfTable& query_terms() const { return *query_terms_; }

 private:
  XapianIndex(std::shared_ptr<Platform> platform, XapianOptions o)
      : platform_(std::move(platform)), options_(std::move(o)) {}
  Status Build();

  std::shared_ptr<Platform> platform_;
  XapianOptions options_;
  std::string dir_;
  bool temporary_ = false;
  bool created_ = false;  // --index-dir did not exist: removed again if the build fails
  bool reused_ = false;
  std::unique_ptr<ZipfTable> terms_;
  std::unique_ptr<ZipfTable> query_terms_;
};

// The term of rank r ("w" and the rank), shared by the corpus and the queries.
std::string XapianTerm(uint64_t rank);

// Handlers that each open the index read-only (a Xapian database is not shared between
// threads) and answer any request with its query's ranked results, one "docid weight" line
// per hit, best first. The request's key (hashed with the seed) picks the query's terms, so the
// same key always asks the same query and the load's key popularity shapes the queries.
HandlerFactory MakeXapianHandlers(std::shared_ptr<XapianIndex> index);

}  // namespace ream
