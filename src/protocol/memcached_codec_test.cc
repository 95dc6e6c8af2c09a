#include "protocol/memcached_codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/codec_test_util.h"

namespace ream::memcached_codec_test {
namespace {

using codec_test::ReplyCase;

std::unique_ptr<ClientCodec> Codec(size_t value_bytes = 8) {
  CodecOptions o;
  o.value_bytes = value_bytes;
  return codec_test::Made(MakeMemcachedCodec(o));
}

TEST(MemcachedCodec, CapabilitiesSayInOrderWithoutServerTimes) {
  auto c = Codec();
  EXPECT_EQ(c->name(), "memcached");
  EXPECT_FALSE(c->capabilities().matches_by_id);
  EXPECT_FALSE(c->capabilities().reports_service_time);
  EXPECT_TRUE(c->capabilities().supports_set);
}

TEST(MemcachedCodec, EncodesGetSetDelete) {
  auto c = Codec(4);
  std::string out;
  Request r;
  r.key = "k1";
  r.op = Op::kGet;
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "get k1\r\n");
  out.clear();
  r.op = Op::kSet;
  r.value = "hello";
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "set k1 0 0 5\r\nhello\r\n");
  out.clear();
  r.value = {};  // no value of its own: value_bytes of filler
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "set k1 0 0 4\r\nvvvv\r\n");
  out.clear();
  r.op = Op::kDelete;
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "delete k1\r\n");
}

// The text codec's multiget: `get k1 k2 ...` with every key checked before anything is written.
TEST(MemcachedCodec, EncodesAMultigetOnOneLine) {
  auto c = Codec();
  std::string out;
  std::string_view keys[] = {"a", "bb", "ccc"};
  ASSERT_TRUE(c->EncodeRequest({.op = Op::kGet, .keys = keys}, &out).ok());
  EXPECT_EQ(out, "get a bb ccc\r\n");
  std::string_view bad[] = {"a", "b c"};
  out.clear();
  EXPECT_EQ(c->EncodeRequest({.op = Op::kGet, .keys = bad}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(c->capabilities().max_multiget_keys, kMaxMultigetKeys);
}

TEST(MemcachedCodec, RejectsScanAndBadKeys) {
  auto c = Codec();
  std::string out;
  Request r;
  r.op = Op::kScan;
  r.key = "a";
  EXPECT_EQ(c->EncodeRequest(r, &out).code(), StatusCode::kInvalidArgument);
  r.op = Op::kGet;
  for (std::string bad : {std::string(), std::string("a b"), std::string("a\r\nb"),
                          std::string(251, 'k')}) {
    r.key = bad;
    Status s = c->EncodeRequest(r, &out);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("memcached key"), std::string::npos);
  }
  EXPECT_TRUE(out.empty());
  std::string longest(250, 'k');
  r.key = longest;
  EXPECT_TRUE(c->EncodeRequest(r, &out).ok());
}

std::vector<ReplyCase> AllReplies() {
  return {
      {"get miss", "END\r\n", true, ""},
      {"get hit", "VALUE k1 0 5\r\nhello\r\nEND\r\n", true, ""},
      {"with cas", "VALUE k1 7 3 12345\r\nabc\r\nEND\r\n", true, ""},
      {"two values", "VALUE a 0 1\r\nx\r\nVALUE b 0 0\r\n\r\nEND\r\n", true, ""},
      {"data that looks like END", "VALUE k 0 5\r\nEND\r\n\r\nEND\r\n", true, ""},
      {"STORED", "STORED\r\n", true, ""},
      {"DELETED", "DELETED\r\n", true, ""},
      {"NOT_FOUND", "NOT_FOUND\r\n", true, ""},
      {"TOUCHED", "TOUCHED\r\n", true, ""},
      {"NOT_STORED", "NOT_STORED\r\n", false, "NOT_STORED"},
      {"EXISTS", "EXISTS\r\n", false, "EXISTS"},
      {"ERROR", "ERROR\r\n", false, "ERROR"},
      {"CLIENT_ERROR", "CLIENT_ERROR bad data chunk\r\n", false, "CLIENT_ERROR bad data chunk"},
      {"SERVER_ERROR", "SERVER_ERROR out of memory storing object\r\n", false,
       "SERVER_ERROR out of memory storing object"},
  };
}

// Replies the parser must refuse as corrupt.
std::vector<std::string> MalformedReplies() {
  return {
      "HTTP/1.1 200 OK\r\n",             // another protocol
      "$-1\r\n",                         // Redis's null bulk
      "STORED\n",                        // bare LF
      "\r\n",                            // empty line
      "VALUE k1 0\r\n",                  // missing length
      "VALUE k1 x 5\r\nhello\r\nEND\r\n",  // non-numeric flags
      "VALUE k1 0 -5\r\n",               // negative length
      "VALUE k1 0 5 1 2\r\n",            // too many fields
      "VALUE k1 0 99999999999999999999999\r\n",  // overflows
      "VALUE k1 0 5\r\nhelloXYEND\r\n",  // data not followed by CRLF
      "VALUE k1 0 1\r\nx\r\nSTORED\r\n",  // value not ended by END
      "CLIENT_ERRORX\r\n",               // not an error line after all
      "stored\r\n",
  };
}

using codec_test::ReplyParserTest;
INSTANTIATE_TEST_SUITE_P(Memcached, ReplyParserTest,
                         ::testing::Values(codec_test::ReplyParserCase{
                             [] { return Codec(); }, AllReplies(),
                             "VALUE next 0 3\r\nab",  // the start of a VALUE block
                             MalformedReplies()}));

TEST(MemcachedCodec, OversizedRepliesAreCorruptBeforeBuffering) {
  auto c = Codec();
  Response r;
  // A line that never ends: rejected once it passes the limit, not buffered forever.
  std::string longline(MemcachedLimits::kMaxLineBytes, 'A');
  auto n = c->ParseResponse(longline, &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(n.status().message().find("longer than"), std::string::npos);
  // Just under the limit without a newline: still waiting.
  n = c->ParseResponse(longline.substr(1), &r);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);
  // A declared value beyond the limit is rejected from its header alone.
  n = c->ParseResponse("VALUE k 0 " + std::to_string(MemcachedLimits::kMaxValueBytes + 1) + "\r\n",
                       &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  // Too many VALUE blocks in one reply.
  std::string many;
  for (size_t i = 0; i <= MemcachedLimits::kMaxValuesPerReply; ++i) many += "VALUE k 0 0\r\n\r\n";
  n = c->ParseResponse(many, &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
}

TEST(MemcachedCodec, ErrorTextIsPrintable) {
  auto c = Codec();
  Response r;
  auto n = c->ParseResponse(std::string("SERVER_ERROR a\x01\xff\r\n"), &r);
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "SERVER_ERROR a\\x01\\xff");
}


// memcached shutting down closes between replies: orderly; a close inside a VALUE block is not.
TEST(MemcachedCodec, EofBetweenRepliesIsOrderlyInsideOneIsNot) {
  auto c = Codec();
  EXPECT_TRUE(c->OnServerClose("", false).orderly);
  ServerClose cut = c->OnServerClose("VALUE k 0 3\r\nab", false);
  EXPECT_FALSE(cut.orderly);
  EXPECT_NE(cut.reason.find("in the middle of a response"), std::string::npos) << cut.reason;
  ServerClose reset = c->OnServerClose("", true);
  EXPECT_FALSE(reset.orderly);
  EXPECT_NE(reset.reason.find("RST"), std::string::npos);
}

}  // namespace
}  // namespace ream::memcached_codec_test
