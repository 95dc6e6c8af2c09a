#include "protocol/http_codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/codec_test_util.h"

namespace ream::http_codec_test {
namespace {

using codec_test::ReplyCase;

std::unique_ptr<ClientCodec> Codec(std::string path = "/", std::string method = "GET",
                                   size_t value_bytes = 8) {
  CodecOptions o;
  o.http_path = std::move(path);
  o.http_method = std::move(method);
  o.value_bytes = value_bytes;
  return codec_test::Made(MakeHttpCodec(o));
}

TEST(HttpCodec, CapabilitiesSayInOrderWithoutServerTimes) {
  auto c = Codec();
  EXPECT_EQ(c->name(), "http");
  EXPECT_FALSE(c->capabilities().matches_by_id);
  EXPECT_FALSE(c->capabilities().reports_service_time);
  EXPECT_FALSE(c->capabilities().supports_set);  // a fixed method: the mix means nothing
  EXPECT_EQ(c->capabilities().no_sets_because,
            "its method is fixed to GET for every request (method \"auto\" sends sets as POST)");
  EXPECT_TRUE(Codec("/", "auto")->capabilities().supports_set);
}

TEST(HttpCodec, AutoMethodSendsGetsAsGetAndSetsAsPost) {
  auto c = Codec("/item/{key}", "auto", 3);
  std::string out;
  Request r;
  r.key = "k1";
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "GET /item/k1 HTTP/1.1\r\nHost: localhost\r\n\r\n");
  out.clear();
  r.op = Op::kSet;
  r.value = "abcd";
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out,
            "POST /item/k1 HTTP/1.1\r\nHost: localhost\r\n"
            "Content-Type: application/octet-stream\r\nContent-Length: 4\r\n\r\nabcd");
}

TEST(HttpCodec, EncodesGetWithKeyInPath) {
  auto c = Codec("/item/{key}?again={key}");
  std::string out;
  Request r;
  r.key = "k 1/é";
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out,
            "GET /item/k%201%2F%C3%A9?again=k%201%2F%C3%A9 HTTP/1.1\r\n"
            "Host: localhost\r\n\r\n");
  out.clear();
  auto plain = Codec("/index.html");
  ASSERT_TRUE(plain->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out, "GET /index.html HTTP/1.1\r\nHost: localhost\r\n\r\n");
}

TEST(HttpCodec, EncodesPostWithBody) {
  auto c = Codec("/put/{key}", "POST", 5);
  std::string out;
  Request r;
  r.key = "a";
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_EQ(out,
            "POST /put/a HTTP/1.1\r\nHost: localhost\r\n"
            "Content-Type: application/octet-stream\r\nContent-Length: 5\r\n\r\nvvvvv");
  out.clear();
  r.op = Op::kSet;
  r.value = "xy";
  ASSERT_TRUE(c->EncodeRequest(r, &out).ok());
  EXPECT_NE(out.find("Content-Length: 2\r\n\r\nxy"), std::string::npos);
}

TEST(HttpCodec, RejectsBadOptions) {
  CodecOptions o;
  o.http_method = "DELETE";
  auto c = MakeHttpCodec(o);
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("--http-method"), std::string::npos);
  o = CodecOptions();
  for (std::string bad : {"", "item", "/a b", "/a\r\nX: y"}) {
    o.http_path = bad;
    c = MakeHttpCodec(o);
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(c.status().message().find("--http-path"), std::string::npos);
  }
  o = CodecOptions();
  o.http_host = "a\r\nb";
  EXPECT_EQ(MakeHttpCodec(o).status().code(), StatusCode::kInvalidArgument);
}

TEST(HttpCodec, RejectsOverlongTarget) {
  auto c = Codec("/{key}");
  std::string out = "kept";
  Request r;
  std::string key(HttpLimits::kMaxPathBytes, 'k');
  r.key = key;
  EXPECT_EQ(c->EncodeRequest(r, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(out, "kept");  // nothing half-written
}

std::vector<ReplyCase> AllReplies() {
  return {
      {"200 with length",
       "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 5\r\n\r\nhello", true, ""},
      {"empty body", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true, ""},
      {"no reason", "HTTP/1.1 200\r\ncontent-length: 2\r\n\r\nhi", true, ""},
      {"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", true, ""},
      {"repeated equal length", "HTTP/1.1 200 OK\r\nContent-Length: 1, 1\r\n\r\nx", true, ""},
      {"chunked",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
       "5\r\nhello\r\nA;ext=1\r\n0123456789\r\n0\r\n\r\n",
       true, ""},
      {"chunked with trailer",
       "HTTP/1.1 201 Created\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n"
       "1\r\nx\r\n0\r\nX-Checksum: abc\r\n\r\n",
       true, ""},
      {"chunked overrides length",
       "HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
       true, ""},
      {"204", "HTTP/1.1 204 No Content\r\n\r\n", true, ""},
      {"304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", false, "HTTP 304"},
      {"100 then 200", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
       true, ""},
      {"404", "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found", false, "HTTP 404"},
      {"405", "HTTP/1.1 405 Not Allowed\r\nContent-Length: 0\r\n\r\n", false, "HTTP 405"},
      {"503 chunked", "HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false,
       "HTTP 503"},
  };
}

// Replies the parser must refuse as corrupt.
std::vector<std::string> MalformedReplies() {
  std::vector<std::string> bad = {
      "-ERR wrong number of arguments\r\n",  // Redis
      "ERROR\r\n",                           // memcached
      "HTTP/2 200\r\n\r\n",
      "HTTP/1.1 20 OK\r\n\r\n",
      "HTTP/1.1 600 Odd\r\n\r\n",
      "HTTP/1.1 200OK\r\n\r\n",
      "HTTP/1.1 200 OK\n\n",                 // bare LF
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n",  // fine so far; completed below as bad
      "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
      "HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
      "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX: a\x01z\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n",
      "HTTP/1.1 200 OK\r\n\r\n",                                  // close-delimited body
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",       // close-delimited body
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
      "HTTP/1.1 101 Switching Protocols\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1 x\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n",
  };
  bad[7] += "Content-Length: 6\r\n\r\n";  // contradicting lengths
  return bad;
}

using codec_test::ReplyParserTest;
INSTANTIATE_TEST_SUITE_P(Http, ReplyParserTest,
                         ::testing::Values(codec_test::ReplyParserCase{
                             [] { return Codec(); }, AllReplies(),
                             "HTTP/1.1 200 OK\r\nContent-Le",  // the start of another response's header
                             MalformedReplies()}));

TEST(HttpCodec, LimitsBoundHeadersAndBodies) {
  auto c = Codec();
  Response r;
  std::string head = "HTTP/1.1 200 OK\r\n";
  for (size_t i = 0; i <= HttpLimits::kMaxHeaders; ++i) head += "X-" + std::to_string(i) + ": v\r\n";
  auto n = c->ParseResponse(head + "Content-Length: 0\r\n\r\n", &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(n.status().message().find("header fields"), std::string::npos);
  // A header section that never ends is refused at the size limit, not buffered forever.
  std::string endless = "HTTP/1.1 200 OK\r\nX: " + std::string(HttpLimits::kMaxHeaderBytes, 'a');
  n = c->ParseResponse(endless, &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  std::string many_lines = "HTTP/1.1 200 OK\r\n";
  while (many_lines.size() < HttpLimits::kMaxHeaderBytes) many_lines += "X: " + std::string(1000, 'b') + "\r\n";
  n = c->ParseResponse(many_lines, &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  // Bodies past the limit are refused from the header alone.
  n = c->ParseResponse("HTTP/1.1 200 OK\r\nContent-Length: " +
                           std::to_string(HttpLimits::kMaxBodyBytes + 1) + "\r\n\r\n",
                       &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  char size_hex[32];
  std::snprintf(size_hex, sizeof(size_hex), "%zx", HttpLimits::kMaxBodyBytes + 1);
  n = c->ParseResponse(std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") +
                           size_hex + "\r\n",
                       &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
  // Endless interim responses.
  std::string interim;
  for (size_t i = 0; i <= HttpLimits::kMaxInterimResponses; ++i) interim += "HTTP/1.1 100 Continue\r\n\r\n";
  n = c->ParseResponse(interim, &r);
  EXPECT_EQ(n.status().code(), StatusCode::kCorrupt);
}


// nginx closes a keep-alive connection after keepalive_requests responses, announcing it on
// the last one: the parser says so, so the generator stops writing into that connection.
TEST(HttpCodec, ConnectionCloseOnAResponseIsAnOrderlyCloseAnnounced) {
  auto c = Codec();
  Response resp;
  std::string last = "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
  ASSERT_EQ(*c->ParseResponse(last, &resp), last.size());
  EXPECT_TRUE(resp.ok);
  ASSERT_NE(resp.closes_connection, nullptr);
  EXPECT_NE(std::string(resp.closes_connection).find("Connection: close"), std::string::npos);
  // A token list, any case.
  std::string listed = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nconnection: Upgrade, CLOSE\r\n\r\n";
  ASSERT_EQ(*c->ParseResponse(listed, &resp), listed.size());
  EXPECT_NE(resp.closes_connection, nullptr);
  // Keep-alive (the default of HTTP/1.1) is not a close.
  std::string kept = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n";
  ASSERT_EQ(*c->ParseResponse(kept, &resp), kept.size());
  EXPECT_EQ(resp.closes_connection, nullptr);
  std::string plain = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  ASSERT_EQ(*c->ParseResponse(plain, &resp), plain.size());
  EXPECT_EQ(resp.closes_connection, nullptr);
  // HTTP/1.0 closes unless it says keep-alive.
  std::string old = "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n";
  ASSERT_EQ(*c->ParseResponse(old, &resp), old.size());
  EXPECT_NE(resp.closes_connection, nullptr);
  std::string old_kept = "HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n";
  ASSERT_EQ(*c->ParseResponse(old_kept, &resp), old_kept.size());
  EXPECT_EQ(resp.closes_connection, nullptr);
}

// EOF right after a complete response is orderly (an idle timeout, a request limit without
// the header); EOF inside one cut it short; an RST is abrupt.
TEST(HttpCodec, EofAfterACompleteResponseIsOrderlyInsideOneIsNot) {
  auto c = Codec();
  ServerClose after = c->OnServerClose("", false);
  EXPECT_TRUE(after.orderly);
  EXPECT_NE(after.reason.find("after a complete response"), std::string::npos) << after.reason;
  ServerClose inside = c->OnServerClose("HTTP/1.1 200 OK\r\nContent-Le", false);
  EXPECT_FALSE(inside.orderly);
  EXPECT_NE(inside.reason.find("in the middle of a response (27 bytes"), std::string::npos) << inside.reason;
  ServerClose reset = c->OnServerClose("", true);
  EXPECT_FALSE(reset.orderly);
  EXPECT_NE(reset.reason.find("RST"), std::string::npos) << reset.reason;
}

}  // namespace
}  // namespace ream::http_codec_test
