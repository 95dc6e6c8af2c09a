// A manager in a run, without root: the subject and its neighbour run in the null sandbox (plain
// processes, which keep each move a manager asks of them: NullSandboxMoves), and the fake load
// driver answers each window of a step schedule from a plant whose tail grows with the
// neighbour's CPU quota at high load — so the test follows every decision window by window and
// checks that the manager's moves follow the load, and that every window and move is stored.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "experiment/fake_load_driver.h"
#include "experiment/run_events.h"
#include "experiment/runner.h"
#include "platform/test_directory.h"
#include "sandbox/null_sandbox.h"
#include "spec/spec.h"
#include "store/store.h"

namespace ream {
namespace {

// 2 000 QPS for 1 s, 8 000 for 2 s, 2 000 for 2.5 s, in 250 ms windows; the neighbour "hog" beside
// the subject, its quota moved by PARTIES a tenth of a CPU at a time between 10 % and 100 %.
constexpr char kSpec[] = R"(name = "managed"
seed = 7
scenarios = ["1-ST"]
generator_cpus = "none"
[workload]
command = ["sh", "-c", "echo serving on {port}; exec sleep 600"]
ready = "line"
ready_line = "serving"
[load]
connections = 3
warmup = "10ms"
response_timeout = "10ms"
schedule = "2000 for 1s, 8000 for 2s, 2000 for 2500ms"
[qos]
target = "1000us"
[[corunner]]
name = "hog"
command = ["sleep", "600"]
settle = "0ms"
[manager]
policy = "parties"
period = "250ms"
window = "250ms"
[[manager.resource]]
tenant = "hog"
knob = "cpu_quota"
unit = "10%"
min = "10%"
max = "100%"
)";

// A run in `dir` of the null sandbox and the fake driver, its console on `console`.
RunnerOptions NullRun(const std::filesystem::path& dir, SandboxKind& kind, FakeLoadDriver& driver,
                      std::ostringstream& console) {
  RunnerOptions o;
  o.db_path = (dir / "results.db").string();
  o.state_dir = (dir / "state").string();
  o.out = &console;
  o.sandbox_kind = &kind;
  o.load_driver = &driver;
  o.ream_version = "test";
  o.ream_binary = REAM_BINARY;
  return o;
}

// The hog's quota as the manager last set it in the run (1 CPU before any move).
double HogQuota() {
  double q = 1.0;
  for (const NullMove& m : NullSandboxMoves()) {
    if (m.knob == "cpu_quota") q = m.level;
  }
  return q;
}

TEST(ManagerRun, TheNeighbourIsThrottledWhileTheSlackIsLowAndGivenBackAfterEveryWindowStored) {
  const auto dir = testing_support::FreshTestDirectory("ream-manager-run-test");
  auto platform = MakePosixPlatform();
  auto kind = MakeNullSandboxKind(*platform);
  auto spec = ParseSpec(kSpec, "managed.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  // The plant: 200 µs at low load; at high load 200 µs plus 2 ms per CPU the hog may take, so
  // QoS (1 ms) holds with the hog at 40 % or less.
  std::vector<double> quota_seen;
  FakeLoadDriver driver([](double, int) { return FakeAnswer{200, true}; });
  driver.window_model = [&](double qps, int, int64_t) {
    const double q = HogQuota();
    quota_seen.push_back(q);
    return FakeAnswer{qps > 5000 ? 200 + 2000 * q : 200, true};
  };
  std::ostringstream console;
  RecordingObserver events;
  RunnerOptions o = NullRun(dir, *kind, driver, console);
  o.observer = &events;
  auto out = RunExperiments(*platform, {*spec}, o);
  ASSERT_TRUE(out.ok()) << out.status().message() << console.str();

  auto store = Store::Open(o.db_path, false);
  ASSERT_TRUE(store.ok());
  auto runs = store->ListRuns(1);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);  // the subject alone, then beside the hog
  for (const RunRecord& r : *runs) {
    auto windows = store->ListManagerWindows(r.id);
    ASSERT_TRUE(windows.ok()) << windows.status().message();
    ASSERT_EQ(windows->size(), 22u) << r.key.corunner_set;  // 5.5 s in 250 ms windows
    if (r.key.corunner_set.empty()) {
      // Alone: stored, static, no move.
      for (const auto& w : *windows) {
        EXPECT_TRUE(w.actions.empty());
        EXPECT_EQ(w.note, "static: alone");
      }
      continue;
    }
    // Managed. The first window saw the starting allocation (100 %), written before the warm-up.
    ASSERT_EQ(quota_seen.size(), 44u);
    const std::vector<double> managed(quota_seen.begin() + 22, quota_seen.end());
    EXPECT_DOUBLE_EQ(managed[0], 1.0);
    // Low load: slack 0.8, nothing to take and nothing to give back.
    for (int i = 0; i < 4; ++i) EXPECT_TRUE((*windows)[i].actions.empty()) << (*windows)[i].note;
    // The step: the hog loses a unit a window until the subject meets QoS (40 %).
    EXPECT_GT((*windows)[4].tail_us.value_or(0), 1000);
    ASSERT_FALSE((*windows)[4].actions.empty()) << (*windows)[4].note;
    EXPECT_EQ((*windows)[4].actions[0].tenant, "hog");
    EXPECT_LT((*windows)[4].actions[0].to, (*windows)[4].actions[0].from);
    double lowest = 1.0;
    for (int i = 4; i < 12; ++i) lowest = std::min(lowest, managed[static_cast<size_t>(i)]);
    EXPECT_LE(lowest, 0.4 + 1e-9);
    EXPECT_LE((*windows)[11].tail_us.value_or(1e9), 1000) << "met QoS again before the step down";
    // After the step down the quota comes back, a unit a window, to all of it.
    EXPECT_DOUBLE_EQ(HogQuota(), 1.0);
    int given_back = 0;
    for (size_t i = 12; i < windows->size(); ++i) {
      for (const auto& a : (*windows)[i].actions) given_back += a.to > a.from;
    }
    EXPECT_GE(given_back, 6);
    // Every window holds the allocation it left and every move its reason; none failed.
    for (const auto& w : *windows) {
      ASSERT_TRUE(w.allocation.count("hog")) << w.note;
      EXPECT_FALSE(w.note.empty());
      for (const auto& a : w.actions) {
        EXPECT_EQ(a.failure, "");
        EXPECT_FALSE(a.reason.empty());
      }
    }
  }
  std::filesystem::remove_all(dir);
}

// What a run cannot drive is refused before anything runs, naming the key.
TEST(ManagerRun, AManagerWithoutAFixedTargetOrWithAWindowUnlikeItsPeriodIsRefused) {
  std::string text = kSpec;
  std::string no_target = text;
  no_target.replace(no_target.find("[qos]\ntarget = \"1000us\"\n"), 24, "");
  auto spec = ParseSpec(no_target, "managed.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  const auto dir = testing_support::FreshTestDirectory("ream-manager-run-test");
  auto platform = MakePosixPlatform();
  auto kind = MakeNullSandboxKind(*platform);
  FakeLoadDriver driver([](double, int) { return FakeAnswer{200, true}; });
  std::ostringstream console;
  RunnerOptions o = NullRun(dir, *kind, driver, console);
  auto out = RunExperiments(*platform, {*spec}, o);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("fixed [qos] target"), std::string::npos) << out.status().message();
  EXPECT_TRUE(driver.seen.empty());
  std::string other_window = text;
  other_window.replace(other_window.find("window = \"250ms\"\n[[manager"), 17, "window = \"1s\"\n");
  spec = ParseSpec(other_window, "managed.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  out = RunExperiments(*platform, {*spec}, o);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("differs from period"), std::string::npos) << out.status().message();
  EXPECT_TRUE(driver.seen.empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ream
