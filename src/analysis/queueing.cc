#include "analysis/queueing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ream::analysis {

namespace {
bool Welch(const QueueModel& m);
}  // namespace

double ErlangC(int c, double a) {
  if (c <= 0) return 1;
  if (a <= 0) return 0;
  if (a >= c) return 1;
  // Erlang B by its stable recurrence, then C from B.
  double b = 1;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  return c * b / (c - a * (1 - b));
}

namespace {
bool Welch(const QueueModel& m) { return m.servers == 1 && m.wake_s > 0; }
}  // namespace

double NoWaitProbability(const QueueModel& m, double lambda) {
  const double rho = lambda * m.service_s;
  if (Welch(m)) return rho >= 1 ? 0 : (1 - rho) / (1 - rho + lambda * (m.service_s + m.wake_s));
  return 1 - ErlangC(m.servers, rho);
}

std::optional<double> MeanWait(const QueueModel& m, double lambda) {
  if (m.service_s <= 0 || m.servers <= 0) return std::nullopt;
  double a = lambda * m.service_s;
  if (a >= m.servers) return std::nullopt;
  if (Welch(m)) {
    const double s = m.service_s, w = m.wake_s;
    const double es2 = (1 + m.scv) * s * s;
    const double es02 = es2 + 2 * w * s + w * w;  // S0 = S + ω, ω constant
    return lambda * es2 / (2 * (1 - a)) + lambda * (es02 - es2) / (2 * (1 - a + lambda * (s + w)));
  }
  return ErlangC(m.servers, a) * m.service_s / (m.servers - a) * (1 + m.scv) / 2;
}

std::optional<double> MeanResponse(const QueueModel& m, double lambda) {
  auto w = MeanWait(m, lambda);
  if (!w) return std::nullopt;
  const double wake = Welch(m) ? NoWaitProbability(m, lambda) * m.wake_s : 0;
  return m.delay_s + *w + m.service_s + wake;
}

double SojournTail(const QueueModel& m, double lambda, double t) {
  const double s = m.service_s;
  const double a = lambda * s;
  // W: 0 with probability 1 − C, else exponential with rate theta, so that E[W] = MeanWait.
  // For scv = 1 and ω = 0 theta = c·μ − λ, the exact M/M/c waiting time of one who waits.
  const double cw = 1 - NoWaitProbability(m, lambda);
  const double mean_wait = MeanWait(m, lambda).value_or(0);
  const double theta = mean_wait > 0 && cw > 0 ? cw / mean_wait : (m.servers - a) / (s * (1 + m.scv) / 2);
  // Those who find the server idle also pay the wake-up ω.
  const double wake = Welch(m) ? m.wake_s : 0;
  // S: a constant c0 plus an exponential of mean s_exp, with S's mean and (for scv ≤ 1) SCV.
  const double s_exp = m.scv >= 1 ? s : s * std::sqrt(std::max(0.0, m.scv));
  const double c0 = s - s_exp;
  const double u = t - c0;
  if (u <= 0) return 1;
  const double u_idle = u - wake;  // the no-wait part starts after the wake-up
  double no_wait, wait;  // P(S_exp > u − ω), P(W' + S_exp > u) with W' ~ Exp(theta)
  if (s_exp <= 0) {
    no_wait = u_idle <= 0 ? 1 : 0;
    wait = std::exp(-theta * u);
  } else {
    const double nu = 1 / s_exp;
    no_wait = u_idle <= 0 ? 1 : std::exp(-nu * u_idle);
    if (std::abs(theta - nu) < 1e-12 * nu) {
      wait = (1 + nu * u) * std::exp(-nu * u);
    } else {
      wait = (nu * std::exp(-theta * u) - theta * std::exp(-nu * u)) / (nu - theta);
    }
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

double SaturationThroughput(double capacity_cpus, double s0_s, double k, double o_s) {
  double s = s0_s + k * o_s;
  return s > 0 ? capacity_cpus / s : 0;
}

namespace {

std::string F(double v, int prec = 3) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*g", prec, v);
  return b;
}
std::string Percent(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", v * 100);
  return b;
}

bool InRange(double u, const ModelInputs& in) {
  return u >= in.range_low - 1e-9 && u <= in.range_high + 1e-9;
}

// Predicted mean and tail at each load for queue `q`, with D as the comparison takes it.
struct Prediction {
  std::vector<double> delay_s;
  std::vector<std::optional<double>> mean_s, p_s;
};

Prediction Predict(const std::vector<MeasuredLoad>& loads, const QueueModel& q, const ModelInputs& in,
                   bool baseline, const MeasuredLoad& low) {
  Prediction out;
  double fixed = 0;
  if (!baseline) {
    QueueModel no_delay = q;
    no_delay.delay_s = 0;
    auto r = MeanResponse(no_delay, low.qps);
    fixed = std::max(0.0, low.mean_s - r.value_or(q.service_s));
  }
  for (const auto& l : loads) {
    QueueModel m = q;
    m.delay_s = baseline ? *l.base_mean_s + 2 * in.latency_s : fixed;
    out.delay_s.push_back(m.delay_s);
    out.mean_s.push_back(MeanResponse(m, l.qps));
    out.p_s.push_back(ResponsePercentile(m, l.qps, in.percentile / 100));
  }
  return out;
}

// |measured − model| / measured over the range's points with a prediction: mean and max.
void Errors(const std::vector<MeasuredLoad>& loads, const std::vector<std::optional<double>>& model,
            const ModelInputs& in, bool mean, std::optional<double>* avg, std::optional<double>* max) {
  double sum = 0, worst = 0;
  int n = 0;
  for (size_t i = 0; i < loads.size(); ++i) {
    if (!InRange(loads[i].utilization, in) || !model[i]) continue;
    double measured = mean ? loads[i].mean_s : loads[i].p_s;
    if (measured <= 0) continue;
    double e = std::abs(measured - *model[i]) / measured;
    sum += e;
    worst = std::max(worst, e);
    ++n;
  }
  if (n > 0) {
    *avg = sum / n;
    *max = worst;
  }
}

// The minimum of points a regression over the range needs: with two, any line fits them and
// R² is 1 whatever the curve.
constexpr int kMinRangePoints = 3;

RegressionTable Table(const std::string& statistic, const std::vector<MeasuredLoad>& loads,
                      const std::vector<std::optional<double>>& model, const ModelInputs& in, bool mean) {
  RegressionTable t;
  t.statistic = statistic;
  std::vector<XY> measured, modeled;
  std::string seen;
  for (size_t i = 0; i < loads.size(); ++i) {
    seen += (seen.empty() ? "" : ", ") + Percent(loads[i].utilization);
    if (!InRange(loads[i].utilization, in)) continue;
    measured.push_back({loads[i].qps, mean ? loads[i].mean_s : loads[i].p_s});
    if (model[i]) modeled.push_back({loads[i].qps, *model[i]});
  }
  t.points = static_cast<int>(measured.size());
  const std::string range = Percent(in.range_low) + " and " + Percent(in.range_high);
  if (t.points < kMinRangePoints) {
    t.unavailable = "only " + std::to_string(t.points) + " valid point(s) between " + range +
                    " CPU utilization (" + (in.range_source == "default" ? std::string("the default range") : in.range_source) +
                    "), and a regression needs " +
                    std::to_string(kMinRangePoints) + "; utilizations measured: " + (seen.empty() ? "none" : seen);
    return t;
  }
  t.base_load_qps = measured.front().x;
  auto regress = [&](const std::vector<XY>& xy) -> std::optional<CurveRegression> {
    if (static_cast<int>(xy.size()) < kMinRangePoints) return std::nullopt;
    auto fit = FitLine(xy);
    if (!fit) return std::nullopt;
    return CurveRegression{*fit, fit->At(t.base_load_qps)};
  };
  t.measured = regress(measured);
  t.modeled = regress(modeled);
  Errors(loads, model, in, mean, &t.mean_abs_relative_error, &t.max_abs_relative_error);
  if (!t.modeled) {
    t.unavailable = "the model saturates (λ·S ≥ c) at " + std::to_string(measured.size() - modeled.size()) +
                    " of the range's points, leaving too few to regress";
  }
  return t;
}

}  // namespace

std::optional<ModelComparison> CompareWithModel(const std::vector<MeasuredLoad>& in_loads, const ModelInputs& in,
                                                std::string* why) {
  if (in_loads.empty()) {
    if (why) *why = "no valid load level with a CPU measurement to fit the model to";
    return std::nullopt;
  }
  std::vector<MeasuredLoad> loads = in_loads;
  std::sort(loads.begin(), loads.end(), [](const auto& a, const auto& b) { return a.qps < b.qps; });
  std::vector<const MeasuredLoad*> range;
  for (const auto& l : loads) {
    if (InRange(l.utilization, in)) range.push_back(&l);
  }
  // S from the range's points (the operating range); from every point when none lies in it.
  std::vector<const MeasuredLoad*> fit_set = range;
  if (fit_set.empty()) {
    for (const auto& l : loads) fit_set.push_back(&l);
  }
  double sxy = 0, sxx = 0;
  for (const auto* l : fit_set) {
    sxy += l->cpu_busy_cpus * l->qps;
    sxx += l->qps * l->qps;
  }
  if (sxx <= 0 || sxy <= 0) {
    if (why) *why = "no CPU utilization measured for the server, so S0 cannot be fitted";
    return std::nullopt;
  }
  ModelComparison c;
  c.percentile = in.percentile;
  c.messages_per_op = in.messages_per_op;
  c.overhead_s = in.overhead_s;
  c.latency_s = in.latency_s;
  c.range_low = in.range_low;
  c.range_high = in.range_high;
  c.range_source = in.range_source;
  // The measured busy time already contains any per-message overhead o the server paid,
  // so the fitted demand is S = S0 + k·o and S0 is what remains.
  const double demand = sxy / sxx;
  c.s0_s = std::max(0.0, demand - in.messages_per_op * in.overhead_s);
  const int servers = std::max(1, in.servers);
  // A CPU quota below the c CPUs is the queue's capacity: S stays the CPU time per request,
  // and each of the c servers takes S·c / capacity per request (the quota's share of its CPU).
  const double capacity =
      in.capacity_cpus > 0 ? std::min(in.capacity_cpus, static_cast<double>(servers)) : static_cast<double>(servers);
  const double stretch = servers / capacity;
  c.demand_s = demand;
  c.capacity_cpus = capacity;
  c.s0_method = std::string("least-squares fit through the origin of the server's CPU busy time (utilization × "
                            "allotted CPUs) against throughput over ") +
                (range.empty() ? "every valid point (none lies in the operating range)"
                               : "the operating range's " + std::to_string(range.size()) + " point(s)") +
                ": the service demand law U·c = X·S, less k·o";
  if (stretch > 1 + 1e-9) {
    c.s0_method += "; the CPU quota's " + F(capacity) + " CPU(s) are the capacity (c = " + std::to_string(servers) +
                   " servers, each serving a request in S·c/" + F(capacity) + ")";
  }
  c.saturation_qps = SaturationThroughput(capacity, c.s0_s, in.messages_per_op, in.overhead_s);
  const std::string mmc = servers == 1 ? "M/M/1" : "M/M/c (Erlang C, c = " + std::to_string(servers) + ")";
  const std::string mgc = servers == 1 ? "M/G/1 (Pollaczek–Khinchine)"
                                       : "M/G/c (Allen–Cunneen approximation, c = " + std::to_string(servers) + ")";

  // The SCV of S: the reported work's, scaled to S; the rest of S taken as constant.
  std::optional<double> scv;
  std::string scv_method, scv_unknown;
  std::optional<double> reported_work;  // mean reported service over the fit's points
  if (in.work_scv) {
    double sum = 0;
    int n = 0;
    for (const auto* l : fit_set) {
      if (l->service_s) {
        sum += *l->service_s;
        ++n;
      }
    }
    if (n > 0) {
      double work = sum / n;
      reported_work = work;
      double share = std::min(1.0, work / demand);
      scv = *in.work_scv * share * share;
      scv_method = "the work's SCV " + F(*in.work_scv) + " (" + in.work_scv_source + ") scaled by (reported service " +
                   F(work * 1e6) + " µs / S " + F(demand * 1e6) + " µs)²; the rest of S (" +
                   F(std::max(0.0, demand - work) * 1e6) + " µs: protocol, system calls) taken as constant";
    } else {
      scv = *in.work_scv;
      scv_method = "SCV " + F(*in.work_scv) + " (" + in.work_scv_source +
                   ") applied to the whole CPU demand: the server reports no service time";
    }
  } else {
    scv_unknown = "the service time's second moment is unknown: the server reports at most its mean, and neither "
                  "[model] service_scv nor a builtin's --service argument names its distribution";
  }

  const bool baseline =
      std::all_of(loads.begin(), loads.end(), [](const MeasuredLoad& l) { return l.base_mean_s.has_value(); });
  const MeasuredLoad& low = range.empty() ? loads.front() : *range.front();
  c.delay_method = baseline
                       ? "mean round trip of a zero-service baseline at the same load, plus 2·L"
                       : "measured mean at the lowest load of the range (" + F(low.qps, 4) +
                             " QPS) minus the CPU queue's W + S there";

  QueueModel mm;
  mm.servers = servers;
  mm.service_s = demand * stretch;
  mm.scv = 1;
  auto variant = [&](const std::string& name, const QueueModel& q, const std::string& method) {
    QueueVariant v;
    v.name = name;
    v.scv = q.scv;
    v.scv_method = method;
    Prediction p = Predict(loads, q, in, baseline, low);
    Errors(loads, p.mean_s, in, true, &v.mean_abs_relative_error, &v.max_abs_relative_error);
    return std::pair{v, p};
  };
  auto [mm_variant, mm_pred] = variant(mmc, mm, "exponential service (SCV 1)");
  c.variants.push_back(mm_variant);
  Prediction chosen = mm_pred;
  c.model = mm;
  c.queue = mmc;
  c.scv_method = scv ? "" : "exponential service assumed: " + scv_unknown;
  if (scv) {
    QueueModel mg = mm;
    mg.scv = *scv;
    auto [mg_variant, mg_pred] = variant(mgc, mg, scv_method);
    c.variants.push_back(mg_variant);
    chosen = mg_pred;
    c.model = mg;
    c.queue = mgc;
    c.scv_method = scv_method;
  } else {
    QueueVariant v;
    v.name = mgc;
    v.unavailable = scv_unknown;
    c.variants.push_back(v);
  }
  // The wake-up on idle (Welch's exceptional first service), one server only: with the busy
  // period's service S and the idle arrival's S0 = S + ω, U/(1 − U) = λ·S0 + S·λ·U/(1 − U), a
  // least-squares fit of two coefficients through the origin over the range's points. Kept
  // when it finds ω > 0 over at least 3 points (the CPU per request falls with the load, as on this project's VMs:
  // 132 µs at 13 % CPU, 98 µs at 59 % for 100 µs of work, docs/notes/performance-notes.md).
  if (servers == 1 && fit_set.size() >= 3) {
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    bool usable = true;
    for (const auto* l : fit_set) {
      if (!(l->utilization > 0 && l->utilization < 1)) usable = false;
      const double y = l->utilization / (1 - l->utilization), x1 = l->qps, x2 = l->qps * y;
      a11 += x1 * x1;
      a12 += x1 * x2;
      a22 += x2 * x2;
      b1 += x1 * y;
      b2 += x2 * y;
    }
    const double det = a11 * a22 - a12 * a12;
    if (usable && det > 1e-12 * a11 * a22) {
      const double s0 = (b1 * a22 - b2 * a12) / det;  // E[S0], the idle arrival's
      const double busy = (a11 * b2 - a12 * b1) / det;  // E[S], in a busy period
      // A busy-period S well below the work the server reports spinning is the fit following
      // noise (host stalls inflate a few points' CPU), not a wake-up: the plain queue stays.
      const bool credible = !reported_work || busy >= 0.9 * *reported_work;
      if (busy > 0 && s0 > busy * 1.01 && credible) {
        QueueModel wq = c.model;
        wq.service_s = busy;
        wq.wake_s = s0 - busy;
        std::string method = "a wake-up on idle of ω = " + F(wq.wake_s * 1e6) + " µs fitted to the CPU per request (S " +
                             F(busy * 1e6) + " µs in a busy period, " + F(s0 * 1e6) + " µs for an arrival to an idle server)";
        if (in.work_scv && reported_work) {
          const double share = std::min(1.0, *reported_work / busy);
          wq.scv = *in.work_scv * share * share;
          method += "; SCV " + F(wq.scv) + ": the work's " + F(*in.work_scv) + " (" + in.work_scv_source +
                    ") scaled by (reported service " + F(*reported_work * 1e6) + " µs / S)²";
        } else if (in.work_scv) {
          wq.scv = *in.work_scv;
          method += "; SCV " + F(wq.scv) + " (" + in.work_scv_source + ") for the whole of S";
        } else {
          method += "; exponential S assumed: " + scv_unknown;
        }
        const std::string name = std::string(in.work_scv ? "M/G/1" : "M/M/1") +
                                 " with a wake-up on idle (Welch's exceptional first service)";
        auto [wv, wp] = variant(name, wq, method);
        c.variants.push_back(wv);
        chosen = wp;
        c.model = wq;
        c.queue = name;
        c.scv_method = method;
        // The fit is in the queue's time per request (U is of the allotted capacity); the
        // demand is that over the stretch.
        c.demand_s = busy / stretch;
        c.s0_s = std::max(0.0, c.demand_s - in.messages_per_op * in.overhead_s);
        c.s0_method += "; with the wake-up fitted, S0 is the busy period's S " + F(c.demand_s * 1e6) + " µs less k·o";
        c.saturation_qps = SaturationThroughput(capacity, c.s0_s, in.messages_per_op, in.overhead_s);
      }
    }
  }
  c.model.delay_s = chosen.delay_s.empty() ? 0 : chosen.delay_s[&low - &loads[0]];
  c.delay_s = c.model.delay_s;
  for (size_t i = 0; i < loads.size(); ++i) {
    const MeasuredLoad& l = loads[i];
    ModelPoint p;
    p.qps = l.qps;
    p.utilization = l.utilization;
    p.in_range = InRange(l.utilization, in);
    p.measured_mean_s = l.mean_s;
    p.measured_p_s = l.p_s;
    p.delay_s = chosen.delay_s[i];
    p.predicted_mean_s = chosen.mean_s[i];
    p.predicted_p_s = chosen.p_s[i];
    if (p.predicted_mean_s && l.mean_s > 0) p.mean_relative_error = (l.mean_s - *p.predicted_mean_s) / l.mean_s;
    if (p.predicted_p_s && l.p_s > 0) p.p_relative_error = (l.p_s - *p.predicted_p_s) / l.p_s;
    c.points.push_back(p);
  }
  c.mean = Table("mean", loads, chosen.mean_s, in, true);
  c.tail = Table("p" + F(in.percentile), loads, chosen.p_s, in, false);
  return c;
}

}  // namespace ream::analysis
