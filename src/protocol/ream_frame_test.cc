#include "protocol/ream_frame.h"

#include <random>
#include <set>

#include <gtest/gtest.h>

#include "protocol/ream_codec.h"
#include "protocol/registry.h"

namespace ream::frame {
namespace {

TEST(ReamFrame, RequestRoundTrips) {
  std::string buf;
  RequestFrame in{.id = 0x0102030405060708ULL, .op = Op::kSet, .arg = 0, .key = "k42", .value = "hello"};
  ASSERT_TRUE(AppendRequest(in, &buf).ok());
  EXPECT_EQ(buf.size(), kRequestHeaderBytes + 3 + 5);
  // Little-endian length prefix and magic bytes 'R','E'.
  EXPECT_EQ(static_cast<uint8_t>(buf[0]), buf.size());
  EXPECT_EQ(buf[4], 'R');
  EXPECT_EQ(buf[5], 'E');
  RequestFrame out;
  auto n = ParseRequest(buf, &out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, buf.size());
  EXPECT_EQ(out.id, in.id);
  EXPECT_EQ(out.op, Op::kSet);
  EXPECT_EQ(out.key, "k42");
  EXPECT_EQ(out.value, "hello");
}

TEST(ReamFrame, ResponseRoundTripsWithServerTimes) {
  std::string buf;
  AppendResponse({.id = 7, .status = ResponseStatus::kNotFound, .service_ns = 12345,
                  .queue_ns = 678, .payload = "abc"}, &buf);
  ResponseFrame out;
  auto n = ParseResponse(buf, &out);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, buf.size());
  EXPECT_EQ(out.id, 7u);
  EXPECT_EQ(out.status, ResponseStatus::kNotFound);
  EXPECT_EQ(out.service_ns, 12345);
  EXPECT_EQ(out.queue_ns, 678);
  EXPECT_EQ(out.payload, "abc");
}

TEST(ReamFrame, EveryTruncationAsksForMoreBytes) {
  std::string req, resp;
  ASSERT_TRUE(AppendRequest({.id = 1, .op = Op::kGet, .key = "key"}, &req).ok());
  AppendResponse({.id = 1, .payload = "value"}, &resp);
  for (size_t i = 0; i < req.size(); ++i) {
    RequestFrame f;
    auto n = ParseRequest(std::string_view(req).substr(0, i), &f);
    ASSERT_TRUE(n.ok()) << i;
    EXPECT_EQ(*n, 0u) << i;
  }
  for (size_t i = 0; i < resp.size(); ++i) {
    ResponseFrame f;
    auto n = ParseResponse(std::string_view(resp).substr(0, i), &f);
    ASSERT_TRUE(n.ok()) << i;
    EXPECT_EQ(*n, 0u) << i;
  }
}

TEST(ReamFrame, RejectsMalformedFrames) {
  std::string good;
  ASSERT_TRUE(AppendRequest({.id = 1, .op = Op::kGet, .key = "key"}, &good).ok());
  RequestFrame f;
  {
    std::string b = good;
    b[4] = 'X';  // magic
    EXPECT_EQ(ParseRequest(b, &f).status().code(), StatusCode::kCorrupt);
  }
  {
    std::string b = good;
    b[6] = 9;  // version
    EXPECT_EQ(ParseRequest(b, &f).status().code(), StatusCode::kCorrupt);
  }
  {
    std::string b = good;
    b[7] = 99;  // op
    EXPECT_EQ(ParseRequest(b, &f).status().code(), StatusCode::kCorrupt);
  }
  {
    std::string b = good;
    b[16] = 100;  // key length beyond the frame
    auto r = ParseRequest(b, &f);
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
    EXPECT_NE(r.status().message().find("runs past"), std::string::npos);
  }
  {
    std::string b = good;
    b[0] = 3;  // shorter than the header
    b[1] = b[2] = b[3] = 0;
    EXPECT_EQ(ParseRequest(b, &f).status().code(), StatusCode::kCorrupt);
  }
  {
    std::string b = good.substr(0, 8);
    b[3] = 0x7f;  // ~2 GiB announced: rejected at once, nothing buffered
    auto r = ParseRequest(b, &f);
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
    EXPECT_NE(r.status().message().find("exceeds"), std::string::npos);
  }
  {
    // A get carrying a payload is inconsistent.
    std::string b = good + "zz";
    b[0] = static_cast<char>(b.size());
    EXPECT_EQ(ParseRequest(b, &f).status().code(), StatusCode::kCorrupt);
  }
}

TEST(ReamFrame, RejectsOversizedRequestsWhenEncoding) {
  std::string out;
  std::string key(kMaxKeyBytes + 1, 'k');
  EXPECT_EQ(AppendRequest({.key = key}, &out).code(), StatusCode::kInvalidArgument);
  std::string value(kMaxFrameBytes, 'v');
  EXPECT_EQ(AppendRequest({.op = Op::kSet, .key = "k", .value = value}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(out.empty());
}

TEST(ReamFrame, RandomBytesNeverCrashOrOverread) {
  // Exact-size heap copies so AddressSanitizer catches any read past the buffer.
  std::mt19937_64 rng(1);
  std::string good;
  AppendResponse({.id = 3, .payload = "xyz"}, &good);
  for (int i = 0; i < 20000; ++i) {
    size_t len = rng() % 64;
    std::string s(len, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    if (i % 2 == 0 && len >= 8) s.replace(0, 8, good.substr(0, 8));  // plausible prefixes
    auto heap = std::make_unique<char[]>(len ? len : 1);
    std::copy(s.begin(), s.end(), heap.get());
    RequestFrame rq;
    ResponseFrame rs;
    auto a = ParseRequest(std::string_view(heap.get(), len), &rq);
    auto b = ParseResponse(std::string_view(heap.get(), len), &rs);
    if (a.ok()) {
      EXPECT_LE(*a, len);
    }
    if (b.ok()) {
      EXPECT_LE(*b, len);
    }
  }
}

TEST(ReamCodec, MatchesByIdAndReportsServerTimes) {
  auto codec = MakeClientCodec("ream", CodecOptions{});
  ASSERT_TRUE(codec.ok());
  auto caps = (*codec)->capabilities();
  EXPECT_TRUE(caps.matches_by_id);
  EXPECT_TRUE(caps.reports_service_time);
  std::string wire;
  ASSERT_TRUE((*codec)->EncodeRequest({.id = 9, .op = Op::kGet, .key = "a"}, &wire).ok());
  RequestFrame rq;
  ASSERT_EQ(*ParseRequest(wire, &rq), wire.size());
  EXPECT_EQ(rq.id, 9u);
  std::string resp;
  AppendResponse({.id = 9, .status = ResponseStatus::kError, .service_ns = 5, .queue_ns = 6,
                  .payload = "boom"}, &resp);
  Response r;
  auto n = (*codec)->ParseResponse(resp, &r);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(r.id, 9u);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "boom");
  EXPECT_EQ(r.service_ns, 5);
  EXPECT_EQ(r.queue_ns, 6);
}

TEST(CodecRegistry, UnknownProtocolNamesTheKnownOnes) {
  auto codec = MakeClientCodec("gopher", CodecOptions{});
  ASSERT_FALSE(codec.ok());
  EXPECT_EQ(codec.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(codec.status().message().find("ream"), std::string::npos);
}

// One table: every protocol is listed once, and every listed name makes its codec.
TEST(CodecRegistry, NamesAreDistinctAndEachMakesACodec) {
  std::vector<std::string> names = ClientCodecNames();
  EXPECT_EQ(names, (std::vector<std::string>{"ream", "memcached", "memcached-binary", "redis", "http"}));
  std::set<std::string> distinct(names.begin(), names.end());
  EXPECT_EQ(distinct.size(), names.size());
  for (const auto& n : names) {
    auto codec = MakeClientCodec(n, CodecOptions{});
    EXPECT_TRUE(codec.ok()) << n << ": " << codec.status().ToString();
  }
  std::string message = MakeClientCodec("gopher", CodecOptions{}).status().message();
  EXPECT_NE(message.find("(known: ream, memcached, memcached-binary, redis, http)"), std::string::npos) << message;
}


// The ream protocol delimits every frame: a close between frames is orderly, inside one not.
TEST(ReamCodec, EofBetweenFramesIsOrderlyInsideOneIsNot) {
  auto c = MakeReamCodec();
  EXPECT_TRUE(c->OnServerClose("", false).orderly);
  EXPECT_FALSE(c->OnServerClose(std::string_view("\x10\0\0\0", 4), false).orderly);
  EXPECT_FALSE(c->OnServerClose("", true).orderly);
}

}  // namespace
}  // namespace ream::frame
