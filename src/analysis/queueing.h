// The second seed's queueing model: an open network of a delay center D (wire and fixed
// delays, 2·L per request/reply pair) and a CPU queue with c servers of per-operation demand
// S = S0 + k·o. The queue is M/M/c (Erlang C; M/M/1 for c = 1), or M/G/1 by
// Pollaczek–Khinchine when the service time's second moment is known (M/G/c by the
// Allen–Cunneen approximation for c > 1). Predicts mean and percentile response time against
// load and the saturation point X_sat = c / (S0 + k·o), and compares the prediction with a
// measured curve over a stated operating range: linear regressions of the mean (and of the
// tail percentile) — slope, intercept, base, R² — and the relative error, as the seed's
// Table 5.1.
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
  // Squared coefficient of variation of S (variance / mean²): 1 is exponential (M/M/c),
  // 0 constant (M/D/c). The mean wait is Erlang C's times (1 + scv) / 2: exact for c = 1
  // (Pollaczek–Khinchine), the Allen–Cunneen approximation for c > 1, exact for scv = 1.
  double scv = 1;
  // ω: extra service of a request that finds the server idle (its wake-up: the thread leaves
  // epoll_wait, caches are cold), paid in CPU and in latency; requests in a busy period do not
  // pay it. One server only: Welch's M/G/1 with exceptional first service S0 = S + ω, whose
  // mean wait is λE[S²]/(2(1−ρ)) + λ(E[S0²] − E[S²])/(2(1 − ρ + λE[S0])) and whose idle
  // probability is (1 − ρ)/(1 − ρ + λE[S0]) (ρ = λ·S). 0: the plain queue.
  double wake_s = 0;
};

// The probability that an arrival finds no one waiting or served (and so starts service at
// once): 1 − Erlang C for c servers; Welch's idle probability with a wake-up ω for c = 1.
double NoWaitProbability(const QueueModel& m, double lambda);

// Mean waiting time in the queue (before service) at arrival rate lambda. nullopt when the
// queue is unstable (λ·S ≥ c) or the model is empty (S ≤ 0).
std::optional<double> MeanWait(const QueueModel& m, double lambda);
// Mean response time D + W + S (+ ω for those who find the server idle) at arrival rate
// lambda (per second). nullopt as MeanWait.
std::optional<double> MeanResponse(const QueueModel& m, double lambda);
// The q-quantile of the response time: D + the quantile of W + S. For scv = 1 (M/M/c, FCFS)
// exact: S ~ Exp(1/S), W is 0 with probability 1 − C and Exp(c/S − λ) otherwise; for c = 1
// D + ln(1/(1−q)) / (μ − λ). For scv < 1, S is taken as a constant plus an exponential with
// the same mean and SCV, and W as 0 or an exponential whose mean matches MeanWait (exact in
// the mean, an approximation in the tail); for scv > 1 the tail uses exponential service
// with the wait's mean from MeanWait. nullopt when unstable.
std::optional<double> ResponsePercentile(const QueueModel& m, double lambda, double q);
// P(W + S > t) for the model's CPU queue (D excluded); used by ResponsePercentile.
double SojournTail(const QueueModel& m, double lambda, double t);

// X_sat = c / (S0 + k·o): the throughput at which the CPU queue saturates. `capacity_cpus` is
// c, or the CPU quota's CPUs where a quota allows less than c.
double SaturationThroughput(double capacity_cpus, double s0_s, double messages_per_op, double overhead_s);

// A measured valid load level of one group.
struct MeasuredLoad {
  double qps = 0;             // achieved arrival rate
  double mean_s = 0;          // mean response time
  double p_s = 0;             // tail percentile response time
  double utilization = 0;     // busy fraction of the allotted CPUs, 0..1
  double cpu_busy_cpus = 0;   // U × the allotted CPUs (c, or the quota's): CPUs' worth of busy time
  std::optional<double> service_s;    // mean service time the server reported
  std::optional<double> base_mean_s;  // mean round trip of a zero-work baseline at this load
};

// What the model is fitted with.
struct ModelInputs {
  int servers = 1;               // c: the allotted CPUs
  // The CPUs' worth of time the group may use: c, or less under a CPU quota (1-ST at a 75 %
  // quota: 0.75). 0: c. The demand S stays CPU time per request; the queue's c servers each
  // run at capacity / c of a CPU, so each serves a request in S·c / capacity.
  double capacity_cpus = 0;
  double percentile = 95;        // of the tail table
  double messages_per_op = 2;    // k
  double overhead_s = 0;         // o of the partition (LogGP), per message
  double latency_s = 0;          // L of the partition (LogGP), one way
  double range_low = 0.10, range_high = 0.70;  // utilization fractions of the operating range
  std::string range_source = "default";        // "default" or "[model] range"
  // The SCV of the server's work per request, and where it came from; nullopt: unknown.
  std::optional<double> work_scv;
  std::string work_scv_source;
};

// One load level of a model-vs-measurement comparison.
struct ModelPoint {
  double qps = 0;              // λ (achieved arrival rate)
  double utilization = 0;      // measured U of the allotted CPUs
  bool in_range = false;       // inside the operating range (the regressions use only these)
  double measured_mean_s = 0;
  double measured_p_s = 0;     // the measured tail percentile
  double delay_s = 0;          // D used at this load
  std::optional<double> predicted_mean_s;
  std::optional<double> predicted_p_s;
  std::optional<double> mean_relative_error;  // (measured − model) / measured
  std::optional<double> p_relative_error;
};

struct CurveRegression {
  LinearFit fit;       // response time (s) against load (ops/s)
  double base_s = 0;   // the line's value at the table's base load
};

// A Table 5.1 of one response-time statistic: the measured and the modeled curve, regressed
// over the operating range, side by side, and the model's relative error across it.
struct RegressionTable {
  std::string statistic;  // "mean" or "p95"
  std::optional<CurveRegression> measured, modeled;
  double base_load_qps = 0;  // where "base" is read: the lowest load of the range
  int points = 0;            // points in the range
  std::optional<double> mean_abs_relative_error;  // mean of |measured − model| / measured
  std::optional<double> max_abs_relative_error;
  std::string unavailable;   // why there is no table (then every figure is empty)
};

// One queue of the comparison (M/M/c, M/G/1): its mean error over the range, or why not.
struct QueueVariant {
  std::string name;    // "M/M/1", "M/M/c (Erlang C, c = 2)", "M/G/1 (Pollaczek–Khinchine)"
  std::optional<double> scv;
  std::string scv_method;
  std::optional<double> mean_abs_relative_error, max_abs_relative_error;  // of the mean, in range
  std::string unavailable;
};

struct ModelComparison {
  QueueModel model;                // the queue of the tables (M/G/· when its SCV is known)
  // S = S0 + k·o: the CPU time per request (the service demand law's), whatever the quota;
  // model.service_s is the queue's time per request, S·c / capacity_cpus.
  double demand_s = 0;
  double capacity_cpus = 1;        // c, or the quota's CPUs when less
  std::string queue;               // its name
  std::string scv_method;          // where its SCV came from, or what was assumed
  double s0_s = 0;                 // fitted per-operation CPU demand without the overhead
  std::string s0_method;           // how S0 was obtained
  double delay_s = 0;              // D at the base load (without baseline: at every load)
  std::string delay_method;        // how D was obtained
  double messages_per_op = 2;      // k
  double overhead_s = 0;           // o
  double latency_s = 0;            // L
  double saturation_qps = 0;       // X_sat
  double percentile = 95;
  double range_low = 0.10, range_high = 0.70;
  std::string range_source;
  std::vector<ModelPoint> points;  // every valid point with a CPU measurement, ascending load
  std::vector<QueueVariant> variants;
  RegressionTable mean, tail;
};

// Fits the model on `loads` (valid points with a CPU measurement, any order) and compares:
//   S = S0 + k·o by least squares through the origin of U·c against X over the range's points
//     (the service-demand law), D from the baseline when every point has one, else the
//     measured mean at the lowest load of the range minus the queue's W + S there;
//   the SCV of S: the work's SCV scaled by (reported service / S)², the rest of S (protocol,
//     system calls) taken as constant; M/M/c when it is unknown.
// nullopt with `why` set when nothing can be fitted: no load at all, or no CPU measured. A
// range with too few points leaves the model but marks its tables unavailable with the reason.
std::optional<ModelComparison> CompareWithModel(const std::vector<MeasuredLoad>& loads,
                                                const ModelInputs& in, std::string* why);

}  // namespace ream::analysis
