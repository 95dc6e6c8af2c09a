// Key popularity: uniform, or Zipfian by the standard YCSB generator (Gray et al., "Quickly
// generating billion-record synthetic databases", SIGMOD 1994), where index 0 is the most
// popular key.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "platform/status.h"

namespace ream {

struct KeyDistSpec {
  bool zipf = true;
  double theta = 0.99;
  std::string name = "zipf:0.99";
};
// "uniform" or "zipf:THETA" with 0 < THETA < 1 ("zipf" alone: 0.99). InvalidArgument otherwise.
Result<KeyDistSpec> ParseKeyDist(std::string_view spec);

class KeyChooser {
 public:
  // Precomputes zeta(n, theta) (O(n) once); copies share nothing mutable.
  KeyChooser(const KeyDistSpec& spec, uint64_t keys);
  uint64_t Next(std::mt19937_64& rng) {
    double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    if (!zipf_) return std::min<uint64_t>(static_cast<uint64_t>(u * n_), n_ - 1);
    double uz = u * zetan_;
    if (uz < 1.0) return 0;
    if (uz < 1.0 + half_pow_theta_) return std::min<uint64_t>(1, n_ - 1);
    auto k = static_cast<uint64_t>(n_ * std::pow(eta_ * u - eta_ + 1.0, alpha_));
    return std::min(k, n_ - 1);
  }
  uint64_t keys() const { return n_; }
  // zeta(n, theta) = sum_{i=1..n} 1 / i^theta, exposed for tests.
  static double Zeta(uint64_t n, double theta);

 private:
  bool zipf_;
  uint64_t n_;
  double theta_ = 0, zetan_ = 0, alpha_ = 0, eta_ = 0, half_pow_theta_ = 0;
};

}  // namespace ream
