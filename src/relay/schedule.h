// When the relay forwards a message: the LogGP rule for one direction of one connection, as a
// pure class over timestamps (no clock, no socket) so it is tested with made-up times.
//   start     = max(read + L, previous start + g, previous departure)
//   departure = start + n·G
// L delays every message by the same amount after the instant it was read; g keeps the starts
// of consecutive messages at least g apart; G makes a message of n bytes occupy the direction
// for n·G after its start (a bandwidth limit at message granularity: every message, the first
// too, pays for its own bytes, so a backlog drains at exactly 1/G). With all three 0 a message
// departs when it was read.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ream::relay {

struct LogGpParams {
  int64_t latency_ns = 0;   // L
  int64_t gap_ns = 0;       // g
  int64_t per_byte_ns = 0;  // G (integral ns per byte)
  bool any() const { return latency_ns > 0 || gap_ns > 0 || per_byte_ns > 0; }
};

class DepartureSchedule {
 public:
  explicit DepartureSchedule(LogGpParams p) : p_(p) {}
  // The departure time of a message of `bytes` bytes whose last byte was read at `read_ns`.
  // Messages must be given in the order they were read; departures never decrease.
  int64_t Depart(int64_t read_ns, size_t bytes) {
    int64_t start = read_ns + p_.latency_ns;
    if (have_previous_) {
      if (previous_start_ + p_.gap_ns > start) start = previous_start_ + p_.gap_ns;
      if (previous_departure_ > start) start = previous_departure_;
    }
    previous_start_ = start;
    previous_departure_ = start + static_cast<int64_t>(bytes) * p_.per_byte_ns;
    have_previous_ = true;
    return previous_departure_;
  }
  const LogGpParams& params() const { return p_; }

 private:
  LogGpParams p_;
  int64_t previous_start_ = 0, previous_departure_ = 0;
  bool have_previous_ = false;
};

}  // namespace ream::relay
