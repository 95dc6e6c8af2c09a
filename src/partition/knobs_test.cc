#include "partition/knobs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>

namespace ream {
namespace {

TEST(Knobs, EveryBuiltinKnobParsesAppliesAndNamesItsSupportRow) {
  const KnobTable& t = BuiltinKnobs();
  std::set<std::string> rows;
  for (const auto& r : t.support_rows()) rows.insert(r.flag);
  for (const auto& k : t.knobs()) {
    ASSERT_TRUE(k.parse && k.apply) << k.key;
    if (!k.support.empty()) {
      EXPECT_TRUE(rows.count(k.support)) << k.key << " names row " << k.support;
    }
    if (!k.resource.empty()) {
      EXPECT_NE(t.FindResource(k.resource), nullptr) << k.key;
      EXPECT_TRUE(k.amount) << k.key;
    }
  }
  EXPECT_EQ(t.SpecKeys(), (std::vector<std::string>{"cpu_quota", "memory", "disk_read_bps", "disk_write_bps",
                                                    "disk_read_iops", "disk_write_iops", "disk_device",
                                                    "net_rate", "llc_ways", "mem_bw", "net_latency",
                                                    "net_overhead", "net_gap", "net_per_byte"}));
}

TEST(Knobs, ParsedValuesLandInThePartitionSpecAndTheAnalysisAmounts) {
  const KnobTable& t = BuiltinKnobs();
  PartitionSpec s;
  auto apply = [&](const char* key, const char* text) {
    const Knob* k = t.Find(key);
    ASSERT_NE(k, nullptr) << key;
    auto v = k->parse(text, key);
    ASSERT_TRUE(v.ok()) << key << ": " << v.status().ToString();
    k->apply(*v, &s);
  };
  apply("cpu_quota", "50%");
  apply("memory", "512M");
  apply("net_rate", "100mbit");
  apply("llc_ways", "4");
  apply("mem_bw", "50%");
  apply("disk_read_iops", "100");
  EXPECT_DOUBLE_EQ(*s.cpu_quota, 0.5);
  EXPECT_EQ(*s.memory_bytes, 512 << 20);
  EXPECT_EQ(*s.net_rate_bps, 100000000);
  EXPECT_EQ(*s.llc_ways, 4);
  EXPECT_DOUBLE_EQ(*s.mem_bw_fraction, 0.5);
  EXPECT_EQ(*s.disk_read_iops, 100);
  EXPECT_DOUBLE_EQ(t.Find("net_rate")->amount(*t.Find("net_rate")->parse("100mbit", "")), 12.5e6);
  EXPECT_DOUBLE_EQ(t.Find("mem_bw")->amount(*t.Find("mem_bw")->parse("50%", "")), 50);
  EXPECT_TRUE(t.Find("net_rate")->needs_node);
  EXPECT_FALSE(t.Find("llc_ways")->parse("four", "llc_ways").ok());
  EXPECT_FALSE(t.Find("disk_read_iops")->parse("0", "x").ok());
}

TEST(Knobs, MemBwIsAPercentageOrAnAmountInMBps) {
  const KnobTable& t = BuiltinKnobs();
  const Knob* k = t.Find("mem_bw");
  ASSERT_NE(k, nullptr);
  PartitionSpec s;
  auto v = k->parse("4000MBps", "mem_bw");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  k->apply(*v, &s);
  EXPECT_EQ(*s.mem_bw_mbps, 4000);
  EXPECT_FALSE(s.mem_bw_fraction.has_value());
  EXPECT_FALSE(k->has_amount(*v));  // no amount in percent: the analysis shows its text
  EXPECT_TRUE(k->has_amount(*k->parse("50%", "mem_bw")));
  EXPECT_EQ(std::get<int64_t>(*k->parse("250 MB/s", "mem_bw")), 250);
  auto bad = k->parse("-5MBps", "mem_bw");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("MB/s"), std::string::npos);
  EXPECT_FALSE(k->parse("fast", "mem_bw").ok());
  // Through the flags, as `ream exec --mem-bw 4000MBps`.
  PartitionSpec f;
  ASSERT_TRUE(ApplyFlagTexts(t, {{"mem_bw", "4000MBps"}}, &f).ok());
  EXPECT_EQ(*f.mem_bw_mbps, 4000);
  EXPECT_TRUE(f.Validate().ok());
  f.mem_bw_fraction = 0.5;
  EXPECT_NE(f.Validate().message().find("not both"), std::string::npos);
}

TEST(Knobs, ExecFlagsListEveryFlagAndATestKnobAddedToACopy) {
  KnobTable t = BuiltinKnobs();
  size_t builtin = ExecFlags(t).size();
  EXPECT_EQ(ExecFlags(t).front().flag, "--cpu-quota");
  t.Add({.key = "test_knob", .flag = "--test-knob", .help = "a throwaway knob",
         .parse = [](std::string_view text, std::string_view) -> Result<KnobValue> {
           return KnobValue(static_cast<int64_t>(text.size()));
         },
         .apply = [](const KnobValue& v, PartitionSpec* s) { s->llc_ways = static_cast<int>(std::get<int64_t>(v)); }});
  auto flags = ExecFlags(t);
  ASSERT_EQ(flags.size(), builtin + 1);
  EXPECT_EQ(flags.back().flag, "--test-knob");
  EXPECT_EQ(flags.back().help, "a throwaway knob");
  EXPECT_EQ(ExecFlags(BuiltinKnobs()).size(), builtin);  // the copy, not the builtins, grew

  PartitionSpec s;
  ASSERT_TRUE(ApplyFlagTexts(t, {{"test_knob", "abc"}, {"memory", "1G"}, {"cpu_quota", ""}}, &s).ok());
  EXPECT_EQ(*s.llc_ways, 3);
  EXPECT_EQ(*s.memory_bytes, int64_t{1} << 30);
  EXPECT_FALSE(s.cpu_quota.has_value());  // an empty text is an unset flag
  Status bad = ApplyFlagTexts(t, {{"memory", "lots"}}, &s);
  EXPECT_EQ(bad.message().rfind("--memory: ", 0), 0u) << bad.message();
  Status pct = ApplyFlagTexts(t, {{"cpu_quota", "half"}}, &s);
  EXPECT_EQ(pct.message().rfind("--cpu-quota: 'half' is not a percentage", 0), 0u) << pct.message();
}

TEST(Knobs, LogGpKnobsParseDurationsIntoThePartitionSpecAndTheirResources) {
  const KnobTable& t = BuiltinKnobs();
  PartitionSpec s;
  ASSERT_TRUE(ApplyFlagTexts(t, {{"net_latency", "200us"}, {"net_overhead", "20us"}, {"net_gap", "0"},
                                 {"net_per_byte", "8ns"}},
                             &s)
                  .ok());
  EXPECT_EQ(*s.net_latency, std::chrono::microseconds(200));
  EXPECT_EQ(*s.net_overhead, std::chrono::microseconds(20));
  EXPECT_EQ(*s.net_gap, std::chrono::nanoseconds(0));
  EXPECT_EQ(*s.net_per_byte, std::chrono::nanoseconds(8));
  EXPECT_TRUE(s.Validate().ok());
  EXPECT_TRUE(s.NeedsRelay());
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.ToJson()["net_latency_ns"], 200000);
  EXPECT_EQ(s.ToJson()["net_per_byte_ns"], 8);
  // The analysis's amounts: µs for L, o, g; ns per byte for G; more is not tighter.
  const Knob* l = t.Find("net_latency");
  EXPECT_DOUBLE_EQ(l->amount(*l->parse("200us", "")), 200);
  const Knob* g = t.Find("net_per_byte");
  EXPECT_DOUBLE_EQ(g->amount(*g->parse("8ns", "")), 8);
  for (const char* r : {"net_latency", "net_overhead", "net_gap", "net_per_byte"}) {
    const LimitedResource* res = t.FindResource(r);
    ASSERT_NE(res, nullptr) << r;
    EXPECT_FALSE(res->lower_is_tighter) << r;
    EXPECT_FALSE(res->cost_rank.has_value()) << r;
    EXPECT_EQ(t.Find(r)->resource, r);
  }
  EXPECT_EQ(t.FindResource("net_per_byte")->unit, "ns/B");
  EXPECT_EQ(t.FindResource("net_gap")->unit, "us");
  // L, g and G are the relay's; o is the workload's own (no relay row).
  EXPECT_EQ(t.Find("net_latency")->support, "relay");
  EXPECT_EQ(t.Find("net_gap")->support, "relay");
  EXPECT_EQ(t.Find("net_per_byte")->support, "relay");
  EXPECT_NE(t.Find("net_overhead")->support, "relay");
  // Only o set: the relay is not in the path; all at 0 neither.
  PartitionSpec o;
  o.net_overhead = std::chrono::microseconds(20);
  EXPECT_FALSE(o.NeedsRelay());
  PartitionSpec zero;
  ASSERT_TRUE(ApplyFlagTexts(t, {{"net_latency", "0us"}, {"net_gap", "0"}, {"net_per_byte", "0ns"}}, &zero).ok());
  EXPECT_FALSE(zero.NeedsRelay());
}

TEST(Knobs, LogGpKnobsRefuseNegativeAndMalformedValuesNamingTheKnob) {
  const KnobTable& t = BuiltinKnobs();
  PartitionSpec s;
  Status neg = ApplyFlagTexts(t, {{"net_latency", "-5us"}}, &s);
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.message().rfind("--net-latency must not be negative", 0), 0u) << neg.message();
  Status bad = ApplyFlagTexts(t, {{"net_per_byte", "fast"}}, &s);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message().rfind("--net-per-byte: ", 0), 0u) << bad.message();
  EXPECT_FALSE(t.Find("net_gap")->parse("3h", "net_gap").ok());
  // Validate names the knob too, for values that did not come through a parser.
  PartitionSpec v;
  v.net_gap = std::chrono::nanoseconds(-1);
  EXPECT_NE(v.Validate().message().find("--net-gap must not be negative"), std::string::npos);
  v.net_gap.reset();
  v.net_overhead = std::chrono::nanoseconds(-1000);
  EXPECT_NE(v.Validate().message().find("--net-overhead"), std::string::npos);
}

TEST(Knobs, LogGpSupportRowsRelayAlwaysKernelMethodsByProbe) {
  const KnobTable& t = BuiltinKnobs();
  std::map<std::string, const KnobSupportRow*> rows;
  for (const auto& r : t.support_rows()) rows[r.flag] = &r;
  ASSERT_TRUE(rows.count("relay") && rows.count("netem") && rows.count("fq") && rows.count("clsact+BPF"));
  EXPECT_EQ(rows["relay"]->probe, KnobProbe::kRelay);
  EXPECT_EQ(rows["netem"]->capabilities, std::vector<std::string>{"tc.netem"});
  EXPECT_EQ(rows["clsact+BPF"]->capabilities, (std::vector<std::string>{"tc.clsact", "tc.cls_bpf"}));
}

// Every knob either says how a manager moves it on a running tenant (a level and back, to the
// same value) or why it cannot: a [[manager.resource]] naming it gets one or the other.
TEST(Knobs, EveryKnobMovesOrSaysWhyNot) {
  const KnobTable& t = BuiltinKnobs();
  std::vector<std::string> movable;
  for (const auto& k : t.knobs()) {
    EXPECT_NE(k.moves.has_value(), !k.fixed_while_running.empty()) << k.key;
    if (k.moves) movable.push_back(k.key);
  }
  EXPECT_EQ(movable, (std::vector<std::string>{"cpu_quota", "cpu_weight", "cpu_idle", "llc_ways", "mem_bw"}));
  struct Case {
    std::string key, text;
    double level;
  };
  for (const Case& c : std::vector<Case>{{"cpu_quota", "25%", 0.25}, {"cpu_weight", "300", 300},
                                         {"cpu_idle", "idle", 0}, {"cpu_idle", "normal", 1},
                                         {"llc_ways", "3", 3}, {"mem_bw", "40%", 0.4}}) {
    const Knob* k = t.Find(c.key);
    ASSERT_TRUE(k && k->moves) << c.key;
    auto v = k->parse(c.text, c.key);
    ASSERT_TRUE(v.ok()) << v.status().message();
    auto level = k->moves->level(*v, c.key);
    ASSERT_TRUE(level.ok()) << level.status().message();
    EXPECT_DOUBLE_EQ(*level, c.level) << c.key;
    EXPECT_EQ(k->moves->text(*level), c.text) << c.key;
    EXPECT_TRUE(k->moves->value(*level) == *v) << c.key;
  }
  // mem_bw in MB/s has no level: the manager moves percentages.
  const Knob* mb = t.Find("mem_bw");
  auto mbps = mb->parse("4000MBps", "mem_bw");
  ASSERT_TRUE(mbps.ok());
  EXPECT_NE(mb->moves->level(*mbps, "mem_bw").status().message().find("percentage"), std::string::npos);
  EXPECT_FALSE(t.Find("cpu_idle")->parse("lazy", "cpu_idle").ok());
  PartitionSpec p;
  t.Find("cpu_idle")->apply(KnobValue(std::string("idle")), &p);
  EXPECT_TRUE(p.cpu_idle);
}

}  // namespace
}  // namespace ream
