// Service-time distributions of the synthetic server: "const:20us", "exp:100us",
// "lognormal:mean=100us,sigma=1", "bimodal:10us,1ms,p=0.01". Known distributions make the
// synthetic server the calibration workload: measured results can be checked against theory.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "platform/platform.h"  // ParseDurationNs, for its users
#include "platform/status.h"

namespace ream {

class ServiceTime {
 public:
  enum class Kind { kConstant, kExponential, kLognormal, kBimodal };

  // InvalidArgument (listing the accepted forms) when `spec` is not one of the forms above.
  static Result<ServiceTime> Parse(std::string_view spec);

  // One service time in nanoseconds.
  int64_t Sample(std::mt19937_64& rng) const;
  double mean_ns() const;
  double variance_ns2() const;
  const std::string& spec() const { return spec_; }
  Kind kind() const { return kind_; }

 private:
  Kind kind_ = Kind::kConstant;
  std::string spec_;
  double a_ns_ = 0;     // const value, exp mean, lognormal mean, bimodal low value
  double b_ns_ = 0;     // bimodal high value
  double p_ = 0;        // bimodal probability of the high value
  double sigma_ = 0;    // lognormal sigma
  double mu_ = 0;       // lognormal mu = ln(mean) - sigma²/2
};

}  // namespace ream
