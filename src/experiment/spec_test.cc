#include "experiment/spec.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiment/corunners.h"
#include "experiment/load_driver.h"
#include "experiment/plan.h"
#include "experiment/preflight.h"
#include "experiment/text.h"

namespace ream {
namespace {

const char* kMinimal = R"(name = "t"
[workload]
builtin = "kv"
[sweep]
qps = [1000, 2000]
)";

std::string Err(const std::string& text) {
  auto r = ParseSpec(text, "x.toml");
  EXPECT_FALSE(r.ok()) << "spec was accepted:\n" << text;
  return r.ok() ? "" : r.status().message();
}

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
  for (const auto& entry : std::filesystem::directory_iterator(std::string(REAM_SOURCE_DIR) + "/examples")) {
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

TEST(Spec, PartitionListsExpandToTheirProductAndSetsAreExplicit) {
  auto r = ParseSpec("scenarios = [\"1-ST\", \"2-ST\"]\nrepetitions = 2\n" + std::string(kMinimal) +
                         "[partitions]\ncpu_quota = [\"50%\", \"100%\"]\nmemory = [\"256M\", \"512M\", \"1G\"]\n",
                     "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->partitions.size(), 6u);
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->runs.size(), 2u * 6u * 2u);
  EXPECT_EQ(plan->MaxPoints(), 24 * 2);
  auto only = MakePlan(*r, "2-ST");
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->runs.size(), 12u);
  EXPECT_FALSE(MakePlan(*r, "4-ST").ok());

  auto sets = ParseSpec(std::string(kMinimal) +
                            "[[partitions.set]]\ncpu_quota = \"50%\"\n[[partitions.set]]\nmemory = \"1G\"\n",
                        "x.toml");
  ASSERT_TRUE(sets.ok()) << sets.status().ToString();
  ASSERT_EQ(sets->partitions.size(), 2u);
  EXPECT_EQ(sets->partitions[0].Label(), "cpu_quota=50%");
  EXPECT_EQ(sets->partitions[1].Label(), "memory=1G");
  EXPECT_NE(Err(std::string(kMinimal) + "[partitions]\ncpu_qouta = \"50%\"\n").find("did you mean 'partitions.cpu_quota'"),
            std::string::npos);
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
  // The sessions axis (issue 17) takes session counts, not rates: its spec's qps is refused,
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

const char* kStreamSpec = R"(name = "s"
node = true
[workload]
builtin = "stream"
[load]
http_path = "/video/{key}.bin"
chunk_bytes = "256k"
bitrate = "8mbit"
session_chunks = 4
[sweep]
axis = "sessions"
)";

TEST(SpecSessions, ParsesTheLevelsAndTheChunks) {
  auto s = ParseSpec(std::string(kStreamSpec) + "sessions = [8, 1, 24]\n", "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->sweep.axis, LoadAxis::kSessions);
  EXPECT_EQ(s->sweep.qps, (std::vector<double>{1, 8, 24}));
  EXPECT_EQ(s->workload.protocol, "http");  // the builtin's own
  EXPECT_EQ(s->load.chunk_bytes, 262144);
  EXPECT_EQ(s->load.bitrate_bps, 8'000'000);
  EXPECT_EQ(s->load.session_chunks, 4);
  auto range = ParseSpec(std::string(kStreamSpec) + "start = 2\nstop = 24\nsteps = 4\n", "s.toml");
  ASSERT_TRUE(range.ok()) << range.status().message();
  EXPECT_EQ(range->sweep.qps, (std::vector<double>{2, 9, 17, 24}));
  // The generator's options at a level: sessions, one connection each, the schedule's rate.
  LoadOptions lo = LevelLoadOptions(*s, 8, 1, "10.0.0.2", 8080);
  EXPECT_EQ(lo.session.sessions, 8);
  EXPECT_EQ(lo.connections, 8);
  EXPECT_EQ(lo.session.chunk_bytes, 262144u);
  EXPECT_NEAR(lo.qps, 8 * 8e6 / (8 * 262144.0), 1e-9);
  EXPECT_TRUE(ValidateLoadOptions(lo).ok()) << ValidateLoadOptions(lo).message();
  // ... and `ream load`'s argv for them: sessions, not a rate.
  std::vector<std::string> argv = LoadArgv(lo);
  std::string line;
  for (const auto& a : argv) line += a + " ";
  EXPECT_EQ(line.find("--qps"), std::string::npos) << line;
  EXPECT_NE(line.find("--sessions 8 --session-chunks 4 --chunk-bytes 262144 --bitrate 8000000bit"), std::string::npos)
      << line;
}

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


TEST(Spec, CorunnersParseWithTheirKnobsAndSetsAndPlanAloneBesideEachSet) {
  std::string text = "repetitions = 2\n" + std::string(kMinimal) + R"(
[[corunner]]
name = "cache"
command = ["stress-ng", "--cache", "1"]
sched = "idle"
cpu_quota = "50%"
memory = "256M"
[[corunner]]
name = "job"
batch = "xz"
cpus = "others"
[colocation]
sets = [["cache"], ["cache", "job"]]
)";
  auto r = ParseSpec(text, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->corunners.size(), 2u);
  EXPECT_EQ(r->corunners[0].sched, SchedClass::kIdle);
  EXPECT_FALSE(r->corunners[0].restart);
  EXPECT_EQ(r->corunners[0].partition.Label(), "cpu_quota=50%,memory=256M");
  EXPECT_EQ(r->corunners[0].cpus, "subject");
  EXPECT_TRUE(r->corunners[1].restart);  // a batch program runs again by default
  EXPECT_EQ(r->corunners[1].cpus, "others");
  ASSERT_EQ(r->colocation.sets.size(), 2u);
  EXPECT_EQ(r->colocation.Label(1), "cache+job");
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> order;
  for (const auto& run : plan->runs) order.push_back(run.tenants + "/" + std::to_string(run.repetition));
  EXPECT_EQ(order, (std::vector<std::string>{"/0", "cache/0", "cache+job/0", "/1", "cache/1", "cache+job/1"}));
}

TEST(Spec, PressureCorunnerRunsReamPressureUntilStoppedAndWaitsForItsReadyLine) {
  std::string text = std::string(kMinimal) + R"(
[[corunner]]
name = "bubble"
pressure = "llc"
intensity = 75
)";
  auto r = ParseSpec(text, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->corunners.size(), 1u);
  const CorunnerSpec& c = r->corunners[0];
  EXPECT_EQ(c.pressure, "llc");
  EXPECT_DOUBLE_EQ(c.intensity, 75);
  EXPECT_FALSE(c.restart);
  EXPECT_EQ(c.ready_line, "pressure ready");
  std::vector<std::string> argv = CorunnerArgv(c, "/bin/ream");
  std::vector<std::string> tail(std::find(argv.begin(), argv.end(), "--") + 1, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"/bin/ream", "pressure", "llc", "--intensity", "75"}));
  EXPECT_EQ(r->ToJson()["corunners"][0]["pressure"], "llc");
  EXPECT_EQ(r->ToJson()["corunners"][0]["intensity"], 75.0);
  // A ready line given in the spec wins.
  auto own = ParseSpec(text + "ready_line = \"go\"\n", "x.toml");
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_EQ(own->corunners[0].ready_line, "go");
}

TEST(Spec, BadPressureCorunnersAreRefused) {
  const std::string base = std::string(kMinimal) + "[[corunner]]\nname = \"p\"\n";
  EXPECT_NE(Err(base + "pressure = \"l3\"\nintensity = 50\n").find("unknown source of interference 'l3'"),
            std::string::npos);
  EXPECT_NE(Err(base + "pressure = \"cpu\"\nintensity = 150\n").find("corunner.intensity"), std::string::npos);
  EXPECT_NE(Err(base + "pressure = \"cpu\"\n").find("needs 'intensity'"), std::string::npos);
  EXPECT_NE(Err(base + "pressure = \"cpu\"\nintensity = 5\nbatch = \"xz\"\n").find("exactly one of"),
            std::string::npos);
  EXPECT_NE(Err(base + "command = [\"x\"]\nintensity = 5\n").find("'intensity' is the dial"), std::string::npos);
}

TEST(Spec, InterferenceMakesOneSetPerSourceAndIntensityBesideTheSpecsOwnSetsAndTheSubjectAlone) {
  std::string text = std::string(kMinimal) + R"(
[[corunner]]
name = "job"
command = ["sleep", "100"]

[interference]
sources = ["cpu", "llc"]
intensities = [0, 100, 50]
sched = "idle"
load = 4000
)";
  auto r = ParseSpec(text, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->interference.intensities, (std::vector<double>{50, 100}));  // 0 is the subject alone
  ASSERT_EQ(r->corunners.size(), 5u);
  const CorunnerSpec& c = r->corunners[4];
  EXPECT_EQ(c.name, "llc@100");
  EXPECT_EQ(c.pressure, "llc");
  EXPECT_DOUBLE_EQ(c.intensity, 100);
  EXPECT_EQ(c.sched, SchedClass::kIdle);
  EXPECT_EQ(c.cpus, "subject");
  EXPECT_EQ(c.ready_line, "pressure ready");
  EXPECT_TRUE(c.interference);
  EXPECT_DOUBLE_EQ(c.interference_load, 4000);
  std::vector<std::string> labels;
  for (size_t i = 0; i < r->colocation.sets.size(); ++i) labels.push_back(r->colocation.Label(i));
  EXPECT_EQ(labels, (std::vector<std::string>{"job", "cpu@50", "cpu@100", "llc@50", "llc@100"}));
  EXPECT_TRUE(r->colocation.alone);
  EXPECT_EQ(r->ToJson()["corunners"][4]["interference_load"], 4000.0);
  // Every set alternates with the subject alone in each repetition.
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->runs.size(), 6u);
  EXPECT_EQ(plan->runs[0].tenants, "");
  // Default intensities: 25, 50, 75 and 100 %.
  auto d = ParseSpec(std::string(kMinimal) + "[interference]\nsources = [\"mem_bw\"]\n", "x.toml");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->interference.intensities, (std::vector<double>{25, 50, 75, 100}));
  EXPECT_EQ(d->corunners.size(), 4u);
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


TEST(Spec, ACorunnerUnderALoadOfItsOwnIsABuiltinOrACommandServingOnItsPort) {
  const std::string base = std::string(kMinimal);
  auto r = ParseSpec(base + R"([[corunner]]
name = "kv2"
builtin = "kv"
args = ["--records", "1000"]
[corunner.load]
qps = 5000
connections = 2
[[corunner]]
name = "mc"
command = ["memcached", "-p", "{port}"]
[corunner.load]
qps = 3000
protocol = "memcached"
)",
                     "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->corunners.size(), 2u);
  ASSERT_TRUE(r->corunners[0].load.has_value());
  EXPECT_EQ(r->corunners[0].load->protocol, "ream");  // the builtin's own
  EXPECT_EQ(r->corunners[0].load->connections, 2);
  EXPECT_EQ(r->corunners[1].load->protocol, "memcached");
  // The subject's generator shares its CPUs with the co-runners' and yields, unless told.
  EXPECT_EQ(r->load.wait, "yield");
  auto told = ParseSpec(base + "[load]\nwait = \"sleep\"\n[[corunner]]\nname = \"k\"\nbuiltin = \"kv\"\n"
                                "[corunner.load]\nqps = 10\n",
                        "x.toml");
  ASSERT_TRUE(told.ok()) << told.status().ToString();
  EXPECT_EQ(told->load.wait, "sleep");
  // The builtin's argv, and a command's "{port}" filled in.
  EXPECT_EQ(Join(CorunnerArgv(r->corunners[0], "/r", 0, 1)),
            "/r corun --sched normal -- /r serve kv --port 0 --threads 1 --records 1000");
  EXPECT_EQ(Join(CorunnerArgv(r->corunners[1], "/r", 4242)), "/r corun --sched normal -- memcached -p 4242");
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
  EXPECT_NE(Err(base + "command = [\"x\"]\nargs = [\"y\"]\n").find("'args' are a builtin's"), std::string::npos);
}

const char* kBatch = R"(name = "b"
[workload]
batch = "xz"
batch_seconds = 2
[load]
warmup = "1s"
duration = "6s"
[sweep]
copies = [2, 1]
[partitions]
cpu_quota = ["100%", "50%"]
)";

TEST(SpecBatch, ABatchSubjectTakesCopiesAsItsLoadAxis) {
  auto r = ParseSpec(kBatch, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->workload.batch, "xz");
  EXPECT_DOUBLE_EQ(r->workload.batch_seconds, 2);
  EXPECT_EQ(r->sweep.axis, LoadAxis::kCopies);
  EXPECT_EQ(r->sweep.qps, (std::vector<double>{1, 2}));  // sorted
  EXPECT_EQ(r->load.duration, std::chrono::milliseconds(6000));
  EXPECT_EQ(r->partitions.size(), 2u);
  EXPECT_EQ(r->ToJson()["workload"]["batch"], "xz");
  EXPECT_EQ(r->ToJson()["sweep"]["axis"], "copies");
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->axis, LoadAxis::kCopies);
  ASSERT_EQ(plan->runs.size(), 2u);
  EXPECT_EQ(plan->runs[0].grid_loads, (std::vector<double>{1, 2}));
}

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
