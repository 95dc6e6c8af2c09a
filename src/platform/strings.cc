// String and CPU-list helpers shared by the layers that read kernel files.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "platform/platform.h"

namespace ream {

std::string CommandResult::Describe() const {
  std::string first = err.empty() ? out : err;
  auto nl = first.find('\n');
  if (nl != std::string::npos) first = first.substr(0, nl);
  return "exit " + std::to_string(exit_code) + (first.empty() ? "" : ": " + first);
}

bool ParseFiniteDouble(std::string_view s, double* out) {
  std::string t(Trim(s));
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && p == t.data() + t.size() && std::isfinite(*out);
}

Result<int64_t> ParseDurationNs(std::string_view text, std::string_view what) {
  std::string t = Trim(text);
  size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  double v = 0;
  std::string num = t.substr(0, i), unit = t.substr(i);
  if (num.empty() || !ParseFiniteDouble(num, &v)) {
    return InvalidArgument(std::string(what) + ": '" + std::string(text) +
                           "' is not a duration (e.g. 20us, 1.5ms, 10s)");
  }
  double scale;
  if (unit == "ns") scale = 1;
  else if (unit == "us" || unit == "µs") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else if (unit == "m" || unit == "min") scale = 60e9;
  else if (unit.empty() && v == 0) scale = 0;
  else {
    return InvalidArgument(std::string(what) + ": '" + std::string(text) +
                           "' needs a unit: ns, us, ms, s or min");
  }
  double ns = v * scale;
  if (ns > 1e15) return InvalidArgument(std::string(what) + ": '" + std::string(text) + "' is too long");
  return static_cast<int64_t>(std::llround(ns));
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\n' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\n' || s[e - 1] == '\t' || s[e - 1] == '\r'))
    --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> Split(std::string_view s, char sep, bool skip_empty) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    std::string_view piece = s.substr(start, pos == std::string_view::npos ? s.npos : pos - start);
    if (!piece.empty() || !skip_empty) out.emplace_back(piece);
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

namespace {
bool ParseInt(std::string_view s, int* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}
}  // namespace

Result<std::vector<int>> ParseCpuList(std::string_view list) {
  std::string trimmed = Trim(list);
  std::vector<int> cpus;
  for (const auto& piece : Split(trimmed, ',')) {
    auto dash = piece.find('-');
    int lo = 0, hi = 0;
    if (dash == std::string::npos) {
      if (!ParseInt(piece, &lo)) return InvalidArgument("bad CPU list '" + trimmed + "'");
      hi = lo;
    } else if (!ParseInt(std::string_view(piece).substr(0, dash), &lo) ||
               !ParseInt(std::string_view(piece).substr(dash + 1), &hi) || hi < lo) {
      return InvalidArgument("bad CPU list '" + trimmed + "'");
    }
    if (hi > 65535) return InvalidArgument("CPU id out of range in '" + trimmed + "'");
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string Fnv1aHex(std::string_view bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char b[24];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

}  // namespace ream
