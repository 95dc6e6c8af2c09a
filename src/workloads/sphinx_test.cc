// The sphinx workload on the real tools and model (espeak-ng, sox, pocketsphinx-en-us):
// label integration, as decoding real speech takes a few seconds.
#include "workloads/sphinx.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "platform/clock.h"
#include "workloads/builtins.h"

namespace ream {
namespace {

class SphinxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ream-sphinx-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    options_.cache_dir = dir_ + "/cache";
    options_.utterances = 2;
    options_.words = 4;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Platform> platform_ = MakePosixPlatform();
  std::string dir_;
  SphinxOptions options_;
};

TEST_F(SphinxTest, DecodesTheUtteranceTheKeyPicksTheSameWayEachTime) {
  auto utts = PrepareSphinxUtterances(*platform_, options_);
  ASSERT_TRUE(utts.ok()) << utts.status().message();
  ASSERT_EQ(utts->size(), 2u);
  EXPECT_EQ((*utts)[1].text, SphinxUtteranceText(1, 1, 4));
  EXPECT_NE((*utts)[0].text, (*utts)[1].text);
  // Four words of speech at 16 kHz: well over half a second of samples.
  EXPECT_GT((*utts)[0].samples.size(), 8000u);
  auto shared = std::make_shared<const std::vector<Utterance>>(std::move(*utts));
  auto factory = MakeSphinxHandlers(*platform_, shared, options_);
  ASSERT_TRUE(factory.ok()) << factory.status().message();
  auto h = (*factory)(0);
  std::string key = "key0000000000001";
  frame::RequestFrame r{.id = 1, .op = Op::kGet, .key = key};
  std::string first, second, other;
  int64_t start = MonotonicNowNs();
  ASSERT_EQ(h->Handle(r, &first), frame::ResponseStatus::kOk) << first;
  int64_t decode_ns = MonotonicNowNs() - start;
  ASSERT_EQ(h->Handle(r, &second), frame::ResponseStatus::kOk);
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, second);
  std::string key0 = "key0000000000000";
  frame::RequestFrame r0{.id = 2, .op = Op::kGet, .key = key0};
  ASSERT_EQ(h->Handle(r0, &other), frame::ResponseStatus::kOk);
  EXPECT_NE(first, other);
  // Real decoding is CPU work of the order of the speech's length, not microseconds.
  EXPECT_GT(decode_ns, 20'000'000) << "decoded in " << decode_ns / 1e6 << " ms";
  std::cerr << "utterance 1 (" << shared->at(1).text << ") decoded as '" << first << "' in "
            << decode_ns / 1e6 << " ms\n";
  // A second worker loads its own decoder and agrees.
  std::string again;
  ASSERT_EQ((*factory)(1)->Handle(r, &again), frame::ResponseStatus::kOk);
  EXPECT_EQ(again, first);
}

TEST_F(SphinxTest, ReusesTheCacheAndRefusesBadOptions) {
  ASSERT_TRUE(PrepareSphinxUtterances(*platform_, options_).ok());
  auto listed = platform_->ListDir(options_.cache_dir);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2u);  // no temporary file left
  auto before = std::filesystem::last_write_time(options_.cache_dir + "/" + (*listed)[0].name);
  ASSERT_TRUE(PrepareSphinxUtterances(*platform_, options_).ok());
  EXPECT_EQ(std::filesystem::last_write_time(options_.cache_dir + "/" + (*listed)[0].name), before);

  SphinxOptions zero = options_;
  zero.utterances = 0;
  EXPECT_EQ(PrepareSphinxUtterances(*platform_, zero).status().message(), "--utterances must be at least 1");
  SphinxOptions no_model = options_;
  no_model.model_dir = dir_ + "/nomodel";
  auto shared = std::make_shared<const std::vector<Utterance>>(1);
  auto bad = MakeSphinxHandlers(*platform_, shared, no_model);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("install Debian's pocketsphinx-en-us"), std::string::npos)
      << bad.status().message();

  const BuiltinWorkload* w = BuiltinWorkloads().Find("sphinx");
  ASSERT_NE(w, nullptr);
  std::map<std::string, std::string> v;
  for (const auto& o : w->options) v[o.flag] = o.default_value;
  v["--cache-dir"] = dir_ + "/never";
  v["--words"] = "0";
  EXPECT_EQ(w->make(v).status().message(), "--words must be at least 1");
  v["--words"] = "many";
  EXPECT_EQ(w->make(v).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(platform_->Exists(dir_ + "/never"));
}

}  // namespace
}  // namespace ream
