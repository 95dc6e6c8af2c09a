// A log-linear latency histogram (HdrHistogram's idea, fixed precision): values below 128 are
// exact; above, each power-of-two octave is split into 64 equal buckets, so a value is known
// to within 1/128 (0.78 %) of itself when reported as its bucket's midpoint. Recording is one
// bit scan and one increment; histograms merge by adding counts, so each thread owns its own
// and they are merged after the run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/status.h"

namespace ream {

class Histogram {
 public:
  static constexpr int kSubBucketBits = 6;  // 64 buckets per octave
  static constexpr int kLinearLimitBits = kSubBucketBits + 1;  // exact below 128
  static constexpr int kMaxBits = 42;  // values up to 2^42 - 1 (~73 min in ns)
  static constexpr int64_t kMaxValue = (int64_t{1} << kMaxBits) - 1;
  static constexpr size_t kBucketCount =
      (size_t{1} << kLinearLimitBits) +
      static_cast<size_t>(kMaxBits - kLinearLimitBits) * (size_t{1} << kSubBucketBits);
  // Largest relative error of a reported value (bucket midpoint) against the recorded one.
  static constexpr double kRelativeError = 1.0 / (1 << (kSubBucketBits + 1));

  Histogram();

  // Records a value (negative values count as 0). Values above kMaxValue are counted in
  // the top bucket and in overflow(), never dropped silently.
  void Record(int64_t value) { RecordN(value, 1); }
  void RecordN(int64_t value, uint64_t n);
  // Adds every count of `other` into this histogram.
  void Merge(const Histogram& other);
  void Reset();

  uint64_t count() const { return count_; }
  uint64_t overflow() const { return overflow_; }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t max() const { return count_ ? max_ : 0; }
  double mean() const;    // exact (from the running sum), 0 when empty
  double stddev() const;  // population standard deviation, 0 when empty
  // The value at quantile q in [0, 1] (q = 0.95 → p95): the midpoint of the bucket holding
  // the ceil(q·n)-th smallest value, clamped to [min, max]. 0 when empty.
  int64_t ValueAtQuantile(double q) const;
  // The value of the r-th smallest recorded value (1-based), as above.
  int64_t ValueAtRank(uint64_t rank) const;

  // Bucket arithmetic, exposed for serialization and tests.
  static size_t BucketIndex(int64_t value);
  static int64_t BucketLow(size_t index);   // smallest value in the bucket
  static int64_t BucketHigh(size_t index);  // largest value in the bucket
  static int64_t BucketMid(size_t index);
  uint64_t bucket(size_t index) const { return counts_[index]; }

  // Compact text encoding of the non-empty buckets ("v1;count;sum;sumsq;min;max;ovf;i:c,i:c"),
  // for the results store. Decode fails with Corrupt on anything malformed.
  std::string Encode() const;
  static Result<Histogram> Decode(std::string_view text);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t overflow_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
  long double sum_ = 0;
  long double sum_sq_ = 0;
};

}  // namespace ream
