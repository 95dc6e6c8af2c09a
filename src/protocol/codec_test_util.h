// What the reply parsers' tests share (memcached, Redis, HTTP): the checks every ClientCodec's
// parser must pass — each well-formed reply whole, all of them pipelined, every partial read,
// malformed input refused — as one parameterized suite (reply_parser_test.cc) that each
// codec's test instantiates with its own replies (header only; tests only):
//
//   using codec_test::ReplyParserTest;
//   INSTANTIATE_TEST_SUITE_P(Memcached, ReplyParserTest, ::testing::Values(codec_test::ReplyParserCase{
//       [] { return Codec(); }, AllReplies(), "VALUE next 0 3\r\nab", MalformedReplies()}));
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/codec.h"

namespace ream::codec_test {

// One well-formed reply: what the test calls it, its bytes, and the ok / error its parse gives.
struct ReplyCase {
  std::string name;
  std::string wire;
  bool ok;
  std::string error;
};

// A codec and the replies its parser is checked on.
struct ReplyParserCase {
  std::function<std::unique_ptr<ClientCodec>()> make;
  std::vector<ReplyCase> replies;
  std::string next;                    // the start of another reply: what follows each in a read
  std::vector<std::string> malformed;  // each refused as corrupt
};

// What gtest prints of a case (in --gtest_list_tests and failures) instead of its bytes.
inline void PrintTo(const ReplyParserCase& c, std::ostream* os) {
  *os << c.replies.size() << " replies, " << c.malformed.size() << " malformed";
}

class ReplyParserTest : public ::testing::TestWithParam<ReplyParserCase> {};

// The codec a Make*Codec returned; a test failure (and nullptr) when it refused its options.
inline std::unique_ptr<ClientCodec> Made(Result<std::unique_ptr<ClientCodec>> c) {
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

}  // namespace ream::codec_test
