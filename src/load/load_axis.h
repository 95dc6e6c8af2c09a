// What a sweep varies, its independent variable: the open-loop request rate (`qps`), the
// number of concurrent streaming sessions (`sessions`, each fetching chunks on an absolute
// schedule), or a batch subject's concurrent copies (`copies`, SPECrate's). The store records
// it per experiment; the analysis and the report
// name loads by it. Header-only: three small tables, used from load up to the report.
#pragma once

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace ream {

enum class LoadAxis { kQps, kSessions, kCopies };

inline constexpr LoadAxis kLoadAxes[] = {LoadAxis::kQps, LoadAxis::kSessions, LoadAxis::kCopies};

// The axis's name as specs, the store and JSON spell it: "qps", "sessions".
constexpr std::string_view LoadAxisName(LoadAxis axis) {
  switch (axis) {
    case LoadAxis::kQps: return "qps";
    case LoadAxis::kSessions: return "sessions";
    case LoadAxis::kCopies: return "copies";
  }
  return "qps";
}

// The inverse of LoadAxisName; nullopt for any other text.
constexpr std::optional<LoadAxis> ParseLoadAxis(std::string_view name) {
  for (LoadAxis a : kLoadAxes) {
    if (name == LoadAxisName(a)) return a;
  }
  return std::nullopt;
}

// How people read a load on the axis, after a number or as a chart's axis: "QPS", "sessions".
constexpr std::string_view LoadAxisUnit(LoadAxis axis) {
  switch (axis) {
    case LoadAxis::kQps: return "QPS";
    case LoadAxis::kSessions: return "sessions";
    case LoadAxis::kCopies: return "copies";
  }
  return "QPS";
}

// A load on any axis as people read it: whole from 100 up ("4500", never "4.5e+03"), and with
// its fraction below (a speech recognizer's 0.5 QPS is not "0 QPS" or "1 QPS").
inline std::string FormatLoadAmount(double v) {
  char b[32];
  if (!(std::fabs(v) < 100) || std::floor(v) == v) {
    std::snprintf(b, sizeof b, "%.0f", v);
  } else {
    std::snprintf(b, sizeof b, "%.3g", v);
  }
  return b;
}

}  // namespace ream
