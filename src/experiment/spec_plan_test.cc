// A parsed spec as the experiment uses it: its plan (partitions, co-runner sets, the subject
// alone), a co-runner's command line and the generator's options at a level. The parsing alone
// is tested in spec/spec_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "experiment/corunners.h"
#include "experiment/load_driver.h"
#include "experiment/plan.h"
#include "experiment/preflight.h"
#include "platform/text.h"
#include "spec/spec.h"
#include "spec/spec_test_texts.h"

namespace ream {
namespace {

using spec_texts::Err;
using spec_texts::kMinimal;
using spec_texts::kStreamSpec;

TEST(SensitivitySpec, ThePlanRunsEachPartition) {
  auto r = ParseSpec(R"(name = "s"
[workload]
builtin = "synthetic"
args = ["--service", "exp:100us"]
[sweep]
qps = [1000, 2000, 3000]
[sensitivity]
knob = "cpu_quota"
values = ["100%", "50%", "25%"]
)", "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->runs.size(), 3u);
  EXPECT_EQ(plan->runs[2].partition.Label(), "cpu_quota=25%");
  EXPECT_EQ(plan->runs[2].grid_loads.size(), 3u);
}

TEST(Spec, PartitionListsExpandToTheirProductAndSetsAreExplicit) {
  auto r = ParseSpec("scenarios = [\"1-ST\", \"2-ST\"]\nrepetitions = 2\n" + std::string(kMinimal) +
                         "[partitions]\ncpu_quota = [\"50%\", \"100%\"]\nmemory = [\"256M\", \"512M\", \"1G\"]\n",
                     "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->partitions.size(), 6u);
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->runs.size(), 2u * 6u * 2u);
  EXPECT_EQ(plan->MaxPoints(), 24 * 2);
  auto only = MakePlan(*r, "2-ST");
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->runs.size(), 12u);
  EXPECT_FALSE(MakePlan(*r, "4-ST").ok());

  auto sets = ParseSpec(std::string(kMinimal) +
                            "[[partitions.set]]\ncpu_quota = \"50%\"\n[[partitions.set]]\nmemory = \"1G\"\n",
                        "x.toml");
  ASSERT_TRUE(sets.ok()) << sets.status().ToString();
  ASSERT_EQ(sets->partitions.size(), 2u);
  EXPECT_EQ(sets->partitions[0].Label(), "cpu_quota=50%");
  EXPECT_EQ(sets->partitions[1].Label(), "memory=1G");
  EXPECT_NE(Err(std::string(kMinimal) + "[partitions]\ncpu_qouta = \"50%\"\n").find("did you mean 'partitions.cpu_quota'"),
            std::string::npos);
}

TEST(SpecSessions, ParsesTheLevelsAndTheChunks) {
  auto s = ParseSpec(std::string(kStreamSpec) + "sessions = [8, 1, 24]\n", "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->sweep.axis, LoadAxis::kSessions);
  EXPECT_EQ(s->sweep.qps, (std::vector<double>{1, 8, 24}));
  EXPECT_EQ(s->workload.protocol, "http");  // the builtin's own
  EXPECT_EQ(s->load.chunk_bytes, 262144);
  EXPECT_EQ(s->load.bitrate_bps, 8'000'000);
  EXPECT_EQ(s->load.session_chunks, 4);
  auto range = ParseSpec(std::string(kStreamSpec) + "start = 2\nstop = 24\nsteps = 4\n", "s.toml");
  ASSERT_TRUE(range.ok()) << range.status().message();
  EXPECT_EQ(range->sweep.qps, (std::vector<double>{2, 9, 17, 24}));
  // The generator's options at a level: sessions, one connection each, the schedule's rate.
  LoadOptions lo = LevelLoadOptions(*s, 8, 1, "10.0.0.2", 8080);
  EXPECT_EQ(lo.session.sessions, 8);
  EXPECT_EQ(lo.connections, 8);
  EXPECT_EQ(lo.session.chunk_bytes, 262144u);
  EXPECT_NEAR(lo.qps, 8 * 8e6 / (8 * 262144.0), 1e-9);
  EXPECT_TRUE(ValidateLoadOptions(lo).ok()) << ValidateLoadOptions(lo).message();
  // ... and `ream load`'s argv for them: sessions, not a rate.
  std::vector<std::string> argv = LoadArgv(lo);
  std::string line;
  for (const auto& a : argv) line += a + " ";
  EXPECT_EQ(line.find("--qps"), std::string::npos) << line;
  EXPECT_NE(line.find("--sessions 8 --session-chunks 4 --chunk-bytes 262144 --bitrate 8000000bit"), std::string::npos)
      << line;
}

// A preset's sizes and a multiget reach the generator's options and `ream load`'s argv.
TEST(Spec, PresetSizesReachTheGeneratorsOptions) {
  auto etc = ParseSpec("name = \"t\"\n[workload]\ncommand = [\"memcached\", \"-p\", \"{port}\"]\n"
                       "protocol = \"memcached\"\n[load]\npreset = \"etc\"\nvalue_bytes = 100\n"
                       "multiget = \"uniform:1,8\"\n[sweep]\nqps = [1]\n",
                       "x.toml");
  ASSERT_TRUE(etc.ok()) << etc.status().ToString();
  LoadOptions lo = LevelLoadOptions(*etc, 1000, 1, "127.0.0.1", 11211);
  EXPECT_EQ(lo.codec.value_bytes, 100u);
  EXPECT_TRUE(lo.value_sizes.fixed());
  EXPECT_EQ(lo.key_sizes.name, "fb_key");
  EXPECT_EQ(lo.multiget.name, "uniform:1,8");
  EXPECT_EQ(lo.arrival.name, "fb_ia");
  EXPECT_EQ(lo.preset, "etc");
  EXPECT_TRUE(ValidateLoadOptions(lo).ok()) << ValidateLoadOptions(lo).message();
  std::string line;
  for (const auto& a : LoadArgv(lo)) line += a + " ";
  EXPECT_NE(line.find("--arrival fb_ia "), std::string::npos) << line;
  EXPECT_NE(line.find("--value-bytes 100 "), std::string::npos) << line;
  EXPECT_NE(line.find("--key-bytes fb_key --multiget uniform:1,8 --preset etc "), std::string::npos) << line;
}

TEST(Spec, CorunnersParseWithTheirKnobsAndSetsAndPlanAloneBesideEachSet) {
  std::string text = "repetitions = 2\n" + std::string(kMinimal) + R"(
[[corunner]]
name = "cache"
command = ["stress-ng", "--cache", "1"]
sched = "idle"
cpu_quota = "50%"
memory = "256M"
[[corunner]]
name = "job"
batch = "xz"
cpus = "others"
[colocation]
sets = [["cache"], ["cache", "job"]]
)";
  auto r = ParseSpec(text, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->corunners.size(), 2u);
  EXPECT_EQ(r->corunners[0].sched, SchedClass::kIdle);
  EXPECT_FALSE(r->corunners[0].restart);
  EXPECT_EQ(r->corunners[0].partition.Label(), "cpu_quota=50%,memory=256M");
  EXPECT_EQ(r->corunners[0].cpus, "subject");
  EXPECT_TRUE(r->corunners[1].restart);  // a batch program runs again by default
  EXPECT_EQ(r->corunners[1].cpus, "others");
  ASSERT_EQ(r->colocation.sets.size(), 2u);
  EXPECT_EQ(r->colocation.Label(1), "cache+job");
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> order;
  for (const auto& run : plan->runs) order.push_back(run.corunner_set + "/" + std::to_string(run.repetition));
  EXPECT_EQ(order, (std::vector<std::string>{"/0", "cache/0", "cache+job/0", "/1", "cache/1", "cache+job/1"}));
}

TEST(Spec, PressureCorunnerRunsReamPressureUntilStoppedAndWaitsForItsReadyLine) {
  std::string text = std::string(kMinimal) + R"(
[[corunner]]
name = "bubble"
pressure = "llc"
intensity = 75
)";
  auto r = ParseSpec(text, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->corunners.size(), 1u);
  const CorunnerSpec& c = r->corunners[0];
  EXPECT_EQ(c.pressure, "llc");
  EXPECT_DOUBLE_EQ(c.intensity, 75);
  EXPECT_FALSE(c.restart);
  EXPECT_EQ(c.ready_line, "pressure ready");
  std::vector<std::string> argv = CorunnerArgv(c, "/bin/ream");
  std::vector<std::string> tail(std::find(argv.begin(), argv.end(), "--") + 1, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"/bin/ream", "pressure", "llc", "--intensity", "75"}));
  EXPECT_EQ(r->ToJson()["corunners"][0]["pressure"], "llc");
  EXPECT_EQ(r->ToJson()["corunners"][0]["intensity"], 75.0);
  // A ready line given in the spec wins.
  auto own = ParseSpec(text + "ready_line = \"go\"\n", "x.toml");
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_EQ(own->corunners[0].ready_line, "go");
}

TEST(Spec, InterferenceMakesOneSetPerSourceAndIntensityBesideTheSpecsOwnSetsAndTheSubjectAlone) {
  std::string text = std::string(kMinimal) + R"(
[[corunner]]
name = "job"
command = ["sleep", "100"]

[interference]
sources = ["cpu", "llc"]
intensities = [0, 100, 50]
sched = "idle"
load = 4000
)";
  auto r = ParseSpec(text, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->interference.intensities, (std::vector<double>{50, 100}));  // 0 is the subject alone
  ASSERT_EQ(r->corunners.size(), 5u);
  const CorunnerSpec& c = r->corunners[4];
  EXPECT_EQ(c.name, "llc@100");
  EXPECT_EQ(c.pressure, "llc");
  EXPECT_DOUBLE_EQ(c.intensity, 100);
  EXPECT_EQ(c.sched, SchedClass::kIdle);
  EXPECT_EQ(c.cpus, "subject");
  EXPECT_EQ(c.ready_line, "pressure ready");
  EXPECT_TRUE(c.interference);
  EXPECT_DOUBLE_EQ(c.interference_load, 4000);
  std::vector<std::string> labels;
  for (size_t i = 0; i < r->colocation.sets.size(); ++i) labels.push_back(r->colocation.Label(i));
  EXPECT_EQ(labels, (std::vector<std::string>{"job", "cpu@50", "cpu@100", "llc@50", "llc@100"}));
  EXPECT_TRUE(r->colocation.alone);
  EXPECT_EQ(r->ToJson()["corunners"][4]["interference_load"], 4000.0);
  // Every set alternates with the subject alone in each repetition.
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->runs.size(), 6u);
  EXPECT_EQ(plan->runs[0].corunner_set, "");
  // Default intensities: 25, 50, 75 and 100 %.
  auto d = ParseSpec(std::string(kMinimal) + "[interference]\nsources = [\"mem_bw\"]\n", "x.toml");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->interference.intensities, (std::vector<double>{25, 50, 75, 100}));
  EXPECT_EQ(d->corunners.size(), 4u);
}

TEST(Spec, ACorunnerUnderALoadOfItsOwnIsABuiltinOrACommandServingOnItsPort) {
  const std::string base = std::string(kMinimal);
  auto r = ParseSpec(base + R"([[corunner]]
name = "kv2"
builtin = "kv"
args = ["--records", "1000"]
[corunner.load]
qps = 5000
connections = 2
[[corunner]]
name = "mc"
command = ["memcached", "-p", "{port}"]
[corunner.load]
qps = 3000
protocol = "memcached"
)",
                     "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->corunners.size(), 2u);
  ASSERT_TRUE(r->corunners[0].load.has_value());
  EXPECT_EQ(r->corunners[0].load->protocol, "ream");  // the builtin's own
  EXPECT_EQ(r->corunners[0].load->connections, 2);
  EXPECT_EQ(r->corunners[1].load->protocol, "memcached");
  // The subject's generator shares its CPUs with the co-runners' and yields, unless told.
  EXPECT_EQ(r->load.wait, "yield");
  auto told = ParseSpec(base + "[load]\nwait = \"sleep\"\n[[corunner]]\nname = \"k\"\nbuiltin = \"kv\"\n"
                                "[corunner.load]\nqps = 10\n",
                        "x.toml");
  ASSERT_TRUE(told.ok()) << told.status().ToString();
  EXPECT_EQ(told->load.wait, "sleep");
  // The builtin's argv, and a command's "{port}" filled in.
  EXPECT_EQ(Join(CorunnerArgv(r->corunners[0], "/r", 0, 1)),
            "/r corun --sched normal -- /r serve kv --port 0 --threads 1 --records 1000");
  EXPECT_EQ(Join(CorunnerArgv(r->corunners[1], "/r", 4242)), "/r corun --sched normal -- memcached -p 4242");
}

using spec_texts::kBatch;

TEST(SpecBatch, ABatchSubjectTakesCopiesAsItsLoadAxis) {
  auto r = ParseSpec(kBatch, "x.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->workload.batch, "xz");
  EXPECT_DOUBLE_EQ(r->workload.batch_seconds, 2);
  EXPECT_EQ(r->sweep.axis, LoadAxis::kCopies);
  EXPECT_EQ(r->sweep.qps, (std::vector<double>{1, 2}));  // sorted
  EXPECT_EQ(r->load.duration, std::chrono::milliseconds(6000));
  EXPECT_EQ(r->partitions.size(), 2u);
  EXPECT_EQ(r->ToJson()["workload"]["batch"], "xz");
  EXPECT_EQ(r->ToJson()["sweep"]["axis"], "copies");
  auto plan = MakePlan(*r, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->axis, LoadAxis::kCopies);
  ASSERT_EQ(plan->runs.size(), 2u);
  EXPECT_EQ(plan->runs[0].grid_loads, (std::vector<double>{1, 2}));
}

}  // namespace
}  // namespace ream
