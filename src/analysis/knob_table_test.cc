// A knob added to a table in this test binary alone reaches every place that iterates the
// table: [partitions] parsing, the `ream exec` flag list, the stored partition label and
// its reading back, and the sensitivity analysis. No other file knows its name.
#include <gtest/gtest.h>

#include "analysis/analysis.h"
#include "analysis/queueing.h"
#include "analysis/store_loader.h"
#include "spec/spec.h"
#include "partition/knobs.h"

namespace ream::analysis {
namespace {

// The builtins and a throwaway knob, "widget_limit", limiting a resource "widgets".
KnobTable WithWidgets() {
  KnobTable t = BuiltinKnobs();
  t.AddResource({.name = "widgets", .unit = "widgets", .json_field = "widgets", .label_prefix = "w="});
  t.Add({.key = "widget_limit", .flag = "--widget-limit", .help = "How many widgets the workload may use",
         .parse = [](std::string_view text, std::string_view what) -> Result<KnobValue> {
           if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
             return InvalidArgument(std::string(what) + ": '" + std::string(text) + "' is not a number of widgets");
           }
           return KnobValue(static_cast<int64_t>(std::stoll(std::string(text))));
         },
         .apply = [](const KnobValue&, PartitionSpec*) {},
         .resource = "widgets",
         .amount = [](const KnobValue& v) { return static_cast<double>(std::get<int64_t>(v)); }});
  return t;
}

// One sweep of an M/M/1 server with mean service time `s` seconds (p95 from the model).
RunData Sweep(double s, Partition partition) {
  RunData r;
  r.scenario = "1-ST";
  r.partition = std::move(partition);
  for (double l = 500; l <= 9000; l += 500) {
    PointData p;
    p.target_load = p.achieved_qps = p.throughput_qps = l;
    p.valid = true;
    p.timely_ratio = 1;
    QueueModel m{1, s, 50e-6};
    if (!MeanResponse(m, l)) break;  // past saturation the model has no figure (and a sweep stops)
    p.latency_mean_us = *MeanResponse(m, l) * 1e6;
    p.p95_us = *ResponsePercentile(m, l, 0.95) * 1e6;
    p.p50_us = *ResponsePercentile(m, l, 0.50) * 1e6;
    p.p99_us = *ResponsePercentile(m, l, 0.99) * 1e6;
    p.p999_us = *ResponsePercentile(m, l, 0.999) * 1e6;
    p.service_mean_us = s * 1e6;
    p.cpu_util = Metric::Of(l * s);
    r.points.push_back(p);
  }
  return r;
}

const char* kSpec = R"(name = "w"
[workload]
builtin = "kv"
[sweep]
qps = [1000]
[partitions]
widget_limit = ["2",
  "8"]
)";

TEST(KnobTable, AThrowawayKnobIsParsedListedStoredAndAnalyzed) {
  const KnobTable table = WithWidgets();

  // (1) Spec parsing: [partitions] takes it, parses its values once, and keeps text and line.
  auto spec = ParseSpec(kSpec, "x.toml", table);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->partitions.size(), 2u);
  const PartitionValues& two = spec->partitions[0];
  EXPECT_EQ(std::get<int64_t>(two.values.at("widget_limit").value), 2);
  EXPECT_EQ(spec->partitions[1].lines.at("widget_limit"), 8);
  auto bad = ParseSpec(std::string(kSpec).replace(std::string(kSpec).find("\"8\""), 3, "\"lots\""), "x.toml", table);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("x.toml:8: partitions.widget_limit = \"lots\""), std::string::npos)
      << bad.status().message();
  // The builtin table does not know it: the same spec is an unknown key there.
  EXPECT_FALSE(ParseSpec(kSpec, "x.toml").ok());

  // (2) The `ream exec` flag list.
  bool listed = false;
  for (const KnobFlag& f : ExecFlags(table)) {
    listed = listed || (f.flag == "--widget-limit" && f.help == "How many widgets the workload may use");
  }
  EXPECT_TRUE(listed);

  // (3) The stored label and knobs, and reading them back as the store loader does.
  EXPECT_EQ(two.Label(), "widget_limit=2");
  EXPECT_EQ(two.ToJson(), nlohmann::json({{"widget_limit", "2"}}));
  ExperimentData d;
  d.name = "w";
  d.runs.push_back(Sweep(100e-6, {}));
  for (const auto& pv : spec->partitions) {
    auto p = PartitionFromKnobs(pv.ToJson(), pv.Label(), table);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_FALSE(p->unlimited());
    // Two widgets make the server twice as slow; eight change nothing.
    d.runs.push_back(Sweep(pv.Label() == "widget_limit=2" ? 200e-6 : 100e-6, *p));
  }
  EXPECT_EQ(*d.runs[1].partition.Limit("widgets"), 2);

  // (4) The sensitivity analysis compares the partitions that vary it.
  AnalysisOptions o;
  o.knobs = &table;
  auto a = Analyze(d, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Sensitivity* w = nullptr;
  for (const auto& s : a->sensitivity) {
    if (s.resource == "widgets") w = &s;
  }
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->status, "sensitive") << w->explanation;
  ASSERT_EQ(w->points.size(), 3u);  // unlimited, 2 and 8 widgets
  EXPECT_EQ(w->points[1].value, "2 widgets");
  EXPECT_LT(*w->points[1].relative_change.value, -0.3);
  EXPECT_NEAR(*w->points[2].relative_change.value, 0, 0.01);
  // Without the table the analysis has no such resource.
  auto builtin = Analyze(d, {});
  ASSERT_TRUE(builtin.ok());
  for (const auto& s : builtin->sensitivity) EXPECT_NE(s.resource, "widgets");
}

}  // namespace
}  // namespace ream::analysis
