// Distributions of what the generator draws per request: key and value sizes, multiget batch
// sizes, and the shape of arrival gaps. The text form is mutilate's (its `--keysize`,
// `--valuesize` and `--iadist` arguments): a number is a fixed value, `NAME:P1,P2,...` a
// parametric distribution, `fb_key` / `fb_value` / `fb_ia` the fits of Facebook's ETC pool
// (Atikoglu et al., "Workload Analysis of a Large-Scale Key-Value Store", SIGMETRICS 2012, as
// mutilate ships them), and `file:PATH` a table of values with weights. docs/load.md lists
// every form with its parameters.
//
// Drawing is an inverse CDF of one or two uniform numbers (no table, no allocation), so the
// same draw can come from the thread's generator or from a hash of a key's index (a key's size
// is a property of the key, as in mutilate).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/status.h"

namespace ream {

struct Distribution {
  enum class Kind : uint8_t { kFixed, kUniform, kNormal, kExponential, kGev, kGpareto, kTable };
  Kind kind = Kind::kFixed;
  // As written, in its canonical form ("64", "fb_value", "gev:30.7984,8.20449,0.078688",
  // "file:sizes.txt"): what `ream load`, the agents and the store are given back.
  std::string name = "0";
  // kFixed: the value a. kUniform: a..b. kNormal: mean a, standard deviation b. kExponential:
  // rate a (mean 1/a, mutilate's lambda). kGev, kGpareto: location a, scale b, shape c.
  double a = 0, b = 0, c = 0;
  // Values taken with their probabilities before the distribution above is drawn: kTable's
  // whole content (probabilities summing to 1), or a discrete head that mutilate's fb_value puts
  // before its generalized Pareto tail (probabilities summing to less than 1; the rest draws
  // the tail). Kept sorted by cumulative probability: `cumulative[i]` = p_0 + ... + p_i.
  std::vector<double> values;
  std::vector<double> cumulative;

  bool fixed() const { return kind == Kind::kFixed && values.empty(); }
  // The mean of the distribution (infinity when it has none: a Pareto or GEV shape >= 1).
  double Mean() const;
  // The lowest value it can take (-infinity when unbounded below).
  double Lowest() const;
  // P(X <= x), for the goodness-of-fit tests of what was sent against what was asked.
  double Cdf(double x) const;

  // A draw: `u1` picks from the table or head, `u2` draws the continuous part; both in (0, 1).
  // (Two numbers so a key's size can be a pure function of its index.)
  double Quantile(double u1, double u2) const {
    if (!values.empty()) {
      if (u1 < cumulative.back() || kind == Kind::kTable) return TableValue(u1);
    }
    return ContinuousQuantile(u1, u2);
  }
  template <class Rng>
  double Draw(Rng& rng) const {
    if (kind == Kind::kFixed && values.empty()) return a;
    return Quantile(Unit(rng), Unit(rng));
  }
  // A uniform number in (0, 1), never 0 (the inverse CDFs take its logarithm).
  template <class Rng>
  static double Unit(Rng& rng) {
    return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
  }

 private:
  double TableValue(double u) const;
  // `u2` the uniform number of the draw; `u1` the second that Box-Muller's normal takes.
  double ContinuousQuantile(double u1, double u2) const;
};

// Parses a distribution's text (see the header comment). `file_text` is the content of the
// file a `file:PATH` names, read by the caller: one `VALUE WEIGHT` pair per line (WEIGHT
// optional, 1 when absent; `#` comments and blank lines ignored). InvalidArgument naming
// `what` (e.g. "--value-bytes") and what is wrong.
Result<Distribution> ParseDistribution(std::string_view text, std::string_view what, std::string_view file_text = {});
// A fixed value's distribution, named by the number ("64").
Distribution FixedDistribution(double value);

// Sizes in bytes drawn from a distribution: each draw rounded to the nearest integer and held
// within [lowest, highest]; a draw outside is counted (`clamped`) so a stored run says how far
// what it sent departs from what was asked.
class SizeSampler {
 public:
  SizeSampler() = default;
  SizeSampler(const Distribution& d, uint64_t lowest, uint64_t highest);
  bool fixed() const { return fixed_; }
  uint64_t highest() const { return highest_; }
  template <class Rng>
  uint64_t Draw(Rng& rng) {
    if (fixed_) return value_;
    return Hold(dist_.Quantile(Distribution::Unit(rng), Distribution::Unit(rng)));
  }
  // The size of the thing numbered `index` (a key): the same every time, for every thread.
  uint64_t Of(uint64_t index);
  uint64_t clamped() const { return clamped_; }

 private:
  uint64_t Hold(double x) {
    double r = std::nearbyint(x);
    if (!(r >= static_cast<double>(lowest_))) return ++clamped_, lowest_;  // also NaN
    if (r > static_cast<double>(highest_)) return ++clamped_, highest_;
    return static_cast<uint64_t>(r);
  }
  Distribution dist_;
  bool fixed_ = true;
  uint64_t value_ = 0, lowest_ = 0, highest_ = 0;
  uint64_t clamped_ = 0;
};

}  // namespace ream
