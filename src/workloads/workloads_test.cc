#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include <gtest/gtest.h>

#include "protocol/keyspace.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "protocol/ream_frame.h"
#include "workloads/dataset_dir.h"
#include "workloads/kv.h"
#include "workloads/server.h"
#include "workloads/service_time.h"
#include "workloads/synthetic.h"

namespace ream {
namespace {

// The workloads' temporary files follow the sandbox's private TMPDIR, and /tmp without one.
TEST(TempBase, IsTmpdirWhenSetElseTmp) {
  const char* saved = std::getenv("TMPDIR");
  const std::string before = saved ? saved : "";
  setenv("TMPDIR", "/tmp/ream-77-3.tmp", 1);
  EXPECT_EQ(TempBase(), "/tmp/ream-77-3.tmp");
  setenv("TMPDIR", "", 1);
  EXPECT_EQ(TempBase(), "/tmp");
  unsetenv("TMPDIR");
  EXPECT_EQ(TempBase(), "/tmp");
  if (saved) setenv("TMPDIR", before.c_str(), 1);
}

TEST(ServiceTime, ParsesEveryFormWithItsMoments) {
  auto c = ServiceTime::Parse("const:20us");
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->mean_ns(), 20000);
  EXPECT_DOUBLE_EQ(c->variance_ns2(), 0);
  auto e = ServiceTime::Parse("exp:100us");
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(e->variance_ns2(), 1e10);
  auto l = ServiceTime::Parse("lognormal:mean=100us,sigma=1");
  ASSERT_TRUE(l.ok());
  auto b = ServiceTime::Parse("bimodal:10us,1ms,p=0.01");
  ASSERT_TRUE(b.ok());
  EXPECT_NEAR(b->mean_ns(), 0.99 * 10000 + 0.01 * 1e6, 1e-6);
  std::mt19937_64 rng(3);
  for (const ServiceTime* s : {&*e, &*l, &*b}) {
    double sum = 0;
    const int n = 400000;
    for (int i = 0; i < n; ++i) sum += static_cast<double>(s->Sample(rng));
    EXPECT_NEAR(sum / n, s->mean_ns(), 0.02 * s->mean_ns()) << s->spec();
  }
  EXPECT_TRUE(ServiceTime::Parse("const:0").ok());
  for (const char* bad : {"exp", "exp:fast", "const:10", "gauss:1us", "lognormal:mean=1us",
                          "bimodal:1us,2us", "bimodal:1us,2us,p=2"}) {
    auto r = ServiceTime::Parse(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("forms:"), std::string::npos) << bad;
  }
}

TEST(KvStore, GetSetDeleteScan) {
  KvStore kv(100, 8);
  EXPECT_EQ(kv.size(), 100u);
  std::string v;
  ASSERT_TRUE(kv.Get(KeyString(42), &v));
  EXPECT_EQ(v, KeyString(42).substr(0, 8));
  kv.Set(KeyString(42), "new");
  v.clear();
  ASSERT_TRUE(kv.Get(KeyString(42), &v));
  EXPECT_EQ(v, "new");
  EXPECT_TRUE(kv.Delete(KeyString(42)));
  EXPECT_FALSE(kv.Delete(KeyString(42)));
  v.clear();
  EXPECT_FALSE(kv.Get(KeyString(42), &v));
  std::string out;
  EXPECT_EQ(kv.Scan(KeyString(40), 5, 1 << 20, &out), 5u);
  // Records 40, 41, 43, 44, 45 (42 was deleted), each 6 + 16 + 8 bytes.
  ASSERT_EQ(out.size(), 5u * 30);
  EXPECT_EQ(out.substr(6, 16), KeyString(40));
  EXPECT_EQ(out.substr(30 + 6, 16), KeyString(41));
  EXPECT_EQ(out.substr(60 + 6, 16), KeyString(43));
  EXPECT_EQ(kv.Scan(KeyString(98), 5, 1 << 20, &out), 2u);
}

// Sends one request over a real socket to a running server and returns the response.
frame::ResponseFrame RoundTrip(int port, const frame::RequestFrame& req, std::string* storage) {
  auto fd = net::Connect("127.0.0.1", port, 1'000'000'000);
  EXPECT_TRUE(fd.ok());
  std::string wire;
  EXPECT_TRUE(frame::AppendRequest(req, &wire).ok());
  net::WriteSome(fd->get(), wire.data(), wire.size());
  net::Buffer in;
  frame::ResponseFrame resp;
  int64_t deadline = MonotonicNowNs() + 2'000'000'000;
  while (MonotonicNowNs() < deadline) {
    net::ReadAvailable(fd->get(), &in);
    auto n = frame::ParseResponse(in.view(), &resp);
    EXPECT_TRUE(n.ok());
    if (n.ok() && *n > 0) {
      storage->assign(resp.payload);
      resp.payload = *storage;
      return resp;
    }
  }
  ADD_FAILURE() << "no response";
  return resp;
}

TEST(KvServer, ServesRequestsOverTheWire) {
  auto store = std::make_shared<KvStore>(1000, 32);
  auto server = Server::Start({.threads = 2}, MakeKvHandlers(store));
  ASSERT_TRUE(server.ok());
  int port = (*server)->port();
  std::string key = KeyString(7), payload;
  auto r = RoundTrip(port, {.id = 5, .op = Op::kGet, .key = key}, &payload);
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.status, frame::ResponseStatus::kOk);
  EXPECT_EQ(payload.size(), 32u);
  r = RoundTrip(port, {.id = 6, .op = Op::kSet, .key = "zzz", .value = "hello"}, &payload);
  EXPECT_EQ(r.status, frame::ResponseStatus::kOk);
  r = RoundTrip(port, {.id = 7, .op = Op::kGet, .key = "zzz"}, &payload);
  EXPECT_EQ(payload, "hello");
  r = RoundTrip(port, {.id = 8, .op = Op::kDelete, .key = "nope"}, &payload);
  EXPECT_EQ(r.status, frame::ResponseStatus::kNotFound);
  r = RoundTrip(port, {.id = 9, .op = Op::kScan, .arg = 3, .key = KeyString(0)}, &payload);
  EXPECT_EQ(payload.size(), 3u * (6 + 16 + 32));
}

TEST(Server, ReportsServiceAndQueueTimeAndRejectsGarbage) {
  auto server = Server::Start({.threads = 1}, MakeSyntheticHandlers(*ServiceTime::Parse("const:200us"), 1));
  ASSERT_TRUE(server.ok());
  int port = (*server)->port();
  // Three pipelined requests: the third waits for the first two (~400 us of queue).
  auto fd = net::Connect("127.0.0.1", port, 1'000'000'000);
  ASSERT_TRUE(fd.ok());
  std::string wire;
  for (uint64_t id = 1; id <= 3; ++id) ASSERT_TRUE(frame::AppendRequest({.id = id, .key = "k"}, &wire).ok());
  net::WriteSome(fd->get(), wire.data(), wire.size());
  net::Buffer in;
  std::vector<frame::ResponseFrame> got;
  int64_t deadline = MonotonicNowNs() + 2'000'000'000;
  while (got.size() < 3 && MonotonicNowNs() < deadline) {
    net::ReadAvailable(fd->get(), &in);
    frame::ResponseFrame f;
    auto n = frame::ParseResponse(in.view(), &f);
    ASSERT_TRUE(n.ok());
    if (*n == 0) continue;
    got.push_back(f);
    in.Consume(*n);
  }
  ASSERT_EQ(got.size(), 3u);
  // Service is wall time from dequeue to write: never below the 200 us of CPU work; above it
  // by whatever preemption adds (a stalled vCPU, a test running beside this one), so no upper
  // bound here — the calibration test checks its accuracy on a quiet machine.
  for (const auto& f : got) EXPECT_GE(f.service_ns, 195000);
  EXPECT_GT(got[2].queue_ns, 350000);
  // The third waited behind two 200 us services; the first behind none (its absolute queue
  // time also holds wake-up and preemption, so compare the two).
  EXPECT_LT(got[0].queue_ns + 300000, got[2].queue_ns);
  // Garbage: an error frame naming the defect, then the connection is closed.
  auto bad = net::Connect("127.0.0.1", port, 1'000'000'000);
  ASSERT_TRUE(bad.ok());
  const char junk[] = "GET / HTTP/1.1\r\n\r\n";
  net::WriteSome(bad->get(), junk, sizeof junk - 1);
  net::Buffer bin;
  bool closed = false;
  deadline = MonotonicNowNs() + 2'000'000'000;
  while (!closed && MonotonicNowNs() < deadline) closed = net::ReadAvailable(bad->get(), &bin).closed;
  EXPECT_TRUE(closed);
  frame::ResponseFrame err;
  ASSERT_GT(*frame::ParseResponse(bin.view(), &err), 0u);
  EXPECT_EQ(err.status, frame::ResponseStatus::kError);
  EXPECT_FALSE(err.payload.empty());
  (*server)->Stop();
}

// A response leaves when its own service ends, not after the next queued request's service:
// otherwise every response that leaves a queue behind it is late by a whole service time, an
// error of the measurement that grows with load. Three 2 ms requests queued at once must
// therefore arrive 2 ms apart. Arrival is the kernel's stamp of each response's segment, so
// how soon this thread gets to read does not matter; each request has a connection of its own,
// because segments that wait unread on one socket are coalesced and keep only the last stamp.
TEST(Server, EachResponseLeavesWhenItsServiceEnds) {
  auto server = Server::Start({.threads = 1}, MakeSyntheticHandlers(*ServiceTime::Parse("const:2ms"), 1));
  ASSERT_TRUE(server.ok());
  std::vector<net::Fd> conns;
  for (int i = 0; i < 3; ++i) {
    auto fd = net::Connect("127.0.0.1", (*server)->port(), 1'000'000'000);
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(net::EnableReceiveTimestamps(fd->get()).ok());
    conns.push_back(std::move(fd).value());
  }
  auto send = [&](int i, uint64_t id) {
    std::string wire;
    ASSERT_TRUE(frame::AppendRequest({.id = id, .key = "k"}, &wire).ok());
    net::WriteSome(conns[i].get(), wire.data(), wire.size());
  };
  // Reads one whole response from a connection: the kernel's stamp of its arrival, 0 if none.
  auto receive = [&](int i, int64_t* stamp) {
    net::Buffer in;
    *stamp = 0;
    int64_t deadline = MonotonicNowNs() + 2'000'000'000;
    frame::ResponseFrame f;
    for (;;) {
      ASSERT_LT(MonotonicNowNs(), deadline) << "no response";
      int64_t s = 0;
      net::IoResult r = net::ReadAvailable(conns[i].get(), &in, &s);
      ASSERT_FALSE(r.closed || r.error != 0) << net::DescribeIo(r);
      if (s != 0) *stamp = s;
      auto n = frame::ParseResponse(in.view(), &f);
      ASSERT_TRUE(n.ok());
      if (*n > 0) return;
    }
  };
  // The kernel turns receive stamping on for the whole host from a deferred work item when the
  // first socket asks, so the first segments after that may arrive unstamped: one round trip at
  // a time until a response carries its stamp (a second at most).
  uint64_t id = 0;
  int64_t stamp = 0;
  for (int64_t until = MonotonicNowNs() + 1'000'000'000; stamp == 0 && MonotonicNowNs() < until;) {
    send(0, ++id);
    receive(0, &stamp);
    if (HasFatalFailure()) return;
  }
  ASSERT_NE(stamp, 0) << "the kernel never stamped a received segment";
  for (int i = 0; i < 3; ++i) send(i, ++id);
  std::vector<int64_t> arrival;
  for (int i = 0; i < 3; ++i) {
    receive(i, &stamp);
    if (HasFatalFailure()) return;
    ASSERT_NE(stamp, 0) << "no kernel arrival stamp";
    arrival.push_back(stamp);
  }
  std::sort(arrival.begin(), arrival.end());
  // Each gap holds the next request's 2 ms of CPU work: no less (a stalled CPU can only add).
  EXPECT_GE(arrival[1] - arrival[0], 1'900'000);
  EXPECT_GE(arrival[2] - arrival[1], 1'900'000);
  (*server)->Stop();
}

}  // namespace
}  // namespace ream
