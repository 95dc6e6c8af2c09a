#include "analysis/queueing.h"

#include <cmath>

#include <gtest/gtest.h>

namespace ream::analysis {
namespace {

TEST(ErlangC, KnownValues) {
  EXPECT_NEAR(ErlangC(1, 0.3), 0.3, 1e-12);  // M/M/1: P(wait) = ρ
  EXPECT_NEAR(ErlangC(2, 1.0), 1.0 / 3, 1e-12);
  // c = 3, a = 2: (a^3/3!·3/(3−2)) / (1 + 2 + 2 + 4) = 4/9
  EXPECT_NEAR(ErlangC(3, 2.0), 4.0 / 9, 1e-12);
  EXPECT_EQ(ErlangC(2, 2.5), 1);
  EXPECT_EQ(ErlangC(2, 0), 0);
}

TEST(MeanResponse, MM1AndMM2) {
  QueueModel m1{1, 100e-6, 0};
  // M/M/1: 1 / (μ − λ) with μ = 10000/s.
  EXPECT_NEAR(*MeanResponse(m1, 5000), 1.0 / 5000, 1e-12);
  QueueModel m2{2, 1.0, 0.5};
  // M/M/2 at a = 1: W = C·S/(c − a) = 1/3, plus S and D.
  EXPECT_NEAR(*MeanResponse(m2, 1.0), 0.5 + 1 + 1.0 / 3, 1e-12);
  EXPECT_FALSE(MeanResponse(m1, 10000).has_value());  // unstable
  EXPECT_FALSE(MeanResponse(QueueModel{1, 0, 0}, 1).has_value());
}

TEST(ResponsePercentile, MM1IsExponentialWithRateMuMinusLambda) {
  QueueModel m{1, 100e-6, 30e-6};
  for (double lambda : {1000.0, 4000.0, 7000.0, 9000.0}) {
    double expect = 30e-6 + std::log(20.0) / (10000 - lambda);
    EXPECT_NEAR(*ResponsePercentile(m, lambda, 0.95), expect, expect * 1e-9) << lambda;
  }
  EXPECT_FALSE(ResponsePercentile(m, 10000, 0.95).has_value());
}

TEST(SojournTail, IntegratesToTheMeanForMMc) {
  // E[T] = ∫ P(T > t) dt, checked numerically for M/M/3 against the Erlang C mean.
  QueueModel m{3, 2e-3, 0};
  double lambda = 1200;  // a = 2.4 of 3 servers
  double dt = 1e-6, sum = 0;
  for (double t = 0; t < 0.2; t += dt) sum += SojournTail(m, lambda, t + dt / 2) * dt;
  EXPECT_NEAR(sum, *MeanResponse(m, lambda), 1e-6);
  // The p95 is where the tail equals 5 %.
  double p95 = *ResponsePercentile(m, lambda, 0.95);
  EXPECT_NEAR(SojournTail(m, lambda, p95), 0.05, 1e-9);
  // Equal rates (θ = μ) take the Erlang-2 branch: c = 2, λ = μ.
  QueueModel e{2, 1.0, 0};
  EXPECT_NEAR(SojournTail(e, 1.0, 0), 1.0, 1e-12);
  EXPECT_GT(SojournTail(e, 1.0, 1.0), SojournTail(e, 0.5, 1.0));
}

TEST(Saturation, SeedFormula) {
  // X_sat = c / (S0 + k·o): the NFS case with k = 2.4.
  EXPECT_NEAR(SaturationThroughput(1, 100e-6, 2.4, 10e-6), 1 / 124e-6, 1e-6);
  EXPECT_NEAR(SaturationThroughput(2, 100e-6, 2, 0), 20000, 1e-6);
}

ModelInputs Inputs(int c, double overhead_s, double lo = 0, double hi = 1) {
  ModelInputs in;
  in.servers = c;
  in.percentile = 95;
  in.messages_per_op = 2;
  in.overhead_s = overhead_s;
  in.range_low = lo;
  in.range_high = hi;
  return in;
}

TEST(CompareWithModel, RecoversS0AndAgreesWithItsOwnCurve) {
  // Loads generated from an M/M/1 with S = 120 µs (S0 = 100 µs plus k·o = 2·10 µs) and a
  // 40 µs delay center; the comparison must recover S0 and predict the curve exactly.
  std::vector<MeasuredLoad> loads;
  for (double lambda = 1000; lambda <= 6000; lambda += 1000) {
    MeasuredLoad l;
    l.qps = lambda;
    l.cpu_busy_cpus = l.utilization = lambda * 120e-6;
    l.mean_s = 40e-6 + 1 / (1 / 120e-6 - lambda);
    l.p_s = 40e-6 + std::log(20.0) / (1 / 120e-6 - lambda);
    loads.push_back(l);
  }
  std::string why;
  auto c = CompareWithModel(loads, Inputs(1, 10e-6), &why);
  ASSERT_TRUE(c.has_value()) << why;
  EXPECT_NEAR(c->s0_s, 100e-6, 1e-12);
  EXPECT_NEAR(c->saturation_qps, 1 / 120e-6, 1e-6);
  EXPECT_NEAR(c->points[0].delay_s, 40e-6, 1e-12);
  EXPECT_EQ(c->queue, "M/M/1");  // no SCV known: exponential service
  ASSERT_TRUE(c->tail.measured && c->tail.modeled) << c->tail.unavailable;
  EXPECT_LT(*c->tail.max_abs_relative_error, 1e-9);
  EXPECT_LT(*c->mean.max_abs_relative_error, 1e-9);
  EXPECT_NEAR(c->tail.measured->fit.slope, c->tail.modeled->fit.slope, 1e-15);
  EXPECT_GT(c->tail.measured->fit.r2, 0.8);
  // A measured curve 20 % above the model shows as a relative error of 0.2 / 1.2 of the
  // measured figure at every point but the lowest, where D is taken.
  for (auto& l : loads) l.p_s = 40e-6 + (l.p_s - 40e-6) * 1.2;
  auto d = CompareWithModel(loads, Inputs(1, 10e-6), &why);
  const double top = std::log(20.0) / (1 / 120e-6 - 6000);  // the model's W + S at 6000/s
  EXPECT_NEAR(*d->tail.max_abs_relative_error, 0.2 * top / (40e-6 + 1.2 * top), 1e-9);
}

TEST(CompareWithModel, UsesTheBaselineAsDelayCenterAndExplainsFailures) {
  std::vector<MeasuredLoad> loads;
  for (double lambda : {1000.0, 2000.0, 3000.0}) {
    MeasuredLoad l;
    l.qps = lambda;
    l.cpu_busy_cpus = l.utilization = lambda * 100e-6;
    l.base_mean_s = 20e-6 + lambda * 1e-9;
    l.mean_s = *l.base_mean_s + 1 / (10000 - lambda);
    l.p_s = *l.base_mean_s + std::log(20.0) / (10000 - lambda);
    loads.push_back(l);
  }
  std::string why;
  auto c = CompareWithModel(loads, Inputs(1, 0), &why);
  ASSERT_TRUE(c.has_value());
  EXPECT_NE(c->delay_method.find("baseline"), std::string::npos);
  EXPECT_NEAR(c->points[1].delay_s, 22e-6, 1e-12);
  EXPECT_LT(*c->tail.max_abs_relative_error, 1e-9);

  EXPECT_FALSE(CompareWithModel({}, Inputs(1, 0), &why).has_value());
  EXPECT_NE(why.find("no valid load"), std::string::npos);
  for (auto& l : loads) l.cpu_busy_cpus = 0;
  EXPECT_FALSE(CompareWithModel(loads, Inputs(1, 0), &why).has_value());
  EXPECT_NE(why.find("CPU"), std::string::npos);
}

}  // namespace
}  // namespace ream::analysis
