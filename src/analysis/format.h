// How the analysis writes numbers in its explanations ("1.23", "12.5 %", "4500 QPS").
#pragma once

#include <cmath>
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
// A rate or a count of sessions: whole from 100 up ("4500", not "4.5e+03"), and with its
// fraction below (a speech recognizer's capacity is "0.5 QPS", not "0 QPS").
inline std::string Amount(double v) {
  char b[32];
  if (!(std::fabs(v) < 100) || std::floor(v) == v) {
    std::snprintf(b, sizeof b, "%.0f", v);
  } else {
    std::snprintf(b, sizeof b, "%.3g", v);
  }
  return b;
}
inline std::string Qps(double v) { return Amount(v) + " QPS"; }
// A load on `axis`, "5000 QPS" or "16 sessions".
inline std::string Load(double v, LoadAxis axis) {
  return Amount(v) + " " + std::string(LoadAxisUnit(axis));
}

}  // namespace ream::analysis
