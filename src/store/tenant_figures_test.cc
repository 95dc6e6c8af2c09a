#include "store/tenant_figures.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

TenantFigures Loaded() {
  TenantFigures t;
  t.window_s = 1.0012;
  t.cpu_util = 0.41;
  t.cpu_s = 0.4105;
  t.mem_bytes = 3.5e6;
  t.net_rx_bps = 120000;
  t.net_tx_bps = 240000;
  t.disk_read_bps = 0;
  t.disk_write_bps = 4096;
  t.unavailable = {{"mem_bw_bps", "resctrl: no MBM on this CPU"},
                   {"llc_occupancy_bytes", "resctrl: not mounted"}};
  t.completions = 3;
  t.run_time_mean_s = 0.31;
  t.cpu_share = 0.41;
  t.completions_per_s = 2.996;
  t.ended = "";
  TenantLoadFigures l;
  l.target_qps = 500;
  l.connections = 2;
  l.protocol = "ream";
  l.achieved_qps = 498.5;
  l.throughput_qps = 497;
  l.timely_ratio = 0.999;
  l.valid = false;
  l.invalid_reasons = {"timely ratio 0.95 < 0.975"};
  l.errors = 0;
  l.latency_mean_us = 80;
  l.latency_p50_us = 70;
  l.latency_p95_us = 150;
  l.latency_p99_us = 400;
  t.load = l;
  return t;
}

TEST(TenantFigures, RoundTripsThroughItsJson) {
  const TenantFigures t = Loaded();
  auto back = TenantFigures::FromJson(t.ToJson(), "test");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, t);
  EXPECT_EQ(back->ToJson(), t.ToJson());

  TenantFigures unloaded;
  unloaded.window_s = 1;
  unloaded.unavailable = {{"monitor", "the co-runner was not running"}};
  unloaded.ended = "was not running";
  auto u = TenantFigures::FromJson(unloaded.ToJson(), "test");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(*u, unloaded);
  EXPECT_FALSE(u->load.has_value());
  EXPECT_FALSE(u->cpu_util.has_value());

  TenantFigures failed_load = Loaded();
  failed_load.load =
      TenantLoadFigures{.target_qps = 500, .protocol = "ream", .unavailable = "its generator died"};
  auto f = TenantFigures::FromJson(failed_load.ToJson(), "test");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(*f, failed_load);
  EXPECT_FALSE(f->load->measured());
  EXPECT_FALSE(f->load->ToJson().contains("achieved_qps"));  // nothing measured, nothing written
}

// The document as ream wrote it before this type (schema 9, experiment/corunners.cc), keys and
// all: it must read as what it says.
TEST(TenantFigures, ReadsTheDocumentTheCorunnersWrote) {
  const nlohmann::json written = nlohmann::json::parse(R"({
    "completions": 2, "completions_per_s": 1.9969, "cpu_s": 0.2061, "cpu_share": 0.20580,
    "cpu_util": 0.2058, "disk_read_bps": 0.0, "disk_write_bps": 0.0, "ended": "",
    "llc_occupancy_bytes": null, "mem_bw_bps": null, "mem_bytes": 1499136.0,
    "net_rx_bps": null, "net_tx_bps": null, "run_time_mean_s": 0.3015,
    "unavailable": {"llc_occupancy_bytes": "resctrl is not mounted", "mem_bw_bps": "resctrl is not mounted",
                    "net_rx_bps": "the sandbox has no network namespace"},
    "window_s": 1.0015,
    "load": {"achieved_qps": 512.0, "connections": 1, "errors": 0, "invalid_reasons": [],
             "latency_us": {"mean": 95.0, "p50": 80.5, "p95": 180.0, "p99": 300.0}, "protocol": "ream",
             "target_qps": 500.0, "throughput_qps": 511.0, "timely_ratio": 1.0, "valid": true}})");
  auto t = TenantFigures::FromJson(written, "point 3: co-runner 'kv2'");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->completions, 2);
  EXPECT_DOUBLE_EQ(*t->Throughput(ThroughputUnit::kCpuSecondsPerSecond), 0.20580);
  EXPECT_DOUBLE_EQ(*t->Throughput(ThroughputUnit::kCompletionsPerSecond), 1.9969);
  EXPECT_DOUBLE_EQ(*t->Throughput(ThroughputUnit::kQps), 511.0);
  EXPECT_DOUBLE_EQ(*t->ValidLoadP95Us(), 180.0);
  EXPECT_FALSE(t->net_rx_bps.has_value());
  EXPECT_EQ(t->unavailable.at("net_rx_bps"), "the sandbox has no network namespace");
  // Written again, it is the same document.
  EXPECT_EQ(t->ToJson(), written);
}

TEST(TenantFigures, MissingKeysTakeTheirDocumentedDefaults) {
  auto t = TenantFigures::FromJson(nlohmann::json::object({{"window_s", 2.0}}), "test");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_DOUBLE_EQ(t->window_s, 2.0);
  EXPECT_EQ(t->completions, 0);
  EXPECT_FALSE(t->cpu_share.has_value());
  EXPECT_FALSE(t->Throughput(ThroughputUnit::kCpuSecondsPerSecond).has_value());
  EXPECT_FALSE(t->Throughput(ThroughputUnit::kQps).has_value());  // no load: no QPS, not 0
  EXPECT_FALSE(t->ValidLoadP95Us().has_value());
  EXPECT_EQ(t->ended, "");

  // An invalid window's tail is not the co-runner's tail.
  TenantFigures invalid = Loaded();
  EXPECT_FALSE(invalid.ValidLoadP95Us().has_value());
  invalid.load->valid = true;
  EXPECT_DOUBLE_EQ(*invalid.ValidLoadP95Us(), 150);
}

TEST(TenantFigures, AKeyOfTheWrongTypeIsAnErrorNamingIt) {
  nlohmann::json j = Loaded().ToJson();
  j["cpu_share"] = "0.4";
  auto t = TenantFigures::FromJson(j, "point 7: co-runner 'xz'");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(t.status().message().find("point 7: co-runner 'xz': \"cpu_share\" should be a number"),
            std::string::npos)
      << t.status().message();

  j = Loaded().ToJson();
  j["load"]["latency_us"]["p95"] = true;
  t = TenantFigures::FromJson(j, "point 7: co-runner 'kv2'");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("co-runner 'kv2': \"load\": \"latency_us\": \"p95\""),
            std::string::npos)
      << t.status().message();

  EXPECT_FALSE(TenantFigures::FromJson(nlohmann::json::array(), "x").ok());
  auto all = TenantFiguresFromJson(nlohmann::json("xz"), "point 2");
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("point 2"), std::string::npos);
  auto none = TenantFiguresFromJson(nullptr, "point 2");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

CorunnerSetRecord Described() {
  CorunnerSetRecord s;
  CorunnerRecord xz;
  xz.name = "xz";
  xz.argv = {"ream", "corun", "--sched", "idle",      "--repeat", "--",
             "ream", "batch", "xz",      "--seconds", "0.3"};
  xz.cpus = "subject";
  xz.cpu_list = "0";
  xz.sched = "idle";
  xz.restart = true;
  xz.partition_label = "default";
  xz.sandbox = "ream-corun-xz";
  xz.batch = "xz";
  CorunnerRecord cpu = xz;
  cpu.name = "cpu";
  cpu.batch.clear();
  cpu.pressure = "cpu";
  cpu.intensity = 50;
  cpu.restart = false;
  cpu.interference_load = 0;
  cpu.partition = {{"memory", "256M"}};
  CorunnerRecord kv = xz;
  kv.name = "kv2";
  kv.batch.clear();
  kv.builtin = "kv";
  kv.load = CorunnerLoadRecord{.qps = 500, .connections = 1, .protocol = "ream"};
  s.corunners = {xz, cpu, kv};
  return s;
}

TEST(CorunnerSetRecord, RoundTripsWithAndWithoutTheAloneWindow) {
  CorunnerSetRecord s = Described();
  auto back = CorunnerSetRecord::FromJson(s.ToJson(), "run 1");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, s);
  EXPECT_FALSE(s.ToJson().contains("alone"));  // not measured yet: "alone" marks it measured

  s.SetAlone({{"xz", Loaded()}, {"kv2", Loaded()}, {"cpu", TenantFigures{.window_s = 1}}},
             {"co-runner 'cpu' killed by signal 9 (SIGKILL) during the window"});
  back = CorunnerSetRecord::FromJson(s.ToJson(), "run 1");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, s);
  EXPECT_TRUE(back->alone_measured);
  ASSERT_NE(back->Find("xz"), nullptr);
  EXPECT_EQ(back->Find("xz")->alone->completions, 3);
  EXPECT_EQ(back->Find("nope"), nullptr);
  // Stored beside the list, by name (the shape ream has always written).
  const nlohmann::json j = s.ToJson();
  EXPECT_TRUE(j["alone"]["kv2"].contains("load"));
  EXPECT_FALSE(j["corunners"][0].contains("alone"));
  EXPECT_EQ(j["corunners"][1]["pressure"], "cpu");
  EXPECT_EQ(j["corunners"][1]["intensity"], 50.0);
  EXPECT_FALSE(j["corunners"][0].contains("intensity"));
  EXPECT_EQ(j["corunners"][2]["load"]["qps"], 500.0);
}

TEST(CorunnerSetRecord, MalformedDescriptionsAreErrorsNamingTheRun) {
  nlohmann::json j = Described().ToJson();
  j["alone"] = {{"ghost", Loaded().ToJson()}};
  auto s = CorunnerSetRecord::FromJson(j, "run 4");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("run 4: \"alone\" holds figures of co-runner 'ghost'"),
            std::string::npos)
      << s.status().message();

  j = Described().ToJson();
  j["corunners"][1]["intensity"] = "50%";
  s = CorunnerSetRecord::FromJson(j, "run 4");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("run 4: co-runner 2: \"intensity\" should be a number"),
            std::string::npos)
      << s.status().message();

  j = Described().ToJson();
  j["corunners"] = "xz";
  EXPECT_FALSE(CorunnerSetRecord::FromJson(j, "run 4").ok());

  // A description without the optional keys reads with their defaults.
  auto bare = CorunnerSetRecord::FromJson({{"corunners", {{{"name", "job"}}}}}, "run 5");
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_EQ(bare->corunners.at(0).name, "job");
  EXPECT_FALSE(bare->corunners.at(0).load.has_value());
  EXPECT_FALSE(bare->alone_measured);
  EXPECT_TRUE(bare->alone_invalid.empty());
}

TEST(ThroughputUnit, NamesAsTheAnalysisPrintsThem) {
  EXPECT_EQ(ToString(ThroughputUnit::kCpuSecondsPerSecond), "CPU-s/s");
  EXPECT_EQ(ToString(ThroughputUnit::kCompletionsPerSecond), "completions/s");
  EXPECT_EQ(ToString(ThroughputUnit::kQps), "QPS");
}

}  // namespace
}  // namespace ream
