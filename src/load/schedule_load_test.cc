// The generator under a rate schedule and with windows: against ream's synthetic server on
// loopback, in this process (RunLoad) and as `ream load` prints it.
#include <thread>

#include <gtest/gtest.h>

#include "load/generator.h"
#include "platform/clock.h"
#include "platform/platform.h"
#include "workloads/server.h"
#include "workloads/synthetic.h"

namespace ream {
namespace {

constexpr const char* kStep = "2000 for 1s, 8000 for 1s, 2000 for 1s";

LoadOptions StepOptions(int port) {
  LoadOptions o;
  o.port = port;
  o.schedule = *ParseSchedule(kStep, "--schedule", nullptr);
  ApplySchedule(&o);
  o.window_ns = 500'000'000;
  o.warmup_ns = 200'000'000;
  o.response_timeout_ns = 500'000'000;
  return o;
}

// The windows' requests follow the step within Poisson noise (4 standard deviations), and their
// answers its rate (loosely: a stalled host answers late, never at the wrong step).
void ExpectTheStep(const std::vector<LoadWindow>& windows) {
  ASSERT_EQ(windows.size(), 6u);
  const double want[] = {1000, 1000, 4000, 4000, 1000, 1000};
  for (size_t k = 0; k < windows.size(); ++k) {
    const LoadWindow& w = windows[k];
    EXPECT_EQ(w.index, static_cast<int64_t>(k));
    EXPECT_DOUBLE_EQ(w.start_s, 0.5 * static_cast<double>(k));
    EXPECT_DOUBLE_EQ(w.end_s, 0.5 * static_cast<double>(k) + 0.5);
    EXPECT_DOUBLE_EQ(w.target_qps, 2 * want[k]);
    EXPECT_NEAR(static_cast<double>(w.scheduled), want[k], 4 * std::sqrt(want[k])) << "window " << k;
    EXPECT_GT(w.answered, 0u);
    EXPECT_TRUE(w.tail_us.has_value());
  }
  for (size_t k : {2, 3}) {
    EXPECT_GT(windows[k].throughput_qps, 2 * windows[0].throughput_qps) << "window " << k;
    EXPECT_GT(windows[k].throughput_qps, 2 * windows[5].throughput_qps) << "window " << k;
  }
}

TEST(ScheduleLoad, WindowsFollowAStepAndReachTheCallerAsTheyEnd) {
  auto server = Server::Start({.threads = 1}, MakeSyntheticHandlers(*ServiceTime::Parse("const:5us"), 1));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const auto caller = std::this_thread::get_id();
  std::vector<LoadWindow> seen;
  std::vector<int64_t> seen_at;
  bool on_caller = true;
  auto r = RunLoad(StepOptions((*server)->port()), [&](const LoadWindow& w) {
    on_caller = on_caller && std::this_thread::get_id() == caller;
    seen.push_back(w);
    seen_at.push_back(MonotonicNowNs());
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(on_caller);
  EXPECT_DOUBLE_EQ(r->options.qps, 4000);  // the schedule's mean
  EXPECT_EQ(r->options.duration_ns, 3'000'000'000);
  ExpectTheStep(seen);
  ASSERT_EQ(r->windows.size(), seen.size());
  uint64_t scheduled = 0;
  for (size_t k = 0; k < seen.size(); ++k) {
    EXPECT_EQ(r->windows[k].ToJson(), seen[k].ToJson());
    scheduled += seen[k].scheduled;
    // Each after its end, and the first ones long before the run's: as they end, not at the end.
    const auto end_ns = r->window_begin_ns + static_cast<int64_t>(seen[k].end_s * 1e9);
    EXPECT_GE(seen_at[k], end_ns) << "window " << k;
    if (k < 3) EXPECT_LT(seen_at[k], end_ns + 1'000'000'000) << "window " << k;
  }
  // Every measured request was scheduled in some window (none failed unsent on loopback).
  EXPECT_EQ(r->errors, 0u);
  EXPECT_EQ(scheduled, r->issued);
  EXPECT_EQ(r->ToJson()["windows"].size(), 6u);
  EXPECT_EQ(r->ToJson()["schedule"], kStep);
}

// In a stretch at 0 QPS the next send is far off: each window there still ends on time, with
// nothing scheduled in it and said so.
TEST(ScheduleLoad, WindowsOfAStretchAtZeroEndOnTime) {
  auto server = Server::Start({.threads = 1}, MakeSyntheticHandlers(*ServiceTime::Parse("const:5us"), 1));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  LoadOptions o = StepOptions((*server)->port());
  o.schedule = *ParseSchedule("200 for 500ms, 0 for 1500ms, 200 for 500ms", "--schedule", nullptr);
  ApplySchedule(&o);
  o.window_ns = 250'000'000;
  std::vector<LoadWindow> seen;
  std::vector<int64_t> at;
  auto r = RunLoad(o, [&](const LoadWindow& w) {
    seen.push_back(w);
    at.push_back(MonotonicNowNs());
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(seen.size(), 10u);
  for (size_t k = 2; k < 8; ++k) {
    EXPECT_EQ(seen[k].scheduled, 0u) << "window " << k;
    EXPECT_FALSE(seen[k].valid);
    EXPECT_NE(seen[k].invalid_because.find("no request was scheduled"), std::string::npos) << seen[k].invalid_because;
    const auto end_ns = r->window_begin_ns + static_cast<int64_t>(seen[k].end_s * 1e9);
    // Reported within the reader's 25 ms and a loaded host's stalls, not at the next send's time.
    EXPECT_LT(at[k], end_ns + 200'000'000) << "window " << k << " reported " << (at[k] - end_ns) / 1e6 << " ms late";
  }
  EXPECT_GT(seen[0].scheduled, 0u);
  EXPECT_GT(seen[9].scheduled, 0u);
}

TEST(ScheduleLoad, ReamLoadPrintsAWindowLineAsEachEndsBeforeItsDocument) {
  auto server = Server::Start({.threads = 1}, MakeSyntheticHandlers(*ServiceTime::Parse("const:5us"), 1));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto r = MakePosixPlatform()->Run({REAM_BINARY, "load", "--target", "127.0.0.1:" + std::to_string((*server)->port()),
                                     "--schedule", kStep, "--window", "500ms", "--warmup", "200ms",
                                     "--response-timeout", "500ms", "--json", "-"},
                                    std::chrono::seconds(60));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0) << r->err;
  // The summary (on stderr with --json -) says what the run followed.
  EXPECT_NE(r->err.find("schedule:  2000 for 1s, 8000 for 1s, 2000 for 1s (the target is its mean)"), std::string::npos)
      << r->err;
  EXPECT_NE(r->err.find("windows:   6 of 0.5 s, "), std::string::npos) << r->err;
  std::vector<LoadWindow> windows;
  size_t document = std::string::npos;
  for (size_t at = 0, nl; (nl = r->out.find('\n', at)) != std::string::npos; at = nl + 1) {
    const std::string line = r->out.substr(at, nl - at);
    if (line.rfind("{\"window\":", 0) == 0) {
      EXPECT_EQ(document, std::string::npos) << "a window line after the document";
      auto w = LoadWindow::FromJson(nlohmann::json::parse(line)["window"]);
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      windows.push_back(*w);
    } else if (line == "{" && document == std::string::npos) {
      document = at;
    }
  }
  ExpectTheStep(windows);
  ASSERT_NE(document, std::string::npos) << r->out;
  auto doc = nlohmann::json::parse(r->out.substr(document));
  EXPECT_EQ(doc["schedule"], kStep);
  EXPECT_DOUBLE_EQ(doc["window_s"].get<double>(), 0.5);
  ASSERT_EQ(doc["windows"].size(), windows.size());
  for (size_t k = 0; k < windows.size(); ++k) EXPECT_EQ(doc["windows"][k], windows[k].ToJson());
}

TEST(ScheduleLoad, OptionsThatCannotGoTogetherAreRefusedWithWhy) {
  LoadOptions o = StepOptions(9);
  EXPECT_TRUE(ValidateLoadOptions(o).ok());
  LoadOptions until = o;
  until.until = UntilRule{};
  until.window_ns = 0;
  EXPECT_NE(ValidateLoadOptions(until).message().find("--schedule with --until"), std::string::npos);
  LoadOptions windows_until = StepOptions(9);
  windows_until.schedule.reset();
  windows_until.until = UntilRule{};
  EXPECT_NE(ValidateLoadOptions(windows_until).message().find("--window with --until"), std::string::npos);
  LoadOptions short_window = o;
  short_window.window_ns = 1'000'000;
  EXPECT_NE(ValidateLoadOptions(short_window).message().find("at least 10ms"), std::string::npos);
  LoadOptions not_applied = o;
  not_applied.qps = 1000;
  EXPECT_NE(ValidateLoadOptions(not_applied).message().find("qps must be its mean (4000)"), std::string::npos)
      << ValidateLoadOptions(not_applied).message();
}

}  // namespace
}  // namespace ream
