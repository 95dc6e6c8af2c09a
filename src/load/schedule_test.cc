// The rate schedule's forms and errors, its integral and inverse, and the time-rescaling the
// generator builds on it; a window's figures, verdict and JSON.
#include "load/schedule.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "load/anderson_darling.h"
#include "load/load_window.h"

namespace ream {
namespace {

Result<RateSchedule> Parse(const std::string& text, const std::string& file = "") {
  return ParseSchedule(text, "--schedule", [file](const std::string& path) -> Result<std::string> {
    if (path != "trace.txt") return NotFound(path + ": no such file");
    return file;
  });
}

TEST(Schedule, StepsAreConsecutiveStretchesAtTheirRates) {
  auto s = Parse("10000 for 20s, 40000 for 20s, 10000 for 20s");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->text, "10000 for 20s, 40000 for 20s, 10000 for 20s");
  EXPECT_EQ(s->duration_ns(), 60'000'000'000);
  EXPECT_DOUBLE_EQ(s->RateAt(0), 10000);
  EXPECT_DOUBLE_EQ(s->RateAt(19.9), 10000);
  EXPECT_DOUBLE_EQ(s->RateAt(20), 40000);  // right-continuous at the step
  EXPECT_DOUBLE_EQ(s->RateAt(45), 10000);
  EXPECT_DOUBLE_EQ(s->Mean(), 20000);
  EXPECT_DOUBLE_EQ(s->MeanRate(10, 30), 25000);
  EXPECT_DOUBLE_EQ(s->Integral(60), 1'200'000);
}

TEST(Schedule, RampsAreLinearAndMixWithSteps) {
  auto s = Parse("10000 to 40000 over 10s, 40000 for 5s, 40000 to 0 over 5s");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->duration_ns(), 20'000'000'000);
  EXPECT_DOUBLE_EQ(s->RateAt(5), 25000);
  EXPECT_DOUBLE_EQ(s->RateAt(12), 40000);
  EXPECT_DOUBLE_EQ(s->RateAt(17.5), 20000);
  EXPECT_DOUBLE_EQ(s->MeanRate(0, 10), 25000);
  EXPECT_DOUBLE_EQ(s->Integral(20), 250000 + 200000 + 100000);
}

TEST(Schedule, AFileIsATraceOfRatesScaledToTheRunWhenAsked) {
  const std::string trace = "# hour  qps\n100 200\n\n101 800  # the peak\n103 200\n";
  auto s = Parse("file:trace.txt", trace);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->duration_ns(), 3'000'000'000);  // from its first line's time
  EXPECT_DOUBLE_EQ(s->RateAt(1), 800);
  EXPECT_DOUBLE_EQ(s->RateAt(2), 500);
  auto scaled = Parse("file:trace.txt peak 40000 length 60s", trace);
  ASSERT_TRUE(scaled.ok()) << scaled.status().ToString();
  EXPECT_EQ(scaled->duration_ns(), 60'000'000'000);
  EXPECT_DOUBLE_EQ(scaled->RateAt(20), 40000);
  EXPECT_DOUBLE_EQ(scaled->RateAt(0), 10000);
  EXPECT_EQ(scaled->text, "file:trace.txt peak 40000 length 60s");
}

TEST(Schedule, ErrorsNameTheFieldAndTheBadPart) {
  struct Case {
    std::string text, file, says;
  };
  for (const Case& c : std::vector<Case>{
           {"", "", "--schedule = \"\": empty"},
           {"10000 for 20s, 40000 during 5s", "", "'40000 during 5s' is neither"},
           {"fast for 20s", "", "'fast for 20s' starts with no rate"},
           {"-5 for 20s", "", "'-5 for 20s' starts with no rate"},
           {"10000 to many over 5s", "", "'10000 to many over 5s' has a rate that is not a number"},
           {"10000 for 20", "", "needs a unit"},
           {"10000 for 0s", "", "'10000 for 0s' lasts no time"},
           {"0 for 5s, 0 to 0 over 5s", "", "the rate is 0 throughout"},
           {"file:", "", "file: names no file"},
           {"file:missing.txt", "", "cannot read missing.txt"},
           {"file:trace.txt peak", "1 2\n3 4\n", "'peak' takes a value"},
           {"file:trace.txt peek 5", "1 2\n3 4\n", "'peek' after the file is neither peak nor length"},
           {"file:trace.txt peak 0", "1 2\n3 4\n", "peak '0' is not a rate above 0"},
           {"file:trace.txt length 0s", "1 2\n3 4\n", "length '0s' must be more than 0"},
           {"file:trace.txt", "1 2\n3 four\n", "trace.txt line 2 '3 four': is not a 'SECONDS QPS' pair"},
           {"file:trace.txt", "5 2\n3 4\n", "trace.txt line 2 '3 4': goes back in time"},
           {"file:trace.txt", "5 2\n", "fewer than two"},
           {"file:trace.txt", "5 2\n5 4\n", "lasts no time"},
       }) {
    auto s = Parse(c.text, c.file);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(s.status().message().find(c.says), std::string::npos) << c.text << ": " << s.status().message();
    EXPECT_EQ(s.status().message().rfind("--schedule = ", 0), 0u) << s.status().message();
  }
  // A stretch at 0 QPS is allowed where some other stretch is not.
  EXPECT_TRUE(Parse("1000 for 1s, 0 for 1s, 1000 for 1s").ok());
}

TEST(Schedule, TimeOfInvertsTheIntegralOnStepsRampsAndZeroStretches) {
  auto s = Parse("1000 for 1s, 0 for 1s, 0 to 4000 over 2s, 4000 to 1000 over 1s, 2000 for 1s");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  size_t cursor = 0;
  for (int k = 0; k < 600; ++k) {
    const double t = k / 100.0;
    if (t > 1 && t < 2.05) continue;  // at 0 QPS (and just after): instants with (about) the same count
    const double n = s->Integral(t);
    EXPECT_NEAR(s->TimeOf(n, &cursor), t, 1e-6) << "t = " << t;
  }
  // The count reached by 1 s is due at 1 s, not anywhere in the silent second after it.
  cursor = 0;
  EXPECT_NEAR(s->TimeOf(1000, &cursor), 1, 1e-9);
  EXPECT_NEAR(s->TimeOf(1000.5, &cursor), 2 + std::sqrt(2 * 0.5 / 2000), 1e-9);  // on the ramp: 2000/s²
  EXPECT_DOUBLE_EQ(s->TimeOf(1e12, &cursor), s->duration_s());
}

// The generator's time-rescaling (generator_thread.cc, NextSend): a unit-rate Poisson process in
// operational time mapped through Λ⁻¹ has the schedule's rate in every second, and mapped back
// through Λ its gaps are exponential again.
TEST(Schedule, TimeRescaledPoissonFollowsAStepAndStaysPoisson) {
  auto s = Parse("2000 for 3s, 8000 for 3s, 2000 for 3s");
  ASSERT_TRUE(s.ok());
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> unit(1.0);
  std::vector<int> per_second(9, 0);
  std::vector<double> op_gaps;
  size_t cursor = 0;
  double n = 0, last_op = 0;
  for (;;) {
    n += unit(rng);
    if (n >= s->Integral(s->duration_s())) break;
    const double t = s->TimeOf(n, &cursor);
    ++per_second[static_cast<size_t>(t)];
    const double back = s->Integral(t);
    op_gaps.push_back(back - last_op);
    last_op = back;
  }
  for (int sec = 0; sec < 9; ++sec) {
    const double want = s->RateAt(sec + 0.5);
    EXPECT_NEAR(per_second[static_cast<size_t>(sec)], want, 4 * std::sqrt(want)) << "second " << sec;
  }
  std::vector<double> sample(op_gaps.begin(), op_gaps.begin() + 2000);
  EXPECT_LT(AndersonDarlingStatistic(sample, [](double x) { return 1 - std::exp(-x); }), kAndersonDarlingCritical1);
}

TEST(LoadWindow, FiguresAndVerdict) {
  WindowCounts c;
  c.scheduled = 1000, c.timely = 990, c.answered = 1000;
  for (int i = 1; i <= 100; ++i) c.latencies_ns.push_back(i * 1000);  // 1..100 us
  LoadWindow w = JudgeWindow(3, 1.5, 2.0, 2000, c, 95, 0.975);
  EXPECT_EQ(w.index, 3);
  EXPECT_DOUBLE_EQ(w.throughput_qps, 2000);
  EXPECT_DOUBLE_EQ(w.timely_ratio, 0.99);
  ASSERT_TRUE(w.tail_us && w.p95_us && w.p99_us);
  EXPECT_NEAR(*w.tail_us, 95, 95 * Histogram::kRelativeError);
  EXPECT_NEAR(*w.p99_us, 99, 99 * Histogram::kRelativeError);
  EXPECT_TRUE(w.valid) << w.invalid_because;

  WindowCounts late = c;
  late.timely = 900;
  EXPECT_NE(JudgeWindow(0, 0, 0.5, 2000, late, 95, 0.975).invalid_because.find("timely 90.0 % < 97.5 %"), std::string::npos);
  WindowCounts failed = c;
  failed.errors = 2;
  EXPECT_EQ(JudgeWindow(0, 0, 0.5, 2000, failed, 95, 0.975).invalid_because, "2 requests failed in it");
  WindowCounts silent;
  LoadWindow empty = JudgeWindow(0, 0, 0.5, 0, silent, 95, 0.975);
  EXPECT_FALSE(empty.valid);
  EXPECT_FALSE(empty.tail_us.has_value());  // nothing measured: no figure, not 0
  EXPECT_NE(empty.invalid_because.find("no request was scheduled"), std::string::npos);
}

// Under the distortion rule a window short of timely sends stays valid when lateness did not move
// its tail (the tail from the schedule against the tail from the actual send), and not otherwise.
TEST(LoadWindow, TheDistortionRuleWeighsWhatLatenessDidToTheTail) {
  WindowCounts c;
  c.scheduled = 1000, c.timely = 900, c.answered = 1000;
  for (int i = 1; i <= 100; ++i) {
    c.latencies_ns.push_back(i * 10'000);   // 10..1000 us from the schedule
    c.from_send_ns.push_back(i * 9'900);    // the sends 1 % late on average: p95 moved 9.5 us
  }
  LoadWindow kept = JudgeWindow(0, 0, 0.5, 2000, c, 95, 0.975, WindowDistortion{});
  EXPECT_TRUE(kept.valid) << kept.invalid_because;
  WindowCounts moved = c;
  for (auto& ns : moved.from_send_ns) ns /= 2;  // half the tail was lateness
  LoadWindow spoiled = JudgeWindow(0, 0, 0.5, 2000, moved, 95, 0.975, WindowDistortion{});
  EXPECT_FALSE(spoiled.valid);
  EXPECT_NE(spoiled.invalid_because.find("timely 90.0 % < 97.5 % and lateness moved the window's p95"),
            std::string::npos)
      << spoiled.invalid_because;
  // The seed's rule (no distortion) judges the timely share alone.
  EXPECT_FALSE(JudgeWindow(0, 0, 0.5, 2000, c, 95, 0.975).valid);
}

TEST(LoadWindow, JsonRoundTripsAndRefusesMissingFields) {
  WindowCounts c;
  c.scheduled = 10, c.timely = 10, c.answered = 9;
  c.latencies_ns = {50'000, 60'000};
  LoadWindow w = JudgeWindow(7, 3.5, 4.0, 20, c, 99, 0.975);
  auto back = LoadWindow::FromJson(nlohmann::json::parse(w.ToJson().dump()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToJson(), w.ToJson());
  EXPECT_EQ(back->index, 7);
  EXPECT_EQ(back->answered, 9u);
  EXPECT_EQ(back->percentile, 99);

  LoadWindow none = JudgeWindow(0, 0, 1, 0, WindowCounts{}, 95, 0.975);
  auto j = none.ToJson();
  EXPECT_TRUE(j["tail_us"].is_null());
  auto none_back = LoadWindow::FromJson(j);
  ASSERT_TRUE(none_back.ok());
  EXPECT_FALSE(none_back->tail_us.has_value());

  j.erase("answered");
  auto bad = LoadWindow::FromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'answered'"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace ream
