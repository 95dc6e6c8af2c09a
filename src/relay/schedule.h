// When the relay forwards a message: the LogGP rule for one direction of one connection, as a
// pure class over timestamps (no clock, no socket) so it is tested with made-up times.
//   departure = max(read + L, previous departure on the connection + g, link free)
//   link free = departure + bytes · G
// L delays every message by the same amount after the instant it was read; g keeps consecutive
// departures of a connection at least g apart; G makes a message of n bytes occupy the
// direction of the link — shared by every connection of the relay, as a NIC's bandwidth is —
// for n·G after it departs (a bandwidth limit at message granularity: a backlog drains at 1/G,
// while a message finding the link idle departs at once, so G adds nothing until the offered
// bytes per second approach 1/G). With all three 0 a message departs when it was read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace ream::relay {

struct LogGpParams {
  int64_t latency_ns = 0;   // L
  int64_t gap_ns = 0;       // g
  int64_t per_byte_ns = 0;  // G (integral ns per byte)
  bool any() const { return latency_ns > 0 || gap_ns > 0 || per_byte_ns > 0; }
};

// One direction of the relay's link: when its per-byte time G lets the next message go.
struct LinkState {
  int64_t free_at_ns = std::numeric_limits<int64_t>::min();
};

// One direction of one connection.
class DepartureSchedule {
 public:
  // `link` (shared by the connections of one direction) outlives the schedule; null: a link of
  // this connection's own.
  explicit DepartureSchedule(LogGpParams p, LinkState* link = nullptr) : p_(p), link_(link ? link : &own_) {}
  DepartureSchedule(const DepartureSchedule&) = delete;
  DepartureSchedule& operator=(const DepartureSchedule&) = delete;
  // The departure time of a message of `bytes` bytes whose last byte was read at `read_ns`.
  // Messages must be given in the order they were read (across the connections sharing the
  // link, too); a connection's departures never decrease.
  int64_t Depart(int64_t read_ns, size_t bytes) {
    int64_t t = read_ns + p_.latency_ns;
    if (have_previous_ && previous_ + p_.gap_ns > t) t = previous_ + p_.gap_ns;
    if (link_->free_at_ns > t) t = link_->free_at_ns;
    previous_ = t;
    have_previous_ = true;
    link_->free_at_ns = t + static_cast<int64_t>(bytes) * p_.per_byte_ns;
    return t;
  }
  const LogGpParams& params() const { return p_; }

 private:
  LogGpParams p_;
  LinkState own_;
  LinkState* link_;
  int64_t previous_ = 0;
  bool have_previous_ = false;
};

}  // namespace ream::relay
