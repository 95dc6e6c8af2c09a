// How the analysis writes numbers in its explanations ("1.23", "12.5 %", "4500 QPS").
#pragma once

#include <cstdio>
#include <string>

#include "load/load_axis.h"

namespace ream::analysis {

inline std::string Fmt(double v, int prec = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", prec, v);
  return b;
}
inline std::string Pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", v * 100);
  return b;
}
inline std::string Qps(double v) { return FormatLoadAmount(v) + " QPS"; }
// A load on `axis`, "5000 QPS" or "16 sessions".
inline std::string Load(double v, LoadAxis axis) {
  return FormatLoadAmount(v) + " " + std::string(LoadAxisUnit(axis));
}

}  // namespace ream::analysis
