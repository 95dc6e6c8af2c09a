// Parsing and sampling of service-time distributions.
#include "workloads/service_time.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "platform/platform.h"

namespace ream {
namespace {

constexpr const char* kForms =
    "const:20us, exp:100us, lognormal:mean=100us,sigma=1 or bimodal:10us,1ms,p=0.01";

}  // namespace

Result<ServiceTime> ServiceTime::Parse(std::string_view spec) {
  ServiceTime s;
  s.spec_ = std::string(spec);
  size_t colon = spec.find(':');
  auto bad = [&](const std::string& why) {
    return InvalidArgument("--service '" + std::string(spec) + "': " + why + " (forms: " + kForms + ")");
  };
  if (colon == std::string_view::npos) return bad("missing ':'");
  std::string_view kind = spec.substr(0, colon);
  std::string_view args = spec.substr(colon + 1);
  if (kind == "const" || kind == "exp") {
    auto v = ParseDurationNs(args, "--service");
    if (!v.ok()) return bad(v.status().message());
    s.kind_ = kind == "const" ? Kind::kConstant : Kind::kExponential;
    s.a_ns_ = static_cast<double>(*v);
    if (s.kind_ == Kind::kExponential && s.a_ns_ <= 0) return bad("the mean must be > 0");
    return s;
  }
  std::vector<std::string> parts = Split(args, ',');
  if (kind == "lognormal") {
    bool have_mean = false, have_sigma = false;
    for (const auto& part : parts) {
      size_t eq = part.find('=');
      if (eq == std::string::npos) return bad("expected mean=...,sigma=...");
      std::string k = Trim(part.substr(0, eq)), v = part.substr(eq + 1);
      if (k == "mean") {
        auto d = ParseDurationNs(v, "--service mean");
        if (!d.ok()) return bad(d.status().message());
        s.a_ns_ = static_cast<double>(*d);
        have_mean = true;
      } else if (k == "sigma") {
        if (!ParseFiniteDouble(v, &s.sigma_) || s.sigma_ < 0) return bad("sigma must be a number >= 0");
        have_sigma = true;
      } else {
        return bad("unknown parameter '" + k + "'");
      }
    }
    if (!have_mean || !have_sigma) return bad("lognormal needs mean= and sigma=");
    if (s.a_ns_ <= 0) return bad("the mean must be > 0");
    s.kind_ = Kind::kLognormal;
    s.mu_ = std::log(s.a_ns_) - s.sigma_ * s.sigma_ / 2;
    return s;
  }
  if (kind == "bimodal") {
    if (parts.size() != 3) return bad("bimodal needs LOW,HIGH,p=P");
    auto lo = ParseDurationNs(parts[0], "--service");
    auto hi = ParseDurationNs(parts[1], "--service");
    if (!lo.ok()) return bad(lo.status().message());
    if (!hi.ok()) return bad(hi.status().message());
    std::string p = Trim(parts[2]);
    if (p.rfind("p=", 0) != 0 || !ParseFiniteDouble(p.substr(2), &s.p_) || s.p_ < 0 || s.p_ > 1) {
      return bad("the third part must be p=P with P in [0, 1]");
    }
    s.kind_ = Kind::kBimodal;
    s.a_ns_ = static_cast<double>(*lo);
    s.b_ns_ = static_cast<double>(*hi);
    return s;
  }
  return bad("unknown distribution '" + std::string(kind) + "'");
}

int64_t ServiceTime::Sample(std::mt19937_64& rng) const {
  switch (kind_) {
    case Kind::kConstant:
      return static_cast<int64_t>(a_ns_);
    case Kind::kExponential:
      return static_cast<int64_t>(std::exponential_distribution<double>(1.0 / a_ns_)(rng));
    case Kind::kLognormal:
      return static_cast<int64_t>(std::lognormal_distribution<double>(mu_, sigma_)(rng));
    case Kind::kBimodal:
      return static_cast<int64_t>(std::bernoulli_distribution(p_)(rng) ? b_ns_ : a_ns_);
  }
  return 0;
}

double ServiceTime::mean_ns() const {
  if (kind_ == Kind::kBimodal) return (1 - p_) * a_ns_ + p_ * b_ns_;
  return a_ns_;
}

double ServiceTime::variance_ns2() const {
  switch (kind_) {
    case Kind::kConstant:
      return 0;
    case Kind::kExponential:
      return a_ns_ * a_ns_;
    case Kind::kLognormal:
      return (std::exp(sigma_ * sigma_) - 1) * a_ns_ * a_ns_;
    case Kind::kBimodal: {
      double m = mean_ns();
      return (1 - p_) * a_ns_ * a_ns_ + p_ * b_ns_ * b_ns_ - m * m;
    }
  }
  return 0;
}

}  // namespace ream
