// Arrival stamps per TCP segment, taken where a packet capture takes them: an AF_PACKET socket
// that keeps the headers of the segments a server port sends to this host, each with the
// kernel's receive stamp (the one the TCP socket would get, before TCP merges a segment that
// arrives behind one still unread into it and keeps only the later stamp — tcp_try_coalesce).
// The generator uses it for `--response-timing packet`: every answer timed at the arrival of
// the segment that carried its last byte, as tcpdump would time it, whatever the reads did.
#pragma once

#include <cstdint>

#include "platform/net.h"
#include "platform/status.h"

namespace ream::net {

struct SegmentStamp {
  uint16_t local_port = 0;   // this host's end of the connection
  bool syn = false;          // the server's SYN-ACK: `seq` is its initial sequence number
  uint32_t seq = 0;          // the segment's first sequence number
  uint32_t payload = 0;      // bytes of data it carries
  int64_t realtime_ns = 0;   // the kernel's arrival stamp (CLOCK_REALTIME)
};

class SegmentTap {
 public:
  // Segments of TCP (IPv4 or IPv6) from `server_port` arriving on any interface. Needs
  // CAP_NET_RAW; the error says so when refused.
  // Bound to every protocol (ETH_P_ALL), so the kernel also hands it a clone of each packet
  // this host sends, which the filter drops at once. A tap bound to ETH_P_IP sees only
  // incoming packets, but after IP and TCP have handled them: its stamps came 8.5-9.6 us late
  // against tcpdump's (three runs), and 0.05-0.08 % of answers were read before their segment
  // reached it.
  static Result<SegmentTap> Open(int server_port);

  SegmentTap() = default;
  SegmentTap(SegmentTap&& o) noexcept;
  SegmentTap& operator=(SegmentTap&& o) noexcept;
  SegmentTap(const SegmentTap&) = delete;
  SegmentTap& operator=(const SegmentTap&) = delete;
  ~SegmentTap();

  // Takes up to `max` of the segments that arrived into `out`, without a system call: the
  // kernel writes each into a ring of frames shared with this process (PACKET_RX_RING,
  // TPACKET_V2), as libpcap's captures do. Returns how many.
  int Read(SegmentStamp* out, int max);
  // Segments the kernel dropped because the ring was full (PACKET_STATISTICS, cumulative).
  uint64_t Dropped();

 private:
  Fd fd_;
  uint64_t dropped_ = 0;
  unsigned char* ring_ = nullptr;
  size_t ring_bytes_ = 0;
  uint32_t frame_size_ = 0, frames_ = 0, next_ = 0;
};

}  // namespace ream::net
