#include "campaign/campaign_units.h"

#include <gtest/gtest.h>

#include "campaign/campaign.h"
#include "campaign/slurm.h"
#include "platform/text.h"
#include "spec/spec_test_texts.h"

namespace ream {
namespace {

// A subject alone and beside two sets, at two partitions, twice: each unit is one repetition at
// one partition with its alone run and both sets, three plan positions in a row.
TEST(CampaignUnits, ARunStaysWithItsSetsAndAloneMeasurement) {
  const std::string text = "repetitions = 2\n" + std::string(spec_texts::kMinimal) + R"(
[partitions]
cpu_quota = ["100%", "50%"]
[[corunner]]
name = "cache"
command = ["stress-ng", "--cache", "1"]
[[corunner]]
name = "job"
batch = "xz"
[colocation]
sets = [["cache"], ["cache", "job"]]
)";
  auto kv = ParseSpec(text, "kv.toml");
  ASSERT_TRUE(kv.ok()) << kv.status().message();
  std::string other_text = text;
  other_text.replace(other_text.find("name = \"t\""), 10, "name = \"other\"");
  auto other = ParseSpec(other_text, "other.toml");
  auto units = SplitIntoUnits({*kv});
  ASSERT_TRUE(units.ok()) << units.status().message();
  ASSERT_EQ(units->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const CampaignUnit& u = (*units)[i];
    EXPECT_EQ(u.index, i);
    EXPECT_EQ(u.ordinals, (std::vector<int>{3 * i, 3 * i + 1, 3 * i + 2}));
    EXPECT_EQ(u.sets, (std::vector<std::string>{"", "cache", "cache+job"}));
    EXPECT_EQ(u.repetition, i % 2);
  }
  EXPECT_EQ((*units)[0].partition_label, (*units)[1].partition_label);
  EXPECT_NE((*units)[0].partition_label, (*units)[2].partition_label);
  EXPECT_EQ((*units)[3].Label(), (*kv).name + ": " + (*units)[3].scenario + " / " + (*units)[3].partition_label +
                                     " / repetition 1");
  // The manifest's form reads back as it was written.
  auto back = CampaignUnit::FromJson((*units)[3].ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToJson(), (*units)[3].ToJson());

  // Across specs the indices go on; one name twice is refused.
  ASSERT_TRUE(other.ok()) << other.status().message();
  auto both = SplitIntoUnits({*kv, *other});
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->size(), 8u);
  EXPECT_EQ((*both)[5].index, 5);
  EXPECT_EQ((*both)[5].spec, 1);
  EXPECT_EQ((*both)[5].ordinals.front(), 3);
  auto twice = SplitIntoUnits({*kv, *kv});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("experiment name '" + kv->name + "' is also another spec's"),
            std::string::npos);
}

// The quiet-host gate fails a unit on a host whose most stalled CPU exceeds the limit, naming
// that CPU, the figure and the host to exclude.
TEST(QuietHost, AHostStalledBeyondTheLimitIsNoisy) {
  TimingFloor floor;
  floor.duration_ns = 300'000'000;
  floor.tolerance_ns = 20'000;
  floor.cpus = {{0, 0.001, 0.002, 3, 50'000}, {1, 0.04, 0.05, 40, 900'000}};
  Status noisy = QuietHostVerdict(floor, 0.01, "node7", "/c");
  EXPECT_EQ(noisy.code(), StatusCode::kUnavailable);
  EXPECT_NE(noisy.message().find("host node7 is noisy: CPU 1 was stalled 5.00 % of 0.3 s (gaps over 20 us; the "
                                 "campaign allows 1.00 %); run the unit elsewhere: ream campaign resume /c "
                                 "--exclude-host node7"),
            std::string::npos)
      << noisy.message();
  EXPECT_TRUE(QuietHostVerdict(floor, 0.05, "node7", "/c").ok());
}

// The command lines ream gives Slurm, and what it reads back, on text Slurm 22.05 printed.
TEST(Slurm, CommandLinesAndTheirAnswers) {
  SlurmSubmitOptions o;
  o.partition = "ream";
  o.max_parallel = 1;
  o.exclude = {"node3", "node4"};
  EXPECT_EQ(Join(SbatchArrayArgv("/c", "ream-abc", {0, 1, 2, 3}, o)),
            "sbatch --parsable --job-name=ream-abc --array=0-3%1 --exclusive --partition=ream "
            "--exclude=node3,node4 --output=/c/units/%a/slurm.out --open-mode=append --chdir=/c /c/unit.sh");
  EXPECT_EQ(Join(SbatchArrayArgv("/c", "r", {2, 5}, {})),
            "sbatch --parsable --job-name=r --array=2,5 --exclusive --output=/c/units/%a/slurm.out "
            "--open-mode=append --chdir=/c /c/unit.sh");
  EXPECT_EQ(Join(SbatchMergeArgv("/c", "r-merge", "41", {})),
            "sbatch --parsable --job-name=r-merge --dependency=afterany:41 --output=/c/merge.out "
            "--open-mode=append --chdir=/c /c/merge.sh");
  EXPECT_EQ(ParseSbatchParsable("123\n").value_or(""), "123");
  EXPECT_EQ(ParseSbatchParsable("124;reamlocal\n").value_or(""), "124");
  EXPECT_FALSE(ParseSbatchParsable("sbatch: error: Batch job submission failed\n").ok());

  auto q = ParseSqueue("1_1|PENDING|JobArrayTaskLimit|\n1_0|RUNNING|None|reamnode\n2|PENDING|Dependency|\n");
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q["1_1"].reason, "JobArrayTaskLimit");
  EXPECT_EQ(q["1_0"].state, "RUNNING");
  EXPECT_EQ(q["1_0"].node, "reamnode");
  EXPECT_EQ(q["2"].reason, "Dependency");

  auto job = ParseScontrolJob(
      "JobId=4 ArrayJobId=1 ArrayTaskId=1 ArrayTaskThrottle=1 JobName=ream-x UserId=root(0) GroupId=root(0) "
      "MCS_label=N/A Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=CANCELLED Reason=None "
      "Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15 RunTime=00:00:01 "
      "NodeList=reamnode\n");
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->id, "1_1");
  EXPECT_EQ(job->state, "CANCELLED");
  EXPECT_EQ(job->exit_code, "0:15");
  EXPECT_EQ(job->node, "reamnode");
  EXPECT_TRUE(SlurmStateFailed(job->state));
  EXPECT_FALSE(SlurmStateFailed("COMPLETED"));
  EXPECT_FALSE(ParseScontrolJob("Job 1_3 not found\n").has_value());
  EXPECT_EQ(Join(SqueueArgv({"1", "2"})), "squeue -h -r -j 1,2 -o %i|%T|%r|%N");
}

}  // namespace
}  // namespace ream
