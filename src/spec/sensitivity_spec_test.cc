// [sensitivity] and [model] of the experiment spec: a sweep of one knob expands into one
// partition per value (the other knobs at the base), parsed by the knob's own parser (the plan
// that runs each: experiment/spec_plan_test.cc); an unknown knob or a bad value is refused
// naming it.
#include <gtest/gtest.h>

#include "spec/spec.h"
#include "partition/knobs.h"

namespace ream {
namespace {

const std::string kHead = R"(name = "s"
[workload]
builtin = "synthetic"
args = ["--service", "exp:100us"]
[sweep]
qps = [1000, 2000, 3000]
)";

std::string SensitivityErr(const std::string& text, const KnobTable& knobs = BuiltinKnobs()) {
  auto r = ParseSpec(text, "x.toml", knobs);
  EXPECT_FALSE(r.ok()) << "spec was accepted:\n" << text;
  return r.ok() ? "" : r.status().message();
}

// The builtins and a throwaway knob "gadget_delay" (a duration in µs), standing for a knob of
// another table (the LogGP knobs, until they are in the builtin table).
KnobTable WithGadget() {
  KnobTable t = BuiltinKnobs();
  t.AddResource({.name = "gadget_delay", .unit = "us", .lower_is_tighter = false, .json_field = "gadget_us"});
  t.Add({.key = "gadget_delay", .flag = "--gadget-delay", .help = "A made-up delay",
         .parse = [](std::string_view text, std::string_view what) -> Result<KnobValue> {
           std::string s(text);
           if (s.size() < 3 || s.substr(s.size() - 2) != "us" ||
               s.find_first_not_of("0123456789") != s.size() - 2) {
             return InvalidArgument(std::string(what) + ": '" + s + "' is not a delay in us");
           }
           return KnobValue(static_cast<int64_t>(std::stoll(s)));
         },
         .apply = [](const KnobValue&, PartitionSpec*) {},
         .resource = "gadget_delay",
         .amount = [](const KnobValue& v) { return static_cast<double>(std::get<int64_t>(v)); }});
  return t;
}

TEST(SensitivitySpec, ExpandsIntoOnePartitionPerValue) {
  auto r = ParseSpec(kHead + R"([sensitivity]
knob = "cpu_quota"
values = ["100%", "50%", "25%"]
)", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->partitions.size(), 3u);
  EXPECT_EQ(r->partitions[0].Label(), "cpu_quota=100%");
  EXPECT_EQ(r->partitions[1].Label(), "cpu_quota=50%");
  // Parsed once, by the knob's parser: 50 % is half a CPU.
  EXPECT_DOUBLE_EQ(std::get<double>(r->partitions[1].values.at("cpu_quota").value), 0.5);
  EXPECT_EQ(r->partitions[2].lines.at("cpu_quota"), 9);
  ASSERT_EQ(r->sensitivity.size(), 1u);
  EXPECT_EQ(r->sensitivity[0].knob, "cpu_quota");
  EXPECT_EQ(r->ToJson()["sensitivity"][0]["values"][2], "25%");
}

TEST(SensitivitySpec, TheOtherKnobsKeepTheBaseAndSeveralTablesAddUp) {
  auto r = ParseSpec(kHead + R"([partitions]
memory = "1G"
[[sensitivity]]
knob = "cpu_quota"
values = ["100%", "50%"]
[[sensitivity]]
knob = "gadget_delay"
values = ["0us", "5us", "20us"]
)", "x.toml", WithGadget());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->partitions.size(), 5u);
  EXPECT_EQ(r->partitions[0].Label(), "cpu_quota=100%,memory=1G");
  EXPECT_EQ(r->partitions[3].Label(), "gadget_delay=5us,memory=1G");
  EXPECT_EQ(std::get<int64_t>(r->partitions[4].values.at("gadget_delay").value), 20);
  EXPECT_EQ(std::get<int64_t>(r->partitions[4].values.at("memory").value), int64_t{1} << 30);
}

TEST(SensitivitySpec, RefusesAnUnknownKnobABadValueAndAKnobTheBaseSets) {
  std::string e = SensitivityErr(kHead + "[sensitivity]\nknob = \"net_wizardry\"\nvalues = [\"1\"]\n");
  EXPECT_NE(e.find("x.toml:8: sensitivity.knob is \"net_wizardry\": no such knob"), std::string::npos) << e;
  EXPECT_NE(e.find("cpu_quota"), std::string::npos) << e;  // the known ones are listed
  e = SensitivityErr(kHead + "[sensitivity]\nknob = \"gadget_delay\"\nvalues = [\"5us\",\n \"lots\"]\n", WithGadget());
  EXPECT_NE(e.find("x.toml:10: sensitivity.values = \"lots\" (knob gadget_delay)"), std::string::npos) << e;
  EXPECT_NE(e.find("not a delay in us"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[sensitivity]\nknob = \"memory\"\nvalues = [\"lots\"]\n");
  EXPECT_NE(e.find("sensitivity.values = \"lots\" (knob memory)"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[sensitivity]\nknob = \"cpu_quota\"\nvalues = []\n");
  EXPECT_NE(e.find("sensitivity.values must be a non-empty array"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[sensitivity]\nknob = \"cpu_quota\"\nvalues = [\"50%\", \"50%\"]\n");
  EXPECT_NE(e.find("lists \"50%\" twice"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[sensitivity]\nvalues = [\"50%\"]\n");
  EXPECT_NE(e.find("needs 'knob'"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[partitions]\ncpu_quota = \"50%\"\n[sensitivity]\nknob = \"cpu_quota\"\nvalues = [\"10%\"]\n");
  EXPECT_NE(e.find("partitions.cpu_quota is also the knob [sensitivity]"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[sensitivity]\nknob = \"cpu_quota\"\nvalues = [\"50%\"]\nstep = 2\n");
  EXPECT_NE(e.find("sensitivity.step"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[[sensitivity]]\nknob = \"cpu_quota\"\nvalues = [\"50%\"]\n[[sensitivity]]\nknob = "
                  "\"cpu_quota\"\nvalues = [\"50%\"]\n");
  EXPECT_NE(e.find("makes partition cpu_quota=50% twice"), std::string::npos) << e;
}

TEST(ModelSpec, DefaultsRangeMessagesAndTheServiceScvFromTheWorkloadArgs) {
  auto r = ParseSpec(kHead, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->model.messages_per_op, 2);
  EXPECT_DOUBLE_EQ(r->model.range_low, 0.10);
  EXPECT_DOUBLE_EQ(r->model.range_high, 0.70);
  EXPECT_FALSE(r->model.range_given);
  ASSERT_TRUE(r->model.service_scv.has_value());  // exp:100us names an exponential
  EXPECT_DOUBLE_EQ(*r->model.service_scv, 1);
  EXPECT_NE(r->model.service_scv_source.find("exp:100us"), std::string::npos);
  EXPECT_EQ(r->ToJson()["model"]["service_scv"], 1.0);

  std::string c = kHead;
  c.replace(c.find("exp:100us"), 9, "const:50us");
  auto k = ParseSpec(c + "[model]\nmessages_per_op = 2.4\nrange = [0.2, 0.6]\n", "x.toml");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_DOUBLE_EQ(*k->model.service_scv, 0);
  EXPECT_DOUBLE_EQ(k->model.messages_per_op, 2.4);
  EXPECT_DOUBLE_EQ(k->model.range_low, 0.2);
  EXPECT_TRUE(k->model.range_given);
  EXPECT_EQ(k->ToJson()["model"]["range"][1], 0.6);

  // kv names no distribution: nothing is assumed.
  std::string kv = "name = \"k\"\n[workload]\nbuiltin = \"kv\"\n[sweep]\nqps = [1000]\n";
  auto n = ParseSpec(kv, "x.toml");
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n->model.service_scv.has_value());
  auto given = ParseSpec(kv + "[model]\nservice_scv = 0.5\n", "x.toml");
  ASSERT_TRUE(given.ok());
  EXPECT_DOUBLE_EQ(*given->model.service_scv, 0.5);
  EXPECT_EQ(given->model.service_scv_source, "[model] service_scv");

  std::string e = SensitivityErr(kHead + "[model]\nrange = [0.7, 0.1]\n");
  EXPECT_NE(e.find("model.range is [0.7, 0.1]"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[model]\nrange = [0.1]\n");
  EXPECT_NE(e.find("model.range must be [low, high]"), std::string::npos) << e;
  e = SensitivityErr(kHead + "[model]\nmessages_per_opp = 2\n");
  EXPECT_NE(e.find("messages_per_op"), std::string::npos) << e;
}

}  // namespace
}  // namespace ream
