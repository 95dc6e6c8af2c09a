// The sensitivity profile (interference.h) on known inputs: the subject an M/M/1 server alone
// and beside one source at 50 % and 100 % whose co-runner takes part of its CPU (its service
// slower by the share taken), and beside a second source that leaves it alone.
#include "analysis/interference.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/analysis.h"
#include "analysis/mm1_point_test_util.h"
#include "analysis/queueing.h"

namespace ream::analysis {
namespace {

// A run over 500..8000 QPS with service s; beside the source `source` at `intensity` when given.
RunData SweepRun(double s, int rep, const std::string& source = "", double intensity = 0, double load = 0) {
  RunData r;
  r.scenario = "1-ST";
  r.repetition = rep;
  for (double l = 500; l <= 8000; l += 500) r.points.push_back(Mm1Point(l, s));
  if (!source.empty()) {
    char name[64];
    std::snprintf(name, sizeof name, "%s@%g", source.c_str(), intensity);
    r.corunner_set = name;
    CorunnerRecord c;
    c.name = name;
    c.sched = "normal";
    c.cpu_list = "0";
    c.pressure = source;
    c.intensity = intensity;
    c.interference_load = load;
    r.corunners.corunners = {c};
    r.corunners.SetAlone({{name, TenantFigures{.window_s = 1, .cpu_share = 0.99}}}, {});
    for (auto& p : r.points) p.corunners = {{name, TenantFigures{.window_s = 1, .cpu_share = 0.4}}};
  }
  return r;
}

ExperimentData Data(double load, double s = 100e-6) {
  ExperimentData d;
  d.name = "profile";
  d.qos.fixed_target_us = 1000;
  for (int rep = 0; rep < 2; ++rep) {
    d.runs.push_back(SweepRun(s, rep));
    // cpu: 50 % leaves a quarter of the CPU's time to the co-runner, 100 % half of it.
    d.runs.push_back(SweepRun(s / 0.75, rep, "cpu", 50, load));
    d.runs.push_back(SweepRun(s / 0.5, rep, "cpu", 100, load));
    // disk: no effect on a CPU-bound subject.
    d.runs.push_back(SweepRun(s, rep, "disk", 50, load));
    d.runs.push_back(SweepRun(s, rep, "disk", 100, load));
  }
  return d;
}

TEST(Interference, ASourceThatSlowsTheSubjectIsSensitiveWithTheToleratedIntensityInterpolatedOnTheTail) {
  auto a = Analyze(Data(4000), {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->interference.size(), 2u);
  const InterferenceProfile& cpu = a->interference[0];
  EXPECT_EQ(cpu.source, "cpu");
  ASSERT_TRUE(cpu.load);
  EXPECT_DOUBLE_EQ(*cpu.load, 4000);
  EXPECT_EQ(cpu.load_how, "[interference] load");
  ASSERT_EQ(cpu.points.size(), 3u);
  EXPECT_EQ(cpu.points[0].intensity, 0);
  EXPECT_EQ(cpu.points[2].set, "cpu@100");
  // The curve falls: capacity alone > at 50 % > at 100 %.
  ASSERT_TRUE(cpu.points[0].capacity && cpu.points[1].capacity && cpu.points[2].capacity);
  EXPECT_GT(*cpu.points[0].capacity, *cpu.points[1].capacity);
  EXPECT_GT(*cpu.points[1].capacity, *cpu.points[2].capacity);
  // At 4000 QPS: M/M/1 p95 = ln(20)/(mu - lambda) + 50 us. Alone (mu 10 000): 549 us, meets;
  // at 50 % (mu 7 500): 906 us, meets; at 100 % (mu 5 000): 3 046 us, misses. Tolerated: the
  // tail crosses 1 000 us between 50 and 100 %, at 50 + 50 × (1000 − 906) / (3046 − 906).
  ASSERT_TRUE(cpu.points[1].tail_us && cpu.points[2].tail_us);
  EXPECT_TRUE(*cpu.points[0].meets);
  EXPECT_TRUE(*cpu.points[1].meets);
  EXPECT_FALSE(*cpu.points[2].meets);
  const double t50 = *cpu.points[1].tail_us, t100 = *cpu.points[2].tail_us;
  ASSERT_TRUE(cpu.tolerated);
  EXPECT_NEAR(*cpu.tolerated, 50 + 50 * (1000 - t50) / (t100 - t50), 1e-9);
  EXPECT_GT(*cpu.tolerated, 50);
  EXPECT_LT(*cpu.tolerated, 100);
  EXPECT_FALSE(cpu.tolerates_all);
  EXPECT_EQ(cpu.verdict, "sensitive");
  ASSERT_TRUE(cpu.capacity_ratio_at_max.exact());
  EXPECT_LT(*cpu.capacity_ratio_at_max.value, 0.9);

  const InterferenceProfile& disk = a->interference[1];
  EXPECT_EQ(disk.source, "disk");
  EXPECT_TRUE(disk.tolerates_all);
  EXPECT_DOUBLE_EQ(*disk.tolerated, 100);
  EXPECT_EQ(disk.verdict, "insensitive");
  // The JSON carries the same figures.
  auto j = ToJson(*a);
  EXPECT_EQ(j["interference"]["profiles"][0]["verdict"], "sensitive");
  EXPECT_DOUBLE_EQ(j["interference"]["profiles"][0]["tolerated"].get<double>(), *cpu.tolerated);
}

TEST(Interference, WithoutAGivenLoadTheCurveIsReadAtHalfTheCapacityAlone) {
  auto a = Analyze(Data(0), {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_FALSE(a->interference.empty());
  const InterferenceProfile& cpu = a->interference[0];
  ASSERT_TRUE(cpu.load && cpu.points[0].capacity);
  EXPECT_LE(*cpu.load, *cpu.points[0].capacity / 2);
  EXPECT_GT(*cpu.load + 500, *cpu.points[0].capacity / 2);  // the highest level at or below half
  EXPECT_NE(cpu.load_how.find("half"), std::string::npos);
}

TEST(Interference, AnInvalidPointAtTheLoadLeavesTheToleratedIntensityABoundAndTheVerdictToTheCapacity) {
  ExperimentData d = Data(4000);
  for (auto& r : d.runs) {
    if (r.corunner_set != "cpu@100") continue;
    for (auto& p : r.points) {
      if (p.target_load == 4000) {
        p.valid = false;
        p.invalid_reasons = {"lateness moved p95 by 20 %"};
      }
    }
  }
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  const InterferenceProfile& cpu = a->interference[0];
  EXPECT_FALSE(cpu.points[2].meets);
  EXPECT_NE(cpu.points[2].note.find("lateness"), std::string::npos);
  ASSERT_TRUE(cpu.tolerated);
  EXPECT_DOUBLE_EQ(*cpu.tolerated, 50);
  EXPECT_TRUE(cpu.at_least);
  // Its QPS under QoS at 100 % still fell beyond the intervals: sensitive on that evidence.
  EXPECT_EQ(cpu.verdict, "sensitive");
  EXPECT_NE(cpu.evidence.find("drop of more than 10 %"), std::string::npos);
}

// A co-runner set that is no source ("job": a command), run beside the subject as the others.
RunData JobRun(double s, int rep) {
  RunData r = SweepRun(s, rep);
  r.corunner_set = "job";
  CorunnerRecord c;
  c.name = "job";
  c.sched = "normal";
  c.cpu_list = "0";
  r.corunners.corunners = {c};
  r.corunners.SetAlone({{"job", TenantFigures{.window_s = 1, .cpu_share = 0.99}}}, {});
  for (auto& p : r.points) p.corunners = {{"job", TenantFigures{.window_s = 1, .cpu_share = 0.4}}};
  return r;
}

TEST(Interference, AJobsPressureIsTheIntensityWhoseTailOnTheReportersCurveMatchesItsOwn) {
  ExperimentData d = Data(4000);
  // The job leaves the subject 60 % of its CPU: between the cpu source at 50 % (75 %) and 100 %
  // (50 %). At 4000 QPS its p95 is ln(20)/(6000 − 4000) + 50 us = 1548 us.
  for (int rep = 0; rep < 2; ++rep) d.runs.push_back(JobRun(100e-6 / 0.6, rep));
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->pressure.size(), 1u);
  const PressureProfile& p = a->pressure[0];
  EXPECT_EQ(p.set, "job");
  ASSERT_EQ(p.scores.size(), 2u);
  const PressureScore& cpu = p.scores[0];
  EXPECT_EQ(cpu.source, "cpu");
  const InterferenceProfile& curve = a->interference[0];
  const double t50 = *curve.points[1].tail_us, t100 = *curve.points[2].tail_us;
  QueueModel m{1, 100e-6 / 0.6, 50e-6};
  const double job_tail = *ResponsePercentile(m, 4000, 0.95) * 1e6;
  ASSERT_TRUE(cpu.intensity) << cpu.note;
  EXPECT_FALSE(cpu.at_least);
  EXPECT_NEAR(*cpu.intensity, 50 + 50 * (job_tail - t50) / (t100 - t50), 1e-6);
  EXPECT_GT(*cpu.intensity, 60);
  EXPECT_LT(*cpu.intensity, 70);
  // The disk source never hurt the subject: the job causes more than its whole dial does.
  const PressureScore& disk = p.scores[1];
  EXPECT_EQ(disk.source, "disk");
  ASSERT_TRUE(disk.intensity);
  EXPECT_DOUBLE_EQ(*disk.intensity, 100);
  EXPECT_TRUE(disk.at_least);
  EXPECT_EQ(ToJson(*a)["interference"]["pressure"][0]["scores"][0]["source"], "cpu");
}

TEST(Interference, WhereTheTailAtTheLoadIsInvalidTheScoreIsReadOnTheQpsUnderQosCurve) {
  ExperimentData d = Data(4000);
  for (int rep = 0; rep < 2; ++rep) {
    RunData r = JobRun(100e-6 / 0.6, rep);
    for (auto& p : r.points) {
      if (p.target_load == 4000) {
        p.valid = false;
        p.invalid_reasons = {"rule distortion: lateness moved p95 by 27 %"};
      }
    }
    d.runs.push_back(r);
  }
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->pressure.size(), 1u);
  const PressureScore& cpu = a->pressure[0].scores[0];
  EXPECT_FALSE(cpu.intensity);
  EXPECT_NE(cpu.note.find("its point at 4000 was invalid"), std::string::npos) << cpu.note;
  ASSERT_TRUE(cpu.capacity_intensity) << cpu.capacity_note;
  EXPECT_FALSE(cpu.capacity_at_least);
  EXPECT_NE(cpu.capacity_note.find("by QPS under QoS"), std::string::npos) << cpu.capacity_note;
  // The job leaves 60 % of the CPU: its capacity share lies between the cpu source's at 50 %
  // and at 100 %, and the score is interpolated linearly between them.
  const InterferenceProfile& curve = a->interference[0];
  const double c0 = *curve.points[0].capacity, r50 = *curve.points[1].capacity / c0,
               r100 = *curve.points[2].capacity / c0;
  std::optional<double> job;
  for (const auto& g : a->colocation) {
    if (g.set == "job") job = g.capacity_ratio.value;
  }
  ASSERT_TRUE(job);
  ASSERT_GT(*job, r100);
  ASSERT_LT(*job, r50);
  EXPECT_NEAR(*cpu.capacity_intensity, 50 + 50 * (r50 - *job) / (r50 - r100), 1e-6);
  // The disk source never lowered the capacity: the job takes more than its whole dial.
  const PressureScore& disk = a->pressure[0].scores[1];
  ASSERT_TRUE(disk.capacity_intensity) << disk.capacity_note;
  EXPECT_DOUBLE_EQ(*disk.capacity_intensity, 100);
  EXPECT_TRUE(disk.capacity_at_least);
  // The heat map shows the score by the capacity where the tail gave none.
  ASSERT_EQ(a->matrix.heat.size(), 2u);
  EXPECT_EQ(a->matrix.heat[1].values[0], cpu.capacity_intensity);
}

TEST(Interference, ACurveThatIsNotMonotoneIsReadOnItsMonotoneEnvelope) {
  ExperimentData d = Data(4000);
  // The cpu source at 50 % left the subject half its CPU and at 100 % three quarters (as the
  // fair scheduler favours a spinner that sleeps): the curve rises, then falls back.
  for (auto& r : d.runs) {
    if (r.corunner_set == "cpu@50") r = SweepRun(100e-6 / 0.5, r.repetition, "cpu", 50, 4000);
    if (r.corunner_set == "cpu@100") r = SweepRun(100e-6 / 0.75, r.repetition, "cpu", 100, 4000);
  }
  for (int rep = 0; rep < 2; ++rep) d.runs.push_back(JobRun(100e-6 / 0.6, rep));
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->pressure.size(), 1u);
  const PressureScore& cpu = a->pressure[0].scores[0];
  const InterferenceProfile& curve = a->interference[0];
  const double t0 = *curve.points[0].tail_us, t50 = *curve.points[1].tail_us, t100 = *curve.points[2].tail_us;
  ASSERT_GT(t50, t100);
  // The job's tail (60 % of the CPU left) lies between alone and 50 %: the score is the lowest
  // intensity that hurts as much, on the envelope (alone, 50 %, 50 % again).
  QueueModel m{1, 100e-6 / 0.6, 50e-6};
  const double job_tail = *ResponsePercentile(m, 4000, 0.95) * 1e6;
  ASSERT_TRUE(cpu.intensity) << cpu.note;
  EXPECT_FALSE(cpu.at_least);
  EXPECT_NEAR(*cpu.intensity, 50 * (job_tail - t0) / (t50 - t0), 1e-6);
  EXPECT_NE(cpu.note.find("monotone envelope"), std::string::npos) << cpu.note;
  // The capacity curve turns back too, and is read the same way.
  ASSERT_TRUE(cpu.capacity_intensity) << cpu.capacity_note;
  EXPECT_LT(*cpu.capacity_intensity, 50);
  EXPECT_NE(cpu.capacity_note.find("monotone envelope"), std::string::npos) << cpu.capacity_note;
}

// The subject (service 120 us, its curves read at 3000 QPS) analyzed with a reporter (service
// 100 us, at 4000 QPS), each measured beside a job that leaves it `share` of its CPU.
Result<ExperimentAnalysis> PredictBesideTheJob(double share) {
  ExperimentData reporter = Data(4000);
  reporter.name = "reporter";
  for (int rep = 0; rep < 2; ++rep) reporter.runs.push_back(JobRun(100e-6 / share, rep));
  ExperimentData subject = Data(3000, 120e-6);
  for (int rep = 0; rep < 2; ++rep) subject.runs.push_back(JobRun(120e-6 / share, rep));
  AnalysisOptions o;
  o.reporter = &reporter;
  return Analyze(subject, o);
}

TEST(Interference, AScoreThatIsOnlyALowerBoundGivesAPredictionThatIsABound) {
  // A job that leaves 45 % of the CPU: more than the reporter's cpu curve's top (100 %: half the
  // CPU), so the score is "≥ 100 %".
  auto a = PredictBesideTheJob(0.45);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->predictions.size(), 1u);
  const InterferencePrediction& q = a->predictions[0];
  EXPECT_EQ(q.source, "cpu");
  ASSERT_TRUE(q.score_at_least);
  // Read at 100 %: the tail there is the least the job does, the share the most it leaves.
  ASSERT_TRUE(q.predicted_tail_us.value) << q.predicted_tail_us.withheld;
  EXPECT_EQ(q.predicted_tail_us.bound, Bound::kLower);
  ASSERT_TRUE(q.predicted_capacity_ratio.value) << q.predicted_capacity_ratio.withheld;
  EXPECT_EQ(q.predicted_capacity_ratio.bound, Bound::kUpper);
  // Measured exactly, the pair's error is a bound too, and is left out of the judged error.
  ASSERT_TRUE(q.measured_capacity_ratio.exact());
  EXPECT_EQ(q.capacity_error_pp.bound, Bound::kUpper);
  EXPECT_TRUE(a->prediction_check.judged.empty());
  ASSERT_EQ(a->prediction_check.left_out.size(), 1u);
  EXPECT_NE(a->prediction_check.left_out[0].find("the predicted share is only a bound"), std::string::npos);
  EXPECT_FALSE(a->prediction_check.mean_abs_error_pp);
  auto j = ToJson(*a)["interference"];
  EXPECT_EQ(j["predictions"][0]["predicted_capacity_ratio"]["bound"], "upper");
  EXPECT_EQ(j["prediction_check"]["left_out"].size(), 1u);
}

TEST(Interference, WithoutAScoreThePredictionIsWithheldNamingWhy) {
  // The reporter's one set was never scored: its every point beside it is invalid.
  ExperimentData reporter = Data(4000);
  reporter.name = "reporter";
  for (int rep = 0; rep < 2; ++rep) {
    RunData r = JobRun(100e-6 / 0.6, rep);
    for (auto& p : r.points) {
      p.valid = false;
      p.invalid_reasons = {"timely ratio 50 % < 97.5 %"};
    }
    reporter.runs.push_back(r);
  }
  ExperimentData subject = Data(3000, 120e-6);
  AnalysisOptions o;
  o.reporter = &reporter;
  auto a = Analyze(subject, o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->predictions.size(), 1u);
  const InterferencePrediction& q = a->predictions[0];
  EXPECT_FALSE(q.predicted_capacity_ratio.value);
  const std::string& why = q.predicted_capacity_ratio.withheld;
  EXPECT_NE(why.find("no score"), std::string::npos) << why;
  EXPECT_FALSE(q.predicted_tail_us.value);
}

TEST(Interference, ThePredictionsErrorIsJudgedOnExactSharesBesideTheNaiveGuess) {
  auto pair = [](std::string set, Bounded predicted, Bounded measured, bool meets_p, bool meets_m) {
    InterferencePrediction q;
    q.set = std::move(set);
    q.predicted_capacity_ratio = predicted;
    q.measured_capacity_ratio = measured;
    q.predicted_meets = meets_p;
    q.measured_meets = meets_m;
    q.capacity_error_pp = measured.exact() && predicted.exact()
                              ? Bounded::Exact((*predicted.value - *measured.value) * 100)
                              : Bounded::Withheld("the measured share is only a bound (≤ 10 %)");
    return q;
  };
  const PredictionCheck c = CheckPredictions({pair("a", Bounded::Exact(0.25), Bounded::Exact(0.2), true, true),
                                              pair("b", Bounded::Exact(0.35), Bounded::Exact(0.4), true, false),
                                              pair("c", Bounded::Exact(0.6), Bounded::Exact(0.6), false, false),
                                              pair("d", Bounded::Exact(0.3), Bounded::AtMost(0.1), false, false)});
  EXPECT_EQ(c.measured, 4);
  EXPECT_EQ(c.judged, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(c.left_out.size(), 1u);
  EXPECT_EQ(c.left_out[0], "d: the measured share is only a bound (≤ 10 %)");
  EXPECT_NEAR(*c.mean_abs_error_pp, 10.0 / 3, 1e-9);
  // The naive guess: every judged pair at their mean measured share, 40 %: off by 20, 0, 20 pp.
  EXPECT_NEAR(*c.naive_share, 0.4, 1e-12);
  EXPECT_NEAR(*c.naive_mean_abs_error_pp, 40.0 / 3, 1e-9);
  EXPECT_EQ(c.safe_judged, 4);
  EXPECT_EQ(c.safe_agree, 3);
}

// The tail at the curve's load, Bubble-Up's own figure: judged where both tails are figures
// (not where the prediction is a bound or the pair's point had no tail), as a relative error,
// beside guessing the mean measured tail for every pair.
TEST(Interference, TheTailsErrorIsJudgedWhereBothTailsAreFiguresBesideTheNaiveGuess) {
  auto pair = [](std::string set, Bounded predicted_us, std::optional<double> measured_us) {
    InterferencePrediction q;
    q.set = std::move(set);
    q.predicted_tail_us = predicted_us;
    q.measured_tail_us = measured_us;
    q.measured_meets = false;
    q.measured_capacity_ratio = Bounded::AtMost(0.05);
    q.capacity_error_pp = Bounded::Withheld("the measured share is only a bound (≤ 5 %)");
    return q;
  };
  const PredictionCheck c = CheckPredictions({pair("a", Bounded::Exact(800), 640.0),
                                              pair("b", Bounded::Exact(700), 700.0),
                                              pair("c", Bounded::AtLeast(1000), 900.0),
                                              pair("d", Bounded::Exact(900), std::nullopt)});
  EXPECT_EQ(c.measured, 4);
  EXPECT_EQ(c.tail_judged, (std::vector<std::string>{"a", "b"}));
  // a off by 25 %, b by 0: 12.5 %. The naive guess, 670 us for both: 4.6875 % and 4.2857 %.
  EXPECT_NEAR(*c.tail_mean_abs_error_pct, 12.5, 1e-9);
  EXPECT_NEAR(*c.naive_tail_us, 670, 1e-9);
  EXPECT_NEAR(*c.naive_tail_mean_abs_error_pct, (30.0 / 640 + 30.0 / 700) / 2 * 100, 1e-9);
  // No exact share on both sides: the capacity's error stays withheld, the tail's does not.
  EXPECT_FALSE(c.mean_abs_error_pp);
  EXPECT_TRUE(c.tail_note.empty());
}

TEST(Interference, AReportersScoresPredictAnotherSubjectBesideTheJobFromItsOwnCurve) {
  // The job leaves each 60 % of the CPU; the subject has curves of its own.
  auto a = PredictBesideTheJob(0.6);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->reporter, "reporter");
  EXPECT_EQ(a->reporter_note, "");
  ASSERT_EQ(a->predictions.size(), 1u);
  const InterferencePrediction& q = a->predictions[0];
  EXPECT_EQ(q.set, "job");
  // The cpu source damages the subject most (disk leaves it as alone).
  EXPECT_EQ(q.source, "cpu");
  ASSERT_TRUE(q.score);
  EXPECT_GT(*q.score, 60);
  EXPECT_LT(*q.score, 70);
  ASSERT_TRUE(q.predicted_tail_us.exact() && q.measured_tail_us);
  // The curve is linear between its points, the queue is not: the prediction is near, not
  // exact, and both sides agree that the subject misses QoS at 3000 QPS beside the job
  // (p95 = ln(20)/(5000 − 3000) + 50 us = 1548 us).
  EXPECT_NEAR(*q.predicted_tail_us.value, *q.measured_tail_us, 0.25 * *q.measured_tail_us);
  EXPECT_FALSE(*q.predicted_meets);
  EXPECT_FALSE(*q.measured_meets);
  ASSERT_TRUE(q.predicted_capacity_ratio.exact() && q.measured_capacity_ratio.exact() && q.capacity_error_pp.exact());
  EXPECT_NEAR(*q.capacity_error_pp.value, (*q.predicted_capacity_ratio.value - *q.measured_capacity_ratio.value) * 100,
              1e-9);
  // The capacity is read off the curve linearly between its points at 50 % and 100 %, but
  // capacity under a p95 target falls faster than the CPU share left (it is the service rate
  // minus a fixed margin, then rounded down to the grid): the chord lies above the curve, so
  // the prediction is optimistic, here by 12.3 pp of the alone capacity. A finer dial narrows
  // it; this bound says how near two points 50 % apart get.
  EXPECT_GT(*q.capacity_error_pp.value, 0);
  EXPECT_LT(*q.capacity_error_pp.value, 15);
  // The one measured pair is judged, beside the naive guess (its own measured share: no error).
  EXPECT_EQ(a->prediction_check.judged, (std::vector<std::string>{"job"}));
  EXPECT_NEAR(*a->prediction_check.mean_abs_error_pp, *q.capacity_error_pp.value, 1e-9);
  EXPECT_DOUBLE_EQ(*a->prediction_check.naive_mean_abs_error_pp, 0);
  EXPECT_EQ(a->prediction_check.safe_judged, 1);
  EXPECT_EQ(a->prediction_check.safe_agree, 1);
  EXPECT_EQ(ToJson(*a)["interference"]["predictions"][0]["source"], "cpu");

  // A reporter without scores says so, and predicts nothing.
  ExperimentData bare = Data(4000);
  AnalysisOptions o;
  o.reporter = &bare;
  auto b = Analyze(Data(3000, 120e-6), o);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->predictions.empty());
  EXPECT_NE(b->reporter_note.find("no pressure scores"), std::string::npos);
}

TEST(Interference, TheMatrixSetsEachSubjectBesideEachJobPredictedAndMeasuredWithWhatEachToleratesAndCauses) {
  ExperimentData reporter = Data(4000);
  reporter.name = "reporter";
  for (int rep = 0; rep < 2; ++rep) reporter.runs.push_back(JobRun(100e-6 / 0.6, rep));
  ExperimentData subject = Data(3000, 120e-6);
  subject.name = "subject";
  for (int rep = 0; rep < 2; ++rep) subject.runs.push_back(JobRun(120e-6 / 0.6, rep));
  AnalysisOptions o;
  o.reporter = &reporter;
  auto a = Analyze(subject, o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  const ColocationMatrix& m = a->matrix;
  // The job is the one co-runner set; the sources' own sets are the curves, not columns.
  EXPECT_EQ(m.subjects, (std::vector<std::string>{"subject", "reporter"}));
  EXPECT_EQ(m.sets, (std::vector<std::string>{"job"}));
  EXPECT_EQ(m.sources, (std::vector<std::string>{"cpu", "disk"}));
  ASSERT_EQ(m.cells.size(), 2u);
  const MatrixCell& mine = m.cells[0];
  const InterferencePrediction& q = a->predictions.at(0);
  EXPECT_EQ(mine.subject, "subject");
  EXPECT_EQ(mine.predicted_ratio, q.predicted_capacity_ratio);
  EXPECT_EQ(mine.measured_ratio, q.measured_capacity_ratio);
  ASSERT_TRUE(mine.predicted_meets && mine.measured_meets);
  EXPECT_FALSE(*mine.predicted_meets);
  EXPECT_FALSE(*mine.measured_meets);
  EXPECT_EQ(*mine.load, 3000);
  // The reporter's cell is measured only: its scores were read off that very measurement.
  const MatrixCell& theirs = m.cells[1];
  EXPECT_EQ(theirs.subject, "reporter");
  EXPECT_FALSE(theirs.predicted_ratio.value);
  ASSERT_TRUE(theirs.measured_ratio.value);
  EXPECT_LT(*theirs.measured_ratio.value, 1);
  EXPECT_NE(theirs.note.find("measured only"), std::string::npos);
  // The heat map: what each subject tolerates, and what the job causes by the reporter's scores.
  ASSERT_EQ(m.heat.size(), 3u);
  EXPECT_EQ(m.heat[0].workload, "subject");
  EXPECT_EQ(m.heat[0].role, "tolerates");
  EXPECT_EQ(m.heat[0].values[0], a->interference[0].tolerated);
  // Disk never hurt it: it tolerates the whole dial, shown as a bound.
  ASSERT_TRUE(m.heat[0].values[1]);
  EXPECT_DOUBLE_EQ(*m.heat[0].values[1], 100);
  EXPECT_TRUE(m.heat[0].at_least[1]);
  EXPECT_EQ(m.heat[1].workload, "reporter");
  const HeatRow& job = m.heat[2];
  EXPECT_EQ(job.workload, "job");
  EXPECT_EQ(job.role, "causes");
  EXPECT_EQ(job.by, "reporter");
  ASSERT_TRUE(job.values[0]);
  EXPECT_GT(*job.values[0], 60);
  EXPECT_LT(*job.values[0], 70);
  EXPECT_EQ(q.score, job.values[0]);
  auto j = ToJson(*a)["matrix"];
  EXPECT_EQ(j["sets"][0], "job");
  EXPECT_EQ(j["heat"][2]["values"][0]["source"], "cpu");

  // Another subject of the database joins the matrix: predicted from its own curves at the
  // reporter's scores, measured where it ran the set (it did not: its cell has no measurement).
  ExperimentData other = Data(3000, 130e-6);
  other.name = "other";
  o.subjects = {&other, &subject};  // this page's own experiment is not listed twice
  auto b = Analyze(subject, o);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->matrix.subjects, (std::vector<std::string>{"subject", "other", "reporter"}));
  ASSERT_EQ(b->matrix.cells.size(), 3u);
  const MatrixCell& theirs2 = b->matrix.cells[1];
  EXPECT_EQ(theirs2.subject, "other");
  ASSERT_TRUE(theirs2.predicted_ratio.value);
  // Slower (130 us), it keeps a smaller share beside the same pressure than the subject.
  EXPECT_LT(*theirs2.predicted_ratio.value, *mine.predicted_ratio.value);
  EXPECT_FALSE(theirs2.measured_ratio.value);
  EXPECT_EQ(b->matrix.heat[1].workload, "other");
  EXPECT_EQ(b->matrix.heat[1].role, "tolerates");

  // Without a reporter: this subject's own cells, measured only, and its own scores.
  auto alone = Analyze(subject, {});
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->matrix.subjects, (std::vector<std::string>{"subject"}));
  ASSERT_EQ(alone->matrix.cells.size(), 1u);
  EXPECT_FALSE(alone->matrix.cells[0].predicted_ratio.value);
  EXPECT_TRUE(alone->matrix.cells[0].measured_ratio.value);
  ASSERT_EQ(alone->matrix.heat.size(), 2u);
  EXPECT_EQ(alone->matrix.heat[1].by, "subject");
}

TEST(Interference, SetsOfACommandCorunnerAreNoProfile) {
  ExperimentData d = Data(4000);
  for (auto& r : d.runs) {
    if (!r.corunners.corunners.empty()) r.corunners.corunners[0].pressure.clear();
  }
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(a->interference.empty());
  EXPECT_FALSE(a->colocation.empty());
}

}  // namespace
}  // namespace ream::analysis
