// The median of a few values (repetitions, rounds, a level's measurements): the middle one,
// or the mean of the two middle ones. `values` must not be empty.
#pragma once

#include <algorithm>
#include <vector>

namespace ream {

inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t h = values.size() / 2;
  return values.size() % 2 == 1 ? values[h] : (values[h - 1] + values[h]) / 2;
}

}  // namespace ream
