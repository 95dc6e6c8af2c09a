// The runner's grid, knee, resume and skip logic, without root: the workload runs in the null
// sandbox (a plain child process), and a fake load driver answers each level from a model of
// a server, so every decision the runner takes is checked against a known curve.
#include "experiment/runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "experiment/fake_load_driver.h"
#include "experiment/load_driver.h"
#include "platform/net.h"
#include "experiment/run_events.h"
#include "spec/spec.h"
#include "experiment/sweep.h"
#include "spec/tenant_kinds.h"
#include "platform/text.h"
#include "spec/toml_section.h"
#include "experiment/workload_launch.h"
#include "load/lateness.h"
#include "platform/forwarding_platform.h"
#include "platform/test_directory.h"
#include "sandbox/null_sandbox.h"
#include "store/store.h"

namespace ream {
namespace {


class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::FreshTestDirectory("ream-runner-test");
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

  // The runner's options for this test: the null sandbox, `driver`, results.db in the test's
  // directory, the console and the events recorded.
  RunnerOptions Options(FakeLoadDriver& driver) {
    RunnerOptions o;
    o.db_path = (dir_ / "results.db").string();
    o.state_dir = (dir_ / "state").string();
    o.out = &console_;
    o.observer = &both_;
    o.sandbox_kind = kind_.get();
    o.load_driver = &driver;
    o.ream_version = "test";
    o.ream_binary = ream_binary_;
    return o;
  }

  Result<std::vector<RunOutcome>> Run(const ExperimentSpec& spec, FakeLoadDriver& driver, bool resume = false,
                                      const std::string& only = "") {
    RunnerOptions o = Options(driver);
    o.resume = resume;
    o.only = only;
    return RunExperiments(*platform_, {spec}, o);
  }

  // Runs `spec` (one co-runner `name` that repeats a 0.05 s job, beside a fake load of two
  // 0.5 s points) and returns each point's figures of that co-runner, after checking they hold
  // several completions and no end: none lost to a gap between runs.
  std::vector<TenantFigures> RunRepeatingJob(const ExperimentSpec& spec, const std::string& name) {
    std::vector<TenantFigures> out;
    FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
    driver.window_ms = 500;
    auto run = Run(spec, driver);
    EXPECT_TRUE(run.ok()) << run.status().message() << console_.str();
    auto pts = Points();
    EXPECT_EQ(pts.size(), 2u);
    for (const auto& p : pts) {
      EXPECT_TRUE(p.corunners.contains(name)) << TenantFiguresToJson(p.corunners).dump();
      if (!p.corunners.contains(name)) continue;
      const TenantFigures& f = p.corunners.at(name);
      EXPECT_GE(f.completions, 4) << f.ToJson().dump();
      EXPECT_EQ(f.ended, "");
      EXPECT_TRUE(p.valid.value_or(false));
      out.push_back(f);
    }
    return out;
  }

  std::vector<PointRecord> Points() {
    auto store = Store::Open((dir_ / "results.db").string(), false);
    EXPECT_TRUE(store.ok()) << store.status().message();
    auto runs = store->ListRuns(1);
    EXPECT_TRUE(runs.ok() && !runs->empty());
    auto pts = store->ListPoints((*runs)[0].id);
    EXPECT_TRUE(pts.ok());
    return *pts;
  }

  std::filesystem::path dir_;
  std::string ream_binary_;  // "" : this test binary (no `ream relay` in it)
  std::unique_ptr<Platform> platform_;
  std::unique_ptr<SandboxKind> kind_;
  std::ostringstream console_;
  RecordingObserver events_;
  ConsoleObserver console_lines_{console_};
  FanOutObserver both_{{&events_, &console_lines_}};
};

TEST_F(RunnerTest, GridMeasuresEveryLevelOnceWithTheSpecsOptions) {
  FakeLoadDriver driver([](double qps, int) { return FakeAnswer{100 + qps / 10, true}; });
  auto out = Run(Spec("qps = [100, 200, 300]"), driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].points_stored, 3);
  EXPECT_EQ((*out)[0].points_failed, 0);
  ASSERT_EQ(driver.seen.size(), 3u);
  std::vector<double> asked;
  for (const auto& o : driver.seen) asked.push_back(o.qps);
  EXPECT_EQ(asked, (std::vector<double>{100, 200, 300}));
  // The options come from the parsed spec, once: connections, window, the workload's port.
  EXPECT_EQ(driver.seen[0].connections, 3);
  EXPECT_EQ(driver.seen[0].duration_ns, 500'000'000);
  EXPECT_EQ(driver.seen[0].warmup_ns, 10'000'000);
  EXPECT_GT(driver.seen[0].port, 0);
  EXPECT_NE(driver.seen[0].seed, driver.seen[1].seed);  // each level its own seed

  auto measured = events_.All<LevelMeasured>();
  ASSERT_EQ(measured.size(), 3u);
  EXPECT_EQ(measured[2].load, 300);
  EXPECT_EQ(measured[2].done_points, 3);
  EXPECT_EQ(measured[2].planned_points, 3);
  EXPECT_NEAR(measured[1].percentile_latency_us, 120, 120 * 0.01);
  EXPECT_EQ(events_.All<RunStarted>().size(), 1u);
  auto finished = events_.All<RunFinished>();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].status, "complete");
  auto pts = Points();
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(pts[0].target_load, 100);
  EXPECT_TRUE(pts[2].valid.value_or(false));
  // The console observer printed the progress line for each level.
  EXPECT_NE(console_.str().find("[3/3] 1-ST default rep0  300 QPS"), std::string::npos) << console_.str();
}

TEST_F(RunnerTest, GridMeasuresAnInvalidLevelAgainAndTheFirstValidAttemptStands) {
  // 200 QPS is invalid on its first measurement only.
  FakeLoadDriver driver([](double qps, int call) { return FakeAnswer{200, !(qps == 200 && call == 1)}; });
  auto out = Run(Spec("qps = [100, 200, 300]\nremeasure_invalid = 2"), driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(driver.seen.size(), 4u);
  auto again = events_.All<MeasuringAgain>();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].load, 200);
  EXPECT_EQ(again[0].attempt, 1);
  EXPECT_EQ(again[0].max_attempts, 3);
  EXPECT_EQ(again[0].why, MeasuringAgain::Why::kInvalid);
  EXPECT_NE(again[0].last_invalid_reason.find("fake"), std::string::npos);
  auto pts = Points();
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts[2].target_load, 200);
  EXPECT_EQ(pts[2].attempt, 1);
  EXPECT_TRUE(pts[2].valid.value_or(false));
}

TEST_F(RunnerTest, GridStopsAfterInvalidPointsInARowOnlyOnceOneWasValid) {
  // Invalid from 300 QPS on: past saturation after 100 and 200 were valid.
  FakeLoadDriver driver([](double qps, int) { return FakeAnswer{200, qps < 300, {}, qps >= 300}; });
  auto out = Run(Spec("qps = [100, 200, 300, 400, 500, 600]\nremeasure_invalid = 0\nstop_after_invalid = 2"),
                 driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(driver.seen.size(), 4u);  // 100, 200, 300, 400; 500 and 600 skipped
  auto stopped = events_.All<GridStopped>();
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0].invalid_streak, 2);
  EXPECT_EQ(stopped[0].levels_skipped, 2);
  EXPECT_EQ(stopped[0].signs, "throughput 80 % of the offered load (the queue grows)");
  EXPECT_NE(console_.str().find("last: throughput 80 %"), std::string::npos) << console_.str();
}

TEST_F(RunnerTest, GridTellsInvalidityFromSaturationAndDoesNotStopOnPointsThatShowNone) {
  // 300 and 400 QPS invalid with the throughput following the load and no CPU figure: the
  // host spoiled them (no lateness cause given, so they are not measured again either), not
  // saturation; 500 is valid again, 600 saturates.
  FakeLoadDriver driver([](double qps, int) {
    return FakeAnswer{200, !(qps == 300 || qps == 400 || qps == 600), {}, qps == 600};
  });
  auto out = Run(Spec("qps = [100, 200, 300, 400, 500, 600]\nremeasure_invalid = 0\nstop_after_invalid = 2"),
                 driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(driver.seen.size(), 6u);
  EXPECT_TRUE(events_.All<GridStopped>().empty());
  GridStopRule rule{2};
  EXPECT_FALSE(rule.Stop(true));
  EXPECT_FALSE(rule.Stop(false, /*saturated=*/false));
  EXPECT_FALSE(rule.Stop(false, false));
  EXPECT_EQ(rule.unsaturated_invalid, 2);
  EXPECT_FALSE(rule.Stop(false, true));
  EXPECT_FALSE(rule.Stop(false, false));  // neither counts nor resets
  EXPECT_TRUE(rule.Stop(false, true));
}

TEST_F(RunnerTest, GridMeasuresALevelTheHostSpoiledAgainUpToLoadAttempts) {
  // 200 QPS: stalls make the first two attempts late; the third is valid. The grid's own
  // remeasure_invalid is 0: [load] attempts (default 3) decides.
  FakeLoadDriver driver([](double qps, int call) {
    bool spoiled = qps == 200 && (call == 1 || call == 2);
    return FakeAnswer{200, !spoiled, LateCause::kStall};
  });
  auto out = Run(Spec("qps = [100, 200, 300]\nremeasure_invalid = 0"), driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(driver.seen.size(), 5u);
  auto again = events_.All<MeasuringAgain>();
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].why, MeasuringAgain::Why::kHost);
  EXPECT_EQ(again[0].max_attempts, 3);
  EXPECT_EQ(again[1].attempt, 2);
  EXPECT_EQ(again[0].spoiled_by, "stall 50.00 % of the requests late");
  auto pts = Points();
  ASSERT_EQ(pts.size(), 5u);
  EXPECT_EQ(pts[3].attempt, 2);
  EXPECT_TRUE(pts[3].valid.value_or(false));
  EXPECT_FALSE(pts[1].valid.value_or(true));  // every attempt is stored with its figures
  EXPECT_TRUE(events_.All<NotMeasuredAgain>().empty());
}

TEST_F(RunnerTest, GridDoesNotMeasureAgainWhatReamsOwnLoopMadeLateAndSaysWhenTheHostSpoiledEveryAttempt) {
  FakeLoadDriver driver([](double qps, int) {
    if (qps == 200) return FakeAnswer{200, false, LateCause::kBusy};
    if (qps == 300) return FakeAnswer{200, false, LateCause::kSlowSyscall};
    return FakeAnswer{200, true};
  });
  auto out = Run(Spec("qps = [100, 200, 300]\nremeasure_invalid = 0"), driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(driver.seen.size(), 5u);  // 100; 200 once; 300 three times
  auto not_again = events_.All<NotMeasuredAgain>();
  ASSERT_EQ(not_again.size(), 2u);
  EXPECT_EQ(not_again[0].load, 200);
  EXPECT_NE(not_again[0].why.find("ream's own loop's (busy 50.00 %"), std::string::npos) << not_again[0].why;
  EXPECT_EQ(not_again[1].load, 300);
  EXPECT_EQ(not_again[1].attempts, 3);
  EXPECT_NE(not_again[1].why.find("spoiled every attempt"), std::string::npos) << not_again[1].why;
  EXPECT_NE(console_.str().find("300 QPS stays invalid after 3 attempt(s)"), std::string::npos) << console_.str();
}

TEST(WhoSpoiled, OnlyLatenessTheHostCausedOnAPointWithoutSaturationIsTheHosts) {
  PointRecord p;
  p.valid = false;
  p.issued = 1000;
  p.achieved_qps = 1000;
  p.throughput_qps = 1000;
  p.invalid_reasons = {"lateness moved p95 by 20 %"};
  p.generator = {{"invalid_reasons", p.invalid_reasons},
                 {"lateness_causes",
                  {{"causes", {{"stall", {{"requests", 30}}}, {"slow_syscall", {{"requests", 10}}},
                               {"busy", {{"requests", 20}}}}}}}};
  Spoiled s = WhoSpoiled(p);
  EXPECT_EQ(s.who, Spoiler::kHost);
  EXPECT_EQ(s.why, "stall 3.00 %, slow syscall 1.00 %, busy 2.00 % of the requests late");
  p.cpu_util = 0.97;  // the same lateness at the CPU's allotment: saturation, not the host
  EXPECT_EQ(WhoSpoiled(p).who, Spoiler::kOther);
  EXPECT_EQ(SaturationSigns(p), "the CPU at 97 % of its allotment");
  p.cpu_util = 0.8;
  p.invalid_reasons.push_back("co-runner 'x' ended during the window");  // not the generator's
  EXPECT_EQ(WhoSpoiled(p).who, Spoiler::kOther);
  p.invalid_reasons.pop_back();
  p.errors = 3;
  EXPECT_EQ(WhoSpoiled(p).who, Spoiler::kOther);
  p.errors = 0;
  p.generator["lateness_causes"]["causes"]["busy"]["requests"] = 50;
  EXPECT_EQ(WhoSpoiled(p).who, Spoiler::kOwn);
  p.valid = true;
  EXPECT_EQ(WhoSpoiled(p).who, Spoiler::kOther);
}

// A point whose lateness ream's own loop caused by the causes' count is still the host's when a
// bare sender was hardly more timely at its rate here: ream lost nothing beyond the host's limit.
TEST(WhoSpoiled, WithinAPointOfTheBareSenderIsTheHosts) {
  PointRecord p;
  p.valid = false;
  p.issued = 1000;
  p.timely_ratio = 0.94;
  p.invalid_reasons = {"lateness moved p95 by 20 %"};
  p.generator = {{"invalid_reasons", p.invalid_reasons},
                 {"lateness_causes", {{"causes", {{"busy", {{"requests", 60}}}}}}},
                 {"send_floor", {{"available", true}, {"timely_ratio", 0.945}}}};
  Spoiled s = WhoSpoiled(p);
  EXPECT_EQ(s.who, Spoiler::kHost);
  EXPECT_NE(s.why.find("a bare sender 94.50 % timely"), std::string::npos) << s.why;
  p.generator["send_floor"]["timely_ratio"] = 0.99;  // the host lets a sender do better: ream's own
  EXPECT_EQ(WhoSpoiled(p).who, Spoiler::kOwn);
  p.generator["send_floor"] = {{"available", false}, {"unavailable", "the server closed a connection"}};
  EXPECT_EQ(WhoSpoiled(p).who, Spoiler::kOwn);
}

TEST(GridStopRule, CountsInvalidLevelsOnlyAfterAValidOne) {
  GridStopRule rule{2};
  EXPECT_FALSE(rule.Stop(false));  // invalid from the first level: the machine, not saturation
  EXPECT_FALSE(rule.Stop(false));
  EXPECT_FALSE(rule.Stop(true));
  EXPECT_FALSE(rule.Stop(false));
  EXPECT_FALSE(rule.Stop(true));  // a valid one resets the streak
  EXPECT_FALSE(rule.Stop(false));
  EXPECT_TRUE(rule.Stop(false));
  GridStopRule never{0};
  never.Stop(true);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(never.Stop(false));
}

TEST_F(RunnerTest, KneeFindsTheHighestLoadMeetingQos) {
  // p95 = 2 µs per QPS: the 1000 µs target is crossed at 500 QPS.
  FakeLoadDriver driver([](double qps, int) { return FakeAnswer{2 * qps, true}; });
  auto out = Run(Spec("mode = \"knee\"\nlow = 100\nhigh = 1000\nprecision = 0.05\nmax_points = 16"), driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  auto knee = events_.All<KneeEnded>();
  ASSERT_EQ(knee.size(), 1u);
  ASSERT_TRUE(knee[0].last_pass && knee[0].first_fail);
  EXPECT_LE(*knee[0].last_pass, 500);
  EXPECT_GT(*knee[0].first_fail, 500);
  EXPECT_LE(*knee[0].first_fail / *knee[0].last_pass, 1.05 + 1e-9);
  EXPECT_TRUE(knee[0].converged);
  EXPECT_TRUE(knee[0].confirmed);          // sweep.confirm is on by default
  EXPECT_EQ(knee[0].confirmations, 2);     // each end once more, both agree
  EXPECT_EQ(knee[0].points, static_cast<int>(driver.seen.size()));
  auto target = events_.All<QosTargetSet>();
  ASSERT_EQ(target.size(), 1u);
  EXPECT_EQ(target[0].target_us, 1000);
  EXPECT_TRUE(target[0].fixed_by_spec);
  auto again = events_.All<MeasuringAgain>();
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].why, MeasuringAgain::Why::kConfirm);
}

TEST_F(RunnerTest, ResumeMeasuresOnlyWhatIsMissingAndDuplicatesNothing) {
  ExperimentSpec spec = Spec("qps = [100, 200, 300, 400]");
  FakeLoadDriver first([](double qps, int) { return FakeAnswer{100 + qps / 10, true}; });
  first.cancel_after = 2;  // interrupted during the third level
  auto out = Run(spec, first);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE((*out)[0].interrupted);
  EXPECT_EQ((*out)[0].points_stored, 2);
  auto finished = events_.All<RunFinished>();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].status, "interrupted");

  events_.events.clear();
  FakeLoadDriver second([](double qps, int) { return FakeAnswer{100 + qps / 10, true}; });
  auto again = Run(spec, second, /*resume=*/true);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_FALSE((*again)[0].interrupted);
  EXPECT_EQ((*again)[0].points_stored, 2);
  EXPECT_EQ((*again)[0].points_skipped, 2);
  ASSERT_EQ(second.seen.size(), 2u);
  EXPECT_EQ(second.seen[0].qps, 300);
  auto started = events_.All<RunStarted>();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].points_already_stored, 2);
  auto pts = Points();
  ASSERT_EQ(pts.size(), 4u);
  std::map<double, int> per_level;
  for (const auto& p : pts) ++per_level[p.target_load];
  for (const auto& [q, n] : per_level) EXPECT_EQ(n, 1) << q;
  // A resumed run measures a level with the seed it would have had (its sequence number).
  EXPECT_EQ(second.seen[0].seed, 7 + 2u);
}

TEST_F(RunnerTest, ScenariosLeftOutWithOnlyAreReportedSkipped) {
  FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
  ExperimentSpec spec = Spec("qps = [100]");
  spec.scenarios = {"1-ST", "0"};
  auto out = Run(spec, driver, false, "1-ST");
  ASSERT_TRUE(out.ok()) << out.status().message();
  auto skipped = events_.All<ScenarioSkipped>();
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].scenario, "0");
  EXPECT_NE(skipped[0].reason.find("--only"), std::string::npos);
  EXPECT_EQ(driver.seen.size(), 1u);
}

TEST_F(RunnerTest, AScenarioTheMachineCannotPlaceIsSkippedAndStoredUnlessStrict) {
  FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
  ExperimentSpec spec = Spec("qps = [100]");
  spec.scenarios = {"1-ST", "512-ST"};  // no machine this runs on has 512 free cores
  auto out = Run(spec, driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(driver.seen.size(), 1u);  // 1-ST only
  auto skipped = events_.All<ScenarioSkipped>();
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].scenario, "512-ST");
  EXPECT_EQ(skipped[0].reason.rfind("not available here: ", 0), 0u) << skipped[0].reason;
  auto store = Store::Open((dir_ / "results.db").string(), false);
  ASSERT_TRUE(store.ok());
  auto runs = store->ListRuns(1);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  const RunRecord& r = (*runs)[0].key.scenario == "512-ST" ? (*runs)[0] : (*runs)[1];
  EXPECT_EQ(r.status, RunStatus::kSkipped);
  EXPECT_FALSE(r.failure.empty());
  auto e = store->GetExperiment(1);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->status, ExperimentStatus::kComplete);

  // --strict refuses the spec before anything runs; and a spec of nothing but such scenarios
  // is refused whatever the flag.
  RunnerOptions strict;
  strict.db_path = (dir_ / "strict.db").string();
  strict.strict = true;
  strict.observer = &events_;
  strict.sandbox_kind = kind_.get();
  strict.load_driver = &driver;
  spec.name = "strict";
  auto refused = RunExperiments(*platform_, {spec}, strict);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("512-ST"), std::string::npos);
  spec.name = "none";
  spec.scenarios = {"512-ST"};
  strict.strict = false;
  auto none = RunExperiments(*platform_, {spec}, strict);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no other scenario"), std::string::npos) << none.status().message();
  EXPECT_EQ(driver.seen.size(), 1u);
}

TEST_F(RunnerTest, AutoRangeNeedsTheWorkloadsCpuAndSaysWhyWithout) {
  // The null sandbox has no cgroup: the probes cannot see the CPU, so the run fails saying so
  // after one probe, and no sweep point is stored.
  FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
  auto out = Run(Spec("qps = \"auto\"\nsteps = 4\nprobe_start = 300\nprobe_duration = \"200ms\""), driver);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("needs the workload's CPU utilization"), std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find("null sandbox"), std::string::npos) << out.status().message();
  ASSERT_EQ(driver.seen.size(), 1u);
  EXPECT_EQ(driver.seen[0].qps, 300);
  EXPECT_EQ(driver.seen[0].duration_ns, 200'000'000);  // a probe's window, not the level's
  auto finished = events_.All<RunFinished>();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].status, "failed");
}

TEST_F(RunnerTest, AutoRangeOnResumeMeasuresTheLevelsChosenBefore) {
  ExperimentSpec spec = Spec("qps = \"auto\"\nsteps = 3");
  FakeLoadDriver first([](double, int) { return FakeAnswer{100, true}; });
  first.cancel_after = 0;  // interrupted at the first probe: the run exists, nothing measured
  ASSERT_TRUE(Run(spec, first).ok());
  {
    // What an earlier call chose (as AutoLevels stores it).
    auto store = Store::Open((dir_ / "results.db").string(), false);
    ASSERT_TRUE(store.ok());
    auto runs = store->ListRuns(1);
    ASSERT_TRUE(runs.ok() && runs->size() == 1u);
    RunRecord r = (*runs)[0];
    r.sweep = {{"levels", {150, 250, 350}}, {"why", "3 probe(s): chosen before"}};
    ASSERT_TRUE(store->UpdateRun(r).ok());
  }
  events_.events.clear();
  FakeLoadDriver second([](double, int) { return FakeAnswer{100, true}; });
  auto again = Run(spec, second, /*resume=*/true);
  ASSERT_TRUE(again.ok()) << again.status().message();
  std::vector<double> asked;
  for (const auto& o : second.seen) asked.push_back(o.qps);
  EXPECT_EQ(asked, (std::vector<double>{150, 250, 350}));  // no probe, the stored levels
  auto chosen = events_.All<LoadRangeChosen>();
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_TRUE(chosen[0].resumed);
}

TEST_F(RunnerTest, AutoConnectionsAreTheFewestKeepingTheTopLevelTimely) {
  FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
  driver.timely_if = [](const LoadOptions& o) { return o.connections >= 4; };
  ExperimentSpec spec = Spec("qps = [100, 200, 300]");
  spec.load.connections_auto = true;
  auto out = Run(spec, driver);
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Probes at the top level with 1, 2, 4 connections; then the grid with 4.
  std::vector<std::pair<double, int>> asked;
  for (const auto& o : driver.seen) asked.emplace_back(o.qps, o.connections);
  EXPECT_EQ(asked, (std::vector<std::pair<double, int>>{{300, 1}, {300, 2}, {300, 4}, {100, 4}, {200, 4}, {300, 4}}));
  auto chosen = events_.All<ClientsChosen>();
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen[0].connections, 4);
  EXPECT_TRUE(chosen[0].timely);
  EXPECT_EQ(Points().size(), 3u);  // the probes are not points
  auto store = Store::Open((dir_ / "results.db").string(), false);
  auto runs = store->ListRuns(1);
  EXPECT_EQ((*runs)[0].sweep["connections"], 4);
}

TEST_F(RunnerTest, AWorkloadThatNeverBecomesReadyFailsTheExperimentWithItsOutput) {
  FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
  ExperimentSpec spec = Spec("qps = [100]");
  spec.workload.command = {"sh", "-c", "echo starting up on {port}; exit 4"};
  auto out = Run(spec, driver);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("exited before becoming ready"), std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find("starting up"), std::string::npos) << out.status().message();
  EXPECT_TRUE(driver.seen.empty());
}

TEST(LoadArgv, SpellsEveryOptionSoReamLoadParsesItBack) {
  LoadOptions o;
  o.host = "::1";
  o.port = 6379;
  o.qps = 1234.5;
  o.duration_ns = 1'500'000'000;
  o.timely_tolerance_ns = 20'000;
  o.response_timeout_ns = 1'234;
  o.wait = Wait::kSpin;
  auto argv = LoadArgv(o);
  auto after = [&](const std::string& flag) {
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == flag) return argv[i + 1];
    }
    return std::string("(absent)");
  };
  EXPECT_EQ(argv[0], "load");
  EXPECT_EQ(after("--target"), "[::1]:6379");
  EXPECT_EQ(after("--qps"), "1234.5");
  EXPECT_EQ(after("--duration"), "1500ms");
  EXPECT_EQ(after("--timely-tolerance"), "20us");
  EXPECT_EQ(after("--response-timeout"), "1234ns");
  EXPECT_EQ(after("--wait"), "spin");
  EXPECT_EQ(after("--json"), "/dev/stdout");
  EXPECT_EQ(after("--send-floor"), "off");
  o.wait = Wait::kYield;
  o.send_floor = LoadOptions::SendFloorMode::kCached;
  argv = LoadArgv(o);
  EXPECT_EQ(after("--wait"), "yield");
  EXPECT_EQ(after("--send-floor"), "cached");
  // Fixed sizes spell as before (no new flags); drawn ones by their text, with the preset.
  EXPECT_EQ(after("--value-bytes"), "64");
  EXPECT_EQ(after("--key-bytes"), "(absent)");
  EXPECT_EQ(after("--multiget"), "(absent)");
  o.key_sizes = *ParseDistribution("fb_key", "k");
  o.value_sizes = *ParseDistribution("fb_value", "v");
  o.multiget = *ParseDistribution("uniform:1,8", "m");
  o.preset = "etc";
  argv = LoadArgv(o);
  EXPECT_EQ(after("--key-bytes"), "fb_key");
  EXPECT_EQ(after("--value-bytes"), "fb_value");
  EXPECT_EQ(after("--multiget"), "uniform:1,8");
  EXPECT_EQ(after("--preset"), "etc");
  EXPECT_EQ(after("--json"), "/dev/stdout");
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

TEST(WorkloadArgv, FillsPortThreadsAndCpusFromTheScenario) {
  auto spec = ParseSpec(R"(name = "m"
scenarios = ["2-ST"]
[workload]
command = ["memcached", "-p", "{port}", "-t", "{threads}", "--cpus={cpus},{cpus}"]
[sweep]
qps = [1000]
)", "m.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Prepared prep;
  prep.scenario_cpus["2-ST"] = {0, 2, 3};
  prep.partitions["default"] = PartitionSpec{};
  PlannedRun run;
  run.scenario = "2-ST";
  EXPECT_EQ(WorkloadArgv(*spec, prep, run, 11311),
            (std::vector<std::string>{"memcached", "-p", "11311", "-t", "3", "--cpus=0,2-3,0,2-3"}));
  spec->workload.threads = 1;  // a fixed thread count wins over the scenario's
  EXPECT_EQ(WorkloadArgv(*spec, prep, run, 11311)[4], "1");
}

}  // namespace
}  // namespace ream

namespace ream {
namespace {

// With all relay knobs at 0 the generator connects to the workload itself and nothing about a
// network path is stored; with L set it connects to the relay (a real `ream relay` process,
// beside the workload), every point carries the knob's method and calibration, and a
// calibration that measures nothing of the requested L (the fake driver's latency does not
// depend on the path) is a warning.
TEST_F(RunnerTest, TheRelayIsInThePathOnlyWhenARelayKnobIsSet) {
  ream_binary_ = REAM_BINARY;
  auto free_port = [] {
    auto fd = net::Listen("127.0.0.1", 0);
    return fd.ok() ? net::LocalPort(fd->get()).value_or(0) : 0;
  };
  int port = free_port();
  ASSERT_GT(port, 0);
  std::string text = "name = \"fake\"\nseed = 7\nscenarios = [\"1-ST\"]\ngenerator_cpus = \"none\"\n"
                     "[partitions]\nnet_latency = [\"0us\", \"200us\"]\n"
                     "[workload]\ncommand = [\"sh\", \"-c\", \"echo serving on {port}; exec sleep 600\"]\n"
                     "ready = \"line\"\nready_line = \"serving\"\nport = " +
                     std::to_string(port) +
                     "\n[load]\nconnections = 3\nwarmup = \"10ms\"\nduration = \"500ms\"\nresponse_timeout = \"10ms\"\n"
                     "[sweep]\nqps = [100, 200]\n[qos]\ntarget = \"1000us\"\n";
  auto spec = ParseSpec(text, "fake.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
  auto out = Run(*spec, driver);
  ASSERT_TRUE(out.ok()) << out.status().message() << console_.str();
  auto store = Store::Open((dir_ / "results.db").string(), false);
  ASSERT_TRUE(store.ok());
  auto runs = store->ListRuns(1);
  ASSERT_TRUE(runs.ok() && runs->size() == 2u);
  std::map<std::string, std::vector<PointRecord>> points;
  for (const auto& r : *runs) points[r.key.partition_label] = *store->ListPoints(r.id);
  ASSERT_EQ(points["net_latency=0us"].size(), 2u);
  ASSERT_EQ(points["net_latency=200us"].size(), 2u);
  // L = 0: two levels, both at the workload's own address, no network path stored.
  for (const auto& p : points["net_latency=0us"]) EXPECT_TRUE(p.network.is_null());
  // L = 200us: 3 calibration measurements (direct, relay at 0, relay at L); the fake adds nothing
  // to the round trip, so L reads 0, off the request, and is measured twice more (direct, then
  // at L: the calibration's attempts); then the 2 levels.
  ASSERT_EQ(driver.seen.size(), 2u + 3u + 4u + 2u);
  int run0 = (*runs)[0].key.partition_label == "net_latency=0us" ? 0 : 1;
  std::vector<LoadOptions> zero(driver.seen.begin() + (run0 == 0 ? 0 : 9), driver.seen.begin() + (run0 == 0 ? 2 : 11));
  std::vector<LoadOptions> with_l(driver.seen.begin() + (run0 == 0 ? 2 : 0), driver.seen.begin() + (run0 == 0 ? 11 : 9));
  for (const auto& o : zero) {
    EXPECT_EQ(o.host, "127.0.0.1");
    EXPECT_EQ(o.port, port);  // the workload's own: no relay
  }
  EXPECT_EQ(with_l[0].port, port);  // the calibration's direct round trip
  EXPECT_NE(with_l[1].port, port);  // the relay at 0
  EXPECT_DOUBLE_EQ(with_l[1].qps, 200);
  int relay_port = with_l[2].port;  // the relay at L, which the levels use too
  EXPECT_NE(relay_port, port);
  EXPECT_NE(relay_port, with_l[1].port);
  EXPECT_EQ(with_l[3].port, port);        // measured again: the direct round trip
  EXPECT_EQ(with_l[4].port, relay_port);  // and at L
  EXPECT_EQ(with_l[5].port, port);
  EXPECT_EQ(with_l[6].port, relay_port);
  EXPECT_EQ(with_l[7].port, relay_port);  // the levels
  EXPECT_EQ(with_l[8].port, relay_port);
  for (const auto& p : points["net_latency=200us"]) {
    NetworkPath n = NetworkPath::FromJson(p.network);
    EXPECT_EQ(n.methods["net_latency"], "relay (message granularity, ream framing)") << p.network.dump();
    EXPECT_EQ(n.target, "relay 127.0.0.1:" + std::to_string(relay_port));
    ASSERT_EQ(n.calibrations.size(), 1u);
    EXPECT_EQ(n.calibrations[0].knob, "net_latency");
    EXPECT_DOUBLE_EQ(n.calibrations[0].requested, 200);
    ASSERT_TRUE(n.calibrations[0].measured.has_value());
    EXPECT_NEAR(*n.calibrations[0].measured, 0, 1);  // the fake adds nothing
    EXPECT_TRUE(n.calibrations[0].warning);
    EXPECT_NE(n.calibrations[0].note.find("measured again after L read"), std::string::npos) << n.calibrations[0].note;
    EXPECT_TRUE(n.relay_added_us.has_value());
  }
  bool warned = false;
  for (const auto& w : events_.All<RunWarning>()) warned = warned || w.message.find("net_latency") != std::string::npos;
  EXPECT_TRUE(warned);
}

}  // namespace

// Shared servers through the null sandbox: the co-runners are real processes under
// `ream corun`, the load is the fake driver's.
namespace {

std::string CorunnerSpecText(const std::string& corunners, const std::string& extra = "") {
  return "name = \"shared\"\nseed = 7\nscenarios = [\"1-ST\"]\ngenerator_cpus = \"none\"\n" + extra +
         "[workload]\ncommand = [\"sh\", \"-c\", \"echo serving on {port}; exec sleep 600\"]\n"
         "ready = \"line\"\nready_line = \"serving\"\n"
         "[load]\nconnections = 3\nwarmup = \"10ms\"\nduration = \"300ms\"\nresponse_timeout = \"10ms\"\n"
         "[sweep]\nqps = [100, 200]\n[qos]\ntarget = \"1000us\"\n" +
         corunners;
}

TEST_F(RunnerTest, CorunnersAloneAndTogetherAlternateAndEveryPointCarriesTheirFigures) {
  ream_binary_ = REAM_BINARY;
  auto spec = ParseSpec(CorunnerSpecText("[[corunner]]\nname = \"idler\"\ncommand = [\"sleep\", \"600\"]\n"
                                         "settle = \"0ms\"\n",
                                         "repetitions = 2\n"),
                        "shared.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  FakeLoadDriver driver([](double qps, int) { return FakeAnswer{100 + qps, true}; });
  driver.window_ms = 100;
  auto out = Run(*spec, driver);
  ASSERT_TRUE(out.ok()) << out.status().message() << console_.str();
  auto store = Store::Open((dir_ / "results.db").string(), false);
  ASSERT_TRUE(store.ok());
  auto runs = store->ListRuns(1);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 4u);
  // Alone and together alternate within each repetition, so a drift of the host reaches both.
  std::vector<std::string> order;
  for (const auto& r : *runs) order.push_back(r.key.corunner_set + "/" + std::to_string(r.key.repetition));
  EXPECT_EQ(order, (std::vector<std::string>{"/0", "idler/0", "/1", "idler/1"}));
  for (const auto& r : *runs) {
    auto pts = store->ListPoints(r.id);
    ASSERT_TRUE(pts.ok());
    ASSERT_EQ(pts->size(), 2u);
    if (r.key.corunner_set.empty()) {
      EXPECT_FALSE(r.corunners.has_value());
      for (const auto& p : *pts) EXPECT_TRUE(p.corunners.empty());
      continue;
    }
    // The co-runner alone (a window before the subject started) and in every point's window.
    ASSERT_TRUE(r.corunners && r.corunners->alone_measured);
    ASSERT_EQ(r.corunners->corunners.size(), 1u);
    EXPECT_EQ(r.corunners->corunners[0].name, "idler");
    ASSERT_TRUE(r.corunners->corunners[0].alone.has_value());
    EXPECT_GT(r.corunners->corunners[0].alone->window_s, 0.25);
    for (const auto& p : *pts) {
      ASSERT_TRUE(p.corunners.contains("idler")) << TenantFiguresToJson(p.corunners).dump();
      const TenantFigures& idler = p.corunners.at("idler");
      EXPECT_EQ(idler.ended, "");
      EXPECT_GT(idler.window_s, 0.09);
      // The null sandbox has no cgroup: its CPU is unavailable, with the reason, not zero.
      EXPECT_FALSE(idler.cpu_util.has_value());
      EXPECT_FALSE(idler.unavailable.empty());
      EXPECT_TRUE(p.valid.value_or(false));
    }
  }
}

TEST_F(RunnerTest, ARestartedJobIsCountedAndKeepsItsPressureOverTheWindow) {
  ream_binary_ = REAM_BINARY;
  auto spec = ParseSpec(CorunnerSpecText("[[corunner]]\nname = \"job\"\ncommand = [\"sleep\", \"0.05\"]\n"
                                         "restart = true\nsettle = \"0ms\"\n"
                                         "[colocation]\nalone = false\n"),
                        "shared.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto figures = RunRepeatingJob(*spec, "job");
  ASSERT_EQ(figures.size(), 2u);
  for (const TenantFigures& job : figures) {
    ASSERT_TRUE(job.run_time_mean_s.has_value());
    EXPECT_NEAR(*job.run_time_mean_s, 0.05, 0.04);
  }
}

TEST_F(RunnerTest, ACorunnerThatDiesDuringAPointMakesItInvalidNamingItAndIsStartedAgain) {
  ream_binary_ = REAM_BINARY;
  auto spec = ParseSpec(CorunnerSpecText("[[corunner]]\nname = \"doomed\"\n"
                                         "command = [\"sh\", \"-c\", \"sleep 0.2; kill -9 $$\"]\n"
                                         "settle = \"0ms\"\n[colocation]\nalone = false\n"),
                        "shared.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
  driver.window_ms = 500;
  auto out = Run(*spec, driver);
  ASSERT_TRUE(out.ok()) << out.status().message() << console_.str();
  auto pts = Points();
  ASSERT_EQ(pts.size(), 2u);
  for (const auto& p : pts) {
    EXPECT_FALSE(p.valid.value_or(true));
    bool named = false;
    for (const auto& r : p.invalid_reasons) {
      named = named || (r.find("co-runner 'doomed'") != std::string::npos &&
                        r.find("signal 9") != std::string::npos);
    }
    EXPECT_TRUE(named) << ::testing::PrintToString(p.invalid_reasons);
    EXPECT_NE(p.corunners.at("doomed").ended, "");
  }
  // Between the two points it was started again, and the run said so.
  bool restarted = false;
  for (const auto& w : events_.All<RunWarning>()) {
    restarted = restarted || w.message.find("co-runner 'doomed'") != std::string::npos;
  }
  EXPECT_TRUE(restarted);
}

TEST_F(RunnerTest, ACorunnerThatCannotStartFailsTheRunNamingIt) {
  ream_binary_ = REAM_BINARY;
  auto spec = ParseSpec(CorunnerSpecText("[[corunner]]\nname = \"broken\"\n"
                                         "command = [\"sh\", \"-c\", \"echo cannot work like this >&2; exit 3\"]\n"
                                         "settle = \"300ms\"\n"),
                        "shared.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  FakeLoadDriver driver([](double, int) { return FakeAnswer{100, true}; });
  // As a subject that never becomes ready: the run fails with the reason, before any load.
  auto out = Run(*spec, driver);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("co-runner 'broken'"), std::string::npos) << out.status().message();
  EXPECT_NE(out.status().message().find("status 3"), std::string::npos) << out.status().message();
  // Its own words, not only `ream corun`'s.
  EXPECT_NE(out.status().message().find("its last stderr:\n    cannot work like this"), std::string::npos)
      << out.status().message();
  EXPECT_TRUE(driver.seen.empty() || driver.seen.size() == 2u);  // only the alone run's levels
  auto store = Store::Open((dir_ / "results.db").string(), false);
  ASSERT_TRUE(store.ok());
  auto runs = store->ListRuns(1);
  ASSERT_TRUE(runs.ok() && runs->size() == 2u);
  EXPECT_EQ((*runs)[1].key.corunner_set, "broken");
  EXPECT_EQ((*runs)[1].status, RunStatus::kFailed);
  EXPECT_NE((*runs)[1].failure.find("co-runner 'broken'"), std::string::npos) << (*runs)[1].failure;
}

// A tenant kind is a row: one added here, in the test, goes through the spec's parsing and the
// co-runners' machinery (started, counted, described) with nothing else taught about it.
TEST_F(RunnerTest, AFakeTenantKindAddedAsOneRowRunsAsACorunner) {
  ream_binary_ = REAM_BINARY;
  TenantKindTable kinds;
  for (const TenantKind* k : BuiltinTenantKinds().rows()) kinds.Add(*k);
  kinds.Add({.key = "naps",
             .takes = "seconds a nap lasts",
             .completes = true,
             .throughput_unit = "completions/s",
             .parse = [](const TomlSection& s, const std::string&, CorunnerSpec* c) -> Status {
               double seconds = 0;
               REAM_RETURN_IF_ERROR(s.Number("naps", &seconds, 0.001, 10));
               c->args = {Fmt("%g", seconds)};
               return Status::Ok();
             },
             .argv = [](const CorunnerSpec& c, const TenantStart&) -> std::vector<std::string> {
               return {"sleep", c.args.at(0)};
             },
             .describe = [](const CorunnerSpec& c, nlohmann::json* j) { (*j)["naps"] = c.args.at(0); }});
  auto spec = ParseSpec(CorunnerSpecText("[[corunner]]\nname = \"napper\"\nnaps = 0.05\nsettle = \"0ms\"\n"
                                         "[colocation]\nalone = false\n"),
                        "shared.toml", BuiltinKnobs(), kinds);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec->corunners.size(), 1u);
  EXPECT_EQ(spec->corunners[0].kind, kinds.Find("naps"));
  // Its flag, not its name: a kind that completes is restarted unless the spec says otherwise.
  EXPECT_TRUE(spec->corunners[0].restart);
  EXPECT_EQ(spec->ToJson()["corunners"][0]["naps"], "0.05");
  // A key of its own on another kind is refused, naming the kind it belongs to.
  auto wrong = ParseSpec(CorunnerSpecText("[[corunner]]\nname = \"x\"\ncommand = [\"true\"]\nnaps = 1\n"), "shared.toml",
                         BuiltinKnobs(), kinds);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("needs exactly one of"), std::string::npos) << wrong.status().message();
  EXPECT_NE(wrong.status().message().find("'naps' (seconds a nap lasts)"), std::string::npos)
      << wrong.status().message();
  EXPECT_EQ(RunRepeatingJob(*spec, "napper").size(), 2u);
  auto store = Store::Open((dir_ / "results.db").string(), false);
  ASSERT_TRUE(store.ok());
  auto runs = store->ListRuns(1);
  ASSERT_TRUE(runs.ok() && !runs->empty());
  ASSERT_TRUE(runs->back().corunners.has_value());
  ASSERT_EQ(runs->back().corunners->corunners.size(), 1u);
  const CorunnerRecord& described = runs->back().corunners->corunners[0];
  EXPECT_EQ(described.kind, "naps");
  EXPECT_EQ(described.throughput_unit, "completions/s");
  EXPECT_EQ(described.place, "process");
  EXPECT_EQ(Join(described.argv), std::string(REAM_BINARY) + " corun --sched normal --repeat -- sleep 0.05");
}

}  // namespace
namespace {

// This machine, but with the resctrl mount of the seed's main node (two Xeon Silver 4116,
// src/topology/testdata/seed-4116x2), so a run plans its tenants' ways there.
class SeedResctrl : public ForwardingPlatform {
 public:
  explicit SeedResctrl(Platform& real)
      : ForwardingPlatform(real), seed_(std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/seed-4116x2") {}
  Result<std::string> ReadFile(const std::string& p) override {
    return Seed(p) ? seed_.ReadFile(p) : ForwardingPlatform::ReadFile(p);
  }
  bool Exists(const std::string& p) override { return Seed(p) ? seed_.Exists(p) : ForwardingPlatform::Exists(p); }
  bool IsDirectory(const std::string& p) override {
    return Seed(p) ? seed_.IsDirectory(p) : ForwardingPlatform::IsDirectory(p);
  }
  Result<std::vector<DirEntry>> ListDir(const std::string& p) override {
    return Seed(p) ? seed_.ListDir(p) : ForwardingPlatform::ListDir(p);
  }

 private:
  static bool Seed(const std::string& p) {
    return p.rfind("/sys/fs/resctrl", 0) == 0 || p == "/proc/mounts" || p == "/proc/filesystems";
  }
  RootedPlatform seed_;
};

// A kind that enforces every knob on paper: it keeps each sandbox's options and starts a null
// sandbox on the CPUs alone.
class RecordingKind : public SandboxKind {
 public:
  explicit RecordingKind(SandboxKind& inner) : inner_(inner) {}
  std::string_view name() const override { return "recording"; }
  Result<std::unique_ptr<Sandbox>> Start(const SandboxOptions& o, const std::vector<std::string>& argv) override {
    started.push_back(o);
    SandboxOptions cpus_only = o;
    cpus_only.partition = PartitionSpec{};
    cpus_only.partition.cpus = o.partition.cpus;
    return inner_.Start(cpus_only, argv);
  }
  std::vector<KnobSupport> Support() override {
    std::vector<KnobSupport> out;
    for (const KnobSupportRow& row : BuiltinKnobs().support_rows()) out.push_back({row.flag, true, "recorded"});
    return out;
  }
  std::vector<Capability> Probe() override { return inner_.Probe(); }
  std::vector<SandboxOptions> started;

 private:
  SandboxKind& inner_;
};

// The run takes each tenant's ways from its placement plan: the subject's and the co-runner's
// sandboxes get disjoint masks, the subject the same alone and together.
TEST_F(RunnerTest, EachTenantsSandboxGetsTheWaysItsPlanChose) {
  ream_binary_ = REAM_BINARY;
  SeedResctrl machine(*platform_);
  RecordingKind recording(*kind_);
  auto spec = ParseSpec(CorunnerSpecText("[partitions]\nllc_ways = 4\n[[corunner]]\nname = \"job\"\n"
                                         "command = [\"sleep\", \"600\"]\nsettle = \"0ms\"\nllc_ways = 3\n"),
                        "shared.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  FakeLoadDriver driver([](double qps, int) { return FakeAnswer{100 + qps, true}; });
  RunnerOptions o;
  o.db_path = (dir_ / "results.db").string();
  o.state_dir = (dir_ / "state").string();
  o.out = &console_;
  o.observer = &both_;
  o.sandbox_kind = &recording;
  o.load_driver = &driver;
  o.ream_version = "test";
  o.ream_binary = ream_binary_;
  auto out = RunExperiments(machine, {*spec}, o);
  ASSERT_TRUE(out.ok()) << out.status().message() << console_.str();
  std::vector<std::map<int, uint64_t>> subject, job;
  for (const SandboxOptions& so : recording.started) {
    if (so.partition.llc_ways == 4) subject.push_back(so.partition.llc_masks);
    if (so.partition.llc_ways == 3) job.push_back(so.partition.llc_masks);
  }
  ASSERT_EQ(subject.size(), 2u);  // alone, then beside the job
  ASSERT_EQ(job.size(), 1u);
  const std::map<int, uint64_t> lowest = {{0, 0x00f}, {1, 0x00f}};
  EXPECT_EQ(subject[0], lowest);
  EXPECT_EQ(subject[1], lowest);
  EXPECT_EQ(job[0], (std::map<int, uint64_t>{{0, 0x070}, {1, 0x070}}));
}

}  // namespace
}  // namespace ream
