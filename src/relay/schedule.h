// When the relay forwards a message: the LogGP rule for one direction of one connection, as a
// pure class over timestamps (no clock, no socket) so it is tested with made-up times.
//   departure = max(read + L, previous departure + max(g, previous bytes · G))
// L delays every message by the same amount after the instant it was read; g keeps consecutive
// departures at least g apart; G makes a message of n bytes occupy the direction for n·G after
// it departs (a bandwidth limit at message granularity: a backlog drains at 1/G, while a
// message finding the direction idle departs at once, so G adds nothing until the offered
// bytes per second approach 1/G). With all three 0 a message departs when it was read.
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
    int64_t t = read_ns + p_.latency_ns;
    if (have_previous_ && free_at_ > t) t = free_at_;
    int64_t occupy = static_cast<int64_t>(bytes) * p_.per_byte_ns;
    free_at_ = t + (p_.gap_ns > occupy ? p_.gap_ns : occupy);
    have_previous_ = true;
    return t;
  }
  const LogGpParams& params() const { return p_; }

 private:
  LogGpParams p_;
  int64_t free_at_ = 0;  // the previous departure + max(g, its bytes · G)
  bool have_previous_ = false;
};

}  // namespace ream::relay
