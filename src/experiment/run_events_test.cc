#include "experiment/run_events.h"

#include <gtest/gtest.h>

#include <sstream>

namespace ream {
namespace {

LevelMeasured Level() {
  LevelMeasured e;
  e.run = {"exp", "", 0, "1-ST", "default", 0};
  e.load = 2000;
  e.status = "ok";
  e.valid = false;
  e.invalid_reasons = {"timely 90.0% < 97.5%"};
  e.percentile_latency_us = 123.4;
  e.timely_ratio = 0.9;
  e.cpu_util = 0.25;
  e.done_points = 2;
  e.planned_points = 5;
  e.eta_seconds = 75;
  return e;
}

TEST(ConsoleObserver, PrintsTheProgressLineWithItsEta) {
  std::ostringstream out;
  ConsoleObserver console(out);
  console.OnEvent(Level());
  EXPECT_EQ(out.str(),
            "[2/5] 1-ST default rep0  2000 QPS  p95 123 us  timely 90.0%  cpu 25%  INVALID (timely 90.0% < 97.5%)"
            "  | 3 left, ETA 1m15s\n");
}

// Measured until known: how long the point measured and the check that decided, in the line
// and in the JSON event.
TEST(ConsoleObserver, PrintsHowLongAPointMeasuredUntilKnown) {
  std::ostringstream out;
  ConsoleObserver console(out);
  LevelMeasured e = Level();
  e.until_measured_s = 0.425;
  e.until_decided = "interval: interval 3.8 % <= 5 %";
  console.OnEvent(e);
  EXPECT_NE(out.str().find(")  measured 0.42 s (interval: interval 3.8 % <= 5 %)  | 3 left"), std::string::npos)
      << out.str();
  std::ostringstream plain;
  ConsoleObserver fixed(plain);
  fixed.OnEvent(Level());
  EXPECT_EQ(plain.str().find("measured"), std::string::npos) << plain.str();
}

// Beside the timely ratio, the host's limit at that rate when a bare sender measured it.
TEST(ConsoleObserver, PrintsTheHostsLimitBesideTheTimelyRatio) {
  std::ostringstream out;
  ConsoleObserver console(out);
  LevelMeasured e = Level();
  e.host_timely_ratio = 0.905;
  console.OnEvent(e);
  EXPECT_NE(out.str().find("timely 90.0% (host 90.5%)  cpu 25%"), std::string::npos) << out.str();
}

// A level under one request per second keeps its fraction: sphinx's 0.25 QPS is not "0 QPS".
TEST(ConsoleObserver, PrintsAFractionalLevelAsItIs) {
  std::ostringstream out;
  ConsoleObserver console(out);
  LevelMeasured e = Level();
  e.load = 0.25;
  console.OnEvent(e);
  EXPECT_NE(out.str().find("rep0  0.25 QPS  p95"), std::string::npos) << out.str();
}

TEST(ConsoleObserver, SaysWhyALevelIsMeasuredAgain) {
  std::ostringstream out;
  ConsoleObserver console(out);
  MeasuringAgain e;
  e.load = 1000;
  e.attempt = 2;
  e.max_attempts = 3;
  e.last_invalid_reason = "late";
  console.OnEvent(e);
  EXPECT_EQ(out.str(), "  measuring 1000 QPS again (attempt 3 of at most 3): the last point there was invalid (late), "
                       "a failed measurement that says nothing about QoS (sweep.remeasure_invalid)\n");
}

// The run line says which CPUs [load] keep_awake keeps out of idle, as the spec asked it.
TEST(ConsoleObserver, TheRunLineSaysWhatKeepAwakeKeepsAwake) {
  const EventRun run{"exp", "", 0, "1-ST", "default", 0};
  std::ostringstream none, gen, all;
  ConsoleObserver(none).OnEvent(RunStarted{run, "0", "1", 0, KeepAwakeMode::kOff});
  ConsoleObserver(gen).OnEvent(RunStarted{run, "0", "1", 0, KeepAwakeMode::kGenerator});
  ConsoleObserver(all).OnEvent(RunStarted{run, "0", "1", 0, KeepAwakeMode::kAll});
  EXPECT_EQ(none.str(), "run 1: scenario 1-ST (workload on CPU 0, generator on CPU 1), partition default, repetition 0\n");
  EXPECT_EQ(gen.str(), "run 1: scenario 1-ST (workload on CPU 0, generator on CPU 1; keep_awake = \"generator\": its "
                       "CPUs kept out of idle, the workload's left alone), partition default, repetition 0\n");
  EXPECT_NE(all.str().find("; keep_awake: the generator's and the workload's CPUs kept out of idle)"), std::string::npos)
      << all.str();
  std::ostringstream jg, ja, jn;
  JsonLinesObserver(jg).OnEvent(RunStarted{run, "0", "1", 0, KeepAwakeMode::kGenerator});
  JsonLinesObserver(ja).OnEvent(RunStarted{run, "0", "1", 0, KeepAwakeMode::kAll});
  JsonLinesObserver(jn).OnEvent(RunStarted{run, "0", "1", 0, KeepAwakeMode::kOff});
  EXPECT_EQ(nlohmann::json::parse(jg.str())["keep_awake"], "generator");
  EXPECT_EQ(nlohmann::json::parse(ja.str())["keep_awake"], true);
  EXPECT_EQ(nlohmann::json::parse(jn.str())["keep_awake"], false);
}

TEST(JsonLinesObserver, WritesOneObjectPerEventNamedByItsKind) {
  std::ostringstream out;
  JsonLinesObserver json(out);
  json.OnEvent(Level());
  json.OnEvent(RunFinished{{"exp", "", 0, "1-ST", "default", 0}, "complete", ""});
  std::istringstream lines(out.str());
  std::string a, b;
  std::getline(lines, a);
  std::getline(lines, b);
  auto ja = nlohmann::json::parse(a);
  EXPECT_EQ(ja["event"], "level_measured");
  EXPECT_EQ(ja["load"], 2000);
  EXPECT_EQ(ja["valid"], false);
  EXPECT_EQ(ja["run"], 1);
  auto jb = nlohmann::json::parse(b);
  EXPECT_EQ(jb["event"], "run_finished");
  EXPECT_EQ(jb["status"], "complete");
}

TEST(FanOutObserver, PassesEveryEventToEachObserver) {
  RecordingObserver a, b;
  FanOutObserver all({&a, nullptr, &b});
  all.OnEvent(Level());
  EXPECT_EQ(a.events.size(), 1u);
  EXPECT_EQ(b.All<LevelMeasured>().size(), 1u);
}

TEST(HumanSeconds, RoundsToTheLargestUnits) {
  EXPECT_EQ(HumanSeconds(12.4), "12s");
  EXPECT_EQ(HumanSeconds(185), "3m05s");
  EXPECT_EQ(HumanSeconds(3720), "1h02m");
  EXPECT_EQ(HumanSeconds(-3), "0s");
}

}  // namespace
}  // namespace ream
