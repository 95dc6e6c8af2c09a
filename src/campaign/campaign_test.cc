// A campaign's units run through the real runner with a fake load (experiment/fake_load_driver.h)
// and the null sandbox: what each unit stores, the quiet-host gate, status, and the merge.
#include "campaign/campaign.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "experiment/fake_load_driver.h"
#include "experiment/runner.h"
#include "platform/test_directory.h"
#include "sandbox/null_sandbox.h"
#include "spec/spec.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace ream {
namespace {

class CampaignTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::FreshTestDirectory("ream-campaign-test");
    platform_ = MakePosixPlatform();
    kind_ = MakeNullSandboxKind(*platform_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A spec whose workload is a shell that says it is ready and sleeps.
  ExperimentSpec Spec(const std::string& sweep, const std::string& extra = "") {
    std::string text = FakeExperimentText(sweep, extra);
    auto spec = ParseSpec(text, "fake.toml");
    EXPECT_TRUE(spec.ok()) << spec.status().message();
    return spec.ok() ? *spec : ExperimentSpec{};
  }
  RunnerOptions Options(FakeLoadDriver& driver) {
    RunnerOptions o;
    o.db_path = (dir_ / "results.db").string();
    o.state_dir = (dir_ / "state").string();
    o.out = &console_;
    o.sandbox_kind = kind_.get();
    o.load_driver = &driver;
    o.ream_version = "test";
    return o;
  }
  Result<std::vector<RunOutcome>> Run(const ExperimentSpec& spec, FakeLoadDriver& driver) {
    return RunExperiments(*platform_, {spec}, Options(driver));
  }

  std::filesystem::path dir_;
  std::unique_ptr<Platform> platform_;
  std::unique_ptr<SandboxKind> kind_;
  std::ostringstream console_;
};

// What a database holds, ids and times aside: each experiment's name and spec, each run's key,
// plan position and status, each point's level and attempt.
std::vector<std::string> Keys(const std::string& db_path) {
  auto db = sql::Database::Open(db_path, false, true);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return {};
  auto st = db->Prepare(
      "SELECT json_array(e.name, e.spec_hash, r.scenario, r.partition_label, r.repetition, r.tenants, r.ordinal, "
      "r.status, p.target_load, p.attempt, p.valid) FROM points p JOIN runs r ON r.id = p.run_id "
      "JOIN experiments e ON e.id = r.experiment_id ORDER BY 1");
  EXPECT_TRUE(st.ok());
  std::vector<std::string> keys;
  while (st.ok() && st->Step().value_or(false)) keys.push_back(st->Text(0));
  return keys;
}

// A campaign's units, each run into a database of its own and then merged, hold what one run
// of the whole spec holds: the same experiment, runs at the same plan positions, the same points.
TEST_F(CampaignTest, ItsUnitsMergeIntoWhatOneRunOfTheWholeSpecStores) {
  ExperimentSpec spec = Spec("qps = [100, 200]", "repetitions = 3\n");
  const std::string file = (dir_ / "fake.toml").string();
  ASSERT_TRUE(platform_->WriteFile(file, spec.text).ok());
  CampaignOptions options;
  options.max_stall_fraction = 1.0;  // measured and stored; no host stalls all the time
  auto c = CreateCampaign(*platform_, (dir_ / "campaign").string(), {file}, "/usr/bin/ream", options);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->units.size(), 3u);
  FakeLoadDriver driver([](double qps, int) { return FakeAnswer{100 + qps / 10, true}; });
  RunnerOptions base = Options(driver);  // RunUnit sets each unit's database
  base.provenance = {{"slurm", {{"job_id", "77"}}}};
  for (int i : {2, 0, 1}) ASSERT_TRUE(RunUnit(*platform_, *c, i, base).ok()) << i << ": " << console_.str();
  {
    // A unit's database: its run only, at its place in the plan; the experiment partial.
    auto unit = Store::OpenReadOnly(c->UnitDir(2) + "/unit.db");
    ASSERT_TRUE(unit.ok()) << unit.status().message();
    auto e = unit->FindExperiment("fake");
    ASSERT_TRUE(e.ok() && e->has_value());
    EXPECT_EQ((*e)->status, ExperimentStatus::kPartial);
    EXPECT_NE((*e)->failure.find("campaign unit 2 of 3 (fake: 1-ST / default / repetition 2)"), std::string::npos)
        << (*e)->failure;
    auto runs = unit->ListRuns((*e)->id);
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ((*runs)[0].ordinal, 2);
    EXPECT_EQ((*runs)[0].key.repetition, 2);
    EXPECT_FALSE((*runs)[0].host.empty());
    EXPECT_EQ((*runs)[0].provenance["unit"]["index"], 2);
    EXPECT_EQ((*runs)[0].provenance["slurm"]["job_id"], "77");
    EXPECT_EQ((*runs)[0].provenance["campaign"], c->id);
    EXPECT_EQ((*runs)[0].provenance["host"], (*runs)[0].host);
  }
  // The quiet-host gate measured every CPU before the unit ran.
  auto result = platform_->ReadFile(c->UnitDir(1) + "/result.json");
  ASSERT_TRUE(result.ok());
  const auto quiet = nlohmann::json::parse(*result)["quiet"];
  EXPECT_EQ(quiet["max_stall_fraction"], 1.0) << quiet.dump();
  EXPECT_FALSE(quiet["cpus"].empty()) << quiet.dump();
  // A unit with a result is not measured again.
  const size_t measured = driver.seen.size();
  ASSERT_TRUE(RunUnit(*platform_, *c, 0, base).ok());
  EXPECT_EQ(driver.seen.size(), measured);
  auto states = CampaignStatus(*platform_, *c, nullptr);
  ASSERT_TRUE(states.ok()) << states.status().message();
  for (const auto& s : *states) EXPECT_EQ(s.state, "done") << s.index << " " << s.why;
  EXPECT_EQ(CampaignProgress(*states), "3/3 done, 0 running, 0 pending, 0 failed");

  auto merged = MergeCampaign(*platform_, *c);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->runs_added, 3);
  FakeLoadDriver whole([](double qps, int) { return FakeAnswer{100 + qps / 10, true}; });
  ASSERT_TRUE(Run(spec, whole).ok());
  const auto local = Keys((dir_ / "results.db").string());
  EXPECT_EQ(local.size(), 6u);
  EXPECT_EQ(Keys(c->dir + "/merged.db"), local);
  auto store = Store::OpenReadOnly(c->dir + "/merged.db");
  ASSERT_TRUE(store.ok());
  auto e = store->FindExperiment("fake");
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->status, ExperimentStatus::kComplete) << (*e)->failure;
  // Merging again adds nothing.
  auto again = MergeCampaign(*platform_, *c);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->runs_added, 0);
}

}  // namespace
}  // namespace ream
