// The report's model and sensitivity parts: the Table 5.1 of the mean and of p95 (measured vs
// model, R², relative error), an unavailable table with its reason, the predicted
// sensitivities, one response-time curve per sensitivity setting, and `ream model`'s output.
#include <sstream>

#include <gtest/gtest.h>

#include "analysis/queueing.h"
#include "report/reporter.h"

namespace ream::report {
namespace {

using analysis::ExperimentData;
using analysis::Metric;
using analysis::PointData;
using analysis::RunData;

// An M/M/1 sweep with S = 100 µs + 2·o and D = 50 µs + 2·L, 5 % to 90 % CPU; the partition
// sets `resource` to `value` (none when empty).
RunData SweepOf(const std::string& resource, double value, double l_s, double o_s) {
  RunData r;
  r.scenario = "1-ST";
  if (!resource.empty()) r.partition.limits[resource] = value;
  const double s = 100e-6 + 2 * o_s;
  analysis::QueueModel q{1, s, 50e-6 + 2 * l_s, 1};
  for (double u = 0.05; u < 0.901; u += 0.05) {
    PointData p;
    p.target_load = p.achieved_qps = p.throughput_qps = std::round(u / s);
    p.valid = true;
    p.timely_ratio = 1;
    p.latency_mean_us = *MeanResponse(q, p.target_load) * 1e6;
    p.p50_us = *ResponsePercentile(q, p.target_load, 0.5) * 1e6;
    p.p95_us = *ResponsePercentile(q, p.target_load, 0.95) * 1e6;
    p.p99_us = *ResponsePercentile(q, p.target_load, 0.99) * 1e6;
    p.p999_us = *ResponsePercentile(q, p.target_load, 0.999) * 1e6;
    p.cpu_util = Metric::Of(p.target_load * s);
    p.clients = 4;
    r.points.push_back(p);
  }
  return r;
}

KnobTable WithLatency() {
  KnobTable t = BuiltinKnobs();
  t.AddResource({.name = "net_latency", .unit = "us", .lower_is_tighter = false, .json_field = "net_latency_us"});
  t.Add({.key = "net_latency",
         .parse = [](std::string_view, std::string_view) -> Result<KnobValue> { return KnobValue(0.0); },
         .apply = [](const KnobValue&, PartitionSpec*) {},
         .resource = "net_latency",
         .amount = [](const KnobValue& v) { return std::get<double>(v); }});
  return t;
}

HtmlAssets Fake() {
  HtmlAssets s;
  s.vega = s.vega_lite = s.vega_embed = "";
  s.versions = "fake";
  return s;
}

TEST(ModelReport, TablesOfTheMeanAndTailWithR2AndRelativeErrorAndOneCurvePerSetting) {
  const KnobTable knobs = WithLatency();
  ExperimentData d;
  d.name = "loggp";
  for (double l : {0.0, 200.0}) d.runs.push_back(SweepOf("net_latency", l, l * 1e-6, 0));
  analysis::AnalysisOptions o;
  o.knobs = &knobs;
  auto a = analysis::Analyze(d, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::ostringstream os;
  ASSERT_TRUE(MakeHtmlReporter(Fake())->Report({&d, &*a}, os).ok());
  const std::string html = os.str();
  for (const char* id : {"id=\"model_regression_mean\"", "id=\"model_regression_tail\"", "id=\"model_variants\"",
                         "id=\"predicted_sensitivity\"", "data-metric=\"model_mean_measured_r2\"",
                         "data-metric=\"model_mean_model_r2\"", "data-metric=\"model_mean_mean_rel_error\"",
                         "data-metric=\"model_tail_max_rel_error\"", "data-metric=\"predicted_base_us\"",
                         "data-metric=\"sensitivity_base_mean_us\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  // The mean's relative error of this exact M/M/1 data is 0, shown as the JSON's number.
  const auto& t = a->groups[0].model->mean;
  ASSERT_TRUE(t.mean_abs_relative_error.has_value()) << t.unavailable;
  EXPECT_LT(*t.mean_abs_relative_error, 1e-9);
  // One chart of the mean response with a line per setting.
  size_t at = html.find("\"sensmean0\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(html.find("mean response time by net_latency"), std::string::npos);

  // A range with too few points: the table says so, with the reason, and no figure.
  d.model.range_low = 0.41;
  d.model.range_high = 0.49;
  d.model.range_given = true;
  auto few = analysis::Analyze(d, o);
  ASSERT_TRUE(few.ok());
  std::ostringstream fs;
  ASSERT_TRUE(MakeHtmlReporter(Fake())->Report({&d, &*few}, fs).ok());
  EXPECT_NE(fs.str().find("unavailable: only 1 valid point(s) between 41 % and 49 % CPU utilization ([model] range)"),
            std::string::npos);

  // `ream model`: the model's tables alone, and its JSON.
  std::ostringstream ms;
  ASSERT_TRUE(MakeModelReporter()->Report({&d, &*a}, ms).ok());
  EXPECT_NE(ms.str().find("Table 5.1 of the mean"), std::string::npos) << ms.str();
  EXPECT_NE(ms.str().find("Predicted vs measured sensitivity"), std::string::npos) << ms.str();
  EXPECT_EQ(ms.str().find("Table 2"), std::string::npos);
  std::ostringstream js;
  ASSERT_TRUE(MakeModelJsonReporter()->Report({&d, &*a}, js).ok());
  auto j = nlohmann::json::parse(js.str());
  EXPECT_TRUE(j["groups"][0]["model"]["regression_mean"]["measured"]["r2"].is_number());
  EXPECT_EQ(j["predicted_sensitivity"][0]["parameter"], "L");
}

}  // namespace
}  // namespace ream::report
