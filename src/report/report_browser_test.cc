// The report as a reader sees it: a real short experiment (ream's synthetic server, 1-ST) is
// run with `ream run`, reported with `ream report` and opened in headless Chromium
// (browser_check.mjs, playwright-core driving Debian's chromium). No console error, no
// request leaving the file, every chart drawn with its data, and the QoS and capacity numbers
// in the page equal to `ream analyze --json`.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/platform.h"

namespace ream {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// One test, one sweep: CTest runs each test in a process of its own, so three tests sharing a
// suite's set-up ran the sweep, the report and the browser three times.
class ReportBrowserTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("ream-report-browser-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "spec.toml") << R"(name = "browser"
scenarios = ["1-ST"]
[workload]
builtin = "synthetic"
args = ["--service", "exp:100us"]
threads = 1
[load]
warmup = "300ms"
duration = "1s"
response_timeout = "200ms"
connections = 2
# This test is about the page, not the generator's precision: a looser (configured and
# reported) timeliness keeps points valid on a shared, noisy machine.
timely_tolerance = "2ms"
[sweep]
qps = [1000, 2000, 3000, 4000, 5000, 6000]
[qos]
# The seed's rule, which the tolerance above widens (the default rule's allowance stops at
# 20 us whatever the tolerance: under make test's noise it found lateness moving every
# point's p95 by 6-20 % and left nothing to report).
validity = "seed"
min_timely_ratio = 0.9
max_rate_error = 0.05
# A co-runner: the page gets the co-location section, alone against beside it.
[[corunner]]
name = "idler"
command = ["sleep", "600"]
sched = "idle"
settle = "0ms"
)";
    auto p = MakePosixPlatform();
    std::string db = (dir_ / "r.db").string();
    run_ = p->Run({REAM_BINARY, "run", (dir_ / "spec.toml").string(), "--db", db}, 300s)
               .value_or(CommandResult{});
    report_ = p->Run({REAM_BINARY, "report", "--db", db, "--out", (dir_ / "r.html").string()},
                     60s)
                  .value_or(CommandResult{});
    analyze_ = p->Run({REAM_BINARY, "analyze", "--db", db, "--json"}, 60s)
                   .value_or(CommandResult{});
    check_ = p->Run({"node", std::string(REAM_SOURCE_DIR) + "/src/report/browser_check.mjs",
                     (dir_ / "r.html").string()},
                    120s)
                 .value_or(CommandResult{});
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  static inline std::filesystem::path dir_;
  static inline CommandResult run_, report_, analyze_, check_;
};

void RealRunReportedAndAnalyzed(const CommandResult& run, const CommandResult& report,
                                 const CommandResult& analyze, const CommandResult& check) {
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("report written to "), std::string::npos);
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
}

void OpensOfflineWithoutErrorsAndDrawsEveryChart(const CommandResult& analyze, const CommandResult& check) {
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
  json c = json::parse(check.out);
  EXPECT_TRUE(c["console_errors"].empty()) << c["console_errors"].dump();
  EXPECT_TRUE(c["page_errors"].empty()) << c["page_errors"].dump();
  EXPECT_TRUE(c["foreign_requests"].empty()) << c["foreign_requests"].dump();
  EXPECT_EQ(c["state"]["failed"], 0);
  EXPECT_EQ(c["state"]["rendered"], c["state"]["total"]);
  ASSERT_GE(c["charts"].size(), 4u);  // at least latency, CPU, network, disk, and the model
  bool tail = false;
  for (const auto& ch : c["charts"]) {
    std::string id = ch["id"];
    EXPECT_EQ(ch["rendered"], "true") << id;
    EXPECT_GT(ch["rows"].get<int>(), 0) << id;
    EXPECT_EQ(ch["svg"], 1) << id;
    EXPECT_GT(ch["line_paths"].get<int>(), 0) << id;
    // One drawn symbol per data row: the chart shows all of its data.
    EXPECT_EQ(ch["symbols"], ch["rows"]) << id;
    EXPECT_GT(ch["width"].get<double>(), 100) << id;
    if (id == "tail") {
      tail = true;
      EXPECT_EQ(ch["lqos_rules"], 1) << "the QoS target is drawn as a dashed line";
    }
  }
  EXPECT_TRUE(tail);
  // This host has no resctrl and no counters: those panels say so instead of drawing zeros.
  json a = json::parse(analyze.out);
  const auto& p0 = a["groups"][0]["points"][0];
  for (const char* m : {"llc_bytes", "membw_bps"}) {
    if (!p0[m].is_object()) continue;  // measured here after all
    std::string id = std::string(m) == "llc_bytes" ? "llc" : "membw";
    bool said = false;
    for (const auto& u : c["unavailable"]) said = said || u["id"] == id;
    EXPECT_TRUE(said) << id;
    for (const auto& ch : c["charts"]) EXPECT_NE(ch["id"], id);
  }
}

// The co-location section: its table's capacities are analyze's, and its panel of the subject's
// tail alone and beside the co-runner is drawn with both series.
void ColocationSectionShowsAnalyzesComparison(const CommandResult& analyze, const CommandResult& check);

// The number the page shows under data-metric (and data-group), as the JSON text it carries.
json PageValue(const json& check, const std::string& metric, const std::string& group = "") {
  for (const auto& m : check["metrics"]) {
    if (m["metric"] != metric) continue;
    if (!group.empty() && (m["group"].is_null() || m["group"] != group)) continue;
    json v = json::parse(m["value"].get<std::string>(), nullptr, false);
    return v.is_discarded() ? json(m["value"]) : v;
  }
  return "missing";
}

void NumbersInThePageEqualAnalyzeJson(const CommandResult& analyze, const CommandResult& check) {
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  json c = json::parse(check.out);
  json a = json::parse(analyze.out);
  ASSERT_FALSE(a["qos"]["target_us"].is_null()) << a["qos"].dump();
  EXPECT_EQ(PageValue(c, "lqos_us"), a["qos"]["target_us"]);
  int compared = 0;
  for (const auto& g : a["groups"]) {
    if (g["failed"].get<bool>()) continue;
    std::string key = g["key"];
    EXPECT_EQ(PageValue(c, "group_lqos_us", key), a["qos"]["target_us"]) << key;
    EXPECT_EQ(PageValue(c, "capacity_qps", key), g["capacity"]["qps"]) << key;
    EXPECT_EQ(PageValue(c, "capacity_low_qps", key), g["capacity"]["low"]) << key;
    EXPECT_EQ(PageValue(c, "capacity_high_qps", key), g["capacity"]["high"]) << key;
    EXPECT_EQ(PageValue(c, "qps_at_20", key), g["qps_at_20"]) << key;
    EXPECT_EQ(PageValue(c, "qps_at_50", key), g["qps_at_50"]) << key;
    EXPECT_EQ(PageValue(c, "saturation_qps", key), g["saturation_qps"]) << key;
    ++compared;
  }
  EXPECT_GE(compared, 1);
  EXPECT_EQ(PageValue(c, "category").get<std::string>(), a["category"]["name"]);
}

void ColocationSectionShowsAnalyzesComparison(const CommandResult& analyze, const CommandResult& check) {
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
  json c = json::parse(check.out);
  json a = json::parse(analyze.out);
  ASSERT_TRUE(a.contains("colocation")) << "analyze has no co-location section";
  ASSERT_EQ(a["colocation"]["groups"].size(), 1u);
  const json& g = a["colocation"]["groups"][0];
  const std::string key = g["set"].get<std::string>() + "/" + g["group"].get<std::string>();
  EXPECT_EQ(PageValue(c, "colocation_alone_capacity", key), g["alone"]["capacity"]);
  EXPECT_EQ(PageValue(c, "colocation_together_capacity", key), g["together"]["capacity"]);
  bool drawn = false;
  for (const auto& ch : c["charts"]) {
    if (ch["id"] != "coloc0") continue;
    drawn = true;
    EXPECT_EQ(ch["rendered"], "true");
    EXPECT_GE(ch["line_paths"].get<int>(), 2) << "alone and beside the co-runner, one line each";
  }
  EXPECT_TRUE(drawn) << "the co-location panel is missing";
}

TEST_F(ReportBrowserTest, RealRunOpensOfflineDrawsEveryChartAndShowsAnalyzesNumbers) {
  {
    SCOPED_TRACE("the run, the report, analyze and the browser all succeed");
    RealRunReportedAndAnalyzed(run_, report_, analyze_, check_);
  }
  if (HasFatalFailure()) return;
  {
    SCOPED_TRACE("the page opens offline without errors and draws every chart");
    OpensOfflineWithoutErrorsAndDrawsEveryChart(analyze_, check_);
  }
  {
    SCOPED_TRACE("the numbers in the page equal ream analyze --json");
    NumbersInThePageEqualAnalyzeJson(analyze_, check_);
  }
  {
    SCOPED_TRACE("the co-location section equals ream analyze --json and draws both curves");
    ColocationSectionShowsAnalyzesComparison(analyze_, check_);
  }
}

}  // namespace
}  // namespace ream
