// A² = -n - (1/n) Σ (2i-1) [ln F(x_i) + ln(1 - F(x_{n+1-i}))]
#include "load/anderson_darling.h"

#include <algorithm>
#include <cmath>

namespace ream {

double AndersonDarlingStatistic(std::vector<double>& sample,
                                const std::function<double(double)>& cdf) {
  const size_t n = sample.size();
  if (n == 0) return 0;
  std::sort(sample.begin(), sample.end());
  std::vector<double> f(n);
  for (size_t i = 0; i < n; ++i) f[i] = std::clamp(cdf(sample[i]), 1e-300, 1.0 - 1e-16);
  double s = 0;
  for (size_t i = 0; i < n; ++i) {
    s += (2.0 * static_cast<double>(i) + 1.0) * (std::log(f[i]) + std::log1p(-f[n - 1 - i]));
  }
  return -static_cast<double>(n) - s / static_cast<double>(n);
}

double ErlangCdf(int k, double x) {
  if (!(x > 0)) return 0;
  if (k <= 1) return -std::expm1(-x);
  const double lx = std::log(x);
  double tail = 0;  // e^-x Σ_{i<k} x^i / i!
  for (int i = 0; i < k; ++i) tail += std::exp(-x + i * lx - std::lgamma(i + 1.0));
  return std::clamp(1.0 - tail, 0.0, 1.0);
}

}  // namespace ream
