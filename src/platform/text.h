// Number and list formatting shared by the spec's and the experiment's messages and console lines.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ream {

// printf-style formatting of one number ("%.6g", "%.1f%%").
inline std::string Fmt(const char* format, double v) {
  char b[64];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

// `arg` with every "{KEY}" of `fills` replaced by its value: a command's "{port}", "{threads}".
inline std::string FillPlaceholders(std::string arg, const std::vector<std::pair<std::string, std::string>>& fills) {
  for (const auto& [key, value] : fills) {
    for (size_t at = 0; (at = arg.find(key, at)) != std::string::npos; at += value.size()) arg.replace(at, key.size(), value);
  }
  return arg;
}

inline std::string Join(const std::vector<std::string>& v, const std::string& sep = " ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace ream
