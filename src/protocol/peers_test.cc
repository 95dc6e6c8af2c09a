// Tests against the real servers (CTest label `peers`): memcached, redis-server and nginx from
// the distribution, each started on a free loopback port with a throwaway config and
// directory, driven by the `ream load` binary, and checked for the work it really did. Every
// server is stopped and its directory removed by a destructor, so a failing assertion leaves
// nothing behind; servers also get SIGKILL if this test process dies (PR_SET_PDEATHSIG).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/peers_test_support.h"

namespace ream {
namespace {

using namespace peers_test;


TEST(Peers, RedisHoldsTheKeysOfASetHeavyRun) {
  Peer redis;
  StartRedis(&redis);
  ASSERT_TRUE(redis.Listening());
  // 2 000 distinct keys, 90 % sets, uniform: a run of ~7 500 requests sets nearly all keys.
  LoadRun run = RunReamLoad(redis.port,
                            {"--protocol", "redis", "--qps", "2500", "--duration", "2s",
                             "--warmup", "1s", "--get-ratio", "0.1", "--keys", "2000",
                             "--key-dist", "uniform", "--value-bytes", "32", "--connections", "2"},
                            kRunTimeout);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_EQ(run.cmd.exit_code, 0) << Describe(run);
  EXPECT_EQ(run.json["protocol"], "redis");
  EXPECT_EQ(run.json["errors"], 0) << Describe(run);
  ExpectNoFailedRequests(run);
  // No server-side time from Redis: ream reports sojourn only.
  EXPECT_FALSE(run.json.contains("service_us")) << run.json.dump();
  EXPECT_FALSE(run.json.contains("queue_us")) << run.json.dump();
  EXPECT_GT(run.json["latency_us"]["p50"].get<double>(), 0);

  uint64_t sent = run.json["issued_total"].get<uint64_t>();
  uint64_t sets = RedisCalls(redis.port, "set");
  uint64_t gets = RedisCalls(redis.port, "get");
  // Redis executed every command ream sent, and about 90 % of them were sets.
  EXPECT_EQ(sets + gets, sent);
  EXPECT_NEAR(static_cast<double>(sets) / static_cast<double>(sent), 0.9, 0.03);
  // The keys are there: with S uniform sets over 2 000 keys, 2000·(1 − (1 − 1/2000)^S) of
  // them are expected to exist.
  int64_t dbsize = RedisInteger(redis.port, {"DBSIZE"});
  double expected = 2000.0 * (1.0 - std::pow(1.0 - 1.0 / 2000.0, static_cast<double>(sets)));
  EXPECT_LE(dbsize, 2000);
  EXPECT_NEAR(static_cast<double>(dbsize), expected, 0.03 * expected) << "sets " << sets;
  EXPECT_EQ(RedisInteger(redis.port, {"STRLEN", "key0000000000000"}), 32);
}

TEST(Peers, MemcachedStatsCountTheGetsAndSetsReamSent) {
  Peer mc;
  StartMemcached(&mc);
  ASSERT_TRUE(mc.Listening());
  // Three runs: only gets, only sets, then a mix; memcached's counters must follow each.
  struct Step {
    const char* get_ratio;
    double expect_get_share;
  };
  uint64_t prev_get = 0, prev_set = 0;
  for (Step step : {Step{"1", 1.0}, Step{"0", 0.0}, Step{"0.7", 0.7}}) {
    LoadRun run = RunReamLoad(mc.port,
                              {"--protocol", "memcached", "--qps", "3000", "--duration", "1.5s",
                               "--warmup", "0.5s", "--get-ratio", step.get_ratio, "--keys",
                               "5000", "--value-bytes", "100", "--connections", "2"},
                              kRunTimeout);
    ASSERT_TRUE(run.json.is_object()) << Describe(run);
    EXPECT_EQ(run.cmd.exit_code, 0) << Describe(run);
    EXPECT_EQ(run.json["errors"], 0) << Describe(run);
    ExpectNoFailedRequests(run);
    auto stats = MemcachedStats(mc.port);
    ASSERT_TRUE(stats.count("cmd_get") && stats.count("cmd_set")) << "no stats from memcached";
    double gets = static_cast<double>(stats["cmd_get"] - prev_get);
    double sets = static_cast<double>(stats["cmd_set"] - prev_set);
    prev_get = stats["cmd_get"];
    prev_set = stats["cmd_set"];
    double sent = run.json["issued_total"].get<double>();
    ASSERT_GT(sent, 4000);
    // memcached counted what ream sent, within 1 %: in total, and per operation where the
    // mix is fixed (all gets, all sets); the mixed run's share is random (binomial, 3.5 σ).
    EXPECT_NEAR(gets + sets, sent, 0.01 * sent) << "get ratio " << step.get_ratio;
    bool mixed = step.expect_get_share > 0 && step.expect_get_share < 1;
    EXPECT_NEAR(gets / sent, step.expect_get_share, mixed ? 0.02 : 0.01)
        << "get ratio " << step.get_ratio;
  }
  // After sets of 100 bytes, a key holds exactly that.
  std::string reply;
  for (int i = 0; i < 5000 && reply.find("VALUE") == std::string::npos; ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "key%013d", i);
    reply = Exchange(mc.port, std::string("get ") + key + "\r\n", "END\r\n");
  }
  EXPECT_NE(reply.find(" 0 100\r\n"), std::string::npos) << reply;
}

TEST(Peers, NginxAccessLogCountsTheRequests) {
  Peer nginx;
  StartNginx(&nginx);
  ASSERT_TRUE(nginx.Listening());
  LoadRun run = RunReamLoad(nginx.port,
                            {"--protocol", "http", "--qps", "2000", "--duration", "2s",
                             "--warmup", "0.5s", "--get-ratio", "1", "--connections", "4"},
                            kRunTimeout);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_EQ(run.cmd.exit_code, 0) << Describe(run);
  EXPECT_EQ(run.json["errors"], 0) << Describe(run);
  ExpectNoFailedRequests(run);
  EXPECT_FALSE(run.json.contains("service_us")) << run.json.dump();
  nginx.process->Stop();  // the log is complete once nginx has exited
  std::string log = ReadFileOrEmpty(nginx.dir.path() + "/access.log");
  size_t lines = static_cast<size_t>(std::count(log.begin(), log.end(), '\n'));
  size_t item_lines = Occurrences(log, "\"GET / HTTP/1.1\" 200 ");
  uint64_t sent = run.json["issued_total"].get<uint64_t>();
  EXPECT_GT(sent, 4000u);
  EXPECT_EQ(lines, sent);
  EXPECT_EQ(item_lines, sent);  // every one a keep-alive GET answered 200
}

// --http-path embeds the key; --http-method auto sends the generator's gets as GET and its
// sets as POST with a body: nginx's log shows both, in the requested mix, on keyed paths.
TEST(Peers, NginxSeesKeyedPathsAndTheGetPostMix) {
  Peer nginx;
  StartNginx(&nginx);
  ASSERT_TRUE(nginx.Listening());
  LoadRun run = RunReamLoad(nginx.port,
                            {"--protocol", "http", "--http-path", "/item/{key}", "--http-method", "auto",
                             "--qps", "1000", "--duration", "2s", "--warmup", "0.2s", "--get-ratio", "0.5",
                             "--value-bytes", "100"},
                            kRunTimeout);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_EQ(run.cmd.exit_code, 0) << Describe(run);
  ExpectNoFailedRequests(run);
  nginx.process->Stop();
  std::string log = ReadFileOrEmpty(nginx.dir.path() + "/access.log");
  size_t gets = Occurrences(log, "\"GET /item/"), posts = Occurrences(log, "\"POST /item/");
  uint64_t sent = run.json["issued_total"].get<uint64_t>();
  EXPECT_EQ(gets + posts, sent) << log.substr(0, 2000);
  // Half of them sets: 2 200 draws of a fair coin stay within 40-60 % but for 1 in 10^20.
  EXPECT_GT(posts, sent * 4 / 10);
  EXPECT_LT(posts, sent * 6 / 10);
  EXPECT_EQ(Occurrences(log, " 200 "), sent);  // every one answered 200, the POST bodies consumed
}

TEST(Peers, NginxNon2xxStatusesAreErrorsByCode) {
  Peer nginx;
  StartNginx(&nginx, 404);
  ASSERT_TRUE(nginx.Listening());
  LoadRun run = RunReamLoad(nginx.port,
                            {"--protocol", "http", "--qps", "500", "--duration", "1s",
                             "--warmup", "0.2s", "--get-ratio", "1"},
                            kRunTimeout);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_NE(run.cmd.exit_code, 0);
  EXPECT_FALSE(run.json["valid"].get<bool>());
  EXPECT_EQ(run.json["errors"], run.json["issued"]) << Describe(run);
  EXPECT_NE(run.json["error_reasons"].dump().find("HTTP 404"), std::string::npos)
      << run.json["error_reasons"].dump();
}

TEST(Peers, RedisErrorRepliesKeepTheirText) {
  Peer redis;
  StartRedis(&redis);
  ASSERT_TRUE(redis.Listening());
  // Every key holds a list, so each GET is answered "-WRONGTYPE ...".
  for (int i = 0; i < 10; ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "key%013d", i);
    ASSERT_EQ(RedisInteger(redis.port, {"RPUSH", key, "x"}), 1);
  }
  LoadRun run = RunReamLoad(redis.port,
                            {"--protocol", "redis", "--qps", "500", "--duration", "1s",
                             "--warmup", "0.2s", "--get-ratio", "1", "--keys", "10"},
                            kRunTimeout);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_FALSE(run.json["valid"].get<bool>());
  EXPECT_EQ(run.json["errors"], run.json["issued"]);
  std::string reasons = run.json["error_reasons"].dump();
  EXPECT_NE(reasons.find("WRONGTYPE Operation against a key holding the wrong kind of value"),
            std::string::npos)
      << reasons;
  EXPECT_NE(run.json["invalid_reasons"].dump().find("WRONGTYPE"), std::string::npos);
}

// A server killed mid-run: the run ends on time with a clear reason and valid:false.
void ExpectKilledMidRunIsReported(Peer& peer, const std::string& protocol,
                                  const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--protocol", protocol, "--qps", "1000", "--duration", "3s",
                                   "--warmup", "0.5s", "--response-timeout", "1s"};
  args.insert(args.end(), extra.begin(), extra.end());
  LoadRun run = RunReamLoad(peer.port, args, kRunTimeout, std::chrono::milliseconds(1500),
                            [&] { peer.process->Kill(); });
  ASSERT_FALSE(run.cmd.timed_out) << Describe(run);
  // 0.5 s warm-up + 3 s window + 1 s drain, plus start-up: anything near the timeout is a hang.
  EXPECT_LT(run.cmd.seconds, 10.0) << Describe(run);
  EXPECT_NE(run.cmd.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_FALSE(run.json["valid"].get<bool>());
  EXPECT_GT(run.json["errors"].get<uint64_t>(), 0u);
  EXPECT_GT(run.json["completed"].get<uint64_t>(), 0u);  // it did work before the kill
  std::string reasons = run.json["invalid_reasons"].dump();
  EXPECT_NE(reasons.find("requests failed"), std::string::npos) << reasons;
  EXPECT_TRUE(reasons.find("connection") != std::string::npos ||
              reasons.find("closed") != std::string::npos)
      << reasons;
}

TEST(Peers, RedisKilledMidRunEndsInvalidNotHung) {
  Peer redis;
  StartRedis(&redis);
  ASSERT_TRUE(redis.Listening());
  ExpectKilledMidRunIsReported(redis, "redis", {});
}

TEST(Peers, MemcachedKilledMidRunEndsInvalidNotHung) {
  Peer mc;
  StartMemcached(&mc);
  ASSERT_TRUE(mc.Listening());
  ExpectKilledMidRunIsReported(mc, "memcached", {});
}

TEST(Peers, NginxKilledMidRunEndsInvalidNotHung) {
  Peer nginx;
  StartNginx(&nginx);
  ASSERT_TRUE(nginx.Listening());
  ExpectKilledMidRunIsReported(nginx, "http", {"--get-ratio", "1"});
}

// A port that speaks another protocol: the parser's message names what it got.
void ExpectWrongProtocolIsReported(int port, const std::string& protocol,
                                   const std::vector<std::string>& extra,
                                   const std::vector<std::string>& expected_texts) {
  SCOPED_TRACE(protocol + " against port " + std::to_string(port));
  std::vector<std::string> args = {"--protocol", protocol, "--qps", "200", "--duration", "1s",
                                   "--warmup", "0.2s", "--response-timeout", "1s"};
  args.insert(args.end(), extra.begin(), extra.end());
  LoadRun run = RunReamLoad(port, args, kRunTimeout);
  ASSERT_FALSE(run.cmd.timed_out) << Describe(run);
  EXPECT_LT(run.cmd.seconds, 8.0) << Describe(run);
  EXPECT_NE(run.cmd.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_FALSE(run.json["valid"].get<bool>());
  EXPECT_EQ(run.json["completed"], 0);
  std::string reasons = run.json["invalid_reasons"].dump() + run.json["error_reasons"].dump();
  bool named = false;
  for (const auto& t : expected_texts) named = named || reasons.find(t) != std::string::npos;
  EXPECT_TRUE(named) << reasons;
}

TEST(Peers, WrongProtocolOnThePortEndsInvalidWithTheReason) {
  Peer redis, mc, nginx;
  StartRedis(&redis);
  StartMemcached(&mc);
  StartNginx(&nginx);
  ASSERT_TRUE(redis.Listening());
  ASSERT_TRUE(mc.Listening());
  ASSERT_TRUE(nginx.Listening());
  // RESP to memcached: it answers ERROR, which no RESP reply starts with.
  ExpectWrongProtocolIsReported(mc.port, "redis", {}, {"not a RESP reply"});
  // memcached text to Redis: a RESP reply is not a memcached reply line.
  ExpectWrongProtocolIsReported(redis.port, "memcached", {}, {"unexpected memcached reply"});
  // memcached text to nginx: an HTTP 400 response is not a memcached reply line either.
  ExpectWrongProtocolIsReported(nginx.port, "memcached", {}, {"unexpected memcached reply"});
  // HTTP to memcached and to Redis: both hang up on an HTTP request (Redis treats "Host:" as
  // an attack); should a reply come first, it is not an HTTP status line.
  ExpectWrongProtocolIsReported(mc.port, "http", {"--get-ratio", "1"},
                                {"closed the connection", "not an HTTP/1.x status line"});
  ExpectWrongProtocolIsReported(redis.port, "http", {"--get-ratio", "1"},
                                {"closed the connection", "not an HTTP/1.x status line"});
}

// What every reconnecting run must show: the server's closes were survived (no connection
// given up, the schedule kept), and every request was counted exactly once.
// `server_was_down`: connects may fail while it is (they are retried, backing off).
void ExpectSurvivedTheCloses(const LoadRun& run, bool server_was_down = false) {
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_GE(run.json["reconnections"].get<uint64_t>(), 1u) << Describe(run);
  if (!server_was_down) {
    EXPECT_EQ(run.json["reconnect_attempts_failed"].get<uint64_t>(), 0u) << run.json["reconnect_reasons"].dump();
  }
  EXPECT_TRUE(run.json["connection_failures"].empty()) << run.json["connection_failures"].dump();
  std::string reasons = run.json["invalid_reasons"].dump() + run.json["error_reasons"].dump();
  EXPECT_EQ(reasons.find("every connection was closed"), std::string::npos) << reasons;
  EXPECT_EQ(run.json["issued_total"].get<uint64_t>(),
            run.json["completed_total"].get<uint64_t>() + run.json["unanswered_total"].get<uint64_t>());
  EXPECT_EQ(run.json["issued"].get<uint64_t>(), run.json["completed"].get<uint64_t>() + run.json["errors"].get<uint64_t>());
  // The schedule went on: within the rate check's own limit of the target.
  double target = run.json["target_qps"].get<double>() * run.json["duration_s"].get<double>();
  EXPECT_GT(run.json["issued"].get<double>(), 0.97 * target) << Describe(run);
  std::printf("note: %llu reconnection(s) (%s); timely %.2f %%; valid: %s %s\n",
              static_cast<unsigned long long>(run.json["reconnections"].get<uint64_t>()),
              run.json["reconnect_reasons"].dump().c_str(), 100 * run.json["timely_ratio"].get<double>(),
              run.json["valid"].get<bool>() ? "yes" : "no", run.json["invalid_reasons"].dump().c_str());
}

// Stock nginx closes a keep-alive connection after its 1000th response (keepalive_requests'
// default). ream reconnects and goes on, and nginx's access log holds exactly the requests
// ream says were answered; the few written after a 1000th response, which nginx discards
// unread, are the unanswered ones, counted once and never resent.
TEST(Peers, NginxDefaultKeepaliveLimitIsReconnectedAndTheLogCountsEveryRequest) {
  Peer nginx;
  StartNginx(&nginx, 200, /*default_keepalive=*/true, /*cpu=*/0);
  ASSERT_TRUE(nginx.Listening());
  ASSERT_EQ(ReadFileOrEmpty(nginx.dir.path() + "/nginx.conf").find("keepalive_requests"), std::string::npos);
  // (The figure is 5 s; 2 s + 0.5 s warm-up keeps the test quick and still crosses
  // the limit about 50 times.)
  LoadRun run = RunReamLoad(nginx.port,
                            {"--protocol", "http", "--qps", "20000", "--connections", "8", "--duration", "2s",
                             "--warmup", "0.5s", "--get-ratio", "1"},
                            kRunTimeout, std::chrono::milliseconds(0), nullptr, /*cpu=*/1);
  ExpectSurvivedTheCloses(run);
  uint64_t sent = run.json["issued_total"].get<uint64_t>();
  uint64_t answered = run.json["completed_total"].get<uint64_t>();
  EXPECT_GE(run.json["reconnections"].get<uint64_t>(), sent / 1000 - 8) << Describe(run);
  EXPECT_NE(run.json["reconnect_reasons"].dump().find("Connection: close"), std::string::npos);
  // nginx's default, learned from its closes: after it no request is written where nginx
  // would discard it (only the first close of each connection can lose any).
  EXPECT_EQ(run.json["server_closes_after"], 1000) << run.json["server_closes_after"];
  for (const auto& [reason, n] : run.json["error_reasons"].items()) {
    EXPECT_NE(reason.find("connection lost: "), std::string::npos) << reason;
  }
  nginx.process->Stop();  // the log is complete once nginx has exited
  std::string log = ReadFileOrEmpty(nginx.dir.path() + "/access.log");
  size_t lines = static_cast<size_t>(std::count(log.begin(), log.end(), '\n'));
  EXPECT_GT(sent, 40000u);
  EXPECT_EQ(lines, answered) << "ream sent " << sent << ", " << run.json["unanswered_total"] << " unanswered";
  EXPECT_EQ(Occurrences(log, "\"GET / HTTP/1.1\" 200 "), answered);
}

// The claim, as written: against nginx with Debian's default keep-alive settings,
// `ream load --protocol http --qps 20000 --connections 8 --duration 5s` is valid, says how
// often it reconnected, and nginx's access log holds every request ream says was answered.
// The generator's CPU is kept awake (docs/notes/performance-notes.md: idle wake-ups are most of its
// late requests at this rate). Validity is the host's to give: an invalid run skips, with the
// stall figures measured right after it, on a host whose CPUs stall more than 1 % of the
// time, and fails on a quiet one.
TEST(Peers, NginxDefaultConfigAt20kQpsIsValidAndTheLogCountsEveryRequest) {
  Peer nginx;
  StartNginx(&nginx, 200, /*default_keepalive=*/true, /*cpu=*/0);
  ASSERT_TRUE(nginx.Listening());
  const std::vector<std::string> args = {"--protocol", "http", "--qps", "20000", "--connections", "8",
                                         "--duration", "5s", "--get-ratio", "1", "--keep-awake", "1"};
  LoadRun run = RunReamLoad(nginx.port, args, kRunTimeout, std::chrono::milliseconds(0), nullptr, /*cpu=*/1);
  ExpectSurvivedTheCloses(run);
  ASSERT_TRUE(run.json.is_object());
  uint64_t sent = run.json["issued_total"].get<uint64_t>();
  uint64_t answered = run.json["completed_total"].get<uint64_t>();
  EXPECT_GE(run.json["reconnections"].get<uint64_t>(), sent / 1000 - 8) << Describe(run);
  EXPECT_NE((run.cmd.out + run.cmd.err).find("reconnect: " + std::to_string(run.json["reconnections"].get<uint64_t>()) + " reconnection(s)"),
            std::string::npos)
      << "the summary says how often it reconnected: " << run.cmd.err;
  nginx.process->Stop();  // the log is complete once nginx has exited
  std::string log = ReadFileOrEmpty(nginx.dir.path() + "/access.log");
  size_t lines = static_cast<size_t>(std::count(log.begin(), log.end(), '\n'));
  EXPECT_GT(sent, 95000u);
  EXPECT_EQ(lines, answered) << "ream sent " << sent << ", " << run.json["unanswered_total"] << " unanswered";
  std::printf("note: sent %llu, answered %llu, access log %zu lines, %llu reconnections, timely %.2f %%\n",
              static_cast<unsigned long long>(sent), static_cast<unsigned long long>(answered), lines,
              static_cast<unsigned long long>(run.json["reconnections"].get<uint64_t>()),
              100 * run.json["timely_ratio"].get<double>());
  // Validity, once more if need be: the send-gap test is at alpha = 0.01, so one run in a
  // hundred of a perfect generator fails it, and a burst of the host's between two quiet stall
  // figures does too (a clean clone at 19:12 UTC on 3 Dec 2026: A2 = 4.35 against 3.86, the
  // host measured quiet right after). A second run on a fresh nginx decides; the log checks
  // above stay the first run's.
  if (!run.json["valid"].get<bool>() && MachineIsQuiet({0, 1})) {
    std::printf("invalid on a quiet host (%s): measuring again, once\n", run.json["invalid_reasons"].dump().c_str());
    Peer again;
    StartNginx(&again, 200, /*default_keepalive=*/true, /*cpu=*/0);
    ASSERT_TRUE(again.Listening());
    run = RunReamLoad(again.port, args, kRunTimeout, std::chrono::milliseconds(0), nullptr, /*cpu=*/1);
    ASSERT_TRUE(run.json.is_object()) << Describe(run);
    std::printf("note: again: timely %.2f %%, valid %s\n", 100 * run.json["timely_ratio"].get<double>(),
                run.json["valid"].dump().c_str());
  }
  if (!run.json["valid"].get<bool>()) {
    if (!MachineIsQuiet({0, 1})) {
      GTEST_SKIP() << "the run was invalid (" << run.json["invalid_reasons"].dump()
                   << ") on a host whose CPUs stall more than 1 % of the time (figures above)";
    }
    ADD_FAILURE() << "invalid on a quiet host, twice: " << run.json["invalid_reasons"].dump();
  }
}

// Redis drops every normal client: ream reconnects and the run goes on; Redis executed no
// more commands than ream sent (nothing resent).
TEST(Peers, RedisClientKillMidRunIsReconnected) {
  Peer redis;
  StartRedis(&redis);
  ASSERT_TRUE(redis.Listening());
  LoadRun run = RunReamLoad(redis.port,
                            {"--protocol", "redis", "--qps", "2000", "--connections", "2", "--duration", "2s",
                             "--warmup", "0.5s", "--response-timeout", "1s"},
                            kRunTimeout, std::chrono::milliseconds(1500), [&] {
                              int64_t killed = RedisInteger(redis.port, {"CLIENT", "KILL", "TYPE", "normal"});
                              EXPECT_GE(killed, 2);
                            });
  ExpectSurvivedTheCloses(run);
  uint64_t calls = RedisCalls(redis.port, "get") + RedisCalls(redis.port, "set");
  EXPECT_GE(calls, run.json["completed_total"].get<uint64_t>());
  EXPECT_LE(calls, run.json["issued_total"].get<uint64_t>());
}

// memcached killed and started again on its port: ream reconnects once it is back and counts
// what was lost with the old process.
TEST(Peers, MemcachedRestartedMidRunIsReconnected) {
  Peer mc;
  StartMemcached(&mc);
  ASSERT_TRUE(mc.Listening());
  LoadRun run = RunReamLoad(mc.port,
                            {"--protocol", "memcached", "--qps", "2000", "--connections", "2", "--duration",
                             "2s", "--warmup", "0.5s", "--response-timeout", "1s"},
                            kRunTimeout, std::chrono::milliseconds(1500), [&] {
                              mc.process->Kill();
                              StartMemcached(&mc);  // same port
                            });
  ExpectSurvivedTheCloses(run, /*server_was_down=*/true);
  std::printf("note: %llu failed connect(s) while memcached restarted\n",
              static_cast<unsigned long long>(run.json["reconnect_attempts_failed"].get<uint64_t>()));
  // The new memcached served the rest of the run.
  auto stats = MemcachedStats(mc.port);
  EXPECT_GT(stats["cmd_get"] + stats["cmd_set"], 500u) << Describe(run);
  EXPECT_LT(stats["cmd_get"] + stats["cmd_set"], run.json["completed_total"].get<uint64_t>());
  // What the old one had not answered is counted, with its reason, and nothing else failed.
  for (const auto& [reason, n] : run.json["error_reasons"].items()) {
    EXPECT_NE(reason.find("connection lost: "), std::string::npos) << reason;
  }
}

// --- ETC's sizes and multigets, as memcached saw them -------------------------------------

// Two-sample Kolmogorov-Smirnov distance: the largest gap between the samples' empirical CDFs
// (ties taken together, so it is conservative on sizes, which are whole numbers).
double KsDistance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / a.size() - static_cast<double>(j) / b.size()));
  }
  return d;
}

// The distance the two samples would exceed by chance once in a thousand (Smirnov's asymptote).
double KsCritical(size_t n, size_t m) {
  return 1.949 * std::sqrt(static_cast<double>(n + m) / (static_cast<double>(n) * static_cast<double>(m)));
}

// ETC's sizes drawn here, from the paper's parameters, independently of ream's code: value
// sizes 0..14 with their measured probabilities, the generalized Pareto (15, 214.476, 0.348238)
// beyond; key sizes from the GEV (30.7984, 8.20449, 0.078688). Rounded and held as ream sends
// them (values up to 1 000 000 bytes; keys from "key" + 5 digits to 250 bytes).
double EtcValueSize(std::mt19937_64& rng, bool with_head = true) {
  static const double kHead[15] = {0.00536, 0.00047, 0.17820, 0.09239, 0.00018, 0.02740, 0.00065, 0.00606,
                                   0.00023, 0.00837, 0.00837, 0.08989, 0.00092, 0.00326, 0.01980};
  std::uniform_real_distribution<double> unit(0, 1);
  double u = unit(rng), sum = 0;
  for (int i = 0; with_head && i < 15; ++i) {
    if (u < (sum += kHead[i])) return i;
  }
  double v = 1 - unit(rng);
  return std::min(1e6, std::nearbyint(15 + 214.476 * (std::pow(v, -0.348238) - 1) / 0.348238));
}
double EtcKeySize(std::mt19937_64& rng) {
  double u = 1 - std::uniform_real_distribution<double>(0, 1)(rng);
  double x = 30.7984 + 8.20449 * (std::pow(-std::log(u), -0.078688) - 1) / 0.078688;
  return std::clamp(std::nearbyint(x), 8.0, 250.0);
}

// What memcached holds: every key (lru_crawler metadump) and the size of its value (read back
// with multigets of 50 keys).
struct Held {
  std::vector<double> key_bytes, value_bytes;
};
Held MemcachedHolds(int port) {
  Held h;
  std::string dump = Exchange(port, "lru_crawler metadump all\r\n", "END\r\n");
  std::vector<std::string> keys;
  for (size_t at = 0; (at = dump.find("key=", at)) != std::string::npos;) {
    size_t end = dump.find(' ', at);
    keys.push_back(dump.substr(at + 4, end - at - 4));
    at = end;
  }
  for (size_t i = 0; i < keys.size(); i += 50) {
    std::string get = "get";
    for (size_t k = i; k < std::min(keys.size(), i + 50); ++k) get += " " + keys[k];
    std::string reply = Exchange(port, get + "\r\n", "END\r\n");
    for (size_t at = 0; (at = reply.find("VALUE ", at)) != std::string::npos;) {
      size_t eol = reply.find("\r\n", at);
      std::string line = reply.substr(at, eol - at);  // VALUE <key> <flags> <bytes>
      h.key_bytes.push_back(static_cast<double>(line.find(' ', 6) - 6));
      h.value_bytes.push_back(std::strtod(line.c_str() + line.rfind(' ') + 1, nullptr));
      at = eol + 2 + static_cast<size_t>(h.value_bytes.back());
    }
  }
  return h;
}

// `ream load --preset etc` against memcached: the keys and values memcached holds have ETC's
// sizes (two-sample tests against sizes drawn here from the paper's parameters), the gets carry
// the asked batches (memcached counts every key of a multiget in cmd_get), and latency is
// reported per request and per key.
TEST(Peers, EtcPresetSendsEtcSizesAndTheAskedMultigets) {
  Peer mc;
  StartMemcached(&mc);
  ASSERT_TRUE(mc.Listening());
  // No warm-up: every request is in the window, so the keys the run reports are all it sent.
  LoadRun run = RunReamLoad(mc.port,
                            {"--protocol", "memcached", "--preset", "etc", "--qps", "20000", "--duration", "2s",
                             "--warmup", "0s", "--multiget", "uniform:1,8", "--connections", "2"},
                            kRunTimeout);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  ExpectNoFailedRequests(run);
  EXPECT_EQ(run.json["preset"], "etc");
  EXPECT_EQ(run.json["arrival"], "fb_ia");
  EXPECT_EQ(run.json["value_bytes"], "fb_value");
  EXPECT_EQ(run.json["key_bytes"], "fb_key");
  const nlohmann::json& sent = run.json["sent"];

  auto stats = MemcachedStats(mc.port);  // before the read-back's own gets
  Held held = MemcachedHolds(mc.port);
  std::printf("note: memcached holds %zu keys after %s sets\n", held.value_bytes.size(),
              sent["value_bytes"]["count"].dump().c_str());
  // (Fewer keys than sets: Zipfian popularity sets the popular keys again; each holds its last.)
  ASSERT_GT(held.value_bytes.size(), 400u) << "too few sets for a test of their sizes";
  std::mt19937_64 rng(2012);
  std::vector<double> values(20000), keys(20000), tail_only(20000);
  for (double& v : values) v = EtcValueSize(rng);
  for (double& v : keys) v = EtcKeySize(rng);
  for (double& v : tail_only) v = EtcValueSize(rng, false);
  const double dv = KsDistance(held.value_bytes, values), dk = KsDistance(held.key_bytes, keys);
  const double critical = KsCritical(held.value_bytes.size(), values.size());
  std::printf("note: two-sample KS, memcached's values vs ETC's: D = %.4f; keys: D = %.4f (critical %.4f at 0.1 %%)\n",
              dv, dk, critical);
  EXPECT_LT(dv, critical);
  EXPECT_LT(dk, critical);
  // The same test tells ETC's values from its tail alone (the 44 % of values under 15 bytes).
  EXPECT_GT(KsDistance(held.value_bytes, tail_only), critical);

  // Batches: 1..8 keys per get (a uniform draw rounded: 1 and 8 at half weight, mean 4.5).
  const nlohmann::json& batch = sent["multiget_keys"];
  ASSERT_TRUE(batch.is_object()) << sent.dump();
  EXPECT_EQ(batch["min"], 1);
  EXPECT_EQ(batch["max"], 8);
  EXPECT_NEAR(batch["mean"].get<double>(), 4.5, 0.1);
  // memcached counted each key of each multiget; ream's own counts say the same.
  const double keys_got = batch["total"].get<double>();
  EXPECT_EQ(static_cast<double>(stats["cmd_get"]), keys_got);
  EXPECT_EQ(stats["cmd_set"], sent["value_bytes"]["count"].get<uint64_t>());
  // Latency per request and per key: every key of every answered get, and every set's one key.
  ASSERT_TRUE(run.json["latency_per_key_us"].is_object()) << run.json.dump();
  const double sets = sent["value_bytes"]["count"].get<double>();
  EXPECT_EQ(run.json["latency_per_key_us"]["count"].get<double>(), keys_got + sets);
  EXPECT_EQ(run.json["latency_us"]["count"], run.json["completed"]);
  EXPECT_GT(run.json["latency_per_key_us"]["p99"].get<double>(), 0);
  std::printf("note: latency per request p50 %.1f us p99 %.1f us; per key p50 %.1f us p99 %.1f us; "
              "%.0f request bytes/s, %.0f response bytes/s\n",
              run.json["latency_us"]["p50"].get<double>(), run.json["latency_us"]["p99"].get<double>(),
              run.json["latency_per_key_us"]["p50"].get<double>(), run.json["latency_per_key_us"]["p99"].get<double>(),
              sent["request_bytes_per_s"].get<double>(), sent["response_bytes_per_s"].get<double>());
  EXPECT_GT(sent["response_bytes"].get<double>(), 0);
}

// A fixed batch: every get carries exactly that many keys (memcached counts each key of a
// multiget as a get, Redis each MGET as one call), each key's latency reported.
TEST(Peers, MemcachedAndRedisMultigetsCarryTheFixedBatch) {
  for (const std::string protocol : {"memcached", "redis"}) {
    Peer peer;
    protocol == "redis" ? StartRedis(&peer) : StartMemcached(&peer);
    ASSERT_TRUE(peer.Listening()) << protocol;
    LoadRun run = RunReamLoad(peer.port, {"--protocol", protocol, "--qps", "2000", "--duration", "1s", "--warmup", "0s",
                                          "--get-ratio", "1", "--multiget", "4"},
                              kRunTimeout);
    ASSERT_TRUE(run.json.is_object()) << Describe(run);
    ExpectNoFailedRequests(run);
    const uint64_t issued = run.json["issued"].get<uint64_t>();
    EXPECT_EQ(protocol == "redis" ? RedisCalls(peer.port, "mget") : MemcachedStats(peer.port)["cmd_get"],
              (protocol == "redis" ? 1 : 4) * issued);
    EXPECT_EQ(run.json["latency_per_key_us"]["count"].get<uint64_t>(), 4 * run.json["completed"].get<uint64_t>())
        << protocol;
  }
}

// memcached's binary protocol: sets and gets of one key and multigets (quiet GETKQs and a NOOP),
// each counted by memcached as the text protocol's are, nothing failed.
TEST(Peers, MemcachedBinaryProtocolSetsGetsAndMultigets) {
  Peer mc;
  StartMemcached(&mc);
  ASSERT_TRUE(mc.Listening());
  LoadRun run = RunReamLoad(mc.port, {"--protocol", "memcached-binary", "--qps", "3000", "--duration", "1.5s",
                                      "--warmup", "0s", "--get-ratio", "0.7", "--keys", "2000", "--value-bytes",
                                      "fb_value", "--multiget", "uniform:1,6", "--connections", "2"},
                            kRunTimeout);
  ASSERT_TRUE(run.json.is_object()) << Describe(run);
  EXPECT_EQ(run.cmd.exit_code, 0) << Describe(run);
  ExpectNoFailedRequests(run);
  EXPECT_EQ(run.json["protocol"], "memcached-binary");
  const nlohmann::json& sent = run.json["sent"];
  auto stats = MemcachedStats(mc.port);
  EXPECT_EQ(stats["cmd_set"], sent["value_bytes"]["count"].get<uint64_t>());
  EXPECT_EQ(stats["cmd_get"], sent["multiget_keys"]["total"].get<uint64_t>());
  // Some gets hit what the sets stored, so answers came with values.
  EXPECT_GT(stats["get_hits"], 0u);
  // A value set in binary reads back whole in text.
  Held held = MemcachedHolds(mc.port);
  ASSERT_FALSE(held.value_bytes.empty());
  std::printf("note: %zu keys held; binary run latency p50 %.1f us, per key p50 %.1f us\n", held.value_bytes.size(),
              run.json["latency_us"]["p50"].get<double>(), run.json["latency_per_key_us"]["p50"].get<double>());
}

}  // namespace
}  // namespace ream
