#include "protocol/memcached_binary_codec.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "protocol/codec_test_util.h"

namespace ream::memcached_binary_codec_test {
namespace {

using codec_test::ReplyCase;

std::unique_ptr<ClientCodec> Codec(size_t value_bytes = 8) {
  CodecOptions o;
  o.value_bytes = value_bytes;
  return codec_test::Made(MakeMemcachedBinaryCodec(o));
}

// One response packet: header, extras, key, value.
std::string Packet(uint8_t opcode, uint16_t status, const std::string& extras, const std::string& key,
                   const std::string& value, uint8_t magic = 0x81) {
  std::string p;
  auto be = [&p](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) p.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  p.push_back(static_cast<char>(magic));
  p.push_back(static_cast<char>(opcode));
  be(key.size(), 2);
  p.push_back(static_cast<char>(extras.size()));
  p.push_back(0);
  be(status, 2);
  be(extras.size() + key.size() + value.size(), 4);
  be(7, 4);  // opaque
  be(0, 8);
  return p + extras + key + value;
}
const std::string kFlags(4, '\0');

TEST(MemcachedBinaryCodec, EncodesTheProtocolsPackets) {
  auto c = Codec(4);
  EXPECT_EQ(c->name(), "memcached-binary");
  EXPECT_EQ(c->capabilities().max_multiget_keys, kMaxMultigetKeys);
  EXPECT_FALSE(c->capabilities().matches_by_id);
  std::string out;
  ASSERT_TRUE(c->EncodeRequest({.id = 0x01020304, .op = Op::kGet, .key = "k1"}, &out).ok());
  ASSERT_EQ(out.size(), 26u);
  EXPECT_EQ(static_cast<unsigned char>(out[0]), 0x80);
  EXPECT_EQ(out[1], 0x00);                          // GET
  EXPECT_EQ(out.substr(2, 2), std::string("\0\x02", 2));  // key length
  EXPECT_EQ(out.substr(8, 4), std::string("\0\0\0\x02", 4));  // body = the key
  EXPECT_EQ(out.substr(12, 4), "\x01\x02\x03\x04");  // opaque
  EXPECT_EQ(out.substr(24), "k1");
  out.clear();
  ASSERT_TRUE(c->EncodeRequest({.op = Op::kSet, .key = "k", .value = "hello"}, &out).ok());
  EXPECT_EQ(out[1], 0x01);
  EXPECT_EQ(out[4], 8);                                        // flags + expiration
  EXPECT_EQ(out.substr(8, 4), std::string("\0\0\0\x0e", 4));  // 8 + 1 + 5
  EXPECT_EQ(out.substr(24 + 8), "khello");
  out.clear();
  ASSERT_TRUE(c->EncodeRequest({.op = Op::kSet, .key = "k"}, &out).ok());
  EXPECT_EQ(out.substr(24 + 8), "kvvvv");  // the default value
  // A multiget: a quiet GETKQ per key, closed by a NOOP.
  out.clear();
  std::string_view keys[] = {"a", "bb", "ccc"};
  ASSERT_TRUE(c->EncodeRequest({.op = Op::kGet, .keys = keys}, &out).ok());
  ASSERT_EQ(out.size(), 3 * 24 + 6 + 24u);
  EXPECT_EQ(out[1], 0x0d);
  EXPECT_EQ(out[24 + 1 + 1], 0x0d);
  EXPECT_EQ(out[out.size() - 24 + 1], 0x0a);
  EXPECT_EQ(c->EncodeRequest({.op = Op::kGet, .key = std::string(251, 'k')}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c->EncodeRequest({.op = Op::kScan, .key = "k"}, &out).code(), StatusCode::kInvalidArgument);
}

std::vector<ReplyCase> AllReplies() {
  return {
      {"get hit", Packet(0x00, 0, kFlags, "", "hello"), true, ""},
      {"get miss", Packet(0x00, 1, "", "", "Not found"), true, ""},
      {"set ok", Packet(0x01, 0, "", "", ""), true, ""},
      {"delete miss", Packet(0x04, 1, "", "", "Not found"), true, ""},
      {"multiget: two hits then NOOP",
       Packet(0x0d, 0, kFlags, "a", "x") + Packet(0x0d, 0, kFlags, "bb", "yy") + Packet(0x0a, 0, "", "", ""), true, ""},
      {"multiget: all missed", Packet(0x0a, 0, "", "", ""), true, ""},
      {"set not stored", Packet(0x01, 5, "", "", "Not stored."), false, "status 0x0005 (item not stored): Not stored."},
      {"set too large", Packet(0x01, 3, "", "", ""), false, "status 0x0003 (value too large)"},
      {"multiget: an error among the hits",
       Packet(0x0d, 0, kFlags, "a", "x") + Packet(0x0d, 0x82, "", "b", "") + Packet(0x0a, 0, "", "", ""), false,
       "status 0x0082 (out of memory)"},
  };
}

std::vector<std::string> MalformedReplies() {
  std::string huge = Packet(0x00, 0, "", "", "");
  huge[8] = 0x7f;  // a body of ~2 GiB
  std::string extras_past_body = Packet(0x00, 0, kFlags, "", "");
  extras_past_body[11] = 2;  // body 2 < extras 4
  std::string many;
  for (size_t i = 0; i <= MemcachedBinaryLimits::kMaxQuietPackets; ++i) many += Packet(0x0d, 0, "", "k", "");
  std::string typed = Packet(0x00, 0, "", "", "");
  typed[5] = 1;
  return {
      "VALUE k 0 1\r\nx\r\nEND\r\n",               // the text protocol
      Packet(0x00, 0, "", "", "", 0x80),            // a request's magic
      Packet(0x17, 0, "", "", ""),                  // an opcode ream never sends
      huge, extras_past_body, many, typed,
  };
}

using codec_test::ReplyParserTest;
INSTANTIATE_TEST_SUITE_P(MemcachedBinary, ReplyParserTest,
                         ::testing::Values(codec_test::ReplyParserCase{
                             [] { return Codec(); }, AllReplies(),
                             Packet(0x00, 0, kFlags, "", "next"),  // the start of another reply
                             MalformedReplies()}));

TEST(MemcachedBinaryCodec, RandomBytesNeverCrashOrOverread) {
  // Exact-size heap copies so AddressSanitizer catches any read past the buffer.
  auto c = Codec();
  std::mt19937_64 rng(1);
  const std::string good = Packet(0x0d, 0, kFlags, "a", "x") + Packet(0x0a, 0, "", "", "");
  for (int i = 0; i < 20000; ++i) {
    size_t len = rng() % 96;
    std::string s(len, '\0');
    for (auto& ch : s) ch = static_cast<char>(rng());
    if (i % 2 == 0) s.replace(0, std::min(len, good.size()), good.substr(0, std::min(len, good.size())));
    auto heap = std::make_unique<char[]>(len ? len : 1);
    std::copy(s.begin(), s.end(), heap.get());
    Response r;
    auto n = c->ParseResponse(std::string_view(heap.get(), len), &r);
    if (n.ok()) {
      EXPECT_LE(*n, len);
      EXPECT_EQ(r.ok, r.error.empty());
    } else {
      EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
    }
  }
}

}  // namespace
}  // namespace ream::memcached_binary_codec_test
