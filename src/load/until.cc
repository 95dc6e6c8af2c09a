// The stopping rule of a point measured until known (load/until.h).
#include "load/until.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "load/percentile_ci.h"
#include "platform/median.h"
#include "platform/platform.h"
#include "platform/text.h"

namespace ream {
namespace {

constexpr const char* kForms = "e.g. \"p95 ±5%\", \"p99 ±2%\" or \"p95 ±5% max 20s\"";

// MacKinnon (2010), table 2, tau_c for one variable at 5 %: b0 + b1/T + b2/T² + b3/T³.
double AdfCritical5(int observations) {
  const double t = observations;
  return -2.86154 - 2.8903 / t - 4.234 / (t * t) - 40.040 / (t * t * t);
}

// The value at quantile q of `v` (reordered), as Histogram::ValueAtQuantile ranks it.
double QuantileOf(std::vector<int64_t> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank - 1), v.end());
  return static_cast<double>(v[rank - 1]);
}

std::string Percent(double fraction) { return Fmt("%.3g", fraction * 100) + " %"; }

// Solves the k×k system a·x = b (k ≤ 4) by Gaussian elimination; false when singular.
bool Solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>* x) {
  const size_t k = b.size();
  for (size_t c = 0; c < k; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < k; ++r) {
      if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
    }
    if (std::fabs(a[pivot][c]) < 1e-12) return false;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (size_t j = c; j < k; ++j) a[r][j] -= f * a[c][j];
      b[r] -= f * b[c];
    }
  }
  x->resize(k);
  for (size_t c = 0; c < k; ++c) (*x)[c] = b[c] / a[c][c];
  return true;
}

}  // namespace

std::string UntilRule::Text() const {
  return "p" + Fmt("%g", percentile) + " ±" + Fmt("%g", half_width * 100) + "% max " +
         Fmt("%g", static_cast<double>(max_ns) / 1e9) + "s";
}

Result<UntilRule> ParseUntil(std::string_view text, std::string_view field) {
  const std::string where = std::string(field) + " = \"" + std::string(text) + "\": ";
  std::vector<std::string> words = Split(text, ' ');
  if (words.empty()) return InvalidArgument(where + "empty; " + kForms);
  UntilRule rule;
  // The percentile: "p95", "p99.9".
  const std::string& p = words[0];
  if (p.size() < 2 || p[0] != 'p' || !ParseFiniteDouble(p.substr(1), &rule.percentile) ||
      rule.percentile <= 0 || rule.percentile >= 100) {
    return InvalidArgument(where + "'" + p + "' is not a percentile between p0 and p100 (p95, p99.9); " + kForms);
  }
  // The half-width, up to "max": "±5%", "± 5 %", "+-5%", "+/-5%".
  size_t i = 1;
  std::string width;
  while (i < words.size() && words[i] != "max") width += words[i++];
  std::string number;
  for (const char* sign : {"±", "+/-", "+-"}) {
    if (width.rfind(sign, 0) == 0) {
      number = width.substr(std::string_view(sign).size());
      break;
    }
  }
  if (width.empty() || number.empty() || number.back() != '%' ||
      !ParseFiniteDouble(number.substr(0, number.size() - 1), &rule.half_width) || rule.half_width <= 0 ||
      rule.half_width >= 100) {
    return InvalidArgument(where + "'" + width + "' is not a half-width such as ±5% (more than 0, less than 100 %); " +
                           kForms);
  }
  rule.half_width /= 100;
  if (i < words.size()) {  // "max DURATION"
    if (i + 2 != words.size()) {
      return InvalidArgument(where + "'max' takes one duration (max 20s) and ends the text; " + kForms);
    }
    auto max = ParseDurationNs(words[i + 1], std::string(field) + " max");
    if (!max.ok()) return InvalidArgument(where + max.status().message());
    if (*max < kUntilWindowNs * kUntilMinWindows) {
      return InvalidArgument(where + "max " + words[i + 1] + " is shorter than the " +
                             std::to_string(kUntilMinWindows) + " windows of " +
                             std::to_string(kUntilWindowNs / 1'000'000) + " ms the checks need");
    }
    rule.max_ns = *max;
  }
  return rule;
}

std::optional<AdfResult> AugmentedDickeyFuller(const std::vector<double>& y, int lags) {
  const int n = static_cast<int>(y.size());
  const int k = 2 + lags;  // constant, y_{t-1}, lagged differences
  const int rows = n - 1 - lags;
  if (lags < 0 || rows < k + 2) return std::nullopt;
  AdfResult r;
  r.observations = rows;
  r.critical = AdfCritical5(rows);
  const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
  if (*hi - *lo <= 1e-12 * std::max(1.0, std::fabs(*hi))) {
    r.stationary = true;  // a constant series
    return r;
  }
  std::vector<double> dy(static_cast<size_t>(n - 1));
  for (int t = 1; t < n; ++t) dy[static_cast<size_t>(t - 1)] = y[static_cast<size_t>(t)] - y[static_cast<size_t>(t - 1)];
  // Row t (t = lags .. n-2 over dy): Δy_t = a + b·y_t + Σ c_i·Δy_{t−i}.
  auto row = [&](int t, std::vector<double>* x) {
    x->assign(static_cast<size_t>(k), 1.0);
    (*x)[1] = y[static_cast<size_t>(t)];
    for (int i = 1; i <= lags; ++i) (*x)[static_cast<size_t>(1 + i)] = dy[static_cast<size_t>(t - i)];
  };
  std::vector<std::vector<double>> xtx(static_cast<size_t>(k), std::vector<double>(static_cast<size_t>(k), 0));
  std::vector<double> xty(static_cast<size_t>(k), 0), x;
  for (int t = lags; t < n - 1; ++t) {
    row(t, &x);
    for (int i = 0; i < k; ++i) {
      xty[static_cast<size_t>(i)] += x[static_cast<size_t>(i)] * dy[static_cast<size_t>(t)];
      for (int j = 0; j < k; ++j) xtx[static_cast<size_t>(i)][static_cast<size_t>(j)] += x[static_cast<size_t>(i)] * x[static_cast<size_t>(j)];
    }
  }
  std::vector<double> beta, inv1;
  std::vector<double> unit(static_cast<size_t>(k), 0);
  unit[1] = 1;
  if (!Solve(xtx, xty, &beta) || !Solve(xtx, unit, &inv1)) {
    r.statistic = 0;  // y_{t-1} explains nothing the rest does not: a unit root is not rejected
    return r;
  }
  double sse = 0;
  for (int t = lags; t < n - 1; ++t) {
    row(t, &x);
    double fit = 0;
    for (int i = 0; i < k; ++i) fit += beta[static_cast<size_t>(i)] * x[static_cast<size_t>(i)];
    const double e = dy[static_cast<size_t>(t)] - fit;
    sse += e * e;
  }
  const double s2 = sse / (rows - k);
  const double se = std::sqrt(s2 * inv1[1]);
  if (!(se > 0) || !std::isfinite(se)) {
    r.statistic = 0;  // a perfect fit (a straight trend): no evidence against the unit root
    return r;
  }
  r.statistic = beta[1] / se;
  r.stationary = r.statistic < r.critical;
  return r;
}

UntilJudge::UntilJudge(UntilRule rule) : rule_(rule) {}

void UntilJudge::AddPairs(const std::vector<int64_t>& latencies) {
  // Ranks by the answers before this window (this window's own, for the first).
  const bool first = all_.count() == 0;
  if (first) {
    for (int64_t x : latencies) all_.Record(x);
  }
  std::vector<double> share(Histogram::kBucketCount);
  const double n = static_cast<double>(std::max<uint64_t>(1, all_.count()));
  double cum = 0;
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
    const double c = static_cast<double>(all_.bucket(i));
    share[i] = (cum + c / 2) / n;
    cum += c;
  }
  uint64_t index = answers_;  // the first new answer's, over the point
  for (int64_t x : latencies) {
    const double r = share[Histogram::BucketIndex(std::max<int64_t>(0, x))];
    if (index > 0) {
      PairSums& p = pairs_;
      p.n += 1, p.a += last_rank_, p.b += r, p.ab += last_rank_ * r, p.aa += last_rank_ * last_rank_, p.bb += r * r;
    }
    last_rank_ = r;
    ++index;
  }
  if (!first) {
    for (int64_t x : latencies) all_.Record(x);
  }
}

std::string UntilJudge::Batches() {
  UntilVerdict& v = verdict_;
  v.interval.reset();
  v.batches = 0;
  const double q = rule_.percentile / 100;
  if (kept_.count() == 0) return "";
  // The fraction of each window's answers at or below the percentile's bucket: the estimate's
  // rank is that fraction of all the answers, so its spread over batches is the rank's.
  const int64_t at = kept_.ValueAtQuantile(q);
  const int64_t top = Histogram::BucketHigh(Histogram::BucketIndex(at));
  std::vector<double> below(kept_windows_), count(kept_windows_);
  for (size_t w = 0; w < kept_windows_; ++w) {
    const size_t first = w == 0 ? 0 : window_end_[w - 1], end = window_end_[w];
    const auto b = samples_.begin() + static_cast<std::ptrdiff_t>(first);
    const auto e = samples_.begin() + static_cast<std::ptrdiff_t>(end);
    below[w] = static_cast<double>(std::upper_bound(b, e, top) - b);
    count[w] = static_cast<double>(end - first);
  }
  // Windows per batch: kUntilBatches batches, then doubled while neighbouring batches are
  // still alike (their lag-1 correlation above its one-sided 5 % bound for independent ones,
  // 1.645/sqrt(b)) and the batches stay at least kUntilMinBatches.
  const size_t windows = kept_windows_;
  size_t per = std::max<size_t>(1, windows / kUntilBatches);
  std::vector<double> frac, weight;
  double r1 = 0, bound = 0;
  for (;;) {
    frac.clear();
    weight.clear();
    for (size_t w = 0; w + per <= windows; w += per) {
      // The last batch takes the windows left over.
      const size_t end = w + 2 * per > windows ? windows : w + per;
      double c = 0, m = 0;
      for (size_t u = w; u < end; ++u) c += below[u], m += count[u];
      if (m > 0) frac.push_back(c / m), weight.push_back(m);
      if (end == windows) break;
    }
    const size_t b = frac.size();
    if (b < 2) return "";
    const double mean = std::accumulate(frac.begin(), frac.end(), 0.0) / static_cast<double>(b);
    double num = 0, den = 0;
    for (size_t j = 0; j < b; ++j) {
      den += (frac[j] - mean) * (frac[j] - mean);
      if (j > 0) num += (frac[j] - mean) * (frac[j - 1] - mean);
    }
    r1 = den > 0 ? num / den : 0;
    bound = 1.645 / std::sqrt(static_cast<double>(b));
    if (r1 <= bound || windows / (2 * per) < static_cast<size_t>(kUntilMinBatches)) break;
    per *= 2;
  }
  // The ratio estimator's variance over batches of unequal size: the fraction below is
  // sum(c) / sum(m), and its variance sum((m_j/m̄)² (p_j − p)²) / (b (b − 1)).
  const size_t b = frac.size();
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  double below_all = 0;
  for (size_t j = 0; j < b; ++j) below_all += frac[j] * weight[j];
  const double p = below_all / total, mean_m = total / static_cast<double>(b);
  double ss = 0;
  for (size_t j = 0; j < b; ++j) ss += std::pow(weight[j] / mean_m * (frac[j] - p), 2);
  const double var = ss / (static_cast<double>(b) * static_cast<double>(b - 1));
  const double t = StudentQuantileTwoSided(rule_.confidence, static_cast<int>(b) - 1);
  const auto ci = PercentileInterval(kept_, q, t * std::sqrt(var) * total);
  v.batches = static_cast<int>(b);
  v.batch_s = 0;
  for (size_t w = 0; w < per; ++w) v.batch_s += window_s_[w];
  v.effective_samples = var > 0 ? q * (1 - q) / var : total;
  if (ci && ci->value > 0) {
    // The bounds' buckets' edges, not their midpoints: the order statistics are known to be
    // within their buckets only, and a midpoint on the inner side would narrow an interval of a
    // few buckets below its confidence (91 % instead of 95 % at 32 000 answers, simulated).
    const double low = static_cast<double>(Histogram::BucketLow(Histogram::BucketIndex(static_cast<int64_t>(ci->low))));
    const double high = static_cast<double>(Histogram::BucketHigh(Histogram::BucketIndex(static_cast<int64_t>(ci->high))));
    v.interval = std::max(ci->value - low, high - ci->value) / ci->value;
    v.value_ns = ci->value, v.low_ns = low, v.high_ns = high;
    v.interval_samples = ci->n;
  }
  if (r1 > bound && b < 2 * static_cast<size_t>(kUntilMinBatches)) {
    return "batches of " + Fmt("%g", v.batch_s * 1000) + " ms still alike (lag-1 r = " + Fmt("%.2f", r1) + " > " +
           Fmt("%.2f", bound) + " over " + std::to_string(b) + ")";
  }
  return "";
}

std::string UntilJudge::Stationarity() const {
  // The series: blocks of consecutive windows holding kUntilBlockAnswers answers each (a window
  // alone above 2 000 answers a second), the last block dropped if short.
  std::vector<double> pct, rate;
  const double q = rule_.percentile / 100;
  size_t begin_window = 0;
  for (size_t w = 0; w < window_end_.size(); ++w) {
    const size_t first = begin_window == 0 ? 0 : window_end_[begin_window - 1];
    const size_t answers = window_end_[w] - first;
    if (answers < kUntilBlockAnswers) continue;
    double seconds = 0;
    for (size_t v = begin_window; v <= w; ++v) seconds += window_s_[v];
    if (w == begin_window) {
      pct.push_back(window_pct_[w]);
    } else if (window_end_[w] <= samples_.size()) {
      pct.push_back(QuantileOf(std::vector<int64_t>(samples_.begin() + static_cast<std::ptrdiff_t>(first),
                                                    samples_.begin() + static_cast<std::ptrdiff_t>(window_end_[w])),
                               q));
    } else {
      pct.push_back(std::numeric_limits<double>::quiet_NaN());
    }
    rate.push_back(seconds > 0 ? static_cast<double>(answers) / seconds : 0);
    begin_window = w + 1;
  }
  if (pct.size() < static_cast<size_t>(kUntilMinWindows)) {
    return "too few blocks of " + std::to_string(kUntilBlockAnswers) + " answers for the stationarity test (" +
           std::to_string(pct.size()) + " of " + std::to_string(kUntilMinWindows) + ")";
  }
  pct.erase(std::remove_if(pct.begin(), pct.end(), [](double v) { return std::isnan(v); }), pct.end());
  const std::string name = "p" + Fmt("%g", rule_.percentile);
  for (const auto& [series, what] : {std::pair{&pct, name + " per window"}, std::pair{&rate, std::string("throughput per window")}}) {
    auto adf = AugmentedDickeyFuller(*series, static_cast<int>(std::cbrt(static_cast<double>(series->size()) / 25)));
    if (!adf) return what + ": too few windows for the Dickey-Fuller regression";
    if (!adf->stationary) {
      return what + ": ADF t = " + Fmt("%.2f", adf->statistic) + " > " + Fmt("%.2f", adf->critical) +
             " (5 %, " + std::to_string(adf->observations) + " windows)";
    }
  }
  return "";
}

const UntilVerdict& UntilJudge::Add(const UntilWindow& w) {
  UntilVerdict& v = verdict_;
  if (v.stop) return v;
  AddPairs(w.latencies_ns);
  std::vector<int64_t> sorted = w.latencies_ns;
  std::sort(sorted.begin(), sorted.end());
  answers_ += sorted.size();
  window_end_.push_back(answers_);
  if (kept_windows_ + 1 == window_end_.size() && answers_ <= kUntilMaxKeptSamples) {
    samples_.insert(samples_.end(), sorted.begin(), sorted.end());
    for (int64_t x : sorted) kept_.Record(x);
    ++kept_windows_;
  }
  if (sorted.empty()) {
    window_pct_.push_back(std::numeric_limits<double>::quiet_NaN());
  } else {
    const size_t rank = static_cast<size_t>(std::ceil(rule_.percentile / 100 * static_cast<double>(sorted.size())));
    window_pct_.push_back(static_cast<double>(sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1]));
  }
  window_s_.push_back(w.seconds);
  ++v.windows;
  v.measured_s += w.seconds;
  const PairSums& p = pairs_;
  const double cov = p.n * p.ab - p.a * p.b;
  const double va = p.n * p.aa - p.a * p.a, vb = p.n * p.bb - p.b * p.b;
  v.lag1_r = va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0.0;

  const bool at_max = v.measured_s * 1e9 >= static_cast<double>(rule_.max_ns) - 1e6;
  const std::string alike = Batches();
  std::string why;
  const std::string batches =
      v.batches > 0 ? " (" + std::to_string(v.batches) + " batches of " + Fmt("%g", v.batch_s * 1000) + " ms: " +
                          Fmt("%.0f", v.effective_samples) +
                          " effective answers of " + std::to_string(v.interval_samples) +
                          (v.interval_samples < answers_ ? " kept" : "") + ", lag-1 r = " + Fmt("%.2f", v.lag1_r) + ")"
                    : "";
  const std::string interval_text =
      v.interval ? "interval " + Percent(*v.interval) + (*v.interval <= rule_.half_width ? " <= " : " > ") +
                       Percent(rule_.half_width) + batches
                 : "no interval yet (" + std::to_string(answers_) + " answers)";
  if (v.windows < kUntilMinWindows) {
    v.check = "windows";
    why = "too few windows (" + std::to_string(v.windows) + " of " + std::to_string(kUntilMinWindows) + "); " +
          interval_text;
  } else if (std::string s = Stationarity(); !s.empty()) {
    // First: a series that drifts has no one percentile to know, and its drift would read as
    // batches unlike each other.
    v.check = "stationarity";
    why = "not stationary: " + s + "; " + interval_text;
  } else if (v.batches < kUntilMinBatches) {
    v.check = "windows";
    why = "too few windows with answers for " + std::to_string(kUntilMinBatches) + " batches; " + interval_text;
  } else if (!alike.empty()) {
    v.check = "autocorrelation";
    why = "autocorrelated: " + alike + "; " + interval_text;
  } else if (!v.interval || *v.interval > rule_.half_width) {
    v.check = "interval";
    why = interval_text;
  } else {
    v.check = "interval";
    v.stop = v.known = true;
    v.reason = interval_text;
    return v;
  }
  if (at_max) {
    v.stop = true;
    v.reason = "max duration " + Fmt("%g", static_cast<double>(rule_.max_ns) / 1e9) + " s reached: " + why;
    v.check = "max duration";
    return v;
  }
  // Held by its interval alone, which even shrinking as 1/sqrt(time) would still be
  // kUntilHopelessFactor times too wide at the max: the point cannot be known by then, and running
  // on only spends the sweep's time. (Not for a half-width below the histogram's precision: that
  // rule is never met, and runs every point to its max with the judge watching.)
  const double max_s = static_cast<double>(rule_.max_ns) / 1e9;
  if (v.check == "interval" && v.interval && rule_.half_width >= Histogram::kRelativeError &&
      v.measured_s >= max_s * kUntilHopelessAfter) {
    const double at_end = *v.interval * std::sqrt(v.measured_s / max_s);
    if (at_end > kUntilHopelessFactor * rule_.half_width) {
      v.stop = true;
      v.check = "hopeless";
      v.reason = "not knowable by the max of " + Fmt("%g", max_s) + " s: at this pace the interval would still be " +
                 Percent(at_end) + " then; " + why;
      return v;
    }
  }
  // Held by its drift, with the percentile per window grown kUntilOverloadGrowth times from the
  // point's first quarter to its last: a queue building up, which running on only lengthens.
  if (v.check == "stationarity" && v.measured_s >= max_s * kUntilHopelessAfter) {
    const size_t quarter = window_pct_.size() / 4;
    std::vector<double> first, last;
    for (size_t i = 0; i < quarter; ++i) {
      if (!std::isnan(window_pct_[i])) first.push_back(window_pct_[i]);
      if (!std::isnan(window_pct_[window_pct_.size() - 1 - i])) last.push_back(window_pct_[window_pct_.size() - 1 - i]);
    }
    if (first.size() >= 4 && last.size() >= 4 && Median(first) > 0 &&
        Median(last) >= kUntilOverloadGrowth * Median(first)) {
      v.stop = true;
      v.check = "hopeless";
      v.reason = "not knowable: p" + Fmt("%g", rule_.percentile) + " per window grew " +
                 Fmt("%.3g", Median(last) / Median(first)) + " times from the point's first quarter to its last (" +
                 Fmt("%.0f", Median(first) / 1e3) + " to " + Fmt("%.0f", Median(last) / 1e3) +
                 " us, the windows' medians), a queue building up; " + why;
      return v;
    }
  }
  v.reason = why;
  return v;
}

}  // namespace ream
