// The checks every reply parser passes (protocol/codec_test_util.h), on the replies of each
// codec that instantiates ReplyParserTest (memcached_codec_test.cc, redis_codec_test.cc,
// http_codec_test.cc).
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "protocol/codec_test_util.h"

namespace ream::codec_test {
namespace {

// Each reply alone parses to its whole length with its ok and error, and no server times.
TEST_P(ReplyParserTest, ParsesEveryReplyWhole) {
  auto c = GetParam().make();
  ASSERT_NE(c, nullptr);
  for (const ReplyCase& k : GetParam().replies) {
    Response r;
    auto n = c->ParseResponse(k.wire, &r);
    ASSERT_TRUE(n.ok()) << k.name << ": " << n.status().ToString();
    EXPECT_EQ(*n, k.wire.size()) << k.name;
    EXPECT_EQ(r.ok, k.ok) << k.name;
    EXPECT_EQ(r.error, k.error) << k.name;
    EXPECT_FALSE(r.has_server_times);
  }
}

// All the replies back to back (a pipeline's answers in one read) parse one by one, in order.
TEST_P(ReplyParserTest, PipelinedRepliesParseInOrder) {
  auto c = GetParam().make();
  ASSERT_NE(c, nullptr);
  std::string all;
  for (const ReplyCase& k : GetParam().replies) all += k.wire;
  std::string_view rest = all;
  for (const ReplyCase& k : GetParam().replies) {
    Response r;
    auto n = c->ParseResponse(rest, &r);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    ASSERT_EQ(*n, k.wire.size()) << k.name;
    EXPECT_EQ(r.ok, k.ok) << k.name;
    rest.remove_prefix(*n);
  }
  EXPECT_TRUE(rest.empty());
}

// Each reply followed by the start of another, cut at every length: a prefix shorter than the
// reply is incomplete (0 bytes parsed), any longer one yields exactly the reply.
TEST_P(ReplyParserTest, EveryPartialReadWaitsForMore) {
  auto c = GetParam().make();
  ASSERT_NE(c, nullptr);
  for (const ReplyCase& k : GetParam().replies) {
    std::string wire = k.wire + GetParam().next;
    for (size_t cut = 0; cut <= wire.size(); ++cut) {
      Response r;
      auto n = c->ParseResponse(std::string_view(wire).substr(0, cut), &r);
      ASSERT_TRUE(n.ok()) << "cut " << cut << " of " << k.name << ": " << n.status().ToString();
      EXPECT_EQ(*n, cut < k.wire.size() ? 0u : k.wire.size()) << "cut " << cut << " of " << k.name;
    }
  }
}

// Each malformed input is refused as corrupt, with a message saying why.
TEST_P(ReplyParserTest, MalformedRepliesAreCorrupt) {
  auto c = GetParam().make();
  ASSERT_NE(c, nullptr);
  for (const std::string& b : GetParam().malformed) {
    Response r;
    auto n = c->ParseResponse(b, &r);
    EXPECT_FALSE(n.ok()) << b;
    EXPECT_EQ(n.status().code(), StatusCode::kCorrupt) << b;
    EXPECT_FALSE(n.status().message().empty()) << b;
  }
}

}  // namespace
}  // namespace ream::codec_test
