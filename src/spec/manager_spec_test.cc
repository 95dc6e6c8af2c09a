// [manager] of the experiment spec: the policy and its thresholds, the resources it may move
// (knobs of the one table that can be moved on a running tenant, as levels in their own unit)
// and the floor; every refusal names the key and its line.
#include <gtest/gtest.h>

#include "spec/spec.h"
#include "spec/spec_test_texts.h"

namespace ream {
namespace {

using spec_texts::Err;

// memcached beside a stress-ng stream: the tenants a manager moves between.
const std::string kManagerHead = R"(name = "m"
[workload]
builtin = "kv"
[sweep]
qps = [10000]
[qos]
target = "500us"
[[corunner]]
name = "stream"
command = ["stress-ng", "--stream", "1"]
)";

TEST(ManagerSpec, PartiesWithItsResourcesAsLevels) {
  auto r = ParseSpec(kManagerHead + R"([manager]
policy = "parties"
period = "500ms"
window = "1s"
grow_below = 0.1
[[manager.resource]]
knob = "cpu_quota"
tenant = "stream"
unit = "10%"
min = "10%"
max = "100%"
[[manager.resource]]
knob = "cpu_idle"
tenant = "stream"
[[manager.resource]]
knob = "cpu_weight"
tenant = "subject"
unit = 100
min = 100
max = "1000"
[manager.floor]
cpu_quota = "20%"
)", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ManagerSpec& m = r->manager;
  EXPECT_TRUE(m.given);
  EXPECT_EQ(m.policy, "parties");
  EXPECT_EQ(m.period, std::chrono::milliseconds(500));
  EXPECT_EQ(m.window, std::chrono::milliseconds(1000));
  EXPECT_DOUBLE_EQ(m.grow_below, 0.1);
  EXPECT_DOUBLE_EQ(m.shrink_above, 0.20);  // the default, PARTIES' own
  ASSERT_EQ(m.resources.size(), 3u);
  EXPECT_EQ(m.resources[0].knob->key, "cpu_quota");
  EXPECT_EQ(m.resources[0].tenant, "stream");
  EXPECT_DOUBLE_EQ(m.resources[0].unit, 0.1);  // parsed by the knob's parser: 10 % of a CPU
  EXPECT_DOUBLE_EQ(m.resources[0].min, 0.1);
  EXPECT_DOUBLE_EQ(m.resources[0].max, 1.0);
  EXPECT_EQ(m.resources[0].line, 16);
  // The scheduling class needs no unit nor bounds: idle (0) and normal (1).
  EXPECT_DOUBLE_EQ(m.resources[1].unit, 1);
  EXPECT_DOUBLE_EQ(m.resources[1].min, 0);
  EXPECT_DOUBLE_EQ(m.resources[1].max, 1);
  EXPECT_EQ(m.resources[1].min_text, "idle");
  EXPECT_DOUBLE_EQ(m.resources[2].unit, 100);
  EXPECT_DOUBLE_EQ(m.resources[2].max, 1000);
  EXPECT_DOUBLE_EQ(m.floor.at("cpu_quota"), 0.2);
  nlohmann::json j = r->ToJson();
  EXPECT_EQ(j["manager"]["policy"], "parties");
  EXPECT_EQ(j["manager"]["resources"][0]["unit"], "10%");
  EXPECT_EQ(j["manager"]["floor"]["cpu_quota"], "20%");
  EXPECT_FALSE(j["manager"].contains("peak_qps"));
}

TEST(ManagerSpec, AbsentLeavesEveryOtherSpecAsItWas) {
  auto r = ParseSpec(kManagerHead, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->manager.given);
  EXPECT_FALSE(r->ToJson().contains("manager"));
}

TEST(ManagerSpec, HeraclesNeedsThePeakAndANeighbourToMove) {
  const std::string res = R"(
[[manager.resource]]
knob = "cpu_quota"
tenant = "stream"
unit = "10%"
min = "0%"
max = "100%"
)";
  EXPECT_NE(Err(kManagerHead + "[manager]\npolicy = \"heracles\"\n" + res).find("x.toml:11: [manager] policy = "
                                                                           "\"heracles\" needs 'peak_qps'"),
            std::string::npos);
  auto r = ParseSpec(kManagerHead + "[manager]\npolicy = \"heracles\"\npeak_qps = 120000\n" + res, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->manager.peak_qps, 120000);
  EXPECT_DOUBLE_EQ(r->manager.disable_above_load, 0.85);
  EXPECT_DOUBLE_EQ(r->manager.stop_growth_below, 0.10);
  EXPECT_NE(Err(kManagerHead + R"([manager]
policy = "heracles"
peak_qps = 1000
[[manager.resource]]
knob = "cpu_quota"
tenant = "subject"
unit = "10%"
min = "10%"
max = "100%"
)").find("x.toml:14: manager.resource moves only the subject's resources"),
            std::string::npos);
}

TEST(ManagerSpec, RefusesKnobsItCannotMoveNamingWhy) {
  auto one = [](const std::string& knob, const std::string& values) {
    return kManagerHead + "[manager]\npolicy = \"parties\"\n[[manager.resource]]\nknob = \"" + knob +
           "\"\ntenant = \"stream\"\n" + values;
  };
  std::string e = Err(one("gpu", ""));
  EXPECT_NE(e.find("x.toml:14: manager.resource.knob is \"gpu\": no such knob (a manager moves: cpu_quota, "
                   "cpu_weight, cpu_idle, llc_ways, mem_bw)"),
            std::string::npos)
      << e;
  e = Err(one("memory", "unit = \"64M\"\nmin = \"64M\"\nmax = \"1G\"\n"));
  EXPECT_NE(e.find("\"memory\": a manager cannot move it while the tenant runs: a limit lowered under what the "
                   "tenant holds"),
            std::string::npos)
      << e;
  e = Err(one("net_latency", ""));
  EXPECT_NE(e.find("the relay in front of the tenant takes L, g and G"), std::string::npos) << e;
  // mem_bw moves as a percentage; an amount in MB/s has no level.
  e = Err(one("mem_bw", "unit = \"1000MBps\"\nmin = \"10%\"\nmax = \"100%\"\n"));
  EXPECT_NE(e.find("x.toml:16: manager.resource.unit = \"1000MBps\": mem_bw is moved as a percentage"),
            std::string::npos)
      << e;
  e = Err(one("cpu_quota", "unit = \"lots\"\nmin = \"10%\"\nmax = \"100%\"\n"));
  EXPECT_NE(e.find("x.toml:16: manager.resource.unit = \"lots\": "), std::string::npos) << e;
  e = Err(one("cpu_quota", "min = \"10%\"\nmax = \"100%\"\n"));
  EXPECT_NE(e.find("x.toml:13: [[manager.resource]] of knob cpu_quota needs 'unit'"), std::string::npos) << e;
}

TEST(ManagerSpec, RefusesBoundsAndTenantsThatCannotWork) {
  auto res = [](const std::string& tenant, const std::string& unit, const std::string& min, const std::string& max) {
    return "[[manager.resource]]\nknob = \"cpu_quota\"\ntenant = \"" + tenant + "\"\nunit = \"" + unit +
           "\"\nmin = \"" + min + "\"\nmax = \"" + max + "\"\n";
  };
  const std::string parties = "[manager]\npolicy = \"parties\"\n";
  std::string e = Err(kManagerHead + parties + res("db", "10%", "10%", "50%"));
  EXPECT_NE(e.find("x.toml:15: manager.resource.tenant is \"db\": no such tenant (the tenants: subject, stream)"),
            std::string::npos)
      << e;
  e = Err(kManagerHead + parties + res("stream", "10%", "60%", "50%"));
  EXPECT_NE(e.find("min = \"60%\" is above max = \"50%\""), std::string::npos) << e;
  e = Err(kManagerHead + parties + res("stream", "50%", "10%", "50%"));
  EXPECT_NE(e.find("the manager could never move cpu_quota"), std::string::npos) << e;
  e = Err(kManagerHead + parties + res("stream", "10%", "10%", "50%") + res("stream", "20%", "10%", "50%"));
  EXPECT_NE(e.find("x.toml:19: [[manager.resource]] cpu_quota of stream is listed twice"), std::string::npos) << e;
  e = Err(kManagerHead + parties + res("stream", "10%", "10%", "50%") + res("subject", "20%", "10%", "50%"));
  EXPECT_NE(e.find("x.toml:19: [[manager.resource]] cpu_quota of subject has unit \"20%\" and of stream (line 13) "
                   "\"10%\": the subject's and a neighbour's share of a knob change hands a unit at a time"),
            std::string::npos)
      << e;
  e = Err(kManagerHead + parties + res("stream", "10%", "10%", "50%") + "[manager.floor]\ncpu_quota = \"60%\"\n");
  EXPECT_NE(e.find("x.toml:20: manager.floor.cpu_quota = \"60%\" is above the max of stream's cpu_quota (\"50%\", "
                   "line 13)"),
            std::string::npos)
      << e;
  e = Err(kManagerHead + parties + res("stream", "10%", "10%", "50%") + "[manager.floor]\nllc_ways = 1\n");
  EXPECT_NE(e.find("manager.floor.llc_ways is a floor for a knob no [[manager.resource]] moves"), std::string::npos)
      << e;
  e = Err(kManagerHead + "[manager]\n" + res("stream", "10%", "10%", "50%"));
  EXPECT_NE(e.find("x.toml:11: [manager] needs 'policy'"), std::string::npos) << e;
  e = Err(kManagerHead + parties);
  EXPECT_NE(e.find("needs at least one [[manager.resource]]"), std::string::npos) << e;
}

// A resource may say where the manager starts it, within its bounds; stored as written.
TEST(ManagerSpec, AResourceStartsWhereItSaysWithinItsBounds) {
  const std::string head = kManagerHead + "[manager]\npolicy = \"parties\"\n[[manager.resource]]\nknob = \"cpu_quota\"\n"
                           "tenant = \"stream\"\nunit = \"10%\"\nmin = \"10%\"\nmax = \"100%\"\n";
  auto r = ParseSpec(head + "start = \"40%\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->manager.resources[0].start);
  EXPECT_DOUBLE_EQ(*r->manager.resources[0].start, 0.4);
  EXPECT_EQ(r->ToJson()["manager"]["resources"][0]["start"], "40%");
  std::string e = Err(head + "start = \"5%\"\n");
  EXPECT_NE(e.find("manager.resource.start = \"5%\" is outside [10%, 100%]"), std::string::npos) << e;
}

TEST(ManagerSpec, RefusesThresholdsOfTheOtherPolicyAndWindowsThatMissTime) {
  const std::string res = "[[manager.resource]]\nknob = \"cpu_idle\"\ntenant = \"stream\"\n";
  std::string e = Err(kManagerHead + "[manager]\npolicy = \"parties\"\ncooldown_windows = 5\n" + res);
  EXPECT_NE(e.find("x.toml:13: manager.cooldown_windows applies to policy = \"heracles\", not \"parties\""),
            std::string::npos)
      << e;
  // The subject's capacity is both policies' (EMU's denominator under PARTIES), and stored.
  auto with_peak = ParseSpec(kManagerHead + "[manager]\npolicy = \"parties\"\npeak_qps = 5000\n" + res, "x.toml");
  ASSERT_TRUE(with_peak.ok()) << with_peak.status().message();
  EXPECT_EQ(with_peak->ToJson()["manager"]["peak_qps"], 5000);
  e = Err(kManagerHead + "[manager]\npolicy = \"heracles\"\npeak_qps = 5000\ngrow_below = 0.1\n" + res);
  EXPECT_NE(e.find("manager.grow_below applies to policy = \"parties\""), std::string::npos) << e;
  e = Err(kManagerHead + "[manager]\npolicy = \"parties\"\nperiod = \"1s\"\nwindow = \"500ms\"\n" + res);
  EXPECT_NE(e.find("x.toml:14: manager.window makes the window (500 ms) shorter than the period (1000 ms)"),
            std::string::npos)
      << e;
  e = Err(kManagerHead + "[manager]\npolicy = \"parties\"\nshrink_above = 0.02\n" + res);
  EXPECT_NE(e.find("x.toml:13: manager.shrink_above leaves no slack between growing"), std::string::npos) << e;
  e = Err(kManagerHead + "[manager]\npolicy = \"parties\"\nmystery = 1\n" + res);
  EXPECT_NE(e.find("unknown key 'manager.mystery'"), std::string::npos) << e;
  e = Err(std::string(spec_texts::kBatch) + "[manager]\npolicy = \"parties\"\n" + res);
  EXPECT_NE(e.find("a batch subject has none"), std::string::npos) << e;
}

}  // namespace
}  // namespace ream
