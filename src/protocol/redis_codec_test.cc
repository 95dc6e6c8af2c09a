#include "protocol/redis_codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/codec_test_util.h"

namespace ream::redis_codec_test {
namespace {

using codec_test::ReplyCase;

std::unique_ptr<ClientCodec> Codec(size_t value_bytes = 8) {
  CodecOptions o;
  o.value_bytes = value_bytes;
  return codec_test::Made(MakeRedisCodec(o));
}

TEST(RedisCodec, CapabilitiesSayInOrderWithoutServerTimes) {
  auto c = Codec();
  EXPECT_EQ(c->name(), "redis");
  EXPECT_FALSE(c->capabilities().matches_by_id);
  EXPECT_FALSE(c->capabilities().reports_service_time);
  EXPECT_TRUE(c->capabilities().supports_set);
}

TEST(RedisCodec, EncodesGetSetDelAsRespArrays) {
  auto c = Codec(3);
  std::string out;
  Request r;
  r.key = "key:1";
  r.op = Op::kGet;
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "*2\r\n$3\r\nGET\r\n$5\r\nkey:1\r\n");
  out.clear();
  r.op = Op::kSet;
  r.value = "a\r\nb";  // binary-safe
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "*3\r\n$3\r\nSET\r\n$5\r\nkey:1\r\n$4\r\na\r\nb\r\n");
  out.clear();
  r.value = {};
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "*3\r\n$3\r\nSET\r\n$5\r\nkey:1\r\n$3\r\nvvv\r\n");
  out.clear();
  r.op = Op::kDelete;
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "*2\r\n$3\r\nDEL\r\n$5\r\nkey:1\r\n");
  r.op = Op::kScan;
  EXPECT_EQ(c->EncodeRequest(r, &out).code(), StatusCode::kInvalidArgument);
}

std::vector<ReplyCase> AllReplies() {
  return {
      {"simple string", "+OK\r\n", true, ""},
      {"error", "-ERR unknown command 'FOO'\r\n", false, "ERR unknown command 'FOO'"},
      {"wrongtype", "-WRONGTYPE Operation against a key\r\n", false,
       "WRONGTYPE Operation against a key"},
      {"integer", ":1000\r\n", true, ""},
      {"negative integer", ":-42\r\n", true, ""},
      {"bulk", "$5\r\nhello\r\n", true, ""},
      {"binary bulk", std::string("$4\r\n\r\n\0\xff\r\n", 10), true, ""},
      {"empty bulk", "$0\r\n\r\n", true, ""},
      {"null bulk", "$-1\r\n", true, ""},
      {"array", "*2\r\n$3\r\nfoo\r\n:7\r\n", true, ""},
      {"empty array", "*0\r\n", true, ""},
      {"null array", "*-1\r\n", true, ""},
      {"nested array", "*2\r\n*1\r\n+a\r\n*2\r\n$-1\r\n-E inner\r\n", true, ""},
      {"null", "_\r\n", true, ""},
      {"double", ",3.14\r\n", true, ""},
      {"double exp", ",-1.5e+10\r\n", true, ""},
      {"double inf", ",-inf\r\n", true, ""},
      {"boolean", "#t\r\n", true, ""},
      {"blob error", "!21\r\nSYNTAX invalid syntax\r\n", false, "SYNTAX invalid syntax"},
      {"verbatim", "=15\r\ntxt:Some string\r\n", true, ""},
      {"big number", "(3492890328409238509324850943850943825024385\r\n", true, ""},
      {"map", "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n", true, ""},
      {"set", "~3\r\n+a\r\n+b\r\n:3\r\n", true, ""},
      {"attribute then reply", "|1\r\n+ttl\r\n:3600\r\n$2\r\nok\r\n", true, ""},
      {"push then reply", ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n+OK\r\n", true, ""},
      {"push then error", ">1\r\n+x\r\n-ERR late\r\n", false, "ERR late"},
      {"empty error", "-\r\n", false, "(empty error reply)"},  // found by the fuzzer
      {"empty blob error", "!0\r\n\r\n", false, "(empty error reply)"},
      {"streamed string", "$?\r\n;4\r\nHell\r\n;1\r\no\r\n;0\r\n", true, ""},
      {"streamed array", "*?\r\n:1\r\n+two\r\n.\r\n", true, ""},
      {"streamed map", "%?\r\n+a\r\n:1\r\n.\r\n", true, ""},
  };
}

// Replies the parser must refuse as corrupt.
std::vector<std::string> MalformedReplies() {
  return {
      "HTTP/1.1 200 OK\r\n",       // another protocol
      "STORED\r\n",                // memcached
      "ERROR\r\n",                 // memcached's answer to RESP
      "+OK\n",                     // bare LF
      "+O\rK\r\n",                 // CR inside a simple string
      ":12a\r\n",                  // bad integer
      ":\r\n",
      ":99999999999999999999\r\n",  // overflows int64
      "$-2\r\n",                   // negative length other than -1
      "$abc\r\n",
      "$3\r\nabcd\r\n",            // data longer than declared
      "*-5\r\n",
      "*1\r\n?\r\n",               // unknown type inside an array
      "_x\r\n",                    // null with data
      ",1.\r\n",                   // bad double
      ",e5\r\n",
      "#x\r\n",                    // bad boolean
      "(12z\r\n",                  // bad big number
      "=3\r\ntxt\r\n",             // verbatim shorter than its prefix
      "=5\r\ntxtab\r\n",           // verbatim without ':'
      "!-1\r\n",                   // blob error cannot be null
      "%-1\r\n",                   // map cannot be null
      "$?\r\n:4\r\n",              // streamed string chunk without ';'
      "*?\r\n:1\r\n.x\r\n",         // bad end marker
      "%?\r\n+a\r\n.\r\n",         // streamed map with an odd entry count
      ".\r\n",                     // end marker outside a streamed aggregate
  };
}

using codec_test::ReplyParserTest;
INSTANTIATE_TEST_SUITE_P(Redis, ReplyParserTest,
                         ::testing::Values(codec_test::ReplyParserCase{
                             [] { return Codec(); }, AllReplies(),
                             "*2\r\n$3\r\nab",  // part of an array of bulk strings
                             MalformedReplies()}));

TEST(RedisCodec, LimitsBoundDepthLengthAndCount) {
  auto c = Codec();
  Response r;
  // Nesting one level past the limit is refused; at the limit it parses.
  auto nested = [](int levels) {
    std::string s;
    for (int i = 0; i < levels; ++i) s += "*1\r\n";
    return s + ":1\r\n";
  };
  auto n = c->ParseResponse(nested(RedisLimits::kMaxDepth), &r);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  n = c->ParseResponse(nested(RedisLimits::kMaxDepth + 1), &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(n.status().message().find("nested"), std::string::npos);
  // Bulk and aggregate sizes beyond the limits are refused from the header alone.
  n = c->ParseResponse("$" + std::to_string(RedisLimits::kMaxReplyBytes + 1) + "\r\n", &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  n = c->ParseResponse("*" + std::to_string(RedisLimits::kMaxElements + 1) + "\r\n", &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  // A line that never ends is refused once it passes the limit.
  n = c->ParseResponse("+" + std::string(RedisLimits::kMaxLineBytes, 'a'), &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  n = c->ParseResponse("+" + std::string(RedisLimits::kMaxLineBytes - 2, 'a'), &r);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);
}

TEST(RedisCodec, ErrorTextIsKeptAndPrintable) {
  auto c = Codec();
  Response r;
  auto n = c->ParseResponse(std::string("-ERR bad\x01 thing\r\n"), &r);
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "ERR bad\\x01 thing");
  // A long error is kept to a bounded prefix.
  n = c->ParseResponse("-ERR " + std::string(1000, 'x') + "\r\n", &r);
  ASSERT_TRUE(n.ok());
  EXPECT_LT(r.error.size(), 300u);
  EXPECT_EQ(r.error.substr(0, 5), "ERR x");
}


// Redis CLIENT KILL closes between replies: orderly; a close inside a bulk reply is not.
TEST(RedisCodec, EofBetweenRepliesIsOrderlyInsideOneIsNot) {
  auto c = Codec();
  Response resp;
  EXPECT_EQ(*c->ParseResponse("$3\r\nabc\r\n", &resp), 9u);
  EXPECT_EQ(resp.closes_connection, nullptr);
  EXPECT_TRUE(c->OnServerClose("", false).orderly);
  ServerClose cut = c->OnServerClose("$3\r\nab", false);
  EXPECT_FALSE(cut.orderly);
  EXPECT_NE(cut.reason.find("6 bytes"), std::string::npos) << cut.reason;
  EXPECT_FALSE(c->OnServerClose("", true).orderly);
}

}  // namespace
}  // namespace ream::redis_codec_test
