#include "workloads/xapian_search.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "workloads/builtins.h"

namespace ream {
namespace {

XapianOptions Small() {
  XapianOptions o;
  o.documents = 300;
  o.vocabulary = 500;
  o.words_per_doc = 20;
  return o;
}

std::string Search(RequestHandler& h, const std::string& key, frame::ResponseStatus* status = nullptr) {
  frame::RequestFrame r;
  r.key = key;
  std::string payload;
  frame::ResponseStatus s = h.Handle(r, &payload);
  if (status) *status = s;
  return payload;
}

std::shared_ptr<Platform> Posix() { return std::shared_ptr<Platform>(MakePosixPlatform()); }

TEST(ZipfTable, DrawsLowRanksMostOften) {
  ZipfTable z(1000, 1.0);
  EXPECT_EQ(z.Rank(0.0), 0u);
  EXPECT_EQ(z.Rank(0.999999999), 999u);
  // P(rank 0) = 1 / H(1000) ~ 0.1336.
  EXPECT_EQ(z.Rank(0.13), 0u);
  EXPECT_EQ(z.Rank(0.14), 1u);
}

TEST(XapianIndex, AnswersARankedQueryTheSameForTheSameKey) {
  auto index = XapianIndex::Open(Small(), Posix());
  ASSERT_TRUE(index.ok()) << index.status().message();
  std::string dir = (*index)->dir();
  EXPECT_TRUE(std::filesystem::exists(dir + "/iamglass"));
  auto factory = MakeXapianHandlers(*index);
  auto h0 = factory(0), h1 = factory(1);
  frame::ResponseStatus status;
  std::string a = Search(*h0, "key0000000000042", &status);
  EXPECT_EQ(status, frame::ResponseStatus::kOk) << a;
  // top-k = 10 hits over 300 documents of 20 Zipf words each: the query always matches.
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 10) << a;
  // Ranked: weights never increase down the list.
  double prev = 1e300;
  for (size_t pos = 0; pos < a.size();) {
    size_t end = a.find('\n', pos);
    double w = std::stod(a.substr(a.find(' ', pos) + 1, end - pos));
    EXPECT_LE(w, prev);
    prev = w;
    pos = end + 1;
  }
  EXPECT_EQ(Search(*h1, "key0000000000042"), a);  // another worker, same key: same answer
  EXPECT_NE(Search(*h0, "key0000000000043"), a);  // another key: another query
  // Another corpus seed: another index, so other hits for the same key.
  XapianOptions reseeded = Small();
  reseeded.seed = 5;
  auto other = XapianIndex::Open(reseeded, Posix());
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_NE(Search(*MakeXapianHandlers(*other)(0), "key0000000000042"), a);
  h0.reset();
  h1.reset();
  factory = nullptr;
  index->reset();
  EXPECT_FALSE(std::filesystem::exists(dir)) << "the temporary index outlived its last user";
}

TEST(XapianIndex, ReusesACachedIndexOfTheSameCorpusOnly) {
  std::string dir = std::filesystem::temp_directory_path() / ("xapian_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  XapianOptions o = Small();
  o.index_dir = dir;
  std::string first;
  {
    auto built = XapianIndex::Open(o, Posix());
    ASSERT_TRUE(built.ok()) << built.status().message();
    EXPECT_FALSE((*built)->reused());
    first = Search(*MakeXapianHandlers(*built)(0), "key0000000000007");
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/iamglass")) << "a given --index-dir is kept";
  {
    auto again = XapianIndex::Open(o, Posix());
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_TRUE((*again)->reused());
    EXPECT_EQ(Search(*MakeXapianHandlers(*again)(0), "key0000000000007"), first);
  }
  o.seed = 2;  // another corpus: rebuilt, not reused
  auto other = XapianIndex::Open(o, Posix());
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_FALSE((*other)->reused());
  std::filesystem::remove_all(dir);
}

TEST(XapianIndex, RefusesBadOptionsWithTheirNames) {
  XapianOptions o = Small();
  o.documents = 0;
  auto none = XapianIndex::Open(o, Posix());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message(),
            "--documents must be >= 1: a corpus of zero documents has nothing to search");
  o = Small();
  o.top_k = 0;
  EXPECT_EQ(XapianIndex::Open(o, Posix()).status().message(), "--top-k must be >= 1");
  o = Small();
  o.stopwords = 500;
  EXPECT_EQ(XapianIndex::Open(o, Posix()).status().message(),
            "--stopwords (500) must be below --vocabulary (500): queries need terms left to draw");

  // A directory that cannot be made (procfs takes no new directories, even from root).
  o = Small();
  o.index_dir = "/proc/ream-xapian-test";
  auto unwritable = XapianIndex::Open(o, Posix());
  ASSERT_FALSE(unwritable.ok());
  EXPECT_EQ(unwritable.status().message().rfind("--index-dir /proc/ream-xapian-test: ", 0), 0u)
      << unwritable.status().message();

  // A directory holding someone else's files is not overwritten.
  std::string dir = std::filesystem::temp_directory_path() / ("xapian_foreign_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  { std::FILE* f = std::fopen((dir + "/notes.txt").c_str(), "w"); std::fputs("mine", f); std::fclose(f); }
  o = Small();
  o.index_dir = dir;
  auto foreign = XapianIndex::Open(o, Posix());
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("not a Xapian index"), std::string::npos)
      << foreign.status().message();
  EXPECT_TRUE(std::filesystem::exists(dir + "/notes.txt"));
  std::filesystem::remove_all(dir);
}

TEST(XapianIndex, FromTheTableNamesTheBadFlag) {
  const BuiltinWorkload* w = BuiltinWorkloads().Find("xapian");
  ASSERT_NE(w, nullptr);
  std::map<std::string, std::string> v;
  for (const auto& opt : w->options) v[opt.flag] = opt.default_value;
  v["--documents"] = "0";
  EXPECT_EQ(w->make(v).status().message(),
            "--documents must be >= 1: a corpus of zero documents has nothing to search");
  v["--documents"] = "200";
  v["--zipf"] = "steep";
  EXPECT_EQ(w->make(v).status().message(), "--zipf 'steep' is not a number");
  v["--zipf"] = "1.1";
  v["--vocabulary"] = "300";
  auto made = w->make(v);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_NE(made->detail.find("documents=200"), std::string::npos) << made->detail;
  frame::ResponseStatus status;
  Search(*made->handlers(0), "key0000000000001", &status);
  EXPECT_EQ(status, frame::ResponseStatus::kOk);
}

}  // namespace
}  // namespace ream
