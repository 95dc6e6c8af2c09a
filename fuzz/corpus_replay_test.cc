// Replays every file of fuzz/corpus/<parser>/ through the same entry point the libFuzzer
// target uses, so what fuzzing found (and fixed) stays fixed in the regular suite.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "fuzz/result_targets.h"
#include "fuzz/spec_targets.h"

namespace ream::fuzz {
namespace {

using Entry = std::function<std::string(const uint8_t*, size_t)>;

struct Replayed {
  size_t files = 0;
  size_t with_replies = 0;  // files holding at least one complete, well-formed reply
};

Replayed ReplayCorpus(const std::string& parser, const Entry& entry,
                      const std::function<bool()>& valid = [] { return LastReplyCount() > 0; }) {
  Replayed out;
  std::filesystem::path dir = std::filesystem::path(REAM_SOURCE_DIR) / "fuzz" / "corpus" / parser;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  EXPECT_FALSE(ec) << dir << ": " << ec.message();
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(in.good() || in.eof()) << f;
    std::string violation = entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    EXPECT_EQ(violation, "") << f;
    ++out.files;
    if (valid()) ++out.with_replies;
  }
  return out;
}

// Each corpus must be there and must hold real replies (seeded from the real servers), not
// only inputs the parser rejects.
void ExpectMeaningful(const Replayed& r, const std::string& parser) {
  EXPECT_GE(r.files, 20u) << "fuzz/corpus/" << parser << " is missing or nearly empty";
  EXPECT_GE(r.with_replies, 5u) << "fuzz/corpus/" << parser << " holds too few valid replies";
}

TEST(FuzzCorpusReplay, Memcached) { ExpectMeaningful(ReplayCorpus("memcached", MemcachedReplies), "memcached"); }
TEST(FuzzCorpusReplay, MemcachedBinary) {
  ExpectMeaningful(ReplayCorpus("memcached_binary", MemcachedBinaryReplies), "memcached_binary");
}
TEST(FuzzCorpusReplay, Redis) { ExpectMeaningful(ReplayCorpus("redis", RedisReplies), "redis"); }
TEST(FuzzCorpusReplay, Http) { ExpectMeaningful(ReplayCorpus("http", HttpReplies), "http"); }
// The spec and its value parsers: valid specs and values (the shipped examples, each value
// form of docs/spec.md) and what fuzzing found.
TEST(FuzzCorpusReplay, Spec) { ExpectMeaningful(ReplayCorpus("spec", SpecInput, LastAccepted), "spec"); }

// What ream reads back from its other half: stored histograms (encoded by the real generator),
// `ream load --json` output captured from a real run, agent protocol lines; and what fuzzing found.
void ExpectReadsBack(const Replayed& r, const std::string& parser) {
  EXPECT_GE(r.files, 5u) << "fuzz/corpus/" << parser << " is missing or nearly empty";
  EXPECT_GE(r.with_replies, 3u) << "fuzz/corpus/" << parser << " holds too few inputs that decode";
}
TEST(FuzzCorpusReplay, Histogram) { ExpectReadsBack(ReplayCorpus("histogram", HistogramBlob, LastDecoded), "histogram"); }
TEST(FuzzCorpusReplay, GeneratorJson) {
  ExpectReadsBack(ReplayCorpus("generator_json", GeneratorOutput, LastDecoded), "generator_json");
}
TEST(FuzzCorpusReplay, Agent) { ExpectReadsBack(ReplayCorpus("agent", AgentLine, LastDecoded), "agent"); }

// The result entry points accept what the real code writes and refuse what is broken.
TEST(FuzzCorpusReplay, ResultEntryPointsAcceptValidInputs) {
  auto run = [](auto entry, const std::string& b) {
    std::string v = entry(reinterpret_cast<const uint8_t*>(b.data()), b.size());
    EXPECT_EQ(v, "") << b;
    return LastDecoded();
  };
  EXPECT_TRUE(run(HistogramBlob, "v1;2;200;20000;100;100;0;100:2"));
  EXPECT_FALSE(run(HistogramBlob, "v1;3;200;20000;100;100;0;100:2"));  // counts do not add up
  EXPECT_TRUE(run(GeneratorOutput, "{\n  \"issued\": 5,\n  \"histograms\": {}\n}\n"));
  EXPECT_FALSE(run(GeneratorOutput, "rate: 5 QPS\n"));
  EXPECT_TRUE(run(AgentLine, R"({"type":"run","id":1,"options":{"host":"127.0.0.1","port":1,"qps":10}})"));
  EXPECT_FALSE(run(AgentLine, "not json"));
}

// The spec entry point accepts what it should and holds every parser to its contract.
TEST(FuzzCorpusReplay, SpecEntryPointAcceptsValidInputs) {
  auto in = [](int first, const std::string& text) {
    std::string b(1, static_cast<char>(first));
    b += text;
    std::string v = SpecInput(reinterpret_cast<const uint8_t*>(b.data()), b.size());
    return v.empty() && LastAccepted();
  };
  EXPECT_TRUE(in(0, "name = \"x\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [100]\n"));
  EXPECT_FALSE(in(0, "name = \"x\"\n[workload]\nbuiltin = \"nope\"\n"));
  // Odd first byte: a value; the second byte picks the parser (0: durations, 3: sizes, 8: CPU lists).
  EXPECT_TRUE(in(1, std::string(1, '\0') + "250ms"));
  EXPECT_TRUE(in(1, std::string(1, '\3') + "512M"));
  EXPECT_TRUE(in(1, std::string(1, '\10') + "0-3,8"));
  EXPECT_FALSE(in(1, std::string(1, '\10') + "3-1"));
}

// The entry points walk a reply stream up to the first corrupt reply and count what they
// parsed; the replay's "holds valid replies" check relies on that count.
TEST(FuzzCorpusReplay, EntryPointsCountValidReplies) {
  const std::string mc = "STORED\r\nEND\r\nVALUE k 0 1\r\nx\r\nEND\r\n";
  EXPECT_EQ(MemcachedReplies(reinterpret_cast<const uint8_t*>(mc.data()), mc.size()), "");
  EXPECT_EQ(LastReplyCount(), 3u);
  const std::string rd = "+OK\r\n$-1\r\n*2\r\n:1\r\n-ERR x\r\n";
  EXPECT_EQ(RedisReplies(reinterpret_cast<const uint8_t*>(rd.data()), rd.size()), "");
  EXPECT_EQ(LastReplyCount(), 3u);
  const std::string ht = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 404 NF\r\n\r\n";
  EXPECT_EQ(HttpReplies(reinterpret_cast<const uint8_t*>(ht.data()), ht.size()), "");
  EXPECT_EQ(LastReplyCount(), 1u);  // the second response has no length: corrupt, stops
}

}  // namespace
}  // namespace ream::fuzz
