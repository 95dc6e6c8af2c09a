// Number and list formatting shared by the experiment layer's messages and console lines.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ream {

// printf-style formatting of one number ("%.6g", "%.1f%%").
inline std::string Fmt(const char* format, double v) {
  char b[64];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

inline std::string Join(const std::vector<std::string>& v, const std::string& sep = " ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace ream
