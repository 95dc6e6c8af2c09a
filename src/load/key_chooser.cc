// The YCSB Zipfian constants.
#include "load/key_chooser.h"

#include <charconv>
#include <cmath>

namespace ream {

Result<KeyDistSpec> ParseKeyDist(std::string_view spec) {
  KeyDistSpec k;
  if (spec == "uniform") {
    k.zipf = false;
    k.name = "uniform";
    return k;
  }
  if (spec == "zipf") return k;
  if (spec.rfind("zipf:", 0) == 0) {
    std::string_view t = spec.substr(5);
    double theta = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), theta);
    if (ec != std::errc() || p != t.data() + t.size() || !(theta > 0 && theta < 1)) {
      return InvalidArgument("--key-dist '" + std::string(spec) +
                             "': the Zipf parameter must be a number in (0, 1), e.g. zipf:0.99");
    }
    k.theta = theta;
    k.name = std::string(spec);
    return k;
  }
  return InvalidArgument("--key-dist '" + std::string(spec) + "': expected uniform or zipf:THETA");
}

double KeyChooser::Zeta(uint64_t n, double theta) {
  double sum = 0;
  for (uint64_t i = 1; i <= n; ++i) sum += 1.0 / std::pow(static_cast<double>(i), theta);
  return sum;
}

KeyChooser::KeyChooser(const KeyDistSpec& spec, uint64_t keys)
    : zipf_(spec.zipf), n_(keys == 0 ? 1 : keys) {
  if (!zipf_) return;
  theta_ = spec.theta;
  zetan_ = Zeta(n_, theta_);
  double zeta2 = Zeta(2, theta_);
  alpha_ = 1.0 / (1.0 - theta_);
  eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n_), 1.0 - theta_)) / (1.0 - zeta2 / zetan_);
  half_pow_theta_ = std::pow(0.5, theta_);
}

}  // namespace ream
