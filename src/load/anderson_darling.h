// The Anderson–Darling goodness-of-fit test of a sample against a fully specified continuous
// distribution, used to check that the generator's actual send gaps follow the requested
// arrival process.
#pragma once

#include <functional>
#include <vector>

namespace ream {

// A² for `sample` against the CDF `cdf` (parameters known, not estimated). The sample is
// sorted in place. CDF values are clamped away from 0 and 1 so a point at an edge cannot make
// the statistic infinite. Returns 0 for an empty sample.
double AndersonDarlingStatistic(std::vector<double>& sample, const std::function<double(double)>& cdf);

// The CDF of the Erlang distribution of shape k >= 1 and rate 1 (the sum of k Exp(1) gaps):
// 1 - e^-x Σ_{i<k} x^i / i!, its terms taken in logarithms so no x overflows them.
double ErlangCdf(int k, double x);

// Critical values of A² for a fully specified distribution (Stephens 1974, case 0), valid for
// n >= 5: significance 5 % → 2.492, 1 % → 3.857.
inline constexpr double kAndersonDarlingCritical5 = 2.492;
inline constexpr double kAndersonDarlingCritical1 = 3.857;

}  // namespace ream
