#include "spec/spec.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "spec/spec_test_texts.h"

namespace ream {
namespace {

using spec_texts::Err;
using spec_texts::kMinimal;

TEST(Spec, MinimalSpecGetsEveryDefault) {
  auto r = ParseSpec(kMinimal, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->scenarios, std::vector<std::string>{"1-ST"});
  EXPECT_EQ(r->load.duration, std::chrono::milliseconds(5000));
  EXPECT_EQ(r->load.timely_tolerance, std::chrono::microseconds(20));
  EXPECT_EQ(r->qos.percentile, 95.0);
  EXPECT_FALSE(r->qos.target_us.has_value());
  EXPECT_EQ(r->qos.min_timely_ratio, 0.975);
  EXPECT_EQ(r->partitions.size(), 1u);
  EXPECT_EQ(r->partitions[0].Label(), "default");
  EXPECT_EQ(r->ToJson()["load"]["key_dist"], "zipf:0.99");
}

TEST(Spec, ASpecThatIsASymlinkIsRefused) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ream-spec-link-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "real.toml") << "name = \"x\"\n[workload]\nbuiltin = \"synthetic\"\n[sweep]\nqps = [100]\n";
  fs::create_symlink(dir / "real.toml", dir / "link.toml");
  auto platform = MakePosixPlatform();
  EXPECT_TRUE(LoadSpecFile(*platform, (dir / "real.toml").string()).ok());
  auto r = LoadSpecFile(*platform, (dir / "link.toml").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("refusing experiment spec " + (dir / "link.toml").string() +
                                      ": it is a symbolic link to " + (dir / "real.toml").string()),
            std::string::npos)
      << r.status().message();
  fs::remove_all(dir);
}

TEST(Spec, WorkloadUserIsAnAccountName) {
  auto ok = ParseSpec("name = \"x\"\n[workload]\nbuiltin = \"synthetic\"\nuser = \"root\"\n[sweep]\nqps = [100]\n", "u.toml");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->workload.user, "root");
  EXPECT_EQ(ok->ToJson()["workload"]["user"], "root");
  auto dflt = ParseSpec("name = \"x\"\n[workload]\nbuiltin = \"synthetic\"\n[sweep]\nqps = [100]\n", "u.toml");
  ASSERT_TRUE(dflt.ok());
  EXPECT_EQ(dflt->workload.user, "");
  EXPECT_FALSE(dflt->ToJson()["workload"].contains("user"));  // stored specs keep their hash
  auto bad = ParseSpec("name = \"x\"\n[workload]\nbuiltin = \"synthetic\"\nuser = \"a b\"\n[sweep]\nqps = [100]\n", "u.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("u.toml:2: [workload] user \"a b\" is not an account name"),
            std::string::npos)
      << bad.status().message();
}

TEST(Spec, TypoInAKeyNamesTheKeyItsLineAndASuggestion) {
  std::string m = Err(std::string(kMinimal) + "[load]\nduraton = \"2s\"\n");
  EXPECT_NE(m.find("x.toml:7"), std::string::npos) << m;
  EXPECT_NE(m.find("load.duraton"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'load.duration'"), std::string::npos) << m;
  std::string top = Err("nmae = \"x\"\n");
  EXPECT_NE(top.find("x.toml:1: unknown key 'nmae'"), std::string::npos) << top;
}

TEST(Spec, NegativeRateIsRejectedWithItsLine) {
  std::string m = Err("name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [1000,\n -5]\n");
  EXPECT_NE(m.find("x.toml:6"), std::string::npos) << m;
  EXPECT_NE(m.find("sweep.qps"), std::string::npos) << m;
  EXPECT_NE(m.find("> 0"), std::string::npos) << m;
  std::string knee = Err("name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nmode = \"knee\"\nlow = -1\nhigh = 5\n");
  EXPECT_NE(knee.find("sweep.low"), std::string::npos) << knee;
}

TEST(Spec, NodesNameSshClientsAndTheWorkloadsAddress) {
  auto r = ParseSpec(std::string(kMinimal) +
                         "[nodes]\nclients = [\"ssh:client1\", \"ssh:root@10.0.0.3\"]\n"
                         "workload_address = \"10.0.0.1\"\nssh_config = \"/etc/ream/ssh_config\"\n"
                         "on_agent_loss = \"continue\"\n",
                     "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->nodes.remote());
  EXPECT_EQ(r->nodes.client_hosts, (std::vector<std::string>{"client1", "root@10.0.0.3"}));
  EXPECT_EQ(r->nodes.workload_address, "10.0.0.1");
  EXPECT_EQ(r->nodes.on_agent_loss, "continue");
  EXPECT_EQ(r->ToJson()["nodes"]["clients"][1], "ssh:root@10.0.0.3");
  // Without [nodes]: the local generator, as before.
  EXPECT_FALSE(ParseSpec(kMinimal, "x.toml")->nodes.remote());
}

TEST(Spec, NodesRefuseWhatSshCannotMean) {
  std::string bad = Err(std::string(kMinimal) + "[nodes]\nclients = [\"client1\"]\nworkload_address = \"a\"\n");
  EXPECT_NE(bad.find("x.toml:7"), std::string::npos) << bad;
  EXPECT_NE(bad.find("ssh:HOST"), std::string::npos) << bad;
  std::string opt = Err(std::string(kMinimal) + "[nodes]\nclients = [\"ssh:-oProxyCommand=x\"]\nworkload_address = \"a\"\n");
  EXPECT_NE(opt.find("ssh:HOST"), std::string::npos) << opt;
  std::string addr = Err(std::string(kMinimal) + "[nodes]\nclients = [\"ssh:client1\"]\n");
  EXPECT_NE(addr.find("workload_address is required"), std::string::npos) << addr;
  std::string twice =
      Err(std::string(kMinimal) + "[nodes]\nclients = [\"ssh:a\", \"ssh:a\"]\nworkload_address = \"x\"\n");
  EXPECT_NE(twice.find("twice"), std::string::npos) << twice;
  std::string loss = Err(std::string(kMinimal) +
                         "[nodes]\nclients = [\"ssh:a\"]\nworkload_address = \"x\"\non_agent_loss = \"retry\"\n");
  EXPECT_NE(loss.find("on_agent_loss"), std::string::npos) << loss;
}

TEST(Spec, LocalClientNodesNeedNoAddressAndShapeTheirLinks) {
  auto r = ParseSpec(std::string(kMinimal) + "[nodes]\nclients = [\"local:a\", \"local:b-2\"]\nlink_rate = \"100mbit\"\n",
                     "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->nodes.remote());
  EXPECT_TRUE(r->nodes.client_hosts.empty());
  EXPECT_EQ(r->nodes.local_nodes, (std::vector<std::string>{"a", "b-2"}));
  EXPECT_EQ(r->nodes.link_rate_bps, std::optional<int64_t>(100'000'000));
  EXPECT_EQ(r->ToJson()["nodes"]["link_rate_bps"], 100'000'000);
  // ssh and local clients together: the address is required for the ssh ones.
  std::string mixed = Err(std::string(kMinimal) + "[nodes]\nclients = [\"local:a\", \"ssh:c1\"]\n");
  EXPECT_NE(mixed.find("workload_address is required"), std::string::npos) << mixed;
}

TEST(Spec, LocalClientNodesRefuseBadNamesRatesAndAWorkloadInANode) {
  std::string name = Err(std::string(kMinimal) + "[nodes]\nclients = [\"local:a b\"]\n");
  EXPECT_NE(name.find("x.toml:7"), std::string::npos) << name;
  EXPECT_NE(name.find("NAME is 1-32 letters"), std::string::npos) << name;
  std::string twice = Err(std::string(kMinimal) + "[nodes]\nclients = [\"local:a\", \"local:a\"]\n");
  EXPECT_NE(twice.find("twice"), std::string::npos) << twice;
  std::string rate = Err(std::string(kMinimal) + "[nodes]\nclients = [\"local:a\"]\nlink_rate = \"fast\"\n");
  EXPECT_NE(rate.find("nodes.link_rate"), std::string::npos) << rate;
  EXPECT_NE(rate.find("bit rate"), std::string::npos) << rate;
  std::string ssh_only =
      Err(std::string(kMinimal) + "[nodes]\nclients = [\"ssh:c1\"]\nworkload_address = \"x\"\nlink_rate = \"1gbit\"\n");
  EXPECT_NE(ssh_only.find("shapes the links of local client nodes"), std::string::npos) << ssh_only;
  std::string in_node = Err("node = true\n" + std::string(kMinimal) + "[nodes]\nclients = [\"local:a\"]\n");
  EXPECT_NE(in_node.find("node = true puts the workload in a node of its own"), std::string::npos) << in_node;
}

TEST(Spec, AWorkloadOnAnSshHostNeedsItsAddressAndRefusesWhatOnlyThisHostCanDo) {
  auto r = ParseSpec(std::string(kMinimal) + "[nodes]\nworkload = \"ssh:root@10.0.0.5\"\nworkload_address = \"10.0.0.5\"\n",
                     "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->nodes.workload_host, "root@10.0.0.5");
  EXPECT_EQ(r->nodes.workload_line, 7);
  EXPECT_FALSE(r->nodes.remote());  // the load still comes from this host
  EXPECT_EQ(r->ToJson()["nodes"]["workload"], "ssh:root@10.0.0.5");
  // With ssh client nodes too: the seed's main node and client node.
  r = ParseSpec(std::string(kMinimal) +
                    "[nodes]\nworkload = \"ssh:server\"\nclients = [\"ssh:c1\"]\nworkload_address = \"10.0.0.5\"\n",
                "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->nodes.remote());

  std::string bad = Err(std::string(kMinimal) + "[nodes]\nworkload = \"server\"\nworkload_address = \"a\"\n");
  EXPECT_NE(bad.find("x.toml:7: nodes.workload"), std::string::npos) << bad;
  EXPECT_NE(bad.find("ssh:HOST"), std::string::npos) << bad;
  std::string opt = Err(std::string(kMinimal) + "[nodes]\nworkload = \"ssh:-oProxyCommand=x\"\nworkload_address = \"a\"\n");
  EXPECT_NE(opt.find("ssh:HOST"), std::string::npos) << opt;
  std::string addr = Err(std::string(kMinimal) + "[nodes]\nworkload = \"ssh:server\"\n");
  EXPECT_NE(addr.find("workload_address is required with a workload on another host"), std::string::npos) << addr;
  std::string local = Err(std::string(kMinimal) +
                          "[nodes]\nworkload = \"ssh:server\"\nworkload_address = \"a\"\nclients = [\"local:a\"]\n");
  EXPECT_NE(local.find("local client nodes reach a workload on this host only"), std::string::npos) << local;
  std::string in_node = Err("node = true\n" + std::string(kMinimal) +
                            "[nodes]\nworkload = \"ssh:server\"\nworkload_address = \"a\"\n");
  EXPECT_NE(in_node.find("network namespace of its own"), std::string::npos) << in_node;
  std::string loggp = Err(std::string(kMinimal) + "[partitions]\nnet_latency = [\"0us\", \"100us\"]\n" +
                          "[nodes]\nworkload = \"ssh:server\"\nworkload_address = \"a\"\n");
  EXPECT_NE(loggp.find("LogGP knob"), std::string::npos) << loggp;
  EXPECT_NE(loggp.find("net_latency=100us"), std::string::npos) << loggp;
}

// Every shipped example parses and plans: a spec users copy from must not be broken.
TEST(Spec, EveryShippedExampleParses) {
  int seen = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(REAM_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".toml") continue;
    ++seen;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    auto spec = ParseSpec(text.str(), entry.path().filename().string());
    EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  }
  EXPECT_GE(seen, 3);
  auto quick = ParseSpec(R"(name = "q"
[workload]
builtin = "kv"
[sweep]
qps = [1]
[qos]
target = "500us"
)", "q.toml");
  ASSERT_TRUE(quick.ok()) << quick.status().ToString();
  EXPECT_EQ(quick->qos.target_us.value_or(0), 500);
}

TEST(Spec, HttpPathAndMethod) {
  auto r = ParseSpec(std::string(kMinimal) + "[load]\nhttp_path = \"/item/{key}\"\nhttp_method = \"POST\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->load.http_path, "/item/{key}");
  EXPECT_EQ(r->load.http_method, "POST");
  EXPECT_EQ(ParseSpec(kMinimal, "x.toml")->load.http_method, "auto");
  std::string path = Err(std::string(kMinimal) + "[load]\nhttp_path = \"item\"\n");
  EXPECT_NE(path.find("x.toml:7: load.http_path"), std::string::npos) << path;
  std::string method = Err(std::string(kMinimal) + "[load]\nhttp_method = \"PUT\"\n");
  EXPECT_NE(method.find("load.http_method is \"PUT\""), std::string::npos) << method;
}

TEST(Spec, GeneratorWait) {
  EXPECT_EQ(ParseSpec(kMinimal, "x.toml")->load.wait, "auto");
  auto r = ParseSpec(std::string(kMinimal) + "[load]\nwait = \"spin\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->load.wait, "spin");
  EXPECT_EQ(r->ToJson()["load"]["wait"], "spin");
  auto y = ParseSpec(std::string(kMinimal) + "[load]\nwait = \"yield\"\n", "x.toml");
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->load.wait, "yield");
  std::string bad = Err(std::string(kMinimal) + "[load]\nwait = \"nap\"\n");
  EXPECT_NE(bad.find("x.toml:7: load.wait is \"nap\""), std::string::npos) << bad;
}

TEST(Spec, UntilMeasuresEachPointUntilKnown) {
  EXPECT_FALSE(ParseSpec(kMinimal, "x.toml")->load.until.has_value());
  EXPECT_FALSE(ParseSpec(kMinimal, "x.toml")->ToJson()["load"].contains("until"));
  auto r = ParseSpec(std::string(kMinimal) + "[load]\nuntil = \"p99 ±2% max 20s\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->load.until.has_value());
  EXPECT_DOUBLE_EQ(r->load.until->percentile, 99);
  EXPECT_DOUBLE_EQ(r->load.until->half_width, 0.02);
  EXPECT_EQ(r->load.until->max_ns, 20'000'000'000);
  EXPECT_EQ(r->ToJson()["load"]["until"], "p99 ±2% max 20s");
  std::string bad = Err(std::string(kMinimal) + "[load]\nuntil = \"p95 5%\"\n");
  EXPECT_NE(bad.find("x.toml:7"), std::string::npos) << bad;
  EXPECT_NE(bad.find("[load] until = \"p95 5%\": '5%' is not a half-width"), std::string::npos) << bad;
  std::string remote = Err(std::string(kMinimal) + "[load]\nuntil = \"p95 ±5%\"\n[nodes]\nclients = [\"ssh:a\"]\nworkload_address = \"10.0.0.1\"\n");
  EXPECT_NE(remote.find("[load] until measures with this host's generator"), std::string::npos) << remote;
}

// [load] schedule is each run's load: its mean the one level, its length the window; [sweep] and
// duration are left out beside it. [load] window reports each window as it ends.
TEST(Spec, ScheduleIsEachRunsLoadAndWindowItsPieces) {
  const std::string head = "name = \"t\"\n[workload]\nbuiltin = \"kv\"\n";
  auto r = ParseSpec(head + "[load]\nschedule = \"1000 for 2s, 1000 to 3000 over 2s\"\nwindow = \"500ms\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->load.schedule.has_value());
  EXPECT_EQ(r->sweep.qps, std::vector<double>{1500});
  EXPECT_EQ(r->load.duration, std::chrono::milliseconds(4000));
  EXPECT_EQ(r->load.window, std::chrono::milliseconds(500));
  EXPECT_EQ(r->ToJson()["load"]["schedule"], "1000 for 2s, 1000 to 3000 over 2s");
  EXPECT_EQ(r->ToJson()["load"]["window_ms"], 500);
  EXPECT_FALSE(ParseSpec(kMinimal, "x.toml")->ToJson()["load"].contains("schedule"));
  EXPECT_FALSE(ParseSpec(kMinimal, "x.toml")->ToJson()["load"].contains("window_ms"));

  std::string sweep = Err(std::string(kMinimal) + "[load]\nschedule = \"1000 for 2s\"\n");
  EXPECT_NE(sweep.find("[sweep] is given beside [load] schedule: a schedule is the load of each run"), std::string::npos)
      << sweep;
  std::string duration = Err(head + "[load]\nschedule = \"1000 for 2s\"\nduration = \"5s\"\n");
  EXPECT_NE(duration.find("duration is given beside schedule"), std::string::npos) << duration;
  std::string bad = Err(head + "[load]\nschedule = \"1000 during 2s\"\n");
  EXPECT_NE(bad.find("[load] schedule = \"1000 during 2s\": '1000 during 2s' is neither"), std::string::npos) << bad;
  std::string file = Err(head + "[load]\nschedule = \"file:day.txt\"\n");
  EXPECT_NE(file.find("`ream load`'s flag only"), std::string::npos) << file;
  std::string until = Err(head + "[load]\nschedule = \"1000 for 2s\"\nuntil = \"p95 ±5%\"\n");
  EXPECT_NE(until.find("[load] until ends a point once one rate's percentile is known"), std::string::npos) << until;
  std::string remote = Err(head + "[load]\nschedule = \"1000 for 2s\"\n[nodes]\nclients = [\"ssh:a\"]\n"
                                  "workload_address = \"10.0.0.1\"\n");
  EXPECT_NE(remote.find("[load] schedule and window run on this host's generator"), std::string::npos) << remote;
  std::string tiny = Err(std::string(kMinimal) + "[load]\nwindow = \"1ms\"\n");
  EXPECT_NE(tiny.find("window"), std::string::npos) << tiny;
}

TEST(Spec, ResponseTiming) {
  EXPECT_EQ(ParseSpec(kMinimal, "x.toml")->load.response_timing, "kernel");
  auto r = ParseSpec(std::string(kMinimal) + "[load]\nresponse_timing = \"packet\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->load.response_timing, "packet");
  EXPECT_EQ(r->ToJson()["load"]["response_timing"], "packet");
  std::string bad = Err(std::string(kMinimal) + "[load]\nresponse_timing = \"wire\"\n");
  EXPECT_NE(bad.find("x.toml:7: load.response_timing is \"wire\""), std::string::npos) << bad;
}

// keep_awake: a boolean (the generator's and the workload's CPUs), "all" (the same) or
// "generator" (its CPUs only); the canonical form keeps the boolean for the first two.
TEST(Spec, KeepAwakeIsABooleanAllOrGenerator) {
  auto off = ParseSpec(kMinimal, "x.toml");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->load.keep_awake, KeepAwakeMode::kOff);
  EXPECT_EQ(off->ToJson()["load"]["keep_awake"], false);
  for (const char* all : {"true", "\"all\""}) {
    auto r = ParseSpec(std::string(kMinimal) + "[load]\nkeep_awake = " + all + "\n", "x.toml");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->load.keep_awake, KeepAwakeMode::kAll) << all;
    EXPECT_EQ(r->ToJson()["load"]["keep_awake"], true) << all;
  }
  auto gen = ParseSpec(std::string(kMinimal) + "[load]\nkeep_awake = \"generator\"\n", "x.toml");
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  EXPECT_EQ(gen->load.keep_awake, KeepAwakeMode::kGenerator);
  EXPECT_EQ(gen->ToJson()["load"]["keep_awake"], "generator");
  std::string bad = Err(std::string(kMinimal) + "[load]\nkeep_awake = \"workload\"\n");
  EXPECT_NE(bad.find("x.toml:7: load.keep_awake is \"workload\"; it must be true, false"), std::string::npos) << bad;
  std::string number = Err(std::string(kMinimal) + "[load]\nkeep_awake = 1\n");
  EXPECT_NE(number.find("keep_awake"), std::string::npos) << number;
}

TEST(Spec, WrongTypesAndImpossibleValues) {
  EXPECT_NE(Err(std::string(kMinimal) + "[load]\nconnections = \"four\"\n").find("load.connections must be an integer"),
            std::string::npos);
  EXPECT_NE(Err(std::string(kMinimal) + "[load]\nconnections = 0\n").find("between 1 and"), std::string::npos);
  EXPECT_NE(Err(std::string(kMinimal) + "[load]\nget_ratio = 1.5\n").find("load.get_ratio"), std::string::npos);
  EXPECT_NE(Err(std::string(kMinimal) + "[load]\nduration = \"5 parsecs\"\n").find("unknown unit"), std::string::npos);
  EXPECT_NE(Err(std::string(kMinimal) + "[load]\nkey_dist = \"zipf:1.5\"\n").find("0 < THETA < 1"), std::string::npos);
  EXPECT_NE(Err(std::string(kMinimal) + "[qos]\npercentile = 100.5\n").find("qos.percentile"), std::string::npos);
  EXPECT_NE(Err("name = \"t\"\n[workload]\nbuiltin = \"kv\"\ncommand = [\"x\"]\n[sweep]\nqps=[1]\n").find("exactly one"),
            std::string::npos);
  EXPECT_NE(Err("name = \"t\"\n[workload]\ncommand = [\"x\"]\n[sweep]\nqps=[1]\n").find("{port}"), std::string::npos);
  std::string reps = Err("repetitions = 0\n" + std::string(kMinimal));
  EXPECT_NE(reps.find("x.toml:1: repetitions is 0"), std::string::npos) << reps;
  EXPECT_NE(Err("name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [1000, 1000]\n").find("repeat"),
            std::string::npos);
  EXPECT_NE(Err("name = \"t\"\n[workload\n").find("x.toml:2"), std::string::npos);
}

TEST(Spec, RemeasureInvalidIsAKneeKeyDefaultingToTwo) {
  const std::string knee = "name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nmode = \"knee\"\nlow = 1000\nhigh = 5000\n";
  auto d = ParseSpec(knee, "x.toml");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->sweep.remeasure_invalid, 2);
  auto r = ParseSpec(knee + "remeasure_invalid = 0\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sweep.remeasure_invalid, 0);
  EXPECT_EQ(r->ToJson()["sweep"]["remeasure_invalid"], 0);
  auto five = ParseSpec(knee + "remeasure_invalid = 5\n", "x.toml");
  ASSERT_TRUE(five.ok()) << five.status().ToString();
  EXPECT_EQ(five->sweep.remeasure_invalid, 5);

  std::string negative = Err(knee + "remeasure_invalid = -1\n");
  EXPECT_NE(negative.find("x.toml:8: sweep.remeasure_invalid is -1"), std::string::npos) << negative;
  std::string type = Err(knee + "\nremeasure_invalid = \"twice\"\n");
  EXPECT_NE(type.find("x.toml:9: sweep.remeasure_invalid must be an integer"), std::string::npos) << type;
  // A grid re-measures only when asked.
  auto grid = ParseSpec(kMinimal, "x.toml");
  ASSERT_TRUE(grid.ok()) << grid.status().message();
  EXPECT_EQ(grid->sweep.remeasure_invalid, 0);
  auto grid2 = ParseSpec(std::string(kMinimal) + "remeasure_invalid = 2\n", "x.toml");
  ASSERT_TRUE(grid2.ok()) << grid2.status().message();
  EXPECT_EQ(grid2->sweep.remeasure_invalid, 2);
}

TEST(Spec, KneeConfirmIsOnByDefaultAndAKneeKeyOnly) {
  const std::string knee = "name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nmode = \"knee\"\nlow = 1000\nhigh = 5000\n";
  auto d = ParseSpec(knee, "x.toml");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(d->sweep.confirm);
  auto off = ParseSpec(knee + "confirm = false\n", "x.toml");
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->sweep.confirm);
  EXPECT_EQ(off->ToJson()["sweep"]["confirm"], false);
  std::string type = Err(knee + "confirm = 2\n");
  EXPECT_NE(type.find("x.toml:8: sweep.confirm"), std::string::npos) << type;
  std::string grid = Err(std::string(kMinimal) + "confirm = true\n");
  EXPECT_NE(grid.find("sweep.confirm"), std::string::npos) << grid;
  EXPECT_NE(grid.find("knee"), std::string::npos) << grid;
}

TEST(Spec, RangeExpandsToItsLevels) {
  auto r = ParseSpec("name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nstart = 1000\nstop = 5000\nsteps = 5\n",
                     "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sweep.qps, (std::vector<double>{1000, 2000, 3000, 4000, 5000}));
  auto s = ParseSpec("name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nstart = 1000\nstop = 2000\nstep = 500\n",
                     "x.toml");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->sweep.qps, (std::vector<double>{1000, 1500, 2000}));
}


TEST(Spec, PartitionValuesAreParsedOnceAtTheBoundaryWithTheirLine) {
  auto r = ParseSpec(std::string(kMinimal) + "[partitions]\nmemory = [\"256M\",\n \"1G\"]\nnet_rate = \"100mbit\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->partitions.size(), 2u);
  const PartitionValues& big = r->partitions[1];
  EXPECT_EQ(big.knobs.at("memory"), "1G");  // the text, as stored and shown
  EXPECT_EQ(big.lines.at("memory"), 8);
  EXPECT_EQ(std::get<int64_t>(big.values.at("memory").value), int64_t{1} << 30);
  PartitionSpec ps = big.ToPartitionSpec(false);
  EXPECT_EQ(*ps.memory_bytes, int64_t{1} << 30);
  EXPECT_EQ(*ps.net_rate_bps, 100000000);
  EXPECT_TRUE(ps.node);  // shaping acts on the node's link
  EXPECT_EQ(big.SupportOf("net_rate"), "--net-rate");
  EXPECT_EQ(big.SupportOf("memory"), "--memory");
  // A value its knob cannot read is the spec's error, with its line, before anything runs.
  std::string m = Err(std::string(kMinimal) + "[partitions]\nllc_ways = [\"2\",\n \"four\"]\n");
  EXPECT_NE(m.find("x.toml:8: partitions.llc_ways = \"four\": must be a positive number of ways"), std::string::npos) << m;
  std::string pct = Err(std::string(kMinimal) + "[[partitions.set]]\ncpu_quota = \"half\"\n");
  EXPECT_NE(pct.find("x.toml:7: partitions.cpu_quota = \"half\""), std::string::npos) << pct;
  EXPECT_NE(pct.find("not a percentage"), std::string::npos) << pct;
}

TEST(Spec, ArrivalKeyDistributionAndProtocolAreResolvedInTheSpec) {
  auto r = ParseSpec(std::string(kMinimal) + "[load]\narrival = \"constant\"\nkey_dist = \"uniform\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->load.arrival_spec.kind, ArrivalSpec::Kind::kConstant);
  EXPECT_EQ(r->load.arrival, "constant");
  EXPECT_FALSE(r->load.key_dist_spec.zipf);
  auto z = ParseSpec(std::string(kMinimal) + "[load]\nkey_dist = \"zipf:0.5\"\n", "x.toml");
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_TRUE(z->load.key_dist_spec.zipf);
  EXPECT_DOUBLE_EQ(z->load.key_dist_spec.theta, 0.5);
  auto d = ParseSpec(kMinimal, "x.toml");
  EXPECT_EQ(d->load.arrival_spec.kind, ArrivalSpec::Kind::kExponential);
  EXPECT_DOUBLE_EQ(d->load.key_dist_spec.theta, 0.99);

  const std::string cmd = "name = \"t\"\n[workload]\ncommand = [\"sleep\", \"60\"]\nport = 1\nprotocol = ";
  std::string gopher = Err(cmd + "\"gopher\"\n[sweep]\nqps = [1]\n");
  EXPECT_NE(gopher.find("x.toml:2: workload.protocol \"gopher\" is not one ream speaks ("), std::string::npos) << gopher;
  EXPECT_NE(gopher.find("memcached"), std::string::npos) << gopher;
  std::string get_only = Err(cmd + "\"http\"\n[load]\nhttp_method = \"GET\"\n[sweep]\nqps = [1]\n");
  EXPECT_NE(get_only.find("x.toml: load.get_ratio = 0.9: protocol \"http\" cannot send sets"), std::string::npos)
      << get_only;
  EXPECT_TRUE(ParseSpec(cmd + "\"http\"\n[load]\nhttp_method = \"GET\"\nget_ratio = 1\n[sweep]\nqps = [1]\n", "x.toml").ok());
}

TEST(Spec, PresetSizesAndMultigetsAreResolvedInTheSpec) {
  const std::string mc = "name = \"t\"\n[workload]\ncommand = [\"memcached\", \"-p\", \"{port}\"]\nprotocol = \"memcached\"\n";
  // The preset sets arrival, mix and sizes; a key beside it wins.
  auto etc = ParseSpec(mc + "[load]\npreset = \"etc\"\nvalue_bytes = 100\nmultiget = \"uniform:1,8\"\n[sweep]\nqps = [1]\n",
                       "x.toml");
  ASSERT_TRUE(etc.ok()) << etc.status().ToString();
  EXPECT_EQ(etc->load.arrival_spec.kind, ArrivalSpec::Kind::kDistribution);
  EXPECT_EQ(etc->load.arrival, "fb_ia");
  EXPECT_NEAR(etc->load.get_ratio, 30.0 / 31.0, 1e-12);
  EXPECT_EQ(etc->load.key_sizes.name, "fb_key");
  EXPECT_TRUE(etc->load.value_sizes.fixed());
  EXPECT_EQ(etc->load.value_sizes.a, 100);
  EXPECT_EQ(etc->load.multiget.kind, Distribution::Kind::kUniform);
  nlohmann::json j = etc->ToJson()["load"];
  EXPECT_EQ(j["value_bytes"], 100);
  EXPECT_EQ(j["key_bytes"], "fb_key");
  EXPECT_EQ(j["preset"], "etc");
  // A spec without them stores what it always stored.
  nlohmann::json plain = ParseSpec(kMinimal, "x.toml")->ToJson()["load"];
  EXPECT_EQ(plain["value_bytes"], 64);
  EXPECT_FALSE(plain.contains("key_bytes"));
  EXPECT_FALSE(plain.contains("preset"));

  std::string usr = Err(mc + "[load]\npreset = \"usr\"\n[sweep]\nqps = [1]\n");
  EXPECT_NE(usr.find("ETC pool only"), std::string::npos) << usr;
  std::string file = Err(mc + "[load]\nvalue_bytes = \"file:sizes.txt\"\n[sweep]\nqps = [1]\n");
  EXPECT_NE(file.find("`ream load`'s flag only"), std::string::npos) << file;
  std::string short_key = Err(mc + "[load]\nkey_bytes = 5\n[sweep]\nqps = [1]\n");
  EXPECT_NE(short_key.find("load.key_bytes"), std::string::npos) << short_key;
  // The builtin kv speaks ream's protocol, which has no multi-key get.
  std::string multi = Err(std::string(kMinimal) + "[load]\nmultiget = 4\n");
  EXPECT_NE(multi.find("no multi-key get"), std::string::npos) << multi;
}

TEST(Spec, ModesAreEnumsWithOneSpellingEach) {
  for (SweepMode m : {SweepMode::kGrid, SweepMode::kKnee}) EXPECT_EQ(SweepModeFromString(ToString(m)), m);
  for (ReadyBy b : {ReadyBy::kPort, ReadyBy::kLine}) EXPECT_EQ(ReadyByFromString(ToString(b)), b);
  for (RestartEvery e : {RestartEvery::kSweep, RestartEvery::kPoint}) EXPECT_EQ(RestartEveryFromString(ToString(e)), e);
  EXPECT_FALSE(SweepModeFromString("Knee").has_value());
  auto k = ParseSpec("name = \"t\"\n[workload]\ncommand = [\"x\", \"{port}\"]\nready = \"line\"\nready_line = \"up\"\n"
                     "restart = \"point\"\n[sweep]\nmode = \"knee\"\nlow = 1\nhigh = 5\n",
                     "x.toml");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(k->sweep.mode, SweepMode::kKnee);
  EXPECT_EQ(k->workload.ready, ReadyBy::kLine);
  EXPECT_EQ(k->workload.restart, RestartEvery::kPoint);
  EXPECT_EQ(k->ToJson()["sweep"]["mode"], "knee");
  EXPECT_EQ(k->ToJson()["workload"]["ready"], "line");
  EXPECT_EQ(k->ToJson()["workload"]["restart"], "point");
  EXPECT_EQ(ParseSpec(kMinimal, "x.toml")->ToJson()["sweep"]["mode"], "grid");
  std::string bad = Err(std::string(kMinimal) + "mode = \"bisect\"\n");
  EXPECT_NE(bad.find("sweep.mode is \"bisect\""), std::string::npos) << bad;
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

TEST(SpecSweepAxis, IsQpsByDefaultAndSessionsTakesSessionCounts) {
  const std::string base = "name = \"a\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [1000]\n";
  auto plain = ParseSpec(base, "a.toml");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->sweep.axis, LoadAxis::kQps);
  auto explicit_qps = ParseSpec(base + "axis = \"qps\"\n", "a.toml");
  ASSERT_TRUE(explicit_qps.ok()) << explicit_qps.status().message();
  // The sessions axis takes session counts, not rates: its spec's qps is refused,
  // naming the key and its line.
  auto sessions = ParseSpec(base + "axis = \"sessions\"\n", "a.toml");
  ASSERT_FALSE(sessions.ok());
  EXPECT_NE(sessions.status().message().find("a.toml:5: sweep.qps"), std::string::npos) << sessions.status().message();
  EXPECT_NE(sessions.status().message().find("axis = \"sessions\""), std::string::npos);
  auto typo = ParseSpec(base + "axis = \"rps\"\n", "a.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("qps"), std::string::npos) << typo.status().message();
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

TEST(Spec, SandboxKindVmWithItsOptionsAndTheProcessDefault) {
  auto d = ParseSpec(kMinimal, "x.toml");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->sandbox.kind, "process");
  EXPECT_FALSE(d->ToJson().contains("sandbox"));  // stored specs of process runs are unchanged
  auto v = ParseSpec(std::string(kMinimal) + "[sandbox]\nkind = \"vm\"\naccel = \"kvm\"\nimage = \"/img\"\n"
                                             "boot_timeout = \"90s\"\n",
                     "x.toml");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->sandbox.kind, "vm");
  EXPECT_EQ(v->sandbox.accel, "kvm");
  EXPECT_EQ(v->sandbox.image, "/img");
  EXPECT_EQ(v->sandbox.boot_timeout, std::chrono::milliseconds(90000));
  EXPECT_EQ(v->ToJson()["sandbox"]["kind"], "vm");
  std::string bad = Err(std::string(kMinimal) + "[sandbox]\nkind = \"docker\"\n");
  EXPECT_NE(bad.find("sandbox.kind"), std::string::npos) << bad;
  EXPECT_NE(bad.find("vm"), std::string::npos) << bad;
  std::string typo = Err(std::string(kMinimal) + "[sandbox]\nkidn = \"vm\"\n");
  EXPECT_NE(typo.find("did you mean 'sandbox.kind'"), std::string::npos) << typo;
}

using spec_texts::kStreamSpec;

TEST(SpecSessions, BadParametersNameTheirKey) {
  auto err = [](const std::string& tail, const std::string& head = kStreamSpec) {
    auto s = ParseSpec(head + tail, "s.toml");
    return s.ok() ? std::string("(parsed)") : s.status().message();
  };
  EXPECT_NE(err("sessions = [1.5]\n").find("whole number of sessions"), std::string::npos);
  EXPECT_NE(err("sessions = [0]\n").find("whole number of sessions"), std::string::npos);
  EXPECT_NE(err("sessions = [4, 4]\n").find("repeat"), std::string::npos);
  EXPECT_NE(err("").find("needs 'sessions'"), std::string::npos);
  EXPECT_NE(err("mode = \"knee\"\nsessions = [4]\n").find("sweeps a grid"), std::string::npos);
  std::string no_bitrate = kStreamSpec;
  no_bitrate.replace(no_bitrate.find("bitrate = \"8mbit\"\n"), 18, "");
  EXPECT_NE(err("sessions = [4]\n", no_bitrate).find("[load] bitrate is required"), std::string::npos);
  std::string bad_rate = kStreamSpec;
  bad_rate.replace(bad_rate.find("8mbit"), 5, "fast");
  EXPECT_NE(err("sessions = [4]\n", bad_rate).find("load.bitrate"), std::string::npos);
  std::string bad_chunk = kStreamSpec;
  bad_chunk.replace(bad_chunk.find("256k"), 4, "0");
  EXPECT_NE(err("sessions = [4]\n", bad_chunk).find("load.chunk_bytes"), std::string::npos);
  std::string ream_protocol = kStreamSpec;
  ream_protocol.replace(ream_protocol.find("builtin = \"stream\""), 18, "builtin = \"kv\"");
  EXPECT_NE(err("sessions = [4]\n", ream_protocol).find("streams over HTTP"), std::string::npos);
}


TEST(Spec, BadPressureCorunnersAreRefused) {
  const std::string base = std::string(kMinimal) + "[[corunner]]\nname = \"p\"\n";
  EXPECT_NE(Err(base + "pressure = \"l3\"\nintensity = 50\n").find("unknown source of interference 'l3'"),
            std::string::npos);
  EXPECT_NE(Err(base + "pressure = \"cpu\"\nintensity = 150\n").find("corunner.intensity"), std::string::npos);
  EXPECT_NE(Err(base + "pressure = \"cpu\"\n").find("needs 'intensity'"), std::string::npos);
  EXPECT_NE(Err(base + "pressure = \"cpu\"\nintensity = 5\nbatch = \"xz\"\n").find("exactly one of"),
            std::string::npos);
  EXPECT_NE(Err(base + "command = [\"x\"]\nintensity = 5\n").find("'intensity' belongs to 'pressure'"),
            std::string::npos);
}

TEST(Spec, BadInterferenceIsRefusedNamingTheKey) {
  const std::string base = std::string(kMinimal) + "[interference]\n";
  EXPECT_NE(Err(base + "intensities = [50]\n").find("needs 'sources'"), std::string::npos);
  EXPECT_NE(Err(base + "sources = [\"l3\"]\n").find("unknown source of interference 'l3'"), std::string::npos);
  EXPECT_NE(Err(base + "sources = [\"cpu\", \"cpu\"]\n").find("twice"), std::string::npos);
  EXPECT_NE(Err(base + "sources = [\"cpu\"]\nintensities = [120]\n").find("interference.intensities"),
            std::string::npos);
  EXPECT_NE(Err(base + "sources = [\"cpu\"]\nintensities = [0]\n").find("above 0"), std::string::npos);
  EXPECT_NE(Err(base + "sources = [\"cpu\"]\ncpus = \"mine\"\n").find("interference.cpus"), std::string::npos);
  EXPECT_NE(Err(base + "sources = [\"cpu\"]\nsched = \"rt\"\n").find("interference.sched"), std::string::npos);
  EXPECT_NE(Err(base + "sources = [\"cpu\"]\nintensity = [5]\n").find("intensity"), std::string::npos);
  EXPECT_NE(Err(std::string(kMinimal) + "[[corunner]]\nname = \"cpu@50\"\ncommand = [\"x\"]\n" +
                "[interference]\nsources = [\"cpu\"]\nintensities = [50]\n")
                .find("has the name of a [[corunner]]"),
            std::string::npos);
  EXPECT_NE(Err(std::string(kMinimal) + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\n[colocation]\nalone = false\n" +
                "[interference]\nsources = [\"cpu\"]\n")
                .find("needs the subject measured alone"),
            std::string::npos);
}

TEST(Spec, BadCorunnersAreRefusedNamingTheCorunnerAndTheKey) {
  const std::string base = std::string(kMinimal);
  EXPECT_NE(Err(base + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\nllc_wayz = 2\n").find("llc_ways"),
            std::string::npos);
  EXPECT_NE(Err(base + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\ncpus = \"mine\"\n").find("corunner.cpus"),
            std::string::npos);
  EXPECT_NE(Err(base + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\nsched = \"rt\"\n").find("corunner.sched"),
            std::string::npos);
  EXPECT_NE(Err(base + "[[corunner]]\nname = \"a\"\n").find("'a': needs exactly one of 'command'"), std::string::npos);
  EXPECT_NE(Err(base + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\ncpu_quota = \"lots\"\n").find("'a'"),
            std::string::npos);
  EXPECT_NE(Err(base + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\n[colocation]\nsets = [[\"b\"]]\n")
                .find("names \"b\", which is no [[corunner]]"),
            std::string::npos);
  EXPECT_NE(Err(base + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\n[[corunner]]\nname = \"a\"\ncommand = [\"y\"]\n")
                .find("used twice"),
            std::string::npos);
  EXPECT_NE(Err(base + "[colocation]\nalone = true\n").find("needs at least one [[corunner]]"), std::string::npos);
}


TEST(Spec, ACorunnerKnobGivenAsAListIsOneCorunnerPerValueEachASetOfItsOwn) {
  const std::string base = std::string(kMinimal) + R"([[corunner]]
name = "stream"
command = ["stress-ng", "--stream", "1"]
cpu_quota = ["25%", "100%"]
sched = ["normal", "idle"]
[[corunner]]
name = "cache"
command = ["stress-ng", "--cache", "1"]
)";
  auto r = ParseSpec(base, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> names;
  for (const auto& c : r->corunners) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"stream@cpu_quota=25%;sched=normal", "stream@cpu_quota=25%;sched=idle",
                                             "stream@cpu_quota=100%;sched=normal", "stream@cpu_quota=100%;sched=idle",
                                             "cache"}));
  const CorunnerSpec* idle = r->FindCorunner("stream@cpu_quota=25%;sched=idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->sched, SchedClass::kIdle);
  EXPECT_EQ(idle->partition.Label(), "cpu_quota=25%");
  // By default every co-runner together: one set per variant of the varied one.
  ASSERT_EQ(r->colocation.sets.size(), 4u);
  EXPECT_EQ(r->colocation.Label(1), "stream@cpu_quota=25%;sched=idle+cache");
  // A set naming the varied co-runner is one set per variant; a variant may be named alone.
  auto sets = ParseSpec(base + "[colocation]\nsets = [[\"stream\"], [\"cache\", \"stream@cpu_quota=100%;sched=idle\"]]\n",
                        "x.toml");
  ASSERT_TRUE(sets.ok()) << sets.status().ToString();
  ASSERT_EQ(sets->colocation.sets.size(), 5u);
  EXPECT_EQ(sets->colocation.Label(0), "stream@cpu_quota=25%;sched=normal");
  EXPECT_EQ(sets->colocation.Label(4), "cache+stream@cpu_quota=100%;sched=idle");
  // A loaded neighbour's rate as a list: one co-runner per rate.
  auto rates = ParseSpec(std::string(kMinimal) + "[[corunner]]\nname = \"kv2\"\nbuiltin = \"kv\"\nsched = [\"normal\", "
                         "\"idle\"]\n[corunner.load]\nqps = [5000, 12500.5]\nconnections = 2\n",
                         "x.toml");
  ASSERT_TRUE(rates.ok()) << rates.status().ToString();
  ASSERT_EQ(rates->corunners.size(), 4u);
  EXPECT_EQ(rates->corunners[1].name, "kv2@sched=normal;qps=12500.5");
  EXPECT_DOUBLE_EQ(rates->corunners[1].load->qps, 12500.5);
  EXPECT_EQ(rates->corunners[1].load->connections, 2);
  EXPECT_EQ(rates->colocation.sets.size(), 4u);
  EXPECT_NE(Err(std::string(kMinimal) + "[[corunner]]\nname = \"k\"\nbuiltin = \"kv\"\n[corunner.load]\nqps = []\n")
                .find("qps is an empty list"),
            std::string::npos);
  EXPECT_NE(Err(std::string(kMinimal) + "[[corunner]]\nname = \"k\"\nbuiltin = \"kv\"\n[corunner.load]\nqps = [\"x\"]\n")
                .find("must be numbers"),
            std::string::npos);
  // Bad lists are refused naming the key.
  const std::string one = std::string(kMinimal) + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\n";
  EXPECT_NE(Err(one + "cpu_quota = []\n").find("cpu_quota is an empty list"), std::string::npos);
  EXPECT_NE(Err(one + "cpu_quota = [1.5]\n").find("cpu_quota: the values of a list"), std::string::npos);
  EXPECT_NE(Err(one + "sched = [\"normal\", \"rt\"]\n").find("corunner.sched"), std::string::npos);
}

TEST(Spec, BadCorunnerLoadsAreRefusedNamingTheCorunnerAndTheKey) {
  const std::string base = std::string(kMinimal) + "[[corunner]]\nname = \"a\"\n";
  EXPECT_NE(Err(base + "builtin = \"kv\"\n").find("needs [corunner.load]"), std::string::npos);
  EXPECT_NE(Err(base + "builtin = \"nosuch\"\n[corunner.load]\nqps = 1\n").find("unknown builtin"), std::string::npos);
  EXPECT_NE(Err(base + "batch = \"xz\"\n[corunner.load]\nqps = 1\n").find("[corunner.load] drives a server"),
            std::string::npos);
  EXPECT_NE(Err(base + "command = [\"x\", \"{port}\"]\n[corunner.load]\nqps = 1\n").find("needs 'protocol'"),
            std::string::npos);
  EXPECT_NE(Err(base + "command = [\"x\"]\n[corunner.load]\nqps = 1\nprotocol = \"redis\"\n").find("{port}"),
            std::string::npos);
  EXPECT_NE(Err(base + "builtin = \"kv\"\n[corunner.load]\nconnections = 1\n").find("needs 'qps'"),
            std::string::npos);
  EXPECT_NE(Err(base + "builtin = \"kv\"\n[corunner.load]\nqps = 1\nprotocol = \"redis\"\n").find("speaks \"ream\""),
            std::string::npos);
  EXPECT_NE(Err(base + "builtin = \"kv\"\n[corunner.load]\nqps = 1\nrate = 3\n").find("rate"), std::string::npos);
  EXPECT_NE(Err(base + "command = [\"x\"]\nargs = [\"y\"]\n").find("'args' belongs to 'builtin'; this co-runner is a "
                                                                "'command'"),
            std::string::npos);
}

// Where a co-runner runs is a place of the table (spec/tenant_places.h), checked when
// the spec is read.
TEST(Spec, ACorunnersSandboxIsAPlaceOfTheTable) {
  const std::string base = std::string(kMinimal) + "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\n";
  auto r = ParseSpec(base + "sandbox = \"ssh:server1\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->corunners[0].sandbox, "ssh:server1");
  EXPECT_EQ(r->corunners[0].kind, BuiltinTenantKinds().Find("command"));
  EXPECT_EQ(r->ToJson()["corunners"][0]["sandbox"], "ssh:server1");
  auto node = ParseSpec(base + "sandbox = \"node\"\nnet_rate = \"100mbit\"\n", "x.toml");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->corunners[0].sandbox, "node");
  EXPECT_NE(Err(base + "sandbox = \"container\"\n").find("corunner.sandbox \"container\" is none of"),
            std::string::npos)
      << Err(base + "sandbox = \"container\"\n");
  EXPECT_NE(Err(base + "sandbox = \"ssh:\"\n").find("needs a host"), std::string::npos);
  EXPECT_NE(Err(base + "sandbox = \"node:x\"\n").find("is none of"), std::string::npos);
  // Beside a subject on another host, a co-runner must share that host.
  const std::string remote = std::string(kMinimal) +
                             "[nodes]\nworkload = \"ssh:h\"\nworkload_address = \"10.0.0.2\"\n"
                             "[[corunner]]\nname = \"a\"\ncommand = [\"x\"]\n";
  EXPECT_NE(Err(remote).find("give it sandbox = \"ssh:h\""), std::string::npos) << Err(remote);
  auto same = ParseSpec(remote + "sandbox = \"ssh:h\"\n", "x.toml");
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(same->corunners[0].address, "10.0.0.2");
  // The subject is a tenant of the same table.
  EXPECT_EQ(r->workload.kind, BuiltinTenantKinds().Find("builtin"));
}

using spec_texts::kBatch;

TEST(SpecBatch, CopiesAndRequestLevelsDoNotMix) {
  auto with = [](std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  // A server cannot take copies.
  EXPECT_NE(Err(with(kMinimal, "qps = [1000, 2000]", "copies = [1]")).find("load of a batch subject"), std::string::npos);
  // A batch subject cannot take request levels, in [sweep] or in [load].
  EXPECT_NE(Err(with(kBatch, "copies = [2, 1]", "qps = [100]")).find("a batch subject's load is its concurrent copies"),
            std::string::npos);
  EXPECT_NE(Err(with(kBatch, "copies = [2, 1]", "copies = [1]\nqps = [100]")).find("qps"), std::string::npos);
  std::string e = Err(with(kBatch, "warmup = \"1s\"", "connections = 8"));
  EXPECT_NE(e.find("[load] connections"), std::string::npos) << e;
  EXPECT_NE(e.find("only [load] warmup and duration"), std::string::npos) << e;
  // Whole copies, each once.
  EXPECT_NE(Err(with(kBatch, "[2, 1]", "[0]")).find("whole numbers of copies"), std::string::npos);
  EXPECT_NE(Err(with(kBatch, "[2, 1]", "[1.5]")).find("whole numbers of copies"), std::string::npos);
  EXPECT_NE(Err(with(kBatch, "[2, 1]", "[1, 1]")).find("repeats a value"), std::string::npos);
  EXPECT_NE(Err(with(kBatch, "[2, 1]", "[]")).find("non-empty"), std::string::npos);
  // An unknown program names the known ones; server keys and batch_seconds alone are refused.
  e = Err(with(kBatch, "\"xz\"", "\"zx\""));
  EXPECT_NE(e.find("\"zx\" is not a batch program (known: "), std::string::npos) << e;
  EXPECT_NE(e.find("bzip2"), std::string::npos) << e;
  EXPECT_NE(Err(with(kBatch, "batch_seconds = 2", "port = 80")).find("port is for a server"), std::string::npos);
  EXPECT_NE(Err(with(kBatch, "batch = \"xz\"", "builtin = \"kv\"")).find("batch_seconds applies to a batch subject"),
            std::string::npos);
  EXPECT_NE(Err(with(kBatch, "batch_seconds = 2", "builtin = \"kv\"")).find("exactly one of"), std::string::npos);
  EXPECT_NE(Err(with(kBatch, "batch_seconds = 2", "batch_seconds = 0")).find("batch_seconds"), std::string::npos);
  EXPECT_NE(Err(std::string(kBatch) + "[qos]\ntarget = \"1ms\"\n").find("[qos] is for a server"), std::string::npos);
}

}  // namespace
}  // namespace ream
