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

namespace ream::fuzz {
namespace {

using Entry = std::function<std::string(const uint8_t*, size_t)>;

struct Replayed {
  size_t files = 0;
  size_t with_replies = 0;  // files holding at least one complete, well-formed reply
};

Replayed ReplayCorpus(const std::string& parser, const Entry& entry) {
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
    if (LastReplyCount() > 0) ++out.with_replies;
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
TEST(FuzzCorpusReplay, Redis) { ExpectMeaningful(ReplayCorpus("redis", RedisReplies), "redis"); }
TEST(FuzzCorpusReplay, Http) { ExpectMeaningful(ReplayCorpus("http", HttpReplies), "http"); }

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
