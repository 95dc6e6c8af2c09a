// Measure a point until its tail is known (Lancet, Kogias et al., ATC 2019): with `until` the
// generator measures in windows of kUntilWindowNs, and after each an UntilJudge says whether the
// QoS percentile's confidence interval is within the asked half-width, the samples independent
// enough for that interval to hold, and the windows' figures stationary — or that the point's
// time is up. Pure logic: the generator feeds it (load/generator.cc), tests feed it streams.
//
//   UntilJudge judge(*ParseUntil("p95 ±5% max 20s", "--until"));
//   while (!judge.Add(window).stop) { ... }
//   judge.verdict().reason;  // "interval 3.8 % <= 5 %"
#pragma once

#include <cstdint>
#include <deque>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/histogram.h"
#include "platform/status.h"

namespace ream {

// A window: short enough that a point at a high rate stops within a few hundred milliseconds of
// being known, long enough to hold some answers at a low one (blocks of windows are tested
// together below kUntilBlockAnswers, UntilJudge).
inline constexpr int64_t kUntilWindowNs = 25'000'000;
// The stationarity test needs a series: fewer windows than this never stop a point early. (The
// Dickey-Fuller test rejects the unit root of white noise 75 % of the time at 15 values, 94 % at
// 20: a stationary point is usually known within 20 windows, half a second.)
inline constexpr int kUntilMinWindows = 16;
// A block of windows tested as one figure of the series holds at least this many answers, so
// its percentile is more than the window's largest answer (a window alone above 2 000 answers a
// second).
inline constexpr uint64_t kUntilBlockAnswers = 50;
// Samples whose rank correlation at the thinning lag is at most this count as independent: r =
// 0.1 between neighbours widens a percentile's true interval by about 10 % over the binomial's.
inline constexpr double kUntilMaxAutocorrelation = 0.1;
// The lags tried, in order: every lag-th answer goes into the interval (Lancet lowers its
// sampling rate by the same steps).
inline constexpr int kUntilLags[] = {1, 2, 3, 5, 10, 20, 50, 100};
// A generator thread hands the judge at most about this many answers a window (every k-th above
// 80 000 a second): the judge runs on the generator's CPUs, and its work grows with the answers.
// At 160 000 QPS against memcached, judging every answer cost 1.3 points of timely requests.
inline constexpr uint64_t kUntilAnswersPerWindow = 2000;
// Raw answers kept for a new thinning lag; past this (32 MB) the lag stays as it is and the
// interval's histogram grows on its own.
inline constexpr size_t kUntilMaxKeptSamples = size_t{1} << 22;
inline constexpr int64_t kUntilDefaultMaxNs = 30'000'000'000;

struct UntilRule {
  double percentile = 95;    // the QoS percentile (95: p95)
  double half_width = 0.05;  // of the interval, relative to the percentile
  int64_t max_ns = kUntilDefaultMaxNs;  // the point ends here, known or not
  double confidence = 0.95;  // of the interval
  std::string Text() const;  // "p95 ±5% max 30s"
};

// "p95 ±5%", "p99 ±2%", "p99.9 ±10% max 20s" ("+-" and "+/-" for "±"; max defaults to 30 s).
// InvalidArgument naming `field` ("[load] until", "--until") and the part that is wrong.
Result<UntilRule> ParseUntil(std::string_view text, std::string_view field);

// What one window measured: its answers' latencies (ns) in the order they came, its length.
struct UntilWindow {
  std::vector<int64_t> latencies_ns;
  double seconds = 0;
};

// The judge's answer after a window. `check` names the check that decided: "interval" (every
// check passed), "windows" (too few yet), "autocorrelation", "stationarity", "max duration".
struct UntilVerdict {
  bool stop = false;
  bool known = false;  // stopped with every check passed
  std::string check;
  std::string reason;  // "interval 3.8 % <= 5 %", "max duration 20 s reached: interval 7.2 % > 5 % ..."
  std::optional<double> interval;  // relative half-width of the percentile's interval, last computed
  uint64_t interval_samples = 0;   // the answers it was computed from
  int lag = 0;                     // every lag-th answer went into it (0: none independent)
  double lag1_r = 0;               // rank autocorrelation of neighbouring answers
  int windows = 0;
  double measured_s = 0;
};

class UntilJudge {
 public:
  explicit UntilJudge(UntilRule rule);
  // Takes the next window and judges the point so far.
  const UntilVerdict& Add(const UntilWindow& w);
  const UntilVerdict& verdict() const { return verdict_; }
  const UntilRule& rule() const { return rule_; }

 private:
  // The smallest lag of kUntilLags at which the answers' rank autocorrelation is within
  // kUntilMaxAutocorrelation (0 when none is); `last_r` the correlation at the last lag tried,
  // `last_lag` that lag (0: too few answers to try any).
  int IndependentLag(double* lag1_r, double* last_r, int* last_lag) const;
  // Adds a window's answers to the lagged pairs' sums. Each answer is ranked (its share of the
  // answers below it) by the answers before its window, so the sums grow by the new answers
  // only: the judge runs on the generator's CPUs, and ranking every answer again each window
  // took 3 ms at a time there, enough to make sends late.
  void AddPairs(const std::vector<int64_t>& latencies);
  void Thin(int lag);  // the interval's histogram from every lag-th answer
  // Empty when both series pass; else why not.
  std::string Stationarity() const;

  UntilRule rule_;
  UntilVerdict verdict_;
  // Every answer, in order (up to kUntilMaxKeptSamples); in blocks, so growing it never copies
  // megabytes on the generator's CPUs.
  std::deque<int64_t> samples_;
  uint64_t answers_ = 0;          // every answer, kept or not
  std::vector<size_t> window_end_;   // answers_ after each window
  std::vector<double> window_pct_;   // each window's percentile (ns), NaN when empty
  std::vector<double> window_s_;
  Histogram thinned_;  // every lag_-th answer
  int lag_ = 1;
  uint64_t thinned_upto_ = 0;  // answers considered for thinned_
  // Every answer so far, the reference its successors are ranked by.
  Histogram all_;
  static constexpr int kMaxLag = 100;  // the last of kUntilLags
  double recent_rank_[kMaxLag] = {};   // the last kMaxLag answers' ranks, a ring
  struct PairSums {
    double n = 0, a = 0, b = 0, ab = 0, aa = 0, bb = 0;
  };
  PairSums pairs_[std::size(kUntilLags)];
};

// The augmented Dickey–Fuller test with a constant and `lags` lagged differences (the judge takes
// floor(cbrt(n / 25)) of n values: none below 40, whose power they would halve): the t statistic
// of y_{t−1}'s coefficient in Δy_t = a + b·y_{t−1} + Σ c_i·Δy_{t−i}, against MacKinnon's (2010)
// 5 % critical value for the observations used. `stationary` when it rejects the unit root (the
// statistic below the critical value); a series without variation is stationary. nullopt with
// too few values for the regression.
struct AdfResult {
  double statistic = 0;
  double critical = 0;
  int observations = 0;
  bool stationary = false;
};
std::optional<AdfResult> AugmentedDickeyFuller(const std::vector<double>& series, int lags);

}  // namespace ream
