// Parsing, moments and CDFs of the generator's distributions (distribution.h).
#include "load/distribution.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "platform/platform.h"
#include "platform/text.h"

namespace ream {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEulerGamma = 0.57721566490153286;
// A table file may hold at most this many values: a bounded parse of a user's file.
constexpr size_t kMaxTableValues = 1'000'000;

bool ParseNumber(std::string_view s, double* v) {
  std::string t = Trim(s);
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
  return ec == std::errc() && p == t.data() + t.size() && std::isfinite(*v);
}

// mutilate's fb_value (Atikoglu et al. 2012, section 5): sizes 0..14 bytes with the
// probabilities measured in ETC, a generalized Pareto beyond them.
constexpr double kFbValueHead[15] = {0.00536, 0.00047, 0.17820, 0.09239, 0.00018, 0.02740, 0.00065, 0.00606,
                                     0.00023, 0.00837, 0.00837, 0.08989, 0.00092, 0.00326, 0.01980};

Distribution Parametric(Distribution::Kind kind, std::string name, double a, double b, double c) {
  Distribution d;
  d.kind = kind;
  d.name = std::move(name);
  d.a = a, d.b = b, d.c = c;
  return d;
}

// The SplitMix64 finalizer: a well-mixed 64-bit function of a key's index.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

Result<Distribution> ParseTable(std::string_view text, std::string_view what, const std::string& name) {
  Distribution d;
  d.kind = Distribution::Kind::kTable;
  d.name = name;
  std::vector<double> weights;
  int line_no = 0;
  for (const auto& raw : Split(text, '\n', false)) {
    ++line_no;
    std::string line = Trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    std::vector<std::string> f = Split(line, ' ');
    if (f.size() == 1) f = Split(line, '\t');
    double v = 0, w = 1;
    if (f.empty() || f.size() > 2 || !ParseNumber(f[0], &v) || (f.size() == 2 && (!ParseNumber(f[1], &w) || w < 0))) {
      return InvalidArgument(std::string(what) + " " + name + ": line " + std::to_string(line_no) + " '" + line +
                             "' is not 'VALUE [WEIGHT]' (numbers, the weight >= 0)");
    }
    if (d.values.size() == kMaxTableValues) {
      return InvalidArgument(std::string(what) + " " + name + ": more than " + std::to_string(kMaxTableValues) +
                             " values");
    }
    d.values.push_back(v);
    weights.push_back(w);
  }
  double total = 0;
  for (double w : weights) total += w;
  if (d.values.empty() || !(total > 0)) {
    return InvalidArgument(std::string(what) + " " + name + ": the file holds no value with a weight above 0");
  }
  double sum = 0;
  for (double w : weights) d.cumulative.push_back((sum += w) / total);
  d.cumulative.back() = 1;
  return d;
}

}  // namespace

Distribution FixedDistribution(double value) {
  return Parametric(Distribution::Kind::kFixed, Fmt("%.17g", value), value, 0, 0);
}

Result<Distribution> ParseDistribution(std::string_view text_in, std::string_view what, std::string_view file_text) {
  const std::string text = Trim(text_in);
  const std::string at = std::string(what) + " '" + text + "': ";
  double v = 0;
  if (ParseNumber(text, &v)) {
    Distribution d = FixedDistribution(v);
    d.name = text;
    return d;
  }
  if (text == "fb_key") return Parametric(Distribution::Kind::kGev, text, 30.7984, 8.20449, 0.078688);
  if (text == "fb_ia") return Parametric(Distribution::Kind::kGpareto, text, 0, 16.0292, 0.154971);
  if (text == "fb_value") {
    Distribution d = Parametric(Distribution::Kind::kGpareto, text, 15.0, 214.476, 0.348238);
    double sum = 0;
    for (int i = 0; i < 15; ++i) {
      d.values.push_back(i);
      d.cumulative.push_back(sum += kFbValueHead[i]);
    }
    return d;
  }
  const size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  if (kind == "file") {
    if (colon == std::string::npos || colon + 1 == text.size()) return InvalidArgument(at + "file: needs a path");
    return ParseTable(file_text, what, text);
  }
  std::vector<double> p;
  if (colon != std::string::npos) {
    for (const auto& s : Split(std::string_view(text).substr(colon + 1), ',', false)) {
      if (!ParseNumber(s, &v)) return InvalidArgument(at + "'" + s + "' is not a number");
      p.push_back(v);
    }
  }
  auto want = [&](size_t lo, size_t hi, const char* form) -> Status {
    if (p.size() < lo || p.size() > hi) return InvalidArgument(at + "expected " + form);
    return Status::Ok();
  };
  if (kind == "fixed") {
    REAM_RETURN_IF_ERROR(want(1, 1, "fixed:VALUE"));
    return Parametric(Distribution::Kind::kFixed, text, p[0], 0, 0);
  }
  if (kind == "uniform") {
    // mutilate's uniform:MAX starts at 0.
    REAM_RETURN_IF_ERROR(want(1, 2, "uniform:MAX or uniform:MIN,MAX"));
    double lo = p.size() == 2 ? p[0] : 0, hi = p.back();
    if (!(lo <= hi)) return InvalidArgument(at + "MIN must not exceed MAX");
    return Parametric(Distribution::Kind::kUniform, text, lo, hi, 0);
  }
  if (kind == "normal") {
    REAM_RETURN_IF_ERROR(want(2, 2, "normal:MEAN,SD"));
    if (p[1] < 0) return InvalidArgument(at + "the standard deviation must be >= 0");
    return Parametric(Distribution::Kind::kNormal, text, p[0], p[1], 0);
  }
  if (kind == "exponential") {
    REAM_RETURN_IF_ERROR(want(1, 1, "exponential:LAMBDA (the rate: the mean is 1 / LAMBDA)"));
    if (!(p[0] > 0)) return InvalidArgument(at + "LAMBDA must be > 0");
    return Parametric(Distribution::Kind::kExponential, text, p[0], 0, 0);
  }
  if (kind == "gev" || kind == "pareto" || kind == "gpareto") {
    REAM_RETURN_IF_ERROR(want(3, 3, (kind + ":LOCATION,SCALE,SHAPE").c_str()));
    if (!(p[1] > 0)) return InvalidArgument(at + "SCALE must be > 0");
    return Parametric(kind == "gev" ? Distribution::Kind::kGev : Distribution::Kind::kGpareto, text, p[0], p[1], p[2]);
  }
  return InvalidArgument(at + "expected a number, fixed:V, uniform:[MIN,]MAX, normal:MEAN,SD, exponential:LAMBDA, "
                              "gev:LOC,SCALE,SHAPE, gpareto:LOC,SCALE,SHAPE, fb_key, fb_value, fb_ia or file:PATH");
}

double Distribution::TableValue(double u) const {
  size_t i = static_cast<size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
  return values[std::min(i, values.size() - 1)];
}

double Distribution::ContinuousQuantile(double u1, double u) const {
  switch (kind) {
    case Kind::kFixed:
      return a;
    case Kind::kUniform:
      return a + (b - a) * u;
    case Kind::kNormal:
      // Box-Muller: exact, from two uniform numbers (no head is ever put before a normal).
      return a + b * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u);
    case Kind::kExponential:
      return -std::log(u) / a;
    case Kind::kGev: {
      double t = -std::log(u);
      return c == 0 ? a - b * std::log(t) : a + b * (std::pow(t, -c) - 1) / c;
    }
    case Kind::kGpareto:
      return c == 0 ? a - b * std::log(u) : a + b * (std::pow(u, -c) - 1) / c;
    case Kind::kTable:
      return TableValue(u1);
  }
  return a;
}

double Distribution::Mean() const {
  double cont = 0;
  switch (kind) {
    case Kind::kFixed: cont = a; break;
    case Kind::kUniform: cont = (a + b) / 2; break;
    case Kind::kNormal: cont = a; break;
    case Kind::kExponential: cont = 1 / a; break;
    case Kind::kGev:
      cont = c >= 1 ? kInf : c == 0 ? a + b * kEulerGamma : a + b * (std::tgamma(1 - c) - 1) / c;
      break;
    case Kind::kGpareto: cont = c >= 1 ? kInf : a + b / (1 - c); break;
    case Kind::kTable: cont = 0; break;
  }
  if (values.empty()) return cont;
  double head = 0, prev = 0;
  for (size_t i = 0; i < values.size(); ++i) head += values[i] * (cumulative[i] - prev), prev = cumulative[i];
  return kind == Kind::kTable ? head : head + (1 - cumulative.back()) * cont;
}

double Distribution::Lowest() const {
  double cont = -kInf;
  switch (kind) {
    case Kind::kFixed: case Kind::kUniform: case Kind::kGpareto: cont = a; break;
    case Kind::kExponential: cont = 0; break;
    case Kind::kGev: cont = c > 0 ? a - b / c : -kInf; break;
    case Kind::kNormal: cont = b == 0 ? a : -kInf; break;
    case Kind::kTable: cont = kInf; break;
  }
  for (double v : values) cont = std::min(cont, v);
  return cont;
}

double Distribution::Cdf(double x) const {
  double cont = 0;
  switch (kind) {
    case Kind::kFixed: cont = x >= a ? 1 : 0; break;
    case Kind::kUniform: cont = b == a ? (x >= a ? 1 : 0) : std::clamp((x - a) / (b - a), 0.0, 1.0); break;
    case Kind::kNormal: cont = b == 0 ? (x >= a ? 1 : 0) : 0.5 * std::erfc(-(x - a) / (b * std::sqrt(2.0))); break;
    case Kind::kExponential: cont = x <= 0 ? 0 : -std::expm1(-a * x); break;
    case Kind::kGev: {
      if (c == 0) {
        cont = std::exp(-std::exp(-(x - a) / b));
      } else {
        double t = 1 + c * (x - a) / b;
        cont = t <= 0 ? (c > 0 ? 0 : 1) : std::exp(-std::pow(t, -1 / c));
      }
      break;
    }
    case Kind::kGpareto: {
      if (x < a) {
        cont = 0;
      } else if (c == 0) {
        cont = -std::expm1(-(x - a) / b);
      } else {
        double t = 1 + c * (x - a) / b;
        cont = t <= 0 ? 1 : 1 - std::pow(t, -1 / c);
      }
      break;
    }
    case Kind::kTable: cont = 0; break;
  }
  if (values.empty()) return cont;
  double head = 0, prev = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] <= x) head += cumulative[i] - prev;
    prev = cumulative[i];
  }
  return kind == Kind::kTable ? head : head + (1 - cumulative.back()) * cont;
}

SizeSampler::SizeSampler(const Distribution& d, uint64_t lowest, uint64_t highest)
    : dist_(d), lowest_(lowest), highest_(highest) {
  fixed_ = d.fixed();
  if (fixed_) {
    // A fixed size outside the bounds is the caller's to refuse; held here, it is not counted.
    value_ = Hold(d.a);
    clamped_ = 0;
  }
}

uint64_t SizeSampler::Of(uint64_t index) {
  if (fixed_) return value_;
  uint64_t h1 = Mix(index), h2 = Mix(h1 ^ 0x5851F42D4C957F2DULL);
  auto unit = [](uint64_t h) { return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53; };
  return Hold(dist_.Quantile(unit(h1), unit(h2)));
}

}  // namespace ream
