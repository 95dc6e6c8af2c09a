// The drivers' window seam: the local driver's reading of `ream load --window` lines as they
// come, its command line for a schedule, and the fake driver's windows from its model.
#include "experiment/load_driver.h"

#include <thread>

#include <gtest/gtest.h>

#include "experiment/fake_load_driver.h"
#include "experiment/point_columns.h"
#include "experiment/preflight.h"
#include "platform/clock.h"
#include "sandbox/null_sandbox.h"
#include "spec/spec.h"
#include "workloads/server.h"
#include "workloads/synthetic.h"

namespace ream {
namespace {

std::string WindowLine(int64_t index, double p95_us) {
  WindowCounts c;
  c.scheduled = c.timely = c.answered = 100;
  c.latencies_ns.assign(10, static_cast<int64_t>(p95_us * 1000));
  LoadWindow w = JudgeWindow(index, 0.5 * static_cast<double>(index), 0.5 * static_cast<double>(index + 1), 200, c, 95,
                             0.975);
  return nlohmann::json{{"window", w.ToJson()}}.dump() + "\n";
}

TEST(WindowLines, ReportsEachCompleteWindowLineOnceInOrderAndLeavesTheDocument) {
  DriverHooks hooks;
  std::vector<LoadWindow> seen;
  hooks.window_report = [&seen](const LoadWindow& w) { seen.push_back(w); };
  WindowLines lines(hooks);
  CapturedOutput captured;
  const std::string first = WindowLine(0, 100), second = WindowLine(1, 250);
  captured.second = first + second.substr(0, 20);  // the second still being written
  lines.Read(captured);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].index, 0);
  lines.Read(captured);  // nothing new: nothing reported again
  EXPECT_EQ(seen.size(), 1u);
  captured.second += second.substr(20) + "not a window\n{\"window\": 3}\n" + WindowLine(2, 400);
  const std::string document = "{\n  \"issued\": 300,\n  \"windows\": []\n}\n";
  captured.second += document;
  lines.Read(captured);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].index, 1);
  EXPECT_EQ(seen[2].index, 2);
  ASSERT_TRUE(seen[2].p95_us.has_value());
  EXPECT_NEAR(*seen[2].p95_us, 400, 400 * Histogram::kRelativeError);
  // The final document is still found after the window lines.
  auto doc = ExtractGeneratorJson(captured.second);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)["issued"], 300);
}

TEST(LoadArgv, AScheduleReplacesTheRateAndDurationAndWindowsAreAsked) {
  LoadOptions o;
  o.port = 11211;
  o.schedule = *ParseSchedule("1000 for 2s, 1000 to 3000 over 2s", "[load] schedule", nullptr);
  ApplySchedule(&o);
  o.window_ns = 500'000'000;
  std::vector<std::string> argv = LoadArgv(o);
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--qps"), argv.end());
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--duration"), argv.end());
  auto s = std::find(argv.begin(), argv.end(), "--schedule");
  ASSERT_NE(s, argv.end());
  EXPECT_EQ(*(s + 1), "1000 for 2s, 1000 to 3000 over 2s");
  auto w = std::find(argv.begin(), argv.end(), "--window");
  ASSERT_NE(w, argv.end());
  EXPECT_EQ(*(w + 1), "500ms");
  EXPECT_EQ(argv[argv.size() - 2], "--json");  // the document still goes to stdout, last
}

TEST(LevelLoadOptions, AScheduleAndWindowsReachTheGeneratorsOptions) {
  auto spec = ParseSpec("name = \"t\"\n[workload]\nbuiltin = \"kv\"\n[load]\nschedule = \"1000 for 2s, 3000 for 2s\"\n"
                        "window = \"250ms\"\n", "x.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  LoadOptions o = LevelLoadOptions(*spec, spec->sweep.qps.front(), 1, "127.0.0.1", 11211);
  ASSERT_TRUE(o.schedule.has_value());
  EXPECT_EQ(o.schedule->text, "1000 for 2s, 3000 for 2s");
  EXPECT_DOUBLE_EQ(o.qps, 2000);
  EXPECT_EQ(o.duration_ns, 4'000'000'000);
  EXPECT_EQ(o.window_ns, 250'000'000);
  EXPECT_TRUE(ValidateLoadOptions(o).ok()) << ValidateLoadOptions(o).message();
}

// The local driver end to end, its sandbox a plain child: `ream load --schedule --window` against
// ream's synthetic server, each window reaching the hook on Measure's thread, in order, while
// the generator still runs.
TEST(LocalLoadDriver, HandsEachWindowToTheHookAsItsLineArrives) {
  auto server = Server::Start({.threads = 1}, MakeSyntheticHandlers(*ServiceTime::Parse("const:5us"), 1));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto platform = MakePosixPlatform();
  auto kind = MakeNullSandboxKind(*platform);
  auto driver = MakeLocalLoadDriver(*platform, *kind, {.ream_binary = REAM_BINARY});
  LoadOptions o;
  o.port = (*server)->port();
  o.schedule = *ParseSchedule("1000 for 1s, 4000 for 1s", "[load] schedule", nullptr);
  ApplySchedule(&o);
  o.window_ns = 500'000'000;
  o.warmup_ns = 200'000'000;
  o.response_timeout_ns = 500'000'000;
  const auto caller = std::this_thread::get_id();
  DriverHooks hooks;
  std::vector<LoadWindow> seen;
  std::vector<int64_t> at;
  bool on_caller = true;
  hooks.window_report = [&](const LoadWindow& w) {
    on_caller = on_caller && std::this_thread::get_id() == caller;
    seen.push_back(w);
    at.push_back(MonotonicNowNs());
  };
  const int64_t begin = MonotonicNowNs();
  auto r = driver->Measure(o, hooks);
  const int64_t end = MonotonicNowNs();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->generator.has_value()) << r->no_result.ToString();
  EXPECT_TRUE(on_caller);
  ASSERT_EQ(seen.size(), 4u);
  for (size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k].index, static_cast<int64_t>(k));
  EXPECT_NEAR(static_cast<double>(seen[0].scheduled), 500, 4 * std::sqrt(500.0));
  EXPECT_NEAR(static_cast<double>(seen[3].scheduled), 2000, 4 * std::sqrt(2000.0));
  // The first window came while the generator was still at work, not with its document.
  EXPECT_LT(at[0], end - 700'000'000) << "first window " << (at[0] - begin) / 1e6 << " ms, end " << (end - begin) / 1e6;
  EXPECT_EQ((*r->generator)["windows"].size(), 4u);
  EXPECT_EQ((*r->generator)["schedule"], "1000 for 1s, 4000 for 1s");
}

TEST(FakeLoadDriver, ReportsWindowsFromItsModelInOrderInsideTheMeasuredWindow) {
  FakeLoadDriver driver([](double, int) { return FakeAnswer{}; });
  driver.window_model = [](double qps, int call, int64_t window) {
    FakeAnswer a;
    a.p95_us = qps / 10 + 1000 * call;  // 100 us at 1 000 QPS, 300 us at 3 000
    a.valid = window != 2;
    return a;
  };
  LoadOptions o;
  o.schedule = *ParseSchedule("1000 for 1s, 3000 for 1s", "[load] schedule", nullptr);
  ApplySchedule(&o);
  o.window_ns = 500'000'000;
  DriverHooks hooks;
  std::vector<std::string> events;
  std::vector<LoadWindow> seen;
  hooks.window_started = [&] { events.push_back("started"); };
  hooks.window_ended = [&] { events.push_back("ended"); };
  hooks.window_report = [&](const LoadWindow& w) {
    events.push_back("window " + std::to_string(w.index));
    seen.push_back(w);
  };
  auto r = driver.Measure(o, hooks);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(events, (std::vector<std::string>{"started", "window 0", "window 1", "window 2", "window 3", "ended"}));
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_DOUBLE_EQ(seen[0].target_qps, 1000);
  EXPECT_DOUBLE_EQ(seen[3].target_qps, 3000);
  EXPECT_NEAR(*seen[0].p95_us, 100, 100 * Histogram::kRelativeError);
  EXPECT_NEAR(*seen[3].p95_us, 300, 300 * Histogram::kRelativeError);
  EXPECT_TRUE(seen[1].valid);
  EXPECT_FALSE(seen[2].valid);
  EXPECT_EQ((*r->generator)["windows"].size(), 4u);
  // The second call: the model sees its index.
  seen.clear();
  ASSERT_TRUE(driver.Measure(o, hooks).ok());
  EXPECT_NEAR(*seen[0].p95_us, 1100, 1100 * Histogram::kRelativeError);
}

}  // namespace
}  // namespace ream
