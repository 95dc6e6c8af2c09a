#include "analysis/store_loader.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "analysis/analysis.h"
#include "analysis/steps.h"
#include "platform/test_directory.h"

namespace ream::analysis {
namespace {

class StoreLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::FreshTestDirectory("ream-loader-test");
    path_ = (dir_ / "r.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  int64_t AddExperiment(Store& s, const std::string& name, int64_t created) {
    ExperimentRecord e;
    e.name = name;
    e.spec_text = "name = \"" + name + "\"\n";
    e.spec = {{"name", name}};
    e.spec_hash = "h";
    e.status = ExperimentStatus::kComplete;
    e.created_ns = created;
    e.qos.percentile = 95;
    e.workload = "synthetic exp:100us";
    e.protocol = "ream";
    auto id = s.CreateExperiment(e);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return *id;
  }

  // One complete 1-ST run without a partition.
  Result<RunRecord> AddRun(Store& s, int64_t experiment_id) {
    RunRecord r;
    r.experiment_id = experiment_id;
    r.key = {"1-ST", "default", 0};
    r.partition = nlohmann::json::object();
    r.workload_cpus = "1";
    r.status = RunStatus::kComplete;
    return s.EnsureRun(r);
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(StoreLoaderTest, LoadsRunsPointsMetricsAndHistograms) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  int64_t eid = AddExperiment(*s, "old", 100);
  AddExperiment(*s, "other", 50);
  EnvironmentRecord env;
  env.kernel = "6.1.0-test";
  env.topology = {{"cores", {{{"cpus", {0, 2}}}, {{"cpus", {1, 3}}}}}};
  ASSERT_TRUE(s->RecordEnvironment(eid, env).ok());

  RunRecord r;
  r.experiment_id = eid;
  r.key = {"2-SMT", "llc_ways=4,mem_bw=50%", 0};
  r.partition = {{"llc_ways", "4"}, {"mem_bw", "50%"}};
  r.workload_cpus = "0,2";
  r.status = RunStatus::kComplete;
  auto run = s->EnsureRun(r);
  ASSERT_TRUE(run.ok()) << run.status().ToString();

  Histogram h;
  for (int i = 1; i <= 1000; ++i) h.Record(i * 1000);
  for (double qps : {1000.0, 2000.0}) {
    ream::PointData pd;
    pd.point.run_id = run->id;
    pd.point.target_load = qps;
    pd.point.valid = qps == 1000;
    if (qps != 1000) pd.point.invalid_reasons = {"timely ratio 80 % < 97.5 %"};
    pd.point.service_reported = true;
    pd.point.achieved_qps = qps;
    pd.point.throughput_qps = qps;
    pd.point.timely_ratio = 0.99;
    pd.point.latency_mean_us = 300;
    pd.point.latency_p95_us = 950;
    pd.point.service_mean_us = 101;
    pd.point.cpu_util = qps / 10000;
    pd.point.net_tx_bps = 1e6;
    pd.point.unavailable["llc_occupancy_bytes"] = "resctrl is not mounted";
    pd.point.generator = {{"connections", 4}};
    pd.histograms[kHistSojourn] = h;
    ASSERT_TRUE(s->InsertPoint(pd).ok());
  }
  RunRecord smt_fail;
  smt_fail.experiment_id = eid;
  smt_fail.key = {"2-SMT", "default", 0};
  smt_fail.partition = nlohmann::json::object();
  smt_fail.status = RunStatus::kUnavailable;
  smt_fail.failure = "no SMT siblings on this machine";
  ASSERT_TRUE(s->EnsureRun(smt_fail).ok());

  // An empty name takes the most recent experiment: "old" (created at 100 > 50).
  auto d = LoadExperiment(*s, "");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->name, "old");
  EXPECT_EQ(d->environment["kernel"], "6.1.0-test");
  ASSERT_EQ(d->runs.size(), 2u);
  const RunData& a = d->runs[0];
  EXPECT_EQ(a.scenario, "2-SMT");
  EXPECT_EQ(a.threads, 2);
  EXPECT_EQ(a.physical_cores, 1);  // CPUs 0 and 2 are siblings of one core
  EXPECT_EQ(*a.partition.Limit("llc_ways"), 4);
  EXPECT_DOUBLE_EQ(*a.partition.Limit("mem_bw"), 50);
  EXPECT_FALSE(a.partition.unlimited());
  ASSERT_EQ(a.points.size(), 2u);
  EXPECT_TRUE(a.points[0].valid);
  EXPECT_FALSE(a.points[1].valid);
  EXPECT_EQ(a.points[1].invalid_reasons.at(0), "timely ratio 80 % < 97.5 %");
  EXPECT_DOUBLE_EQ(*a.points[0].service_mean_us, 101);
  EXPECT_DOUBLE_EQ(*a.points[0].cpu_util.value, 0.1);
  EXPECT_EQ(a.points[0].llc_bytes.unavailable, "resctrl is not mounted");
  EXPECT_FALSE(a.points[0].membw_bps.has());
  EXPECT_EQ(a.points[0].clients, 4);
  ASSERT_TRUE(a.points[0].latency_hist_ns.has_value());
  EXPECT_EQ(a.points[0].latency_hist_ns->count(), 1000u);
  EXPECT_TRUE(d->runs[1].failed);
  EXPECT_EQ(d->runs[1].failure, "no SMT siblings on this machine");
  EXPECT_TRUE(d->runs[1].partition.unlimited());

  auto missing = LoadExperiment(*s, "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("old, other"), std::string::npos);
}

// What the store keeps of a point's connections and of how its memory bandwidth was had
// reaches the analysis: the reconnections and lost requests from their columns, and the
// monitor's method (an estimate from perf LLC misses) beside the figure, in the JSON too.
TEST_F(StoreLoaderTest, CarriesReconnectionsAndAMemoryBandwidthEstimate) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  int64_t eid = AddExperiment(*s, "conns", 100);
  auto run = AddRun(*s, eid);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ream::PointData pd;
  pd.point.run_id = run->id;
  pd.point.target_load = 20000;
  pd.point.valid = true;
  pd.point.achieved_qps = pd.point.throughput_qps = 20000;
  pd.point.timely_ratio = 0.99;
  pd.point.cpu_util = 0.3;
  pd.point.mem_bw_bps = 2.5e8;
  pd.point.monitor = {{"methods", {{"mem_bandwidth", "estimate: LLC misses × line size (perf)"}}}};
  pd.point.reconnections = 136;
  pd.point.lost_requests = 2;
  pd.point.lost_reasons = {{"connection lost: the server announced the close (HTTP Connection: close)", 2}};
  ASSERT_TRUE(s->InsertPoint(pd).ok());
  auto d = LoadExperiment(*s, "conns");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const PointData& p = d->runs.at(0).points.at(0);
  EXPECT_EQ(p.reconnections, std::optional<int64_t>(136));
  EXPECT_EQ(p.lost_requests, std::optional<int64_t>(2));
  EXPECT_EQ(p.lost_reasons.at("connection lost: the server announced the close (HTTP Connection: close)"), 2);
  EXPECT_DOUBLE_EQ(*p.membw_bps.value, 2.5e8);
  EXPECT_EQ(p.membw_method, "estimate: LLC misses × line size (perf)");
  auto a = Analyze(*d, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto j = ToJson(*a);
  const auto& jp = j["groups"][0]["points"][0];
  EXPECT_EQ(jp["reconnections"], 136);
  EXPECT_EQ(jp["lost_requests"], 2);
  EXPECT_EQ(jp["membw_method"], "estimate: LLC misses × line size (perf)");
  EXPECT_DOUBLE_EQ(jp["membw_bps"].get<double>(), 2.5e8);
}

// A point driven by client nodes: each agent's part as MergeAgentResults stored it (one valid,
// one that fell behind, one that died) reaches the analysis, clock included, and a local
// generator's point has no such figures.
TEST_F(StoreLoaderTest, CarriesEachClientNodesPartOfAPoint) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  int64_t eid = AddExperiment(*s, "nodes", 100);
  auto run = AddRun(*s, eid);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ream::PointData pd;
  pd.point.run_id = run->id;
  pd.point.target_load = 3000;
  pd.point.valid = false;
  pd.point.invalid_reasons = {"agent c2: its ssh session ended (exit 255)"};
  pd.point.achieved_qps = pd.point.throughput_qps = 2000;
  pd.point.timely_ratio = 0.6;
  pd.point.generator = {
      {"driver", "agents"},
      {"agents",
       {{{"name", "c0"}, {"target_qps", 1000}, {"seed", 1},
         {"clock", {{"offset_ns", -12300}, {"rtt_ns", 85000}, {"samples", 8}}},
         {"achieved_qps", 999.5}, {"timely_ratio", 0.991}, {"valid", true}, {"invalid_reasons", nlohmann::json::array()},
         {"lateness_us", {{"p50", 2.0}, {"p99", 31.0}}}, {"latency_us", {{"p50", 60.0}, {"p99", 210.0}}}},
        {{"name", "c1"}, {"target_qps", 1000}, {"seed", 2},
         {"clock", {{"offset_ns", 40000}, {"rtt_ns", 120000}, {"samples", 8}}},
         {"achieved_qps", 1001}, {"timely_ratio", 0.81}, {"valid", false},
         {"invalid_reasons", {"timely ratio 81.0 % < 97.5 %"}},
         {"lateness_us", {{"p99", 950.0}}}, {"latency_us", {{"p99", 1400.0}}}},
        {{"name", "c2"}, {"target_qps", 1000}, {"seed", 3},
         {"clock", {{"offset_ns", 0}, {"rtt_ns", 0}, {"samples", 0}}},
         {"failure", "its ssh session ended (exit 255)"}}}}};
  ASSERT_TRUE(s->InsertPoint(pd).ok());
  // A valid level the local generator drove, so the experiment has something to analyze.
  ream::PointData local;
  local.point.run_id = run->id;
  local.point.target_load = 1000;
  local.point.valid = true;
  local.point.achieved_qps = local.point.throughput_qps = 1000;
  local.point.timely_ratio = 0.99;
  local.point.cpu_util = 0.1;
  ASSERT_TRUE(s->InsertPoint(local).ok());
  auto d = LoadExperiment(*s, "nodes");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const auto& agents = d->runs.at(0).points.at(0).agents;
  ASSERT_EQ(agents.size(), 3u);
  EXPECT_EQ(agents[0].name, "c0");
  EXPECT_DOUBLE_EQ(agents[0].achieved_qps, 999.5);
  EXPECT_EQ(agents[0].valid, std::optional<bool>(true));
  EXPECT_EQ(agents[0].lateness_p99_us, std::optional<double>(31.0));
  EXPECT_EQ(agents[0].latency_p99_us, std::optional<double>(210.0));
  EXPECT_EQ(agents[0].clock_offset_us, std::optional<double>(-12.3));
  EXPECT_EQ(agents[0].clock_rtt_us, std::optional<double>(85.0));
  EXPECT_EQ(agents[0].clock_samples, 8);
  EXPECT_EQ(agents[1].valid, std::optional<bool>(false));
  EXPECT_EQ(agents[1].invalid_reasons, std::vector<std::string>{"timely ratio 81.0 % < 97.5 %"});
  // The agent that died: no verdict, no figures, no clock (no sample answered), its failure.
  EXPECT_FALSE(agents[2].valid.has_value());
  EXPECT_EQ(agents[2].failure, "its ssh session ended (exit 255)");
  EXPECT_FALSE(agents[2].clock_offset_us.has_value());
  EXPECT_FALSE(agents[2].lateness_p99_us.has_value());

  auto a = Analyze(*d, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto j = ToJson(*a);
  const auto& pts = j["groups"][0]["points"];
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_FALSE(pts[0].contains("agents")) << pts[0].dump();
  const auto& ja = pts[1]["agents"];
  ASSERT_EQ(ja.size(), 3u) << pts[1].dump();
  EXPECT_EQ(ja[1]["name"], "c1");
  EXPECT_EQ(ja[1]["measurement"], 1);
  EXPECT_DOUBLE_EQ(ja[1]["timely_ratio"].get<double>(), 0.81);
  EXPECT_EQ(ja[1]["valid"], false);
  EXPECT_DOUBLE_EQ(ja[1]["clock"]["offset_us"].get<double>(), 40.0);
  EXPECT_TRUE(ja[2]["valid"].is_null());
  EXPECT_TRUE(ja[2]["clock"]["offset_us"].is_null());
  EXPECT_EQ(ja[2]["failure"], "its ssh session ended (exit 255)");
}

// A sessions sweep: the loader carries the axis, and the analysis names loads by it (a qps
// experiment's JSON has no load_axis key and names its loads target_qps, as before).
TEST_F(StoreLoaderTest, ASessionsSweepIsAnalyzedOnItsAxis) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  for (LoadAxis axis : kLoadAxes) {
    ExperimentRecord e;
    e.name = std::string(LoadAxisName(axis));
    e.status = ExperimentStatus::kComplete;
    e.load_axis = axis;
    e.qos.fixed_target_us = 1000;
    auto id = s->CreateExperiment(e);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    RunRecord r;
    r.experiment_id = *id;
    r.key = {"1-ST", "default", 0};
    r.status = RunStatus::kComplete;
    auto run = s->EnsureRun(r);
    ASSERT_TRUE(run.ok());
    for (double level : {4.0, 8.0, 16.0}) {
      ream::PointData pd;
      pd.point.run_id = run->id;
      pd.point.seq = static_cast<int64_t>(level);
      pd.point.target_load = level;
      pd.point.valid = true;
      // Two chunks a second per session: fewer requests per second than sessions.
      pd.point.achieved_qps = pd.point.throughput_qps = level * 0.5;
      // At QPS levels the same throughput answers half of what was sent.
      if (axis == LoadAxis::kQps) pd.point.achieved_qps = level;
      pd.point.timely_ratio = 1;
      pd.point.latency_p95_us = level * 100;  // 1600 µs at 16: misses the 1 ms target
      if (axis == LoadAxis::kCopies) {
        pd.point.batch = {{"program", "xz"},           {"window_s", 10.0},          {"completions", level},
                          {"run_time_mean_s", level / 4}, {"runs_per_min", level * 6}, {"cpu_s_per_run", level / 5}};
      }
      ASSERT_TRUE(s->InsertPoint(pd).ok());
    }
  }
  // A batch subject's points carry their figures to its own analysis (analysis/batch.h).
  auto copies = LoadExperiment(*s, "copies");
  ASSERT_TRUE(copies.ok()) << copies.status().ToString();
  EXPECT_EQ(copies->load_axis, LoadAxis::kCopies);
  EXPECT_EQ(copies->runs.at(0).points.at(1).batch["runs_per_min"], 48);
  auto ca = Analyze(*copies, {});
  ASSERT_TRUE(ca.ok()) << ca.status().ToString();
  ASSERT_TRUE(ca->batch.has_value());
  EXPECT_EQ(ca->batch->program, "xz");
  EXPECT_DOUBLE_EQ(*ca->batch->groups.at(0).levels.at(2).run_time_s.mean, 4);
  EXPECT_TRUE(ca->groups.empty());
  auto sessions = LoadExperiment(*s, "sessions");
  ASSERT_TRUE(sessions.ok()) << sessions.status().ToString();
  EXPECT_EQ(sessions->load_axis, LoadAxis::kSessions);
  EXPECT_EQ(sessions->status, "complete");
  EXPECT_EQ(sessions->runs.at(0).points.at(2).target_load, 16);
  auto a = Analyze(*sessions, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Capacity& c = a->groups.at(0).capacity;
  EXPECT_NEAR(c.qps.value_or(0), 8 + 8 * 0.25, 1e-9);  // 800 → 1600 µs crosses 1000 at 10
  EXPECT_NE(c.status.find("8 sessions (meets QoS) and 16 sessions"), std::string::npos) << c.status;
  // Throughput (requests/s) is a rate, a level of 16 sessions a count: the two are not
  // compared, so nothing "fell behind the offered load".
  EXPECT_FALSE(a->groups.at(0).saturation_qps.has_value()) << a->groups.at(0).saturation_note;
  EXPECT_EQ(a->groups.at(0).saturation_note,
            "not reached: CPU utilization stayed below 95 % up to 16 sessions");
  auto j = ToJson(*a);
  EXPECT_EQ(j["load_axis"], "sessions");
  EXPECT_EQ(j["groups"][0]["points"][0]["target_sessions"], 4);
  EXPECT_FALSE(j["groups"][0]["points"][0].contains("target_qps"));

  auto qps = LoadExperiment(*s, "qps");
  ASSERT_TRUE(qps.ok());
  auto b = Analyze(*qps, {});
  ASSERT_TRUE(b.ok());
  EXPECT_NE(b->groups.at(0).capacity.status.find("8 QPS (meets QoS) and 16 QPS"), std::string::npos);
  // At QPS levels the same throughput does fall behind the rate sent.
  EXPECT_TRUE(b->groups.at(0).saturation_qps.has_value()) << b->groups.at(0).saturation_note;
  auto k = ToJson(*b);
  EXPECT_FALSE(k.contains("load_axis"));
  EXPECT_EQ(k["groups"][0]["points"][0]["target_qps"], 4);
}

// A run's windows come with it, the manager's peak_qps with the experiment, and the manager step
// compares the modes from them: the subject alone and beside a managed neighbour.
TEST_F(StoreLoaderTest, CarriesEachRunsWindowsAndTheManagerStepComparesTheModes) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  ExperimentRecord e;
  e.name = "managed";
  e.spec_text = "name = \"managed\"\n";
  e.spec = {{"name", "managed"}, {"manager", {{"policy", "parties"}, {"peak_qps", 10000}}}};
  e.spec_hash = "h";
  e.status = ExperimentStatus::kComplete;
  e.qos.percentile = 95;
  e.workload = "memcached";
  e.protocol = "memcached";
  auto id = s->CreateExperiment(e);
  ASSERT_TRUE(id.ok());
  for (const std::string set : {"", "hog"}) {
    RunRecord r;
    r.experiment_id = *id;
    r.key = {"1-ST", "default", 0, set};
    r.partition = nlohmann::json::object();
    r.status = RunStatus::kComplete;
    auto run = s->EnsureRun(r);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    for (int i = 0; i < 4; ++i) {
      ManagerWindowRecord w;
      w.run_id = run->id;
      w.window = i;
      w.end_s = 0.5 * (i + 1);
      w.valid = true;
      w.target_us = 500;
      w.tail_us = set.empty() || i != 1 ? 200 : 800;  // beside the hog one window missed
      w.load_qps = 5000;
      if (!set.empty()) {
        w.neighbour_throughput["hog"] = 0.5;
        w.allocation["hog"]["cpu_quota"] = {0.5, "50%"};
        if (i == 1) w.actions.push_back({.seq = 0, .tenant = "hog", .knob = "cpu_quota", .from = 0.6, .to = 0.5,
                                         .from_text = "60%", .to_text = "50%", .reason = "slack"});
      }
      w.note = set.empty() ? "static: alone" : "decided";
      ASSERT_TRUE(s->InsertManagerWindow(w).ok());
    }
  }
  auto d = LoadExperiment(*s, "managed");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_DOUBLE_EQ(d->manager_peak_qps, 10000);
  ASSERT_EQ(d->runs.size(), 2u);
  EXPECT_EQ(d->runs[1].windows.size(), 4u);
  EXPECT_EQ(d->runs[1].windows[1].actions.size(), 1u);
  const AnalysisStep* step = FindAnalysisStep("manager");
  ASSERT_NE(step, nullptr);
  ExperimentAnalysis a;
  AnalysisOptions options;
  StepContext ctx{*d, options};
  ASSERT_TRUE(step->run(ctx, a).ok());
  ASSERT_EQ(a.manager.modes.size(), 2u);
  EXPECT_EQ(a.manager.modes[0].mode, "alone");
  EXPECT_DOUBLE_EQ(*a.manager.modes[0].met_share, 1.0);
  EXPECT_TRUE(a.manager.modes[1].managed);
  EXPECT_DOUBLE_EQ(*a.manager.modes[1].met_share, 0.75);
  EXPECT_EQ(a.manager.modes[1].actions, 1);
  // Neither dominates: alone meets QoS more, the managed mode gives the neighbour its half CPU.
  EXPECT_TRUE(a.manager.modes[0].pareto);
  EXPECT_TRUE(a.manager.modes[1].pareto);
  nlohmann::json j;
  step->to_json(a, j);
  EXPECT_EQ(j["manager"]["modes"][1]["met_windows"], 3);
}

TEST_F(StoreLoaderTest, EmptyDatabaseSaysHowToFillIt) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  auto d = LoadExperiment(*s, "");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("holds no experiment"), std::string::npos);
}

TEST(PartitionFromKnobs, Units) {
  auto p = PartitionFromKnobs({{"cpu_quota", "50%"},
                               {"memory", "512M"},
                               {"disk_read_bps", "20M"},
                               {"net_rate", "100mbit"},
                               {"disk_read_iops", "100"}},
                              "x");
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(*p->Limit("cpu_quota"), 0.5);
  EXPECT_DOUBLE_EQ(*p->Limit("memory"), 512.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*p->Limit("disk_bw"), 20.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*p->Limit("net_bw"), 12.5e6);
  EXPECT_EQ(p->other.at("disk_read_iops"), "100");
  EXPECT_FALSE(PartitionFromKnobs({{"llc_ways", "four"}}, "x").ok());
  auto none = PartitionFromKnobs(nlohmann::json::object(), "default");
  EXPECT_TRUE(none->unlimited());
  EXPECT_EQ(none->Label(), "unlimited");
}

// An MB/s memory bandwidth has no amount in the mem_bw resource's percent: a limit shown by its
// text, never a percentage of 4000.
TEST(PartitionFromKnobs, MemBwInMBpsIsALimitWithoutAPercentage) {
  auto p = PartitionFromKnobs({{"mem_bw", "4000MBps"}}, "x");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_FALSE(p->Limit("mem_bw").has_value());
  EXPECT_EQ(p->other.at("mem_bw"), "4000MBps");
  EXPECT_FALSE(p->unlimited());
  EXPECT_DOUBLE_EQ(*PartitionFromKnobs({{"mem_bw", "40%"}}, "y")->Limit("mem_bw"), 40);
}

}  // namespace
}  // namespace ream::analysis
