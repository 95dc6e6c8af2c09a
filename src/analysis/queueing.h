// The second seed's queueing model: an open network of a delay center D (wire and fixed
// delays, 2·L per request/reply pair) and a CPU queue with c servers of per-operation demand
// S = S0 + k·o. M/M/1 sojourn is exponential with rate μ − λ; M/M/c waits by Erlang C.
// Predicts mean and percentile response time against load and the saturation point
// X_sat = c / (S0 + k·o), and compares the prediction with a measured curve (linear
// regressions, R², relative error — the seed's Table 5.1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/stats.h"

namespace ream::analysis {

// Probability that an arrival must wait in an M/M/c queue with offered load a = λ·S
// (Erlangs), a < c. 1 when a ≥ c (every arrival waits: the queue is unstable).
double ErlangC(int c, double a);

struct QueueModel {
  int servers = 1;         // c
  double service_s = 0;    // S = S0 + k·o, seconds per operation on one server
  double delay_s = 0;      // D, the delay center (wire, wake-up, fixed costs)
};

// Mean response time D + W + S at arrival rate lambda (per second). nullopt when the queue
// is unstable (λ·S ≥ c) or the model is empty (S ≤ 0).
std::optional<double> MeanResponse(const QueueModel& m, double lambda);
// The q-quantile of the response time: D + the quantile of W + S, where S ~ Exp(1/S) and W
// is 0 with probability 1 − C and Exp(c/S − λ) otherwise (FCFS M/M/c). For c = 1 this is
// D + ln(1/(1−q)) / (μ − λ). nullopt when unstable.
std::optional<double> ResponsePercentile(const QueueModel& m, double lambda, double q);
// P(W + S > t) for the model's CPU queue (D excluded); used by ResponsePercentile.
double SojournTail(const QueueModel& m, double lambda, double t);

// X_sat = c / (S0 + k·o): the throughput at which the CPU queue saturates.
double SaturationThroughput(int servers, double s0_s, double messages_per_op, double overhead_s);

// One load level of a model-vs-measurement comparison.
struct ModelPoint {
  double qps = 0;              // λ (achieved arrival rate)
  double measured_mean_s = 0;
  double measured_p_s = 0;     // the measured tail percentile
  double delay_s = 0;          // D used at this load
  std::optional<double> predicted_mean_s;
  std::optional<double> predicted_p_s;
  std::optional<double> p_relative_error;     // (measured − predicted) / predicted
  std::optional<double> mean_relative_error;
  double utilization = 0;      // λ·S/c of the model
};

struct CurveRegression {
  LinearFit fit;       // response time (s) against load (ops/s)
  double base_s = 0;   // the line's value at the lowest load of the range
};

struct ModelComparison {
  QueueModel model;
  double s0_s = 0;                 // fitted per-operation CPU demand
  std::string s0_method;           // how S0 was obtained
  std::string delay_method;        // how D was obtained
  double messages_per_op = 2;      // k
  double overhead_s = 0;           // o
  double saturation_qps = 0;       // X_sat
  double percentile = 95;
  std::vector<ModelPoint> points;
  std::optional<CurveRegression> measured_regression;   // of the tail percentile
  std::optional<CurveRegression> predicted_regression;
  std::optional<double> max_abs_relative_error;  // over points with a prediction
  std::optional<double> mean_abs_relative_error;
};

// Inputs to a comparison: the measured valid points of one run, in ascending load.
struct MeasuredLoad {
  double qps = 0;           // achieved arrival rate
  double mean_s = 0;        // mean response time
  double p_s = 0;           // tail percentile response time
  double cpu_busy_cpus = 0; // U·c: CPUs' worth of busy time (utilization × allotted CPUs)
  std::optional<double> base_mean_s;  // mean round trip of a zero-work baseline at this load
};

// Fits S0 by least squares through the origin of CPU busy time against throughput (the
// service demand law, U·c = X·S), takes D from the baseline when every load has one, else
// as the measured mean at the lowest load minus the model's mean there, and predicts each
// point's mean and percentile. InvalidArgument-like failures are returned as nullopt with
// `why` set: fewer than two loads, no CPU measurement.
std::optional<ModelComparison> CompareWithModel(const std::vector<MeasuredLoad>& loads,
                                                int servers, double percentile,
                                                double messages_per_op, double overhead_s,
                                                std::string* why);

}  // namespace ream::analysis
