// The workload side of `ream agent` without a host behind it: the options as they travel, the
// refusal of an agent that is not root, and what it answers with no sandbox.
#include "remote/workload_agent.h"

#include <gtest/gtest.h>

#include <vector>

#include "platform/forwarding_platform.h"
#include "platform/testdata_copy.h"

namespace ream {
namespace {

using nlohmann::json;

TEST(WorkloadAgent, SandboxOptionsTravelWithEveryFieldTheAgentUses) {
  SandboxOptions o;
  o.partition.cpus = "0";
  o.partition.memory_bytes = 256LL << 20;
  o.partition.disk_read_bps = 20'000'000;
  o.reserved_cpus = std::vector<int>{};
  o.user = "ream";
  o.env = {{"A", "1"}, {"B", "two words"}};
  o.keep_awake = true;
  o.stop_grace = std::chrono::milliseconds(1500);
  auto back = SandboxOptionsFromJson(SandboxOptionsToJson(o));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->partition.ToJson(), o.partition.ToJson());
  ASSERT_TRUE(back->reserved_cpus.has_value());
  EXPECT_TRUE(back->reserved_cpus->empty());  // "none", not "the default"
  EXPECT_EQ(back->user, "ream");
  EXPECT_EQ(back->env, o.env);
  EXPECT_TRUE(back->keep_awake);
  EXPECT_EQ(back->stop_grace, std::chrono::milliseconds(1500));

  SandboxOptions d;
  back = SandboxOptionsFromJson(SandboxOptionsToJson(d));
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->reserved_cpus.has_value());  // the default reservation
  EXPECT_FALSE(back->keep_awake);

  auto bad = SandboxOptionsFromJson({{"partition", {{"memory_bytes", "lots"}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("memory_bytes"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(SandboxOptionsFromJson({{"env", {{"A"}}}}).ok());
  EXPECT_FALSE(SandboxOptionsFromJson({{"stop_grace_ms", "2s"}}).ok());
}

// An agent that logged in as someone else than root.
class NotRoot : public ForwardingPlatform {
 public:
  using ForwardingPlatform::ForwardingPlatform;
  int EffectiveUserId() override { return 1000; }
};

TEST(WorkloadAgent, AnAgentThatIsNotRootRefusesTheHostSayingWhy) {
  RootedPlatform fixture(std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/smt");
  NotRoot p(fixture);
  std::vector<json> sent;
  WorkloadAgent agent(p, [&](const json& m) {
    sent.push_back(m);
    return true;
  });
  ASSERT_TRUE(agent.Handle({{"type", "host"}, {"user", "ream"}}));
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["type"], "error");
  const std::string why = sent[0]["message"].get<std::string>();
  EXPECT_NE(why.find("uid 1000"), std::string::npos) << why;
  EXPECT_NE(why.find("needs root"), std::string::npos) << why;
  EXPECT_NE(why.find("User root"), std::string::npos) << why;
}

TEST(WorkloadAgent, WithoutASandboxItSaysSoAndAStopIsHarmless) {
  RootedPlatform p(std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/smt");
  std::vector<json> sent;
  WorkloadAgent agent(p, [&](const json& m) {
    sent.push_back(m);
    return true;
  });
  EXPECT_TRUE(WorkloadAgent::Handles("monitor_start"));
  EXPECT_FALSE(WorkloadAgent::Handles("run"));  // the load agent's
  ASSERT_TRUE(agent.Handle({{"type", "monitor_start"}, {"interval_ns", 100'000'000}}));
  ASSERT_EQ(sent.back()["type"], "error");
  EXPECT_NE(sent.back()["message"].get<std::string>().find("no workload runs here"), std::string::npos);
  ASSERT_TRUE(agent.Handle({{"type", "sandbox_start"}, {"id", 3}, {"options", json::object()}}));
  EXPECT_EQ(sent.back()["type"], "error");
  EXPECT_EQ(sent.back()["id"], 3);
  EXPECT_NE(sent.back()["message"].get<std::string>().find("without a command"), std::string::npos);
  ASSERT_TRUE(agent.Handle({{"type", "sandbox_stop"}}));
  EXPECT_EQ(sent.back()["type"], "sandbox_stopped");
  EXPECT_EQ(sent.back()["error"], "");
  EXPECT_TRUE(agent.Tick());  // nothing runs: nothing to say
  EXPECT_FALSE(agent.has_sandbox());
}

TEST(WorkloadAgent, AMalformedMessageIsRefusedNotThrown) {
  RootedPlatform p(std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/smt");
  std::vector<json> sent;
  WorkloadAgent agent(p, [&](const json& m) {
    sent.push_back(m);
    return true;
  });
  ASSERT_TRUE(agent.Handle({{"type", "sandbox_start"}, {"id", 4}, {"options", {{"keep_awake", "yes"}}}, {"argv", {"x"}}}));
  EXPECT_EQ(sent.back()["type"], "error");
  EXPECT_EQ(sent.back()["id"], 4);
  ASSERT_TRUE(agent.Handle({{"type", "host"}, {"user", 5}}));
  EXPECT_EQ(sent.back()["type"], "error");
  EXPECT_NE(sent.back()["message"].get<std::string>().find("malformed"), std::string::npos) << sent.back().dump();
  EXPECT_FALSE(agent.has_sandbox());
}

TEST(WorkloadAgent, TheHostReportOfAFixtureMachineCarriesItsTopology) {
  FixtureCopy fx("smt", "src/topology/testdata");  // the probes may write: a copy
  RootedPlatform p(fx.root());
  std::vector<json> sent;
  WorkloadAgent agent(p, [&](const json& m) {
    sent.push_back(m);
    return true;
  });
  ASSERT_TRUE(agent.Handle({{"type", "host"}, {"user", "root"}}));
  ASSERT_EQ(sent.size(), 1u);
  ASSERT_EQ(sent[0]["type"], "host") << sent[0].dump();
  auto t = Topology::FromJson(sent[0]["topology"]);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->cpus.size(), 8u);
  EXPECT_TRUE(t->has_smt());
  EXPECT_TRUE(sent[0]["capabilities"].is_array());
  EXPECT_TRUE(sent[0]["support"].is_array());
  EXPECT_FALSE(sent[0]["support"].empty());
}

}  // namespace
}  // namespace ream
