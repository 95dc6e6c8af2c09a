#include "analysis/stats.h"

#include <algorithm>
#include <cmath>

#include "platform/median.h"

namespace ream::analysis {

std::optional<double> InterpolateY(const std::vector<XY>& s, double x) {
  if (s.empty()) return std::nullopt;
  if (x < s.front().x || x > s.back().x) return std::nullopt;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].x == x) return s[i].y;
    if (i + 1 < s.size() && s[i].x < x && x < s[i + 1].x) {
      double t = (x - s[i].x) / (s[i + 1].x - s[i].x);
      return s[i].y + t * (s[i + 1].y - s[i].y);
    }
  }
  return std::nullopt;
}

std::optional<double> FirstUpCrossing(const std::vector<XY>& s, double threshold,
                                      size_t* index) {
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i].y > threshold && s[i - 1].y <= threshold) {
      if (index) *index = i;
      double dy = s[i].y - s[i - 1].y;
      double t = dy > 0 ? (threshold - s[i - 1].y) / dy : 0;
      return s[i - 1].x + t * (s[i].x - s[i - 1].x);
    }
    if (s[i - 1].y > threshold) return std::nullopt;  // failed before any pass
  }
  return std::nullopt;
}

namespace {
// Means and centred sums of squares and products of a series: what a least-squares line and a
// correlation coefficient are both made of.
struct CentredSums {
  double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
};
CentredSums Centre(const std::vector<XY>& s) {
  CentredSums c;
  double n = static_cast<double>(s.size());
  for (const auto& p : s) {
    c.mx += p.x;
    c.my += p.y;
  }
  c.mx /= n;
  c.my /= n;
  for (const auto& p : s) {
    c.sxx += (p.x - c.mx) * (p.x - c.mx);
    c.sxy += (p.x - c.mx) * (p.y - c.my);
    c.syy += (p.y - c.my) * (p.y - c.my);
  }
  return c;
}
}  // namespace

std::optional<LinearFit> FitLine(const std::vector<XY>& s) {
  if (s.size() < 2) return std::nullopt;
  CentredSums c = Centre(s);
  if (c.sxx <= 0) return std::nullopt;
  LinearFit f;
  f.n = static_cast<int>(s.size());
  f.slope = c.sxy / c.sxx;
  f.intercept = c.my - f.slope * c.mx;
  double ss_res = 0;
  for (const auto& p : s) ss_res += (p.y - f.At(p.x)) * (p.y - f.At(p.x));
  f.r2 = c.syy > 0 ? 1.0 - ss_res / c.syy : 1.0;
  return f;
}

std::optional<double> Correlation(const std::vector<XY>& s) {
  if (s.size() < 2) return std::nullopt;
  CentredSums c = Centre(s);
  if (c.sxx <= 0 || c.syy <= 0) return std::nullopt;
  return c.sxy / std::sqrt(c.sxx * c.syy);
}

std::optional<MedianCi> MedianConfidence(std::vector<double> v, double confidence) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  MedianCi r;
  r.n = static_cast<int>(v.size());
  size_t n = v.size();
  r.median = Median(v);
  r.low = v.front();
  r.high = v.back();
  if (n < 2) return r;
  // P(Bin(n, ½) ≤ j) for j = 0, 1, …: the chance that fewer than j + 1 values lie below the
  // median, which leaves [x_(j+1), x_(n−j)] on one side of it.
  std::vector<double> cdf(n + 1);
  double pmf = std::pow(0.5, static_cast<double>(n));  // P(= 0)
  double acc = 0;
  for (size_t j = 0; j <= n; ++j) {
    acc += pmf;
    cdf[j] = acc;
    pmf = pmf * static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  r.coverage = 1 - 2 * cdf[0];
  for (size_t k = 2; k <= n / 2; ++k) {
    double coverage = 1 - 2 * cdf[k - 1];
    if (coverage < confidence) break;
    r.low = v[k - 1];
    r.high = v[n - k];
    r.coverage = coverage;
  }
  return r;
}

}  // namespace ream::analysis
