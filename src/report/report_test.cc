#include <sstream>

#include <gtest/gtest.h>

#include "report/reporter.h"

namespace ream::report {
namespace {

using analysis::ExperimentData;
using analysis::Metric;
using analysis::PointData;
using analysis::RunData;

ExperimentData Sample() {
  ExperimentData d;
  d.name = "sample";
  d.workload = "synthetic exp:100us";
  RunData r;
  r.scenario = "1-ST";
  for (double l = 500; l <= 6000; l += 500) {
    PointData p;
    p.target_load = p.achieved_qps = p.throughput_qps = l;
    p.valid = l != 5500;
    if (!p.valid) p.invalid_reasons = {"timely ratio 90.1 % < 97.5 %"};
    p.timely_ratio = p.valid ? 0.999 : 0.901;
    p.p95_us = 50 + 2995.7 / (10000 - l) * 1000;
    p.latency_mean_us = 50 + 1e6 / (10000 - l);
    p.service_mean_us = 100;
    p.cpu_util = Metric::Of(l * 100e-6);
    p.net_rx_bps = Metric::Of(l * 64);
    p.net_tx_bps = Metric::Of(l * 80);
    p.disk_read_bps = Metric::Of(0);
    p.disk_write_bps = Metric::Of(0);
    p.membw_bps = Metric::Unavailable("no resctrl MBM and no hardware counters on this host");
    p.llc_bytes = Metric::Unavailable("no resctrl CMT and no hardware counters on this host");
    p.clients = 8;
    r.points.push_back(p);
  }
  d.runs.push_back(r);
  d.environment = {{"kernel", "6.1.0"}, {"cpu_model", "Test CPU <fast>"}};
  return d;
}

TEST(TextReporter, PrintsTheTablesWithTheAnalysisNumbers) {
  auto d = Sample();
  auto a = analysis::Analyze(d, {});
  ASSERT_TRUE(a.ok());
  std::ostringstream os;
  ASSERT_TRUE(MakeTextReporter()->Report({&d, &*a}, os).ok());
  std::string out = os.str();
  EXPECT_NE(out.find("QoS target (LQoS): 500 us"), std::string::npos) << out;
  EXPECT_NE(out.find("Table 1"), std::string::npos);
  EXPECT_NE(out.find("500–6000"), std::string::npos);
  EXPECT_NE(out.find("Table 2"), std::string::npos);
  EXPECT_NE(out.find(FormatNumber(*a->groups[0].capacity.qps)), std::string::npos);
  EXPECT_NE(out.find("not measured: no unlimited 2-ST run"), std::string::npos);
  EXPECT_NE(out.find("Category: fast"), std::string::npos);
}

TEST(JsonReporter, IsTheAnalysisJson) {
  auto d = Sample();
  auto a = analysis::Analyze(d, {});
  std::ostringstream os;
  ASSERT_TRUE(MakeJsonReporter()->Report({&d, &*a}, os).ok());
  auto j = nlohmann::json::parse(os.str());
  EXPECT_EQ(j["qos"]["target_us"].get<double>(), *a->qos.target_us);
}

HtmlAssets FakeAssets() {
  HtmlAssets s;
  s.vega = "window.vega={};//# sourceMappingURL=vega.min.js.map\n";
  s.vega_lite = "var t='</script>';";
  s.vega_embed = "window.vegaEmbed=function(){return Promise.resolve()};";
  s.versions = "fake";
  return s;
}

// The page and the console of `d`'s analysis.
struct Reports {
  std::string html, text;
};
Reports ReportBoth(const ExperimentData& d) {
  Reports r;
  auto a = analysis::Analyze(d, {});
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return r;
  std::ostringstream html, text;
  EXPECT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, html).ok());
  EXPECT_TRUE(MakeTextReporter()->Report({&d, &*a}, text).ok());
  r.html = html.str();
  r.text = text.str();
  return r;
}

TEST(HtmlReporter, SelfContainedPageWithFindableNumbers) {
  auto d = Sample();
  auto a = analysis::Analyze(d, {});
  ASSERT_TRUE(a.ok());
  std::ostringstream os;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, os).ok());
  std::string html = os.str();
  // The assets are inlined, their source-map comment dropped and "</script" defused.
  EXPECT_NE(html.find("window.vega={};"), std::string::npos);
  EXPECT_EQ(html.find("sourceMappingURL"), std::string::npos);
  EXPECT_NE(html.find("var t='<\\/script>';"), std::string::npos);
  // Nothing is loaded from elsewhere.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  // The numbers carry the exact JSON value.
  std::string lqos = nlohmann::json(*a->qos.target_us).dump();
  EXPECT_NE(html.find("data-metric=\"lqos_us\" data-value=\"" + lqos + "\""), std::string::npos);
  std::string cap = nlohmann::json(*a->groups[0].capacity.qps).dump();
  EXPECT_NE(html.find("data-metric=\"capacity_qps\" data-group=\"1-ST / unlimited\" data-value=\"" +
                      cap + "\""),
            std::string::npos);
  // Charts for what was measured; an explanation, not a zero line, for what was not.
  for (const char* id : {"tail", "cpu", "net", "disk"}) {
    EXPECT_NE(html.find(std::string("data-chart=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(html.find("data-chart-unavailable=\"llc\""), std::string::npos);
  EXPECT_NE(html.find("no resctrl CMT and no hardware counters"), std::string::npos);
  EXPECT_NE(html.find("data-chart-unavailable=\"membw\""), std::string::npos);
  // The invalid point is marked, with its reason.
  EXPECT_NE(html.find("invalid: timely ratio 90.1 %"), std::string::npos);
  // Text from the environment is escaped.
  EXPECT_NE(html.find("Test CPU &lt;fast&gt;"), std::string::npos);
  // The inlined JSON cannot close its script element.
  size_t start = html.find("id=\"ream-analysis\">");
  size_t end = html.find("</script>", start);
  EXPECT_EQ(html.substr(start, end - start).find('<'), std::string::npos);
}

// The generator's timeliness: the lateness chart with the tolerance, each point's causes beside
// the host's floor from the environment, and whether the CPUs were kept awake.
TEST(HtmlReporter, TimelinessSectionSetsTheCausesAgainstTheHostFloor) {
  auto d = Sample();
  for (auto& p : d.runs[0].points) {
    p.lateness_p50_us = 1.5;
    p.lateness_p99_us = p.valid ? 14.0 : 400.0;
    p.late_shares = {{"stall", 0.0006}, {"busy", 1 - p.timely_ratio - 0.0006}};
    p.keep_awake_cpus = "0-1";
    p.keep_awake_workload = "the workload's CPUs 0 kept awake by SCHED_IDLE pollers in its cpu cgroup";
  }
  d.environment["timing_floor"] = {{"duration_s", 0.3},
                                   {"tolerance_us", 20},
                                   {"cpus", {{{"cpu", 0}, {"late_fraction", 0.0052}},
                                             {{"cpu", 1}, {"late_fraction", 0.0061}}}}};
  auto a = analysis::Analyze(d, {});
  ASSERT_TRUE(a.ok());
  std::ostringstream os;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, os).ok());
  std::string html = os.str();
  EXPECT_NE(html.find("<h2>Generator timeliness</h2>"), std::string::npos);
  EXPECT_NE(html.find("the workload&#39;s CPUs 0 kept awake by SCHED_IDLE pollers"), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"lateness\""), std::string::npos);
  EXPECT_NE(html.find("tolerance 20 µs"), std::string::npos);
  // The worst CPU's floor in the table, every CPU's in the text.
  EXPECT_NE(html.find("0.61 % (CPU 1)"), std::string::npos);
  EXPECT_NE(html.find("CPU 0 0.52 %"), std::string::npos);
  EXPECT_NE(html.find("Keep-awake, the generator's CPUs: CPUs 0-1"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">0.06 %</td>"), std::string::npos) << "the stall share";
  // Without a stored floor or pollers the page says so rather than showing a figure.
  auto bare = Sample();
  auto b = analysis::Analyze(bare, {});
  ASSERT_TRUE(b.ok());
  std::ostringstream os2;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&bare, &*b}, os2).ok());
  EXPECT_NE(os2.str().find("Host floor: not measured"), std::string::npos);
  EXPECT_NE(os2.str().find("Keep-awake, the generator's CPUs: off"), std::string::npos);
  EXPECT_NE(os2.str().find("data-chart-unavailable=\"lateness\""), std::string::npos);
  // Where the points say how the generator's CPUs were kept awake, the page says it.
  auto how = d;
  for (auto& p : how.runs[0].points) p.keep_awake_how = "CPU 1 kept awake by the kernel's idle polling (PM QoS resume latency 0)";
  auto h = analysis::Analyze(how, {});
  ASSERT_TRUE(h.ok());
  std::ostringstream os3;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&how, &*h}, os3).ok());
  EXPECT_NE(os3.str().find("Keep-awake, the generator's CPUs: CPU 1 kept awake by the kernel&#39;s idle polling (PM QoS "
                           "resume latency 0)"),
            std::string::npos);
}

// The connections the server closed, per point: columns in the point table where the generator
// counted them (none otherwise, as for older databases), and a line in the text.
TEST(Reporters, ShowEachPointsReconnectionsAndRequestsLost) {
  auto d = Sample();
  for (auto& p : d.runs[0].points) {
    p.reconnections = 0;
    p.lost_requests = 0;
  }
  d.runs[0].points[0].reconnections = 79;
  d.runs[0].points[0].lost_requests = 4;
  d.runs[0].points[0].lost_reasons["connection lost: server closed the connection (EOF)"] = 4;
  const Reports r = ReportBoth(d);
  const Reports bare = ReportBoth(Sample());
  EXPECT_NE(r.html.find("<th>reconnections</th><th>lost on closed connections</th>"), std::string::npos);
  EXPECT_NE(r.html.find("<td class=\"num\">79</td>"), std::string::npos);
  EXPECT_NE(r.html.find("title=\"4 × connection lost: server closed the connection (EOF)\">4</td>"),
            std::string::npos);
  EXPECT_NE(r.text.find("connections closed by the server: "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("79 reconnection(s), 4 request(s) lost on closed connections"), std::string::npos);
  EXPECT_EQ(bare.html.find("<th>reconnections</th>"), std::string::npos);
  EXPECT_EQ(bare.text.find("connections closed by the server"), std::string::npos);
}

// Client nodes' parts of a point: the console names each with its figures and verdict, the
// page has a table of them; a local generator's analysis has neither.
TEST(Reporters, ShowEachClientNodesPartOfAPoint) {
  auto d = Sample();
  analysis::AgentFigures ok;
  ok.name = "c0";
  ok.target_qps = 250;
  ok.achieved_qps = 249.5;
  ok.timely_ratio = 0.991;
  ok.lateness_p99_us = 31;
  ok.latency_p99_us = 210;
  ok.valid = true;
  ok.clock_offset_us = -12.3;
  ok.clock_rtt_us = 85;
  ok.clock_samples = 8;
  analysis::AgentFigures behind = ok;
  behind.name = "c1";
  behind.timely_ratio = 0.81;
  behind.valid = false;
  behind.invalid_reasons = {"timely ratio 81.0 % < 97.5 %"};
  analysis::AgentFigures died;
  died.name = "c2";
  died.target_qps = 250;
  died.failure = "its ssh session ended (exit 255)";
  d.runs[0].points[0].agents = {ok, behind, died};
  const Reports r = ReportBoth(d);
  const Reports bare = ReportBoth(Sample());
  EXPECT_NE(r.text.find("1-ST / unlimited: client nodes\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("500 QPS, c0: 250 of 250 QPS, timely 99.1 %, lateness p99 31 µs, latency p99 210 µs, "
                            "clock -12.3 µs (round trip 85 µs, best of 8): valid"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("c1: 250 of 250 QPS, timely 81 %"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(": invalid (timely ratio 81.0 % < 97.5 %)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("c2: asked 250 QPS, returned no result: its ssh session ended (exit 255)"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.html.find("<table class=\"agents\">"), std::string::npos);
  EXPECT_NE(r.html.find("<td>c1</td>"), std::string::npos);
  EXPECT_NE(r.html.find("<td class=\"num\">-12.3</td>"), std::string::npos) << r.html;
  EXPECT_NE(r.html.find("no result: its ssh session ended (exit 255)"), std::string::npos);
  EXPECT_EQ(bare.html.find("class=\"agents\""), std::string::npos);
  EXPECT_EQ(bare.text.find("client nodes"), std::string::npos);
}

// A memory bandwidth estimated from LLC misses says so in its panel's title; the memory
// controller's own count (or no method said, as in older databases) does not.
TEST(HtmlReporter, AnEstimatedMemoryBandwidthIsLabelledAsAnEstimate) {
  auto d = Sample();
  for (auto& p : d.runs[0].points) {
    p.membw_bps = analysis::Metric::Of(1e8);
    p.membw_method = "estimate: LLC misses × line size (perf)";
  }
  auto a = analysis::Analyze(d, {});
  ASSERT_TRUE(a.ok());
  std::ostringstream os;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, os).ok());
  EXPECT_NE(os.str().find("(e) memory bandwidth — estimate: LLC misses × line size (perf)"), std::string::npos);
  for (auto& p : d.runs[0].points) p.membw_method = "resctrl MBM";
  auto b = analysis::Analyze(d, {});
  ASSERT_TRUE(b.ok());
  std::ostringstream os2;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*b}, os2).ok());
  EXPECT_NE(os2.str().find("(e) memory bandwidth"), std::string::npos);
  EXPECT_EQ(os2.str().find("(e) memory bandwidth — estimate"), std::string::npos);
}

// A sessions sweep's page and tables name loads in sessions; a qps one's say QPS, as always.
TEST(Reporters, NameLoadsByTheSweepsAxis) {
  // The server's axes; copies is a batch subject's, whose page is its own (tested below).
  for (LoadAxis axis : {LoadAxis::kQps, LoadAxis::kSessions}) {
    auto d = Sample();
    d.load_axis = axis;
    auto a = analysis::Analyze(d, {});
    ASSERT_TRUE(a.ok());
    std::ostringstream html, text;
    ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, html).ok());
    ASSERT_TRUE(MakeTextReporter()->Report({&d, &*a}, text).ok());
    bool sessions = axis == LoadAxis::kSessions;
    auto has = [](const std::string& s, const std::string& what) {
      return s.find(what) != std::string::npos;
    };
    EXPECT_EQ(has(html.str(), "offered load (sessions)"), sessions);
    // (The queueing model's chart stays one of rates: its x is throughput, in QPS.)
    EXPECT_TRUE(has(html.str(), "offered load (QPS)"));
    EXPECT_EQ(has(html.str(), "Table 2 — sessions under QoS"), sessions);
    EXPECT_EQ(has(html.str(), "<th>target sessions</th>"), sessions);
    EXPECT_EQ(has(html.str(), "Table 2 — QPS under QoS"), !sessions);
    EXPECT_EQ(has(text.str(), "SESSIONS RANGE"), sessions);
    EXPECT_EQ(has(text.str(), "QPS RANGE"), !sessions);
    EXPECT_EQ(has(text.str(), "Table 2 — sessions under QoS"), sessions);
  }
}

// A sessions sweep measured by session load: panel (a) is the chunks' transfer + response time
// with the play-out deadline, and the page has its sessions view (deadline misses, bytes).
TEST(Reporters, DrawASessionsSweepsChunksAndDeadlineMisses) {
  auto d = Sample();
  d.load_axis = LoadAxis::kSessions;
  for (auto& r : d.runs) {
    for (auto& p : r.points) {
      p.session = analysis::SessionPoint{p.target_load, 250, 100, 99, p.target_load > 3000 ? 0.2 : 0.0, 1e6};
    }
  }
  auto a = analysis::Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::ostringstream html, text;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, html).ok());
  ASSERT_TRUE(MakeTextReporter()->Report({&d, &*a}, text).ok());
  const std::string h = html.str();
  EXPECT_NE(h.find("(a) p95 chunk transfer + response time, play-out deadline dashed"), std::string::npos);
  EXPECT_NE(h.find("deadline 250 ms"), std::string::npos);
  EXPECT_NE(h.find("id=\"sessions-view\""), std::string::npos);
  EXPECT_NE(h.find("chunks missing their play-out deadline"), std::string::npos);
  EXPECT_NE(h.find("<table id=\"sessions\">"), std::string::npos);
  EXPECT_NE(text.str().find("missed their play-out deadline"), std::string::npos);
  // A qps page has none of it.
  auto q = Sample();
  auto b = analysis::Analyze(q, {});
  ASSERT_TRUE(b.ok());
  std::ostringstream plain;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&q, &*b}, plain).ok());
  EXPECT_EQ(plain.str().find("sessions-view"), std::string::npos);
  EXPECT_NE(plain.str().find("(a) p95 tail latency, LQoS dashed"), std::string::npos);
}

// A batch subject's page: run time and throughput against copies, the knob's slowdown and the
// category, with the figures of the analysis and no server section; the text report too.
TEST(Reporters, ShowABatchSubjectsRunTimesSlowdownsAndCategory) {
  ExperimentData d;
  d.name = "batch-xz";
  d.workload = "batch xz";
  d.load_axis = LoadAxis::kCopies;
  auto point = [](double copies, double run_s, double cpu_s) {
    PointData p;
    p.target_load = copies;
    p.valid = true;
    const double n = copies * 10 / run_s;
    p.batch = {{"program", "xz"},       {"window_s", 10.0},          {"completions", n},
               {"run_time_mean_s", run_s}, {"runs_per_min", n * 6},   {"cpu_s_per_run", cpu_s},
               {"memory_peak_bytes", 3 * 1048576.0}};
    p.disk_read_bps = Metric::Of(0);
    p.disk_write_bps = Metric::Of(0);
    p.membw_bps = Metric::Unavailable("no resctrl MBM here");
    return p;
  };
  for (int rep = 0; rep < 2; ++rep) {
    RunData free;
    free.scenario = "1-ST";
    free.repetition = rep;
    free.points = {point(1, 2.0 + 0.1 * rep, 1.9), point(2, 4.25, 2.0)};
    RunData quota = free;
    quota.partition.limits["cpu_quota"] = 0.5;
    quota.partition.label = "cpu_quota=50%";
    quota.points = {point(1, 4.0 + 0.2 * rep, 1.9), point(2, 8.5, 2.0)};
    d.runs.push_back(free);
    d.runs.push_back(quota);
  }
  auto a = analysis::Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(a->batch.has_value());
  std::ostringstream html, text;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, html).ok());
  ASSERT_TRUE(MakeTextReporter()->Report({&d, &*a}, text).ok());
  const std::string h = html.str();
  EXPECT_NE(h.find("<h2 id=\"batch\">Batch program xz</h2>"), std::string::npos);
  EXPECT_NE(h.find("run time against copies"), std::string::npos);
  EXPECT_NE(h.find("throughput against copies"), std::string::npos);
  EXPECT_NE(h.find("run time slowdown against the unlimited partition"), std::string::npos);
  // The mean run time of one copy alone (2.0 and 2.1 s) and the quota's slowdown (4.1 / 2.05).
  EXPECT_NE(h.find("<td>2.05 ["), std::string::npos);
  EXPECT_NE(h.find("<td>2 ["), std::string::npos);
  EXPECT_NE(h.find("<td>cpu_quota</td><td>sensitive</td><td>run time</td>"), std::string::npos);
  // CPU time per run 2.0 / 1.9 at two copies: 5 % more, cache-sensitive.
  EXPECT_NE(h.find("Category: cache-sensitive"), std::string::npos);
  EXPECT_NE(h.find("unavailable (no resctrl MBM here)"), std::string::npos);
  EXPECT_EQ(h.find("LQoS"), std::string::npos);  // no server section
  const std::string t = text.str();
  EXPECT_NE(t.find("Batch program xz"), std::string::npos);
  EXPECT_NE(t.find("Sensitivity to cpu_quota: sensitive (by run time)"), std::string::npos);
  EXPECT_NE(t.find("Batch category: cache-sensitive"), std::string::npos);
}

TEST(Reporters, ShowTheColocationMatrixTintedByVerdictAndTheToleratedAndCausedIntensities) {
  auto d = Sample();
  auto a = analysis::Analyze(d, {});
  ASSERT_TRUE(a.ok());
  analysis::InterferenceProfile curve;
  curve.source = "llc";
  curve.group_key = "1-ST / unlimited";
  curve.points.push_back({});
  a->interference.push_back(curve);
  analysis::ColocationMatrix& m = a->matrix;
  m.group_key = "1-ST / unlimited";
  m.subjects = {"memcached", "kv"};
  m.sets = {"xz", "stream"};
  m.sources = {"cpu", "llc"};
  m.note = "a note";
  auto cell = [](std::string subject, std::string set, std::optional<double> pr, std::optional<bool> pm,
                 std::optional<double> mr, std::optional<bool> mm) {
    analysis::MatrixCell c;
    c.subject = std::move(subject);
    c.set = std::move(set);
    if (pr) c.predicted_ratio = analysis::Bounded::Exact(*pr);
    c.predicted_meets = pm;
    if (mr) c.measured_ratio = analysis::Bounded::Exact(*mr);
    c.measured_meets = mm;
    return c;
  };
  m.cells = {cell("memcached", "xz", 0.9, true, 0.8, true), cell("memcached", "stream", 0.5, true, 0.25, false),
             cell("kv", "xz", std::nullopt, std::nullopt, 0.85, true),
             cell("kv", "stream", std::nullopt, std::nullopt, std::nullopt, std::nullopt)};
  m.heat = {{"memcached", "tolerates", "", {40.0, std::nullopt}, {false, false}},
            {"stream", "causes", "kv", {75.0, 100.0}, {false, true}}};
  std::ostringstream html, text;
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, html).ok());
  ASSERT_TRUE(MakeTextReporter()->Report({&d, &*a}, text).ok());
  const std::string h = html.str();
  ASSERT_NE(h.find("<table id=\"colocation-matrix\">"), std::string::npos) << h;
  EXPECT_NE(h.find("<th>memcached</th><td style=\"background:#d9f2d9\" class=\"safe\" title=\"\">90 % ✓ / 80 % ✓</td>"),
            std::string::npos);
  // The measurement's verdict wins over the prediction's: the stream cell is red.
  EXPECT_NE(h.find("class=\"unsafe\" title=\"\">50 % ✓ / 25 % ✗</td>"), std::string::npos);
  EXPECT_NE(h.find("class=\"unknown\" title=\"\">— / —</td>"), std::string::npos);
  ASSERT_NE(h.find("<table id=\"interference-heat\">"), std::string::npos);
  EXPECT_NE(h.find("<td>stream</td><td>causes (by kv)</td><td style=\"background:hsl(10,70%,58%)\" "
                   "data-intensity=\"75\">75 %</td>"),
            std::string::npos);
  EXPECT_NE(h.find("data-intensity=\"100\">≥ 100 %</td>"), std::string::npos);
  const std::string t = text.str();
  EXPECT_NE(t.find("Co-location matrix (a note)"), std::string::npos) << t;
  EXPECT_NE(t.find("50 % ok / 25 % MISS"), std::string::npos) << t;
  EXPECT_NE(t.find("causes (by kv)"), std::string::npos) << t;
}

// A shared run of an M/M/1-like subject (service rate `mu`) over 500..8000 QPS; beside the co-runner
// "job" when `set` is given, its figures typed as the store keeps them (store/tenant_figures.h).
RunData SharedRun(double mu, const std::string& set) {
  RunData r;
  r.scenario = "1-ST";
  r.corunner_set = set;
  for (double l = 500; l <= 8000; l += 500) {
    PointData p;
    p.target_load = p.achieved_qps = p.throughput_qps = l;
    p.valid = true;
    p.timely_ratio = 1;
    // p95 = ln(20) / (mu − λ) + 50 µs below saturation; far above any target past it.
    p.p95_us = p.p99_us = l < mu ? 50 + 2995.7 / (mu - l) * 1000 : 1e6;
    p.latency_mean_us = l < mu ? 50 + 1e6 / (mu - l) : 1e6;
    p.service_mean_us = 1e6 / mu;
    if (!set.empty()) p.corunners = {{"job", TenantFigures{.window_s = 1, .cpu_share = 0.25}}};
    r.points.push_back(p);
  }
  if (!set.empty()) {
    r.corunners.corunners.resize(1);
    r.corunners.corunners[0].name = "job";
    r.corunners.corunners[0].sched = "normal";
    r.corunners.SetAlone({{"job", TenantFigures{.window_s = 1, .cpu_share = 1.0}}}, {});
  }
  return r;
}

TEST(Reporters, PrintRatiosAndEmuOverACapacityAloneBeyondTheSweepAsBounds) {
  ExperimentData d;
  d.name = "shared";
  d.qos.fixed_target_us = 1000;
  // Alone the subject never misses QoS up to 8000 QPS (≥ 8000); beside "job" from 4000 QPS
  // (mu 6250: p95 = 50 + 2995.7 / (6250 − λ) ms crosses 1000 µs at about 3097 QPS).
  d.runs = {SharedRun(20000, ""), SharedRun(6250, "job")};
  auto a = analysis::Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const analysis::ColocationGroup& g = a->colocation.at(0);
  ASSERT_TRUE(g.together_capacity);
  const std::string ratio = "≤ " + Times(*g.together_capacity / 8000);
  std::ostringstream html, text;
  ASSERT_TRUE(MakeTextReporter()->Report({&d, &*a}, text).ok());
  ASSERT_TRUE(MakeHtmlReporter(FakeAssets())->Report({&d, &*a}, html).ok());
  const std::string t = text.str(), h = html.str();
  EXPECT_NE(t.find("≥ 8000"), std::string::npos) << t;
  EXPECT_NE(t.find(ratio), std::string::npos) << t;
  // EMU at 1000 QPS: 1000 / (≥ 8000) + 0.25 / 1, at most 0.375.
  EXPECT_NE(t.find("≤ 0.375"), std::string::npos) << t;
  EXPECT_NE(h.find("data-bound=\"upper\">" + ratio + "</td>"), std::string::npos) << h;
  EXPECT_NE(h.find("<td>≤ 0.375</td>"), std::string::npos);
}

TEST(LoadHtmlAssets, NamesTheMissingFile) {
  auto platform = MakePosixPlatform();
  auto r = LoadHtmlAssets(*platform, "/nonexistent/node_modules");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/node_modules/vega/build/vega.min.js"),
            std::string::npos);
  EXPECT_NE(r.status().message().find("install-deps"), std::string::npos);
}

TEST(FormatNumber, SignificantDigits) {
  EXPECT_EQ(FormatNumber(3343.4), "3343");
  EXPECT_EQ(FormatNumber(512.34), "512");
  EXPECT_EQ(FormatNumber(0.87345), "0.873");
  EXPECT_EQ(FormatNumber(12.345), "12.3");
  // Just under a thousand: whole, not "1e+03".
  EXPECT_EQ(FormatNumber(999.7), "1000");
  EXPECT_EQ(FormatNumber(999.4), "999");
}

}  // namespace
}  // namespace ream::report
