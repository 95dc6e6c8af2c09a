// A level whose monitor window a clock jump crossed, without root: the null sandbox, a fake
// driver that moves ream's clock (FaultPlatform) while the window is open.
#include <gtest/gtest.h>

#include "experiment/level.h"
#include "platform/forwarding_platform.h"
#include "sandbox/null_sandbox.h"

namespace ream {
namespace {

// Opens the window, moves ream's monotonic clock by `step_ns`, closes it; the generator's
// document says 100 requests were measured.
class SteppingDriver final : public LoadDriver {
 public:
  SteppingDriver(FaultPlatform& p, int64_t step_ns) : p_(p), step_ns_(step_ns) {}
  std::string_view name() const override { return "stepping"; }
  Result<DriverResult> Measure(const LoadOptions& o, const DriverHooks& hooks) override {
    hooks.window_started();
    p_.monotonic_offset_ns += step_ns_;
    hooks.window_ended();
    LoadResult r;
    r.options = o;
    r.protocol = o.protocol;
    r.issued = r.completed = r.timely = 100;
    r.achieved_qps = r.throughput_qps = o.qps;
    r.timely_ratio = 1;
    r.valid = true;
    for (int i = 0; i < 100; ++i) r.latency.Record(100'000);
    DriverResult out;
    out.generator = r.ToJson();
    out.exit = ProcessExit{};
    return out;
  }

 private:
  FaultPlatform& p_;
  int64_t step_ns_;
};

PointData Measure(int64_t step_ns) {
  static std::unique_ptr<Platform> host = MakePosixPlatform();
  FaultPlatform p(*host);
  auto kind = MakeNullSandboxKind(p);
  SandboxOptions so;
  auto sb = kind->Start(so, {"sleep", "30"});
  EXPECT_TRUE(sb.ok()) << sb.status().message();
  if (!sb.ok()) return {};
  LaunchedWorkload wl;
  wl.sandbox = std::move(*sb);
  LoadOptions lo;
  lo.qps = 100;
  lo.duration_ns = 1'000'000'000;
  SteppingDriver driver(p, step_ns);
  auto d = MeasureLevel(p, driver, wl, lo, std::chrono::milliseconds(250), [] { return false; });
  (void)wl.Stop();
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? *d : PointData{};
}

TEST(LevelFaults, AClockJumpAcrossTheWindowGivesNoMonitorFiguresAndSaysSo) {
  PointData jumped = Measure(3600LL * 1'000'000'000);
  EXPECT_EQ(jumped.point.status, PointStatus::kOk);
  const auto& u = jumped.point.monitor["unavailable"];
  ASSERT_TRUE(u.contains("window")) << jumped.point.monitor.dump();
  EXPECT_NE(u["window"].get<std::string>().find("clock jumped"), std::string::npos);
  EXPECT_NE(u["window"].get<std::string>().find("3600"), std::string::npos);
  // No hour-long window stored; the generator's figures kept.
  EXPECT_EQ(jumped.point.monitor["duration_s"].get<double>(), 0);
  EXPECT_EQ(jumped.point.issued.value_or(0), 100u);
  EXPECT_NE(jumped.point.unavailable.at("cpu_util").find("clock jumped"), std::string::npos);

  // Backwards: a negative window is not stored either.
  PointData back = Measure(-3600LL * 1'000'000'000);
  EXPECT_TRUE(back.point.monitor["unavailable"].contains("window")) << back.point.monitor.dump();
  EXPECT_EQ(back.point.monitor["duration_s"].get<double>(), 0);

  // The window as long as the level, or shorter (the generator ended early): kept as measured.
  PointData early = Measure(100'000'000);
  EXPECT_FALSE(early.point.monitor["unavailable"].contains("window")) << early.point.monitor.dump();
  PointData steady = Measure(1'000'000'000);
  EXPECT_FALSE(steady.point.monitor["unavailable"].contains("window")) << steady.point.monitor.dump();
  EXPECT_NEAR(steady.point.monitor["duration_s"].get<double>(), 1.0, 0.2);
}

}  // namespace
}  // namespace ream
