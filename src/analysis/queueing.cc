#include "analysis/queueing.h"

#include <algorithm>
#include <cmath>

namespace ream::analysis {

double ErlangC(int c, double a) {
  if (c <= 0) return 1;
  if (a <= 0) return 0;
  if (a >= c) return 1;
  // Erlang B by its stable recurrence, then C from B.
  double b = 1;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  return c * b / (c - a * (1 - b));
}

std::optional<double> MeanResponse(const QueueModel& m, double lambda) {
  if (m.service_s <= 0 || m.servers <= 0) return std::nullopt;
  double a = lambda * m.service_s;
  if (a >= m.servers) return std::nullopt;
  double wait = ErlangC(m.servers, a) * m.service_s / (m.servers - a);
  return m.delay_s + wait + m.service_s;
}

double SojournTail(const QueueModel& m, double lambda, double t) {
  double mu = 1.0 / m.service_s;
  double a = lambda * m.service_s;
  double cw = ErlangC(m.servers, a);
  double theta = m.servers * mu - lambda;  // rate of the waiting time when one waits
  double no_wait = std::exp(-mu * t);
  double wait;  // P(E_theta + E_mu > t)
  if (std::abs(theta - mu) < 1e-12 * mu) {
    wait = (1 + mu * t) * std::exp(-mu * t);
  } else {
    wait = (mu * std::exp(-theta * t) - theta * std::exp(-mu * t)) / (mu - theta);
  }
  return (1 - cw) * no_wait + cw * wait;
}

std::optional<double> ResponsePercentile(const QueueModel& m, double lambda, double q) {
  if (m.service_s <= 0 || m.servers <= 0 || q <= 0 || q >= 1) return std::nullopt;
  if (lambda * m.service_s >= m.servers) return std::nullopt;
  double tail = 1 - q;
  double lo = 0, hi = m.service_s;
  while (SojournTail(m, lambda, hi) > tail) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    double mid = (lo + hi) / 2;
    (SojournTail(m, lambda, mid) > tail ? lo : hi) = mid;
  }
  return m.delay_s + (lo + hi) / 2;
}

double SaturationThroughput(int servers, double s0_s, double k, double o_s) {
  double s = s0_s + k * o_s;
  return s > 0 ? servers / s : 0;
}

namespace {
std::optional<CurveRegression> Regress(const std::vector<XY>& xy) {
  auto fit = FitLine(xy);
  if (!fit) return std::nullopt;
  CurveRegression r;
  r.fit = *fit;
  double x0 = xy.front().x;
  for (const auto& p : xy) x0 = std::min(x0, p.x);
  r.base_s = fit->At(x0);
  return r;
}
}  // namespace

std::optional<ModelComparison> CompareWithModel(const std::vector<MeasuredLoad>& loads,
                                                int servers, double percentile,
                                                double k, double overhead_s,
                                                std::string* why) {
  if (loads.size() < 2) {
    if (why) *why = "fewer than two valid load levels to compare";
    return std::nullopt;
  }
  double sxy = 0, sxx = 0;
  for (const auto& l : loads) {
    sxy += l.cpu_busy_cpus * l.qps;
    sxx += l.qps * l.qps;
  }
  if (sxx <= 0 || sxy <= 0) {
    if (why) *why = "no CPU utilization measured for the server, so S0 cannot be fitted";
    return std::nullopt;
  }
  ModelComparison c;
  c.percentile = percentile;
  c.messages_per_op = k;
  c.overhead_s = overhead_s;
  // The measured busy time already contains any per-message overhead o the server paid,
  // so the fitted demand is S = S0 + k·o and S0 is what remains.
  double demand = sxy / sxx;
  c.s0_s = std::max(0.0, demand - k * overhead_s);
  c.s0_method =
      "least-squares fit through the origin of the server's CPU busy time (utilization × "
      "allotted CPUs) against throughput: the service demand law U·c = X·S";
  c.model.servers = servers;
  c.model.service_s = demand;
  c.saturation_qps = SaturationThroughput(servers, c.s0_s, k, overhead_s);
  bool baseline = std::all_of(loads.begin(), loads.end(),
                              [](const MeasuredLoad& l) { return l.base_mean_s.has_value(); });
  double fixed_delay = 0;
  if (baseline) {
    c.delay_method = "mean round trip of a zero-service baseline at the same load";
  } else {
    const MeasuredLoad* low = &loads.front();
    for (const auto& l : loads) {
      if (l.qps < low->qps) low = &l;
    }
    QueueModel no_delay = c.model;
    auto m = MeanResponse(no_delay, low->qps);
    fixed_delay = m ? std::max(0.0, low->mean_s - *m) : 0;
    c.delay_method = "measured mean at the lowest load minus the model's mean there";
  }
  double q = percentile / 100.0;
  std::vector<XY> measured_xy, predicted_xy;
  double err_sum = 0, err_max = 0;
  int err_n = 0;
  for (const auto& l : loads) {
    ModelPoint p;
    p.qps = l.qps;
    p.measured_mean_s = l.mean_s;
    p.measured_p_s = l.p_s;
    p.delay_s = baseline ? *l.base_mean_s : fixed_delay;
    p.utilization = l.qps * c.model.service_s / servers;
    QueueModel m = c.model;
    m.delay_s = p.delay_s;
    p.predicted_mean_s = MeanResponse(m, l.qps);
    p.predicted_p_s = ResponsePercentile(m, l.qps, q);
    measured_xy.push_back({l.qps, l.p_s});
    if (p.predicted_p_s) {
      predicted_xy.push_back({l.qps, *p.predicted_p_s});
      p.p_relative_error = (l.p_s - *p.predicted_p_s) / *p.predicted_p_s;
      err_sum += std::abs(*p.p_relative_error);
      err_max = std::max(err_max, std::abs(*p.p_relative_error));
      ++err_n;
    }
    if (p.predicted_mean_s) {
      p.mean_relative_error = (l.mean_s - *p.predicted_mean_s) / *p.predicted_mean_s;
    }
    c.points.push_back(p);
  }
  c.measured_regression = Regress(measured_xy);
  c.predicted_regression = Regress(predicted_xy);
  if (err_n > 0) {
    c.max_abs_relative_error = err_max;
    c.mean_abs_relative_error = err_sum / err_n;
  }
  return c;
}

}  // namespace ream::analysis
