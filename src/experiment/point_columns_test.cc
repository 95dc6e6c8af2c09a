#include "experiment/point_columns.h"

#include <gtest/gtest.h>

#include "load/generator.h"

namespace ream {
namespace {

TEST(ExtractGeneratorJson, FindsTheDocumentBetweenSummaryLines) {
  std::string text = "ream load: 1000 QPS for 2s\n{\n  \"issued\": 5,\n  \"valid\": true\n}\nafter\n";
  auto j = ExtractGeneratorJson(text);
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ((*j)["issued"], 5);
  auto first = ExtractGeneratorJson("{\n  \"issued\": 7\n}\n");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)["issued"], 7);
}

TEST(ExtractGeneratorJson, SaysWhatIsWrongWithTheOutput) {
  auto none = ExtractGeneratorJson("only a summary\n");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(none.status().message().find("no JSON"), std::string::npos);
  auto cut = ExtractGeneratorJson("{\n  \"issued\": 5,\n");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("truncated"), std::string::npos);
  auto bad = ExtractGeneratorJson("{\n  \"issued\": ,,\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("does not parse"), std::string::npos);
}

TEST(FillFromGenerator, KeepsWhatEndedAPointMeasuredUntilKnown) {
  LoadResult r;
  r.options.until = UntilRule{};
  r.options.duration_ns = 1'250'000'000;  // the window as measured
  UntilVerdict v;
  v.stop = v.known = true;
  v.check = "interval";
  v.reason = "interval 3.8 % <= 5 %";
  v.interval = 0.038;
  v.measured_s = 1.25;
  r.until = v;
  PointData d;
  FillFromGenerator(r.ToJson(), &d);
  ASSERT_TRUE(d.point.until_decided.has_value());
  EXPECT_EQ(*d.point.until_decided, "interval: interval 3.8 % <= 5 %");
  ASSERT_TRUE(d.point.until_interval.has_value());
  EXPECT_DOUBLE_EQ(*d.point.until_interval, 0.038);
  EXPECT_DOUBLE_EQ(d.point.duration_s.value_or(0), 1.25);
  // A point of fixed duration has none.
  PointData fixed;
  FillFromGenerator(LoadResult().ToJson(), &fixed);
  EXPECT_FALSE(fixed.point.until_decided.has_value());
  EXPECT_FALSE(fixed.point.until_interval.has_value());
}

TEST(FillFromGenerator, DecodesCountersHistogramsAndTheMissingServerTimes) {
  LoadResult r;
  r.protocol = "http";
  r.issued = 100;
  r.completed = 99;
  r.errors = 1;
  r.achieved_qps = 1000;
  r.timely_ratio = 0.99;
  r.valid = false;
  r.invalid_reasons = {"late"};
  for (int i = 1; i <= 100; ++i) r.latency.Record(i * 1000);
  PointData d;
  FillFromGenerator(r.ToJson(), &d);
  const PointRecord& p = d.point;
  EXPECT_EQ(p.issued, 100);
  EXPECT_EQ(p.completed, 99);
  EXPECT_EQ(p.errors, 1);
  EXPECT_EQ(p.achieved_qps, 1000);
  ASSERT_TRUE(p.valid.has_value());
  EXPECT_FALSE(*p.valid);
  EXPECT_EQ(p.invalid_reasons, std::vector<std::string>{"late"});
  ASSERT_TRUE(d.histograms.count(kHistSojourn));
  EXPECT_EQ(d.histograms.at(kHistSojourn).count(), 100u);
  // No server times: absent, each with the reason, never zero.
  EXPECT_FALSE(p.service_mean_us.has_value());
  EXPECT_EQ(d.histograms.count(kHistService), 0u);
  ASSERT_TRUE(p.unavailable.count("service_mean_us"));
  EXPECT_FALSE(p.unavailable.at("service_mean_us").empty());
}

// The connections the server closed become the point's columns: the reconnections, and the
// measured requests lost with a connection by reason (a server's error answer is not one).
TEST(FillFromGenerator, CountsReconnectionsAndTheRequestsLostWithAConnection) {
  LoadResult r;
  r.protocol = "http";
  r.reconnections = 19;
  r.reconnect_reasons["server closed the connection (Connection: close)"] = 19;
  r.error_reasons["connection lost: server closed the connection (Connection: close)"] = 3;
  r.error_reasons["not sent: every connection was closed"] = 2;
  r.error_reasons["server error: HTTP 503"] = 4;
  PointData d;
  FillFromGenerator(r.ToJson(), &d);
  const PointRecord& p = d.point;
  EXPECT_EQ(p.reconnections, std::optional<int64_t>(19));
  EXPECT_EQ(p.lost_requests, std::optional<int64_t>(5));
  ASSERT_TRUE(p.lost_reasons.is_object());
  EXPECT_EQ(p.lost_reasons.size(), 2u);
  EXPECT_EQ(p.lost_reasons["not sent: every connection was closed"], 2);
  EXPECT_FALSE(p.lost_reasons.contains("server error: HTTP 503"));

  // None closed: zero, recorded (the generator counted), not missing.
  PointData quiet;
  FillFromGenerator(LoadResult{}.ToJson(), &quiet);
  EXPECT_EQ(quiet.point.reconnections, std::optional<int64_t>(0));
  EXPECT_EQ(quiet.point.lost_requests, std::optional<int64_t>(0));
  // A generator JSON from before reconnections: nothing recorded.
  PointData old;
  FillFromGenerator(nlohmann::json{{"issued", 5}}, &old);
  EXPECT_FALSE(old.point.reconnections.has_value());
  EXPECT_TRUE(old.point.lost_reasons.is_null());
}

TEST(FillFromMonitor, LeavesWhatTheMonitorCouldNotMeasureNullWithItsReason) {
  MonitorReport r;
  r.unavailable["cpu"] = "no cgroup (test)";
  PointData d;
  FillFromMonitor(r, &d);
  EXPECT_FALSE(d.point.cpu_util.has_value());
  ASSERT_TRUE(d.point.unavailable.count("cpu_util"));
  EXPECT_EQ(d.point.unavailable.at("cpu_util"), "no cgroup (test)");
  EXPECT_EQ(d.point.unavailable.at("server_cpu_s"), "no cgroup (test)");
}

// A generator document of the wrong types: a fraction where a count belongs is no count
// (converting 1e300 is undefined behaviour), and a negative lost count is not added.
TEST(FillFromGenerator, FractionsAndNegativesAreNoCounts) {
  nlohmann::json g = {{"issued", 1e300}, {"completed", 5}, {"reconnections", 1},
                      {"error_reasons", {{"connection lost: reset", -3}, {"not sent: down", 2}}}};
  PointData d;
  FillFromGenerator(g, &d);
  EXPECT_FALSE(d.point.issued.has_value());
  EXPECT_EQ(d.point.completed, 5);
  EXPECT_EQ(d.point.lost_requests, 2);
}

}  // namespace
}  // namespace ream
