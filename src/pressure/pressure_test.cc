// The dial's arithmetic, the bubble sized from topology fixtures, /proc parsing and the verdict.
#include "pressure/pressure.h"

#include <gtest/gtest.h>

namespace ream::pressure {
namespace {

std::string Fixture(const std::string& name) { return std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/" + name; }

TEST(PressureSources, NamesRoundTripAndUnknownNamesAreRefusedWithTheList) {
  for (const SourceInfo& s : Sources()) {
    auto parsed = ParseSource(s.name);
    ASSERT_TRUE(parsed.ok()) << s.name;
    EXPECT_EQ(*parsed, s.source);
    EXPECT_EQ(Info(s.source).name, s.name);
  }
  EXPECT_EQ(Sources().size(), 7u);
  auto bad = ParseSource("l3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cpu, l2, llc, mem_bw, memory, disk, net"), std::string::npos);
}

TEST(PressureDial, IntensityOutsideZeroToHundredIsRefused) {
  EXPECT_TRUE(ValidateIntensity(0).ok());
  EXPECT_TRUE(ValidateIntensity(100).ok());
  EXPECT_TRUE(ValidateIntensity(37.5).ok());
  EXPECT_FALSE(ValidateIntensity(-1).ok());
  EXPECT_FALSE(ValidateIntensity(100.5).ok());
  EXPECT_FALSE(ValidateIntensity(NAN).ok());
  EXPECT_NE(ValidateIntensity(150).message().find("0-100"), std::string::npos);
}

TEST(PressureDial, CpuDutyCycleIsTheIntensityShareOfThePeriod) {
  EXPECT_EQ(CpuDutyCycle(0, 10'000'000).busy_ns, 0);
  EXPECT_EQ(CpuDutyCycle(0, 10'000'000).idle_ns, 10'000'000);
  EXPECT_EQ(CpuDutyCycle(25, 10'000'000).busy_ns, 2'500'000);
  EXPECT_EQ(CpuDutyCycle(25, 10'000'000).idle_ns, 7'500'000);
  EXPECT_EQ(CpuDutyCycle(100, 10'000'000).idle_ns, 0);
  int64_t last = -1;
  for (double i = 0; i <= 100; i += 5) {
    DutyCycle d = CpuDutyCycle(i, 10'000'000);
    EXPECT_EQ(d.busy_ns + d.idle_ns, 10'000'000);
    EXPECT_GT(d.busy_ns, last);
    last = d.busy_ns;
  }
}

TEST(PressureDial, BubbleIsSizedFromTheTopologysCaches) {
  RootedPlatform p(Fixture("smt"));
  auto t = ReadTopology(p);
  ASSERT_TRUE(t.ok()) << t.status().message();
  // The fixture: L2 1024K, L3 16896K (cpu0/cache/index2, index3).
  auto l2 = BubbleWorkingSetBytes(*t, Source::kL2, 100);
  ASSERT_TRUE(l2.ok()) << l2.status().message();
  EXPECT_EQ(*l2, 1024 * 1024);
  EXPECT_EQ(*BubbleWorkingSetBytes(*t, Source::kLlc, 100), 16896 * 1024);
  EXPECT_EQ(*BubbleWorkingSetBytes(*t, Source::kLlc, 50), 16896 * 1024 / 2);
  EXPECT_EQ(*BubbleWorkingSetBytes(*t, Source::kLlc, 0), 0);
  // Whole cache lines, and monotone in the dial.
  int64_t last = -1;
  for (double i = 0; i <= 100; i += 2.5) {
    int64_t ws = *BubbleWorkingSetBytes(*t, Source::kL2, i);
    EXPECT_EQ(ws % 64, 0);
    EXPECT_GE(ws, last);
    last = ws;
  }
  EXPECT_FALSE(BubbleWorkingSetBytes(*t, Source::kCpu, 50).ok());
}

TEST(PressureDial, BubbleWithoutCacheInfoSaysSo) {
  RootedPlatform p(Fixture("nosmt"));
  auto t = ReadTopology(p);
  ASSERT_TRUE(t.ok());
  auto ws = BubbleWorkingSetBytes(*t, Source::kLlc, 50);
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.status().code(), StatusCode::kNotFound);
  EXPECT_NE(ws.status().message().find("llc bubble"), std::string::npos);
  EXPECT_FALSE(MakeSource(Source::kL2, p, *t, {}).ok());
}

TEST(PressureDial, MemoryAndRatesAreShares) {
  EXPECT_EQ(MemoryTargetBytes(8'000'000'000, 100), static_cast<int64_t>(8'000'000'000 * kMemoryFullScale));
  EXPECT_EQ(MemoryTargetBytes(8'000'000'000, 50), static_cast<int64_t>(4'000'000'000 * kMemoryFullScale));
  EXPECT_EQ(MemoryTargetBytes(8'000'000'000, 0), 0);
  EXPECT_DOUBLE_EQ(ShareOf(1e9, 25), 2.5e8);
  EXPECT_DOUBLE_EQ(ShareOf(1e9, 0), 0);
}

TEST(PressureProc, ParsesMemAvailableAndVmRss) {
  auto m = ParseMemAvailable("MemTotal:       24683648 kB\nMemFree:        21582336 kB\nMemAvailable:   22947000 kB\n");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, int64_t{22947000} * 1024);
  auto r = ParseVmRss("Name:\tream\nVmHWM:\t  9000 kB\nVmRSS:\t    8120 kB\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, int64_t{8120} * 1024);
  EXPECT_FALSE(ParseMemAvailable("MemTotal: 1 kB\n").ok());
  EXPECT_FALSE(ParseVmRss("VmRSS: lots\n").ok());
}

Achieved Step(double intensity, double percent, bool measured = true) {
  Achieved a;
  a.intensity = intensity;
  a.percent = percent;
  a.measured = measured;
  return a;
}

TEST(PressureVerdict, MonotoneAndWithinTenPercent) {
  Verdict v = Judge({Step(0, 0.2), Step(25, 26), Step(50, 48), Step(75, 77), Step(100, 97)});
  EXPECT_TRUE(v.monotone);
  ASSERT_TRUE(v.within_tolerance.has_value());
  EXPECT_TRUE(*v.within_tolerance);
  EXPECT_NEAR(v.worst_error_percent, 4.0, 1e-9);  // 26 against 25
}

TEST(PressureVerdict, AStepFarFromNominalOrFallingFails) {
  Verdict far = Judge({Step(0, 0), Step(25, 35), Step(50, 50), Step(75, 75), Step(100, 100)});
  EXPECT_TRUE(far.monotone);
  EXPECT_FALSE(*far.within_tolerance);
  Verdict falling = Judge({Step(0, 0), Step(25, 25), Step(50, 20), Step(75, 75), Step(100, 100)});
  EXPECT_FALSE(falling.monotone);
  EXPECT_NE(falling.note.find("falls"), std::string::npos);
  Verdict idle_busy = Judge({Step(0, 5), Step(100, 100)});
  EXPECT_FALSE(*idle_busy.within_tolerance);
}

TEST(PressureVerdict, UnmeasurableSourceIsJudgedMonotoneOnItsSettingOnly) {
  std::vector<Achieved> steps = {Step(0, 0, false), Step(50, 0, false), Step(100, 0, false)};
  Verdict v = Judge(steps, {0, 50, 100});
  EXPECT_TRUE(v.monotone);
  EXPECT_FALSE(v.within_tolerance.has_value());
  EXPECT_NE(v.note.find("not measurable"), std::string::npos);
  EXPECT_FALSE(Judge(steps, {0, 60, 50}).monotone);
}

TEST(PressureVerdict, ARateStepIsJudgedAgainstTheFullScaleMeasuredBesideIt) {
  // Six readings of a loopback stream (GB/s) around five steps; the fourth read 2.5 where the
  // others read 3.4-3.6 (the host took the CPU for it). Step i lies between readings i and i+1.
  const std::vector<double> r = {3.5, 3.4, 3.5, 2.5, 3.6, 3.5};
  EXPECT_DOUBLE_EQ(FullScaleBeside(r, 0), 3.5);                // 3.5 3.4 3.5
  EXPECT_DOUBLE_EQ(FullScaleBeside(r, 2), (3.4 + 3.5) / 2);    // 3.4 3.5 2.5 3.6
  EXPECT_DOUBLE_EQ(FullScaleBeside(r, 3), 3.5);                // 3.5 2.5 3.6 3.5
  EXPECT_DOUBLE_EQ(FullScaleBeside(r, 4), 3.5);                // 2.5 3.6 3.5
  EXPECT_DOUBLE_EQ(FullScaleBeside({}, 0), 0);
  // The 75 % step moved 2.6 GB/s: against the spoiled reading after it, 2.6 / ((3.5 + 2.5) / 2)
  // = 87 %; against the readings beside it, 75 %.
  Achieved step = Step(75, 52);
  step.what = "a rate measured at start";
  step.details = {{"bytes_per_s", 2.6e9}, {"peak_bytes_per_s", 5e9}};
  RescaleToFullScale(step, 1e9 * FullScaleBeside(r, 2));
  EXPECT_NEAR(step.percent, 100 * 2.6 / 3.45, 1e-9);
  EXPECT_DOUBLE_EQ(step.details["full_scale_beside_bytes_per_s"].get<double>(), 3.45e9);
  EXPECT_EQ(step.what, "a rate measured beside each step (the median of the readings around it)");
  // A step whose rate was not measured keeps its figures; the scale is still recorded.
  Achieved unmeasured = Step(50, 0, false);
  RescaleToFullScale(unmeasured, 1e9);
  EXPECT_EQ(unmeasured.percent, 0);
  EXPECT_TRUE(unmeasured.details.contains("full_scale_beside_bytes_per_s"));
}

}  // namespace
}  // namespace ream::pressure
