// Measure a point until its tail is known (Lancet, Kogias et al., ATC 2019): with `until` the
// generator measures in windows of kUntilWindowNs, and after each an UntilJudge says whether the
// QoS percentile's confidence interval is within the asked half-width and the windows' figures
// stationary — or that the point cannot be known by its max, or its time is up. Answers queued
// behind each other are alike, so the interval is not the binomial one of independent answers:
// it comes from batches of consecutive windows (the batch means method for a quantile of a
// stationary series), whose spread says how much the answers really vary. Pure logic: the generator feeds it
// (load/generator.cc), tests feed it streams.
//
//   UntilJudge judge(*ParseUntil("p95 ±5% max 20s", "--until"));
//   while (!judge.Add(window).stop) { ... }
//   judge.verdict().reason;  // "interval 3.8 % <= 5 % (32 batches of 25 ms: ...)"
#pragma once

#include <cstdint>
#include <deque>
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
// The interval's batches: consecutive windows, about this many batches of as many windows each
// (the fixed-number-of-batches method: the batches lengthen as the point goes on, so answers
// alike over longer spans still fall mostly within one batch). 32 batches estimate the
// percentile's variance to within about 13 % (its standard error, 1/sqrt(2·31)).
inline constexpr int kUntilBatches = 32;
// Batches whose fractions below the percentile are still correlated from one to the next are
// too short to be independent: they are merged in pairs down to this many (Student t with 15
// degrees of freedom widens the interval 9 % over the normal's). Fewer: the point is
// "autocorrelated" and goes on.
inline constexpr int kUntilMinBatches = 16;
// A generator thread hands the judge at most about this many answers a window (every k-th above
// 80 000 a second): the judge runs on the generator's CPUs, and its work grows with the answers.
// At 160 000 QPS against memcached, judging every answer cost 1.3 points of timely requests.
inline constexpr uint64_t kUntilAnswersPerWindow = 2000;
// Answers kept for the batches; past this (32 MB) the interval is that of the answers kept (a
// point at 80 000 answers a second for 50 s), and says so.
inline constexpr size_t kUntilMaxKeptSamples = size_t{1} << 22;
inline constexpr int64_t kUntilDefaultMaxNs = 30'000'000'000;
// A point whose interval, were it to narrow as 1/sqrt(time) from here, would still be this many
// times the asked half-width at the max ends once this share of the max is measured, said so:
// on a host whose stalls make every answer of a window alike (lag-1 r = 1.00 at 90 000-300 000
// QPS against memcached), such points ran to the max at every attempt, 5 times a fixed 1 s.
inline constexpr double kUntilHopelessFactor = 3;
inline constexpr double kUntilHopelessAfter = 0.25;
// A point held as not stationary whose percentile per window is this many times higher over the
// last quarter of its windows than over the first (medians) is overloaded: its queue grows, and
// it ends then too. Against memcached, the overloaded levels' p95 climbed to 0.4-0.6 s within
// the 5 s max and ran to it, not stationary.
inline constexpr double kUntilOverloadGrowth = 4;

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
// check passed), "windows" (too few yet), "autocorrelation", "stationarity", "max duration",
// "hopeless" (ended before the max: its interval cannot narrow enough by then, or its
// percentile keeps growing).
struct UntilVerdict {
  bool stop = false;
  bool known = false;  // stopped with every check passed
  std::string check;
  std::string reason;  // "interval 3.8 % <= 5 % (...)", "max duration 20 s reached: interval 7.2 % > 5 % ..."
  std::optional<double> interval;  // relative half-width of the percentile's interval, last computed
  double value_ns = 0, low_ns = 0, high_ns = 0;  // the percentile and its interval's bounds
  uint64_t interval_samples = 0;   // the answers it was computed from
  // As many independent answers would give the same interval: p(1−p) over the batches'
  // variance of the fraction below the percentile (the answers counted when independent).
  double effective_samples = 0;
  int batches = 0;         // the interval's batches (0: none yet)
  double batch_s = 0;      // each batch's length
  double lag1_r = 0;       // rank autocorrelation of neighbouring answers, for the reader
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
  // The batch means interval over the windows kept so far (verdict_'s interval fields); empty
  // when it holds, else why not (the batches still correlated at kUntilMinBatches).
  std::string Batches();
  // Adds a window's answers, in the order they came, to the neighbours' rank correlation. Each
  // answer is ranked (its share of the answers below it) by the answers before its window, so
  // the sums grow by the new answers only.
  void AddPairs(const std::vector<int64_t>& latencies);
  // Empty when both series pass; else why not.
  std::string Stationarity() const;

  UntilRule rule_;
  UntilVerdict verdict_;
  // Every answer (up to kUntilMaxKeptSamples), each window's sorted, so a window's count below
  // a value is a binary search; in blocks, so growing it never copies megabytes on the
  // generator's CPUs.
  std::deque<int64_t> samples_;
  uint64_t answers_ = 0;          // every answer, kept or not
  std::vector<size_t> window_end_;   // answers_ after each window
  std::vector<double> window_pct_;   // each window's percentile (ns), NaN when empty
  std::vector<double> window_s_;
  size_t kept_windows_ = 0;  // the windows whose answers are all in samples_
  Histogram kept_;           // their answers
  // Every answer so far, the reference its successors are ranked by.
  Histogram all_;
  double last_rank_ = 0;
  struct PairSums {
    double n = 0, a = 0, b = 0, ab = 0, aa = 0, bb = 0;
  };
  PairSums pairs_;
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
