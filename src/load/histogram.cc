#include "load/histogram.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ream {

Histogram::Histogram() : counts_(kBucketCount, 0) {}

size_t Histogram::BucketIndex(int64_t value) {
  if (value < 0) value = 0;
  if (value > kMaxValue) value = kMaxValue;
  auto v = static_cast<uint64_t>(value);
  if (v < (uint64_t{1} << kLinearLimitBits)) return static_cast<size_t>(v);
  int octave = 63 - std::countl_zero(v);  // >= kLinearLimitBits
  size_t sub = static_cast<size_t>((v >> (octave - kSubBucketBits)) & ((1u << kSubBucketBits) - 1));
  return (size_t{1} << kLinearLimitBits) +
         static_cast<size_t>(octave - kLinearLimitBits) * (size_t{1} << kSubBucketBits) + sub;
}

int64_t Histogram::BucketLow(size_t index) {
  if (index < (size_t{1} << kLinearLimitBits)) return static_cast<int64_t>(index);
  size_t rel = index - (size_t{1} << kLinearLimitBits);
  int octave = static_cast<int>(rel >> kSubBucketBits) + kLinearLimitBits;
  int64_t sub = static_cast<int64_t>(rel & ((1u << kSubBucketBits) - 1));
  return (int64_t{1} << octave) + (sub << (octave - kSubBucketBits));
}

int64_t Histogram::BucketHigh(size_t index) {
  if (index + 1 >= kBucketCount) return kMaxValue;
  return BucketLow(index + 1) - 1;
}

int64_t Histogram::BucketMid(size_t index) {
  return BucketLow(index) + (BucketHigh(index) - BucketLow(index) + 1) / 2;
}

void Histogram::RecordN(int64_t value, uint64_t n) {
  if (n == 0) return;
  if (value < 0) value = 0;
  if (value > kMaxValue) overflow_ += n;
  counts_[BucketIndex(value)] += n;
  if (count_ == 0 || value < min_) min_ = value;
  if (count_ == 0 || value > max_) max_ = value;
  count_ += n;
  long double v = static_cast<long double>(value);
  sum_ += v * n;
  sum_sq_ += v * v * n;
}

void Histogram::Merge(const Histogram& other) {
  if (other.count_ == 0) return;
  for (size_t i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  if (count_ == 0 || other.min_ < min_) min_ = other.min_;
  if (count_ == 0 || other.max_ > max_) max_ = other.max_;
  count_ += other.count_;
  overflow_ += other.overflow_;
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
}

void Histogram::Reset() { *this = Histogram(); }

double Histogram::mean() const {
  return count_ ? static_cast<double>(sum_ / count_) : 0.0;
}

double Histogram::stddev() const {
  if (count_ == 0) return 0.0;
  long double m = sum_ / count_;
  long double var = sum_sq_ / count_ - m * m;
  return var > 0 ? static_cast<double>(std::sqrt(var)) : 0.0;
}

int64_t Histogram::ValueAtRank(uint64_t rank) const {
  if (count_ == 0) return 0;
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < kBucketCount; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(BucketMid(i), min_, max_);
  }
  return max_;
}

int64_t Histogram::ValueAtQuantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  return ValueAtRank(rank);
}

std::string Histogram::Encode() const {
  char head[256];
  std::snprintf(head, sizeof head, "v1;%llu;%.21Lg;%.21Lg;%lld;%lld;%llu;",
                static_cast<unsigned long long>(count_), sum_, sum_sq_,
                static_cast<long long>(min()), static_cast<long long>(max()),
                static_cast<unsigned long long>(overflow_));
  std::string out = head;
  bool first = true;
  for (size_t i = 0; i < kBucketCount; ++i) {
    if (counts_[i] == 0) continue;
    if (!first) out += ',';
    first = false;
    out += std::to_string(i) + ':' + std::to_string(counts_[i]);
  }
  return out;
}

namespace {
template <typename T>
bool ParseNum(std::string_view s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}
}  // namespace

Result<Histogram> Histogram::Decode(std::string_view text) {
  std::vector<std::string_view> f;
  size_t start = 0;
  for (int i = 0; i < 7; ++i) {
    size_t pos = text.find(';', start);
    if (pos == std::string_view::npos) return Corrupt("histogram encoding: missing fields");
    f.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
  if (f[0] != "v1") return Corrupt("histogram encoding: unknown version '" + std::string(f[0]) + "'");
  Histogram h;
  long long mn = 0, mx = 0;
  unsigned long long count = 0, ovf = 0;
  if (!ParseNum(f[1], &count) || !ParseNum(f[4], &mn) || !ParseNum(f[5], &mx) ||
      !ParseNum(f[6], &ovf)) {
    return Corrupt("histogram encoding: bad header");
  }
  try {
    h.sum_ = std::stold(std::string(f[2]));
    h.sum_sq_ = std::stold(std::string(f[3]));
  } catch (...) {
    return Corrupt("histogram encoding: bad sums");
  }
  uint64_t total = 0;
  std::string_view body = text.substr(start);
  while (!body.empty()) {
    size_t comma = body.find(',');
    std::string_view item = body.substr(0, comma);
    size_t colon = item.find(':');
    size_t idx = 0;
    unsigned long long c = 0;
    if (colon == std::string_view::npos || !ParseNum(item.substr(0, colon), &idx) ||
        !ParseNum(item.substr(colon + 1), &c) || idx >= kBucketCount) {
      return Corrupt("histogram encoding: bad bucket '" + std::string(item) + "'");
    }
    h.counts_[idx] += c;
    if (__builtin_add_overflow(total, c, &total)) return Corrupt("histogram encoding: bucket counts overflow");
    body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 1);
  }
  if (total != count) return Corrupt("histogram encoding: bucket counts do not add up to count");
  // What Record keeps true; a blob that breaks it would give quantiles outside [min, max].
  if (count > 0 && (mn < 0 || mn > mx)) return Corrupt("histogram encoding: min and max out of order");
  if (ovf > count) return Corrupt("histogram encoding: more overflowed values than values");
  if (!std::isfinite(h.sum_) || !std::isfinite(h.sum_sq_) || h.sum_ < 0 || h.sum_sq_ < 0) {
    return Corrupt("histogram encoding: sums not finite and non-negative");
  }
  h.count_ = count;
  h.min_ = mn;
  h.max_ = mx;
  h.overflow_ = ovf;
  return h;
}

}  // namespace ream
