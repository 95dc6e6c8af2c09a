// The agent protocol's documents, the split of a level among agents, the lossless merge of
// their results and the reading of ssh's failures (remote/agent_protocol.h).
#include "remote/agent_protocol.h"

#include <gtest/gtest.h>

#include <random>

#include "remote/remote_driver.h"

namespace ream::agent {
namespace {

LoadOptions SomeOptions() {
  LoadOptions o;
  o.host = "10.1.2.3";
  o.port = 4321;
  o.protocol = "kv";
  o.qps = 9000;
  o.duration_ns = 2'000'000'000;
  o.warmup_ns = 500'000'000;
  o.connections = 5;
  o.threads = 2;
  o.seed = 77;
  o.get_ratio = 0.8;
  o.timely_tolerance_ns = 200'000;
  o.validity = ValidityRule::kDistortion;
  o.wait = Wait::kYield;
  o.codec.value_bytes = 128;
  o.key_dist = *ParseKeyDist("uniform");
  o.arrival = *ParseArrival("constant");
  return o;
}

TEST(AgentProtocol, LoadOptionsRoundTripThroughJson) {
  LoadOptions o = SomeOptions();
  o.start_at_ns = 123456789;
  auto back = LoadOptionsFromJson(nlohmann::json::parse(LoadOptionsToJson(o).dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->host, "10.1.2.3");
  EXPECT_EQ(back->port, 4321);
  EXPECT_EQ(back->protocol, "kv");
  EXPECT_DOUBLE_EQ(back->qps, 9000);
  EXPECT_EQ(back->duration_ns, o.duration_ns);
  EXPECT_EQ(back->warmup_ns, o.warmup_ns);
  EXPECT_EQ(back->connections, 5);
  EXPECT_EQ(back->threads, 2);
  EXPECT_EQ(back->seed, 77u);
  EXPECT_EQ(back->timely_tolerance_ns, 200'000);
  EXPECT_EQ(back->validity, ValidityRule::kDistortion);
  EXPECT_EQ(back->wait, Wait::kYield);
  EXPECT_EQ(back->codec.value_bytes, 128u);
  EXPECT_FALSE(back->key_dist.zipf);
  EXPECT_EQ(back->arrival.kind, ArrivalSpec::Kind::kConstant);
  EXPECT_EQ(back->start_at_ns, 123456789);
  EXPECT_TRUE(back->key_sizes.fixed());
  // Drawn sizes travel by their text; a table read from a file here by its values.
  o.key_sizes = *ParseDistribution("fb_key", "k");
  o.value_sizes = *ParseDistribution("file:/here/only", "v", "10 3\n1000 1\n");
  o.multiget = *ParseDistribution("uniform:1,8", "m");
  o.preset = "etc";
  back = LoadOptionsFromJson(nlohmann::json::parse(LoadOptionsToJson(o).dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->key_sizes.kind, Distribution::Kind::kGev);
  EXPECT_EQ(back->value_sizes.kind, Distribution::Kind::kTable);
  EXPECT_DOUBLE_EQ(back->value_sizes.Mean(), (10 * 3 + 1000) / 4.0);
  EXPECT_EQ(back->multiget.name, "uniform:1,8");
  EXPECT_EQ(back->preset, "etc");
}

TEST(AgentProtocol, BadOptionsNameTheField) {
  nlohmann::json j = LoadOptionsToJson(SomeOptions());
  j["qps"] = "fast";
  auto r = LoadOptionsFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("qps"), std::string::npos) << r.status().message();
  j = LoadOptionsToJson(SomeOptions());
  j["port"] = 0;
  EXPECT_FALSE(LoadOptionsFromJson(j).ok());
  j = LoadOptionsToJson(SomeOptions());
  j["wait"] = "nap";
  r = LoadOptionsFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'wait' is 'nap'"), std::string::npos) << r.status().message();
}

TEST(AgentProtocol, BestClockKeepsTheShortestRoundTrip) {
  // The agent's clock is 1 000 000 ns ahead. Slow samples are off by their asymmetry.
  std::vector<ClockSample> s = {{0, 1'000'000 + 900, 1000},          // rtt 1000, read late
                                {5000, 5000 + 1'000'000 + 60, 5100},  // rtt 100: best
                                {9000, 9000 + 1'000'000 + 5000, 19000}};
  ClockEstimate e = BestClock(s);
  EXPECT_EQ(e.rtt_ns, 100);
  EXPECT_EQ(e.offset_ns, 1'000'010);
  EXPECT_EQ(e.samples, 3);
}

TEST(AgentProtocol, ShareSplitsRateAndConnectionsWithOwnSeeds) {
  LoadOptions total = SomeOptions();
  total.cpus = {3};
  LoadOptions a = AgentShare(total, 0, 2, "192.168.0.1", 111);
  LoadOptions b = AgentShare(total, 1, 2, "192.168.0.1", 222);
  EXPECT_DOUBLE_EQ(a.qps + b.qps, total.qps);
  EXPECT_DOUBLE_EQ(a.qps, b.qps);
  EXPECT_EQ(a.connections, 3);  // 5 = 3 + 2
  EXPECT_EQ(b.connections, 2);
  EXPECT_NE(a.seed, b.seed);
  EXPECT_NE(a.seed, total.seed);
  EXPECT_EQ(a.host, "192.168.0.1");
  EXPECT_TRUE(a.cpus.empty());
  EXPECT_EQ(a.start_at_ns, 111);
  EXPECT_EQ(b.start_at_ns, 222);
  // Never fewer connections than threads.
  total.connections = 2;
  EXPECT_EQ(AgentShare(total, 1, 3, "", 0).connections, total.threads);
}

LoadResult FakeResult(const LoadOptions& o, uint64_t seed, double scale_us) {
  LoadResult r;
  r.options = o;
  r.protocol = o.protocol;
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> ex(1.0);
  const uint64_t n = static_cast<uint64_t>(o.qps * static_cast<double>(o.duration_ns) / 1e9);
  for (uint64_t i = 0; i < n; ++i) {
    int64_t v = static_cast<int64_t>(scale_us * 1000 * (1 + ex(rng)));
    r.latency.Record(v);
    r.latency_from_send.Record(v - 500);
    r.lateness.Record(static_cast<int64_t>(1000 * ex(rng)));
  }
  r.issued = r.completed = r.issued_total = r.completed_total = n;
  r.timely = n - n / 100;
  JudgeValidity(&r);
  return r;
}

std::vector<AgentOutcome> TwoAgents(const LoadOptions& total, LoadResult* a, LoadResult* b) {
  *a = FakeResult(AgentShare(total, 0, 2, "", 0), 1, 100);
  *b = FakeResult(AgentShare(total, 1, 2, "", 0), 2, 300);  // a slower client host
  std::vector<AgentOutcome> out(2);
  out[0].name = "ssh:one";
  out[0].result = nlohmann::json::parse(ResultMessage(1, *a).dump());
  out[1].name = "ssh:two";
  out[1].result = nlohmann::json::parse(ResultMessage(1, *b).dump());
  return out;
}

TEST(AgentProtocol, MergeAddsHistogramsNeverAveragesPercentiles) {
  LoadOptions total = SomeOptions();
  total.validity = ValidityRule::kSeed;
  LoadResult a, b;
  auto merged = MergeAgentResults(total, TwoAgents(total, &a, &b));
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  const nlohmann::json& j = *merged;
  EXPECT_EQ(j["issued"].get<uint64_t>(), a.issued + b.issued);
  EXPECT_NEAR(j["achieved_qps"].get<double>(), a.achieved_qps + b.achieved_qps, 1e-6);
  EXPECT_NEAR(j["timely_ratio"].get<double>(), static_cast<double>(a.timely + b.timely) / (a.issued + b.issued), 1e-12);
  // The merged histogram is the one a single generator recording both would have.
  Histogram both = a.latency;
  both.Merge(b.latency);
  auto h = Histogram::Decode(j["histograms"]["latency_ns"].get<std::string>());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->count(), both.count());
  EXPECT_EQ(h->ValueAtQuantile(0.99), both.ValueAtQuantile(0.99));
  EXPECT_EQ(h->ValueAtQuantile(0.50), both.ValueAtQuantile(0.50));
  // ...and not the mean of the two p99s.
  double averaged = (a.latency.ValueAtQuantile(0.99) + b.latency.ValueAtQuantile(0.99)) / 2.0;
  EXPECT_GT(std::abs(static_cast<double>(both.ValueAtQuantile(0.99)) - averaged), 0.01 * averaged);
  // Per-agent figures, named.
  ASSERT_EQ(j["agents"].size(), 2u);
  EXPECT_EQ(j["agents"][1]["name"], "ssh:two");
  EXPECT_NEAR(j["agents"][1]["achieved_qps"].get<double>(), b.achieved_qps, 1e-6);
  EXPECT_TRUE(j["valid"].get<bool>()) << j["invalid_reasons"].dump();
}

TEST(AgentProtocol, ALostAgentMakesThePointInvalidNamingIt) {
  LoadOptions total = SomeOptions();
  total.validity = ValidityRule::kSeed;
  LoadResult a, b;
  auto agents = TwoAgents(total, &a, &b);
  agents[1].result.reset();
  agents[1].failure = "it ended during the level: its ssh session ended (exited with status 255)";
  auto merged = MergeAgentResults(total, agents);
  ASSERT_TRUE(merged.ok());
  EXPECT_FALSE((*merged)["valid"].get<bool>());
  std::string reasons = (*merged)["invalid_reasons"].dump();
  EXPECT_NE(reasons.find("agent ssh:two"), std::string::npos) << reasons;
  EXPECT_EQ((*merged)["issued"].get<uint64_t>(), a.issued);
  EXPECT_NE((*merged)["agents"][1]["failure"].get<std::string>().find("ssh session ended"), std::string::npos);
}

TEST(AgentProtocol, CorruptHistogramIsAnError) {
  LoadOptions total = SomeOptions();
  LoadResult a, b;
  auto agents = TwoAgents(total, &a, &b);
  (*agents[0].result)["generator"]["histograms"]["latency_ns"] = "garbage";
  auto merged = MergeAgentResults(total, agents);
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("ssh:one"), std::string::npos);
}

// Found by agent_fuzzer: an integer field given as a fraction was converted with undefined
// behaviour; a value out of range was refused without saying it came from the run options.
TEST(AgentProtocol, FractionalIntegersAndBadValuesAreRefusedAsRunOptions) {
  nlohmann::json j = LoadOptionsToJson(SomeOptions());
  j["duration_ns"] = 2e98;
  auto r = LoadOptionsFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'duration_ns' is not an integer"), std::string::npos) << r.status().message();
  j = LoadOptionsToJson(SomeOptions());
  j["qps"] = -1;
  r = LoadOptionsFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("agent run options: ", 0), 0u) << r.status().message();
  // A line's type and id of another type read as none (json::value would throw).
  EXPECT_EQ(MessageType(nlohmann::json::parse(R"({"type":1,"id":"x"})")), "");
  EXPECT_EQ(MessageId(nlohmann::json::parse(R"({"type":1,"id":"x"})")), 0u);
  EXPECT_EQ(MessageType(nlohmann::json::parse(R"({"type":"run","id":7})")), "run");
  EXPECT_EQ(MessageId(nlohmann::json::parse(R"({"type":"run","id":7})")), 7u);
}

// A result document of the wrong types (a different ream on the other end) is read as far as
// it goes: no exception, no conversion of a fraction to a count.
TEST(AgentProtocol, MistypedResultFieldsDoNotThrow) {
  LoadOptions total = SomeOptions();
  LoadResult a, b;
  auto agents = TwoAgents(total, &a, &b);
  nlohmann::json& r = *agents[0].result;
  r["generator"]["issued"] = 1e300;
  r["generator"]["error_reasons"] = {{"x", "many"}};
  r["generator"]["warnings"] = {1};
  r["generator"]["connection_failures"] = {2};
  r["has_server_times"] = "yes";
  r["window_begin_ns"] = -9.2e18;
  r["generator"]["interarrival_test"] = {{"statistic", 1.0}, {"critical", 2.0}};  // no "passed" (read freed memory)
  auto merged = MergeAgentResults(total, agents);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ((*merged)["agents"].size(), 2u);
}

// ssh's own words (OpenSSH 9.2, BatchMode=yes), as its stderr carries them.
TEST(SshFailure, PasswordHostSaysBatchModeAndWhatToDo) {
  std::string m = DescribeSshFailure("client1", 255, "root@10.0.0.2: Permission denied (publickey,password).\n");
  EXPECT_NE(m.find("password"), std::string::npos) << m;
  EXPECT_NE(m.find("BatchMode"), std::string::npos) << m;
  EXPECT_NE(m.find("ssh-copy-id client1"), std::string::npos) << m;
}

TEST(SshFailure, HostKeyMismatchSaysSoAndHowToFix) {
  std::string err =
      "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
      "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
      "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
      "Host key for client1 has changed and you have requested strict checking.\n"
      "Host key verification failed.\n";
  std::string m = DescribeSshFailure("client1", 255, err);
  EXPECT_NE(m.find("does not match"), std::string::npos) << m;
  EXPECT_NE(m.find("ssh-keygen -R client1"), std::string::npos) << m;
}

TEST(SshFailure, UnknownHostKeyIsNeverAccepted) {
  std::string m = DescribeSshFailure("client1", 255,
                                     "No ED25519 host key is known for client1 and you have requested strict checking.\n"
                                     "Host key verification failed.\n");
  EXPECT_NE(m.find("not known"), std::string::npos) << m;
}

TEST(SshFailure, RefusedAndMissingCommand) {
  EXPECT_NE(DescribeSshFailure("h", 255, "ssh: connect to host h port 22: Connection refused\n").find("refused"),
            std::string::npos);
  EXPECT_NE(DescribeSshFailure("h", 127, "sh: 1: exec: ream: not found\n").find("not found on h"), std::string::npos);
}

TEST(RemoteProbe, ParsesTheProbeScriptsAnswer) {
  auto p = ParseProbe("version=ream 0.9 (abc)\ncache=/root/.cache/ream\ncached=yes\narch=x86_64\n");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->version, "ream 0.9 (abc)");
  EXPECT_EQ(p->cache_dir, "/root/.cache/ream");
  EXPECT_TRUE(p->cached);
  EXPECT_EQ(p->arch, "x86_64");
  auto none = ParseProbe("version=\ncache=/home/u/.cache/ream\narch=aarch64\n");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->version.empty());
  EXPECT_FALSE(none->cached);
  EXPECT_FALSE(ParseProbe("Welcome to my host!\n").ok());
  EXPECT_NE(ProbeScript("ream-00ff").find("ream-00ff"), std::string::npos);
}

TEST(RemoteDriver, SshRunsInBatchModeWithTheUsersConfig) {
  RemoteDriverOptions o;
  o.ssh_config = "/tmp/cfg";
  o.ssh_options = {"-o", "Port=2222"};
  auto argv = SshArgv(o, "client1", "exec ream agent");
  std::string all;
  for (const auto& a : argv) all += a + " ";
  EXPECT_EQ(argv.front(), "ssh");
  EXPECT_NE(all.find("-o BatchMode=yes"), std::string::npos) << all;
  EXPECT_NE(all.find("-F /tmp/cfg"), std::string::npos) << all;
  EXPECT_NE(all.find("-o Port=2222 client1 exec ream agent"), std::string::npos) << all;
}

}  // namespace
}  // namespace ream::agent
