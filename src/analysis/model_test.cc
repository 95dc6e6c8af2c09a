// The queueing model's M/G/1 (Pollaczek–Khinchine), its regression over a stated operating
// range, and the second seed's predicted sensitivities on constructed data.
#include <cmath>

#include <gtest/gtest.h>

#include "analysis/analysis.h"
#include "analysis/queueing.h"

namespace ream::analysis {
namespace {

TEST(PollaczekKhinchine, KnownWaitsAndMM1AndMD1AsSpecialCases) {
  // λ = 5000/s, S = 100 µs: ρ = 0.5. W = λ·E[S²] / (2(1 − ρ)) with E[S²] = (1 + SCV)·S².
  QueueModel m{1, 100e-6, 0, 1};
  EXPECT_NEAR(*MeanWait(m, 5000), 100e-6, 1e-15);  // M/M/1: ρ·S / (1 − ρ)
  m.scv = 0;
  EXPECT_NEAR(*MeanWait(m, 5000), 50e-6, 1e-15);  // M/D/1: half of M/M/1's
  m.scv = 3;
  EXPECT_NEAR(*MeanWait(m, 5000), 5000 * 4 * 1e-8 / (2 * 0.5), 1e-15);
  m.scv = 0.5;
  EXPECT_NEAR(*MeanResponse(m, 8000), 100e-6 + 0.8 * 100e-6 * 0.75 / 0.2, 1e-15);
  EXPECT_FALSE(MeanWait(m, 10000).has_value());  // ρ = 1: unstable
}

TEST(PollaczekKhinchine, TheTailIsADistributionWithTheMeanOfTheFormula) {
  // For SCV < 1 the sojourn is a constant plus an exponential, plus a wait matched in the
  // mean: ∫ P(T > t) dt must be E[W] + S, and P(T > t) must fall from 1 to 0.
  for (double scv : {0.0, 0.3, 0.64, 1.0}) {
    QueueModel m{1, 120e-6, 0, scv};
    double lambda = 5000;
    double dt = 2e-8, sum = 0;
    for (double t = 0; t < 0.02; t += dt) sum += SojournTail(m, lambda, t + dt / 2) * dt;
    EXPECT_NEAR(sum, *MeanResponse(m, lambda), 2e-8) << "scv " << scv;
    EXPECT_NEAR(SojournTail(m, lambda, 0), 1, 1e-12);
    double p95 = *ResponsePercentile(m, lambda, 0.95);
    EXPECT_NEAR(SojournTail(m, lambda, p95), 0.05, 1e-9);
  }
  // M/D/1: the response is never below S, and exceeds it exactly when one waits (P = ρ).
  QueueModel d{1, 100e-6, 0, 0};
  EXPECT_EQ(SojournTail(d, 5000, 99e-6), 1);
  EXPECT_NEAR(SojournTail(d, 5000, 100e-6 + 1e-12), 0.5, 1e-6);
}

// Loads of an M/G/1 with S = 125 µs of which 100 µs exponential work (SCV 0.64) and the rest
// constant, a 30 µs delay center, at utilizations from 5 % to 95 %.
std::vector<MeasuredLoad> Mg1Loads() {
  std::vector<MeasuredLoad> loads;
  QueueModel q{1, 125e-6, 30e-6, 0.64};
  for (double u = 0.05; u < 0.951; u += 0.05) {
    MeasuredLoad l;
    l.qps = u / 125e-6;
    l.utilization = l.cpu_busy_cpus = u;
    l.mean_s = *MeanResponse(q, l.qps);
    l.p_s = *ResponsePercentile(q, l.qps, 0.95);
    l.service_s = 100e-6;
    loads.push_back(l);
  }
  return loads;
}

TEST(CompareWithModel, MG1FromTheWorksScvAndTheReportedServiceFitsItsOwnCurve) {
  ModelInputs in;
  in.work_scv = 1;
  in.work_scv_source = "test";
  std::string why;
  auto c = CompareWithModel(Mg1Loads(), in, &why);
  ASSERT_TRUE(c.has_value()) << why;
  EXPECT_EQ(c->queue, "M/G/1 (Pollaczek–Khinchine)");
  EXPECT_NEAR(c->model.scv, 0.64, 1e-9);  // (100 / 125)² of the work's SCV 1
  EXPECT_NEAR(c->s0_s, 125e-6, 1e-12);
  EXPECT_NEAR(c->delay_s, 30e-6, 1e-12);
  ASSERT_TRUE(c->mean.modeled) << c->mean.unavailable;
  EXPECT_LT(*c->mean.max_abs_relative_error, 1e-9);
  // M/M/1 over-predicts the wait of this less variable service: its error is not zero.
  ASSERT_EQ(c->variants.size(), 2u);
  EXPECT_EQ(c->variants[0].name, "M/M/1");
  EXPECT_GT(*c->variants[0].max_abs_relative_error, 0.05);
  EXPECT_LT(*c->variants[1].max_abs_relative_error, 1e-9);
}

TEST(CompareWithModel, RegressesOnlyTheRangesPointsAndSaysWhenTooFewLieInIt) {
  std::vector<MeasuredLoad> loads = Mg1Loads();
  // A wild point outside the range (at 95 %) must not move the range's regression.
  loads.back().mean_s *= 10;
  ModelInputs in;  // the default range: 10 % to 70 %
  std::string why;
  auto c = CompareWithModel(loads, in, &why);
  ASSERT_TRUE(c.has_value()) << why;
  EXPECT_EQ(c->mean.points, 13);  // 10, 15, ..., 70 %
  EXPECT_NEAR(c->mean.base_load_qps, 0.10 / 125e-6, 1e-6);
  std::vector<XY> inside;
  for (const auto& l : loads) {
    if (l.utilization >= 0.1 - 1e-9 && l.utilization <= 0.7 + 1e-9) inside.push_back({l.qps, l.mean_s});
  }
  auto fit = FitLine(inside);
  ASSERT_TRUE(c->mean.measured.has_value());
  EXPECT_NEAR(c->mean.measured->fit.slope, fit->slope, 1e-15);
  EXPECT_NEAR(c->mean.measured->fit.r2, fit->r2, 1e-12);
  EXPECT_NEAR(c->mean.measured->base_s, fit->At(0.10 / 125e-6), 1e-15);
  EXPECT_FALSE(c->points.back().in_range);
  // A range holding two points: the tables say so, with the range and what was seen.
  in.range_low = 0.42;
  in.range_high = 0.52;
  in.range_source = "[model] range";
  auto few = CompareWithModel(loads, in, &why);
  ASSERT_TRUE(few.has_value()) << why;
  EXPECT_FALSE(few->mean.measured.has_value());
  EXPECT_FALSE(few->mean.mean_abs_relative_error.has_value());
  EXPECT_NE(few->mean.unavailable.find("only 2 valid point(s) between 42 % and 52 %"), std::string::npos)
      << few->mean.unavailable;
  EXPECT_NE(few->mean.unavailable.find("utilizations measured: 5 %, 10 %"), std::string::npos)
      << few->mean.unavailable;
  EXPECT_FALSE(few->tail.unavailable.empty());
}

TEST(Welch, WakeUpOnIdleMatchesASimulationAndIsRecoveredFromTheCpuPerRequest) {
  // M/M/1 with S = 100 µs and a 30 µs wake-up for arrivals to an idle server. A simulation of
  // 400 000 requests (the same model, seeded) gave at 3000/s: W 52.8 µs, T 172.3 µs, U 0.358.
  QueueModel q{1, 100e-6, 0, 1, 30e-6};
  EXPECT_NEAR(*MeanWait(q, 3000), 52.8e-6, 1.5e-6);
  EXPECT_NEAR(*MeanResponse(q, 3000), 172.3e-6, 1.5e-6);
  EXPECT_NEAR(1 - NoWaitProbability(q, 3000), 0.358, 0.002);
  // Without the wake-up it is Pollaczek–Khinchine's M/M/1.
  q.wake_s = 0;
  EXPECT_NEAR(*MeanWait(q, 3000), 0.3 * 100e-6 / 0.7, 1e-15);
  // The tail is a distribution with the mean of the formula.
  QueueModel w{1, 100e-6, 0, 0.8, 30e-6};
  double dt = 2e-8, sum = 0;
  for (double t = 0; t < 0.02; t += dt) sum += SojournTail(w, 4000, t + dt / 2) * dt;
  EXPECT_NEAR(sum, *MeanResponse(w, 4000), 2e-8);

  // Loads of that server (D 40 µs): the CPU per request falls with the load; the comparison
  // fits S and ω from U(λ) and predicts the curve exactly, where the plain M/M/1 does not.
  QueueModel truth{1, 100e-6, 40e-6, 1, 30e-6};
  std::vector<MeasuredLoad> loads;
  for (double lambda = 1000; lambda <= 6500; lambda += 500) {
    MeasuredLoad l;
    l.qps = lambda;
    l.utilization = l.cpu_busy_cpus = 1 - NoWaitProbability(truth, lambda);
    l.mean_s = *MeanResponse(truth, lambda);
    l.p_s = *ResponsePercentile(truth, lambda, 0.95);
    loads.push_back(l);
  }
  std::string why;
  auto c = CompareWithModel(loads, ModelInputs{}, &why);
  ASSERT_TRUE(c.has_value()) << why;
  EXPECT_NE(c->queue.find("wake-up on idle"), std::string::npos) << c->queue;
  EXPECT_NEAR(c->model.service_s, 100e-6, 1e-9);
  EXPECT_NEAR(c->model.wake_s, 30e-6, 1e-9);
  EXPECT_NEAR(c->delay_s, 40e-6, 1e-9);
  EXPECT_NEAR(c->saturation_qps, 10000, 1e-3);
  EXPECT_LT(*c->mean.max_abs_relative_error, 1e-6);
  ASSERT_GE(c->variants.size(), 3u);
  EXPECT_GT(*c->variants[0].max_abs_relative_error, 0.02);  // plain M/M/1: S from U/X is too large
}

// A CPU quota is the queue's capacity, not a longer demand: 1-ST with
// S = 100 µs of CPU per request at a 50 % and a 75 % quota serves each request in S / quota,
// and its utilization is of the quota. The fitted S stays 100 µs at every quota (it read
// 233 µs and 147 µs in examples/sensitivity.toml before), and X_sat is quota / S.
TEST(CompareWithModel, ACpuQuotaIsTheCapacityAndSStaysTheDemand) {
  ExperimentData d;
  d.name = "quota";
  for (double quota : {1.0, 0.75, 0.5}) {
    RunData r;
    r.scenario = "1-ST";
    r.threads = 1;
    if (quota < 1) r.partition.limits["cpu_quota"] = quota;
    QueueModel truth{1, 100e-6 / quota, 30e-6, 1};  // the queue the quota makes
    for (double u = 0.05; u < 0.91; u += 0.05) {
      PointData p;
      p.target_load = p.achieved_qps = p.throughput_qps = u * quota / 100e-6;
      p.valid = true;
      p.timely_ratio = 1;
      p.latency_mean_us = *MeanResponse(truth, p.achieved_qps) * 1e6;
      p.p95_us = *ResponsePercentile(truth, p.achieved_qps, 0.95) * 1e6;
      p.p50_us = p.p99_us = p.p999_us = p.p95_us;
      p.cpu_util = Metric::Of(u);  // of the allotment: the quota's CPUs
      r.points.push_back(p);
    }
    d.runs.push_back(r);
  }
  auto a = Analyze(d, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->groups.size(), 3u);
  for (const auto& g : a->groups) {
    ASSERT_TRUE(g.model.has_value()) << g.key << ": " << g.model_unavailable;
    const double quota = g.partition.Limit("cpu_quota").value_or(1.0);
    EXPECT_NEAR(g.model->demand_s, 100e-6, 1e-9) << g.key;
    EXPECT_NEAR(g.model->s0_s, 100e-6, 1e-9) << g.key;
    EXPECT_NEAR(g.model->capacity_cpus, quota, 1e-12) << g.key;
    EXPECT_NEAR(g.model->saturation_qps, quota / 100e-6, 1e-3) << g.key;
    // The curve is the quota's queue: predicted as measured.
    EXPECT_LT(*g.model->mean.max_abs_relative_error, 1e-6) << g.key;
    if (quota < 1) {
      EXPECT_NE(g.model->s0_method.find("quota"), std::string::npos) << g.model->s0_method;
      EXPECT_NEAR(g.model->model.service_s, 100e-6 / quota, 1e-9) << g.key;
    }
  }
  auto j = ToJson(*a);
  for (const auto& g : j["groups"]) {
    EXPECT_NEAR(g["model"]["service_us"].get<double>(), 100, 1e-3) << g["key"];
    EXPECT_EQ(g["model"].contains("capacity_cpus"), g["key"].get<std::string>().find("quota") != std::string::npos)
        << g["key"];
  }
}

// A knob table with the LogGP knobs L and o as the relay declares them (µs).
KnobTable WithLogGp() {
  KnobTable t = BuiltinKnobs();
  for (const char* k : {"net_latency", "net_overhead"}) {
    t.AddResource({.name = k, .unit = "us", .lower_is_tighter = false, .json_field = std::string(k) + "_us"});
    t.Add({.key = k,
           .parse = [](std::string_view, std::string_view) -> Result<KnobValue> { return KnobValue(0.0); },
           .apply = [](const KnobValue&, PartitionSpec*) {},
           .resource = k,
           .amount = [](const KnobValue& v) { return std::get<double>(v); }});
  }
  return t;
}

// A sweep of an M/M/1 with S = s0 + 2·o and D = 50 µs + 2·L, 5 % to 90 % utilization.
RunData LogGpRun(const std::string& knob, double value_us, double s0, double l_s, double o_s) {
  RunData r;
  r.scenario = "1-ST";
  r.partition.limits[knob] = value_us;
  const double s = s0 + 2 * o_s;
  QueueModel q{1, s, 50e-6 + 2 * l_s, 1};
  for (double u = 0.05; u < 0.901; u += 0.05) {
    PointData p;
    p.target_load = p.achieved_qps = p.throughput_qps = std::round(u / s);
    p.valid = true;
    p.timely_ratio = 1;
    p.latency_mean_us = *MeanResponse(q, p.target_load) * 1e6;
    p.p50_us = *ResponsePercentile(q, p.target_load, 0.5) * 1e6;
    p.p95_us = *ResponsePercentile(q, p.target_load, 0.95) * 1e6;
    p.p99_us = *ResponsePercentile(q, p.target_load, 0.99) * 1e6;
    p.p999_us = *ResponsePercentile(q, p.target_load, 0.999) * 1e6;
    p.cpu_util = Metric::Of(p.target_load * s);
    p.clients = 4;
    r.points.push_back(p);
  }
  return r;
}

TEST(PredictSensitivity, LatencyAddsTwoLToTheBaseAndOverheadMovesSaturation) {
  const KnobTable knobs = WithLogGp();
  ExperimentData d;
  d.name = "loggp";
  for (double l : {0.0, 100.0, 200.0}) d.runs.push_back(LogGpRun("net_latency", l, 100e-6, l * 1e-6, 0));
  for (double o : {0.0, 20.0}) d.runs.push_back(LogGpRun("net_overhead", o, 100e-6, 0, o * 1e-6));
  AnalysisOptions opt;
  opt.knobs = &knobs;
  auto a = Analyze(d, opt);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->predicted_sensitivity.size(), 2u);
  const PredictedSensitivity& lat = a->predicted_sensitivity[0];
  EXPECT_EQ(lat.parameter, "L");
  ASSERT_EQ(lat.settings.size(), 3u) << lat.unavailable;
  const PredictedSetting& ref = lat.settings[0];
  const PredictedSetting& l200 = lat.settings[2];
  ASSERT_TRUE(ref.measured_base_us && l200.predicted_base_us && l200.measured_base_us);
  EXPECT_NEAR(*l200.predicted_base_us, *ref.measured_base_us + 400, 1e-6);
  EXPECT_NEAR(*l200.measured_base_us, *l200.predicted_base_us, 1e-6);  // the data obey the rule
  EXPECT_NEAR(*l200.predicted_slope_us_per_qps, *ref.measured_slope_us_per_qps, 1e-12);
  EXPECT_NEAR(*l200.measured_slope_us_per_qps, *l200.predicted_slope_us_per_qps, 1e-9);

  const PredictedSensitivity& ovh = a->predicted_sensitivity[1];
  EXPECT_EQ(ovh.parameter, "o");
  ASSERT_EQ(ovh.settings.size(), 2u) << ovh.unavailable;
  EXPECT_NEAR(*ovh.settings[1].predicted_saturation_qps, 1 / 140e-6, 1e-6);  // c / (S0 + 2·o)
  EXPECT_NEAR(*ovh.settings[1].predicted_base_us, *ovh.settings[0].measured_base_us + 40, 1e-6);
  // These sweeps stop at 90 % CPU: saturation was not measured, and the setting says so.
  EXPECT_FALSE(ovh.settings[1].measured_saturation_qps.has_value());
  EXPECT_NE(ovh.settings[1].measured_note.find("not reached"), std::string::npos);

  // The sensitivity lists each value with its base latency at one load.
  const Sensitivity* sl = nullptr;
  for (const auto& s : a->sensitivity) {
    if (s.resource == "net_latency") sl = &s;
  }
  ASSERT_NE(sl, nullptr);
  ASSERT_EQ(sl->points.size(), 3u);
  EXPECT_NE(sl->points[0].value.find("(reference)"), std::string::npos);
  ASSERT_TRUE(sl->points[2].base_mean_us && sl->points[0].base_mean_us);
  EXPECT_NEAR(*sl->points[2].base_mean_us - *sl->points[0].base_mean_us, 400, 1e-6);
  // The JSON carries the table.
  auto j = ToJson(*a);
  EXPECT_EQ(j["predicted_sensitivity"][0]["knob"], "net_latency");
  EXPECT_TRUE(j["predicted_sensitivity"][1]["settings"][1]["measured_saturation_qps"].is_null());
  EXPECT_TRUE(j["groups"][0]["model"]["regression_mean"]["measured"]["r2"].is_number());
}

TEST(PredictSensitivity, NothingWhenNoLogGpKnobVariedAndUnavailableWithOneSetting) {
  const KnobTable knobs = WithLogGp();
  ExperimentData d;
  d.name = "one";
  d.runs.push_back(LogGpRun("net_latency", 100, 100e-6, 100e-6, 0));
  AnalysisOptions opt;
  opt.knobs = &knobs;
  auto a = Analyze(d, opt);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->predicted_sensitivity.size(), 1u);
  EXPECT_NE(a->predicted_sensitivity[0].unavailable.find("only one setting"), std::string::npos);
  ExperimentData plain;
  plain.name = "plain";
  RunData r = LogGpRun("net_latency", 0, 100e-6, 0, 0);
  r.partition.limits.clear();
  plain.runs.push_back(r);
  auto b = Analyze(plain, opt);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->predicted_sensitivity.empty());
}

}  // namespace
}  // namespace ream::analysis
