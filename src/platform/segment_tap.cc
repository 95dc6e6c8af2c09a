// The segment tap: a SOCK_DGRAM packet socket (data from the network header) with a classic
// BPF filter that keeps incoming TCP from one source port, truncated to its headers.
#include "platform/segment_tap.h"

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

namespace ream::net {
namespace {

// Enough for the largest IPv4 (60) plus TCP (60) headers.
constexpr uint32_t kSnap = 128;

std::vector<sock_filter> Filter(uint16_t port) {
  // Offsets are from the network header (SOCK_DGRAM). Jumps count instructions skipped.
  return {
      /* 0 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, static_cast<uint32_t>(SKF_AD_OFF + SKF_AD_PKTTYPE)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 15, 0),  // -> drop
      /* 2 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, static_cast<uint32_t>(SKF_AD_OFF + SKF_AD_PROTOCOL)),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 7),          // -> 11 (IPv6?)
      // IPv4: TCP, not a later fragment, source port at the IP header's length.
      /* 4 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
      /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 11),      // -> drop
      /* 6 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),
      /* 7 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 9, 0),           // -> drop
      /* 8 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
      /* 9 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 0),
      /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 5, 6),             // -> keep / drop
      // IPv6 without extension headers: next header TCP, source port at 40.
      /* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 5),       // -> drop
      /* 12 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
      /* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 3),      // -> drop
      /* 14 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 40),
      /* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 1),             // -> keep / drop
      /* 16 keep */ BPF_STMT(BPF_RET | BPF_K, kSnap),
      /* 17 drop */ BPF_STMT(BPF_RET | BPF_K, 0),
  };
}

uint16_t Be16(const unsigned char* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t Be32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 | static_cast<uint32_t>(p[2]) << 8 | p[3];
}

// Parses the headers of one kept packet; false for one that is not a whole TCP header.
bool Parse(const unsigned char* p, size_t n, SegmentStamp* s) {
  if (n < 1) return false;
  size_t ip_len = 0, total = 0;
  if ((p[0] >> 4) == 4) {
    if (n < 20) return false;
    ip_len = static_cast<size_t>(p[0] & 0xf) * 4;
    total = Be16(p + 2);
  } else if ((p[0] >> 4) == 6) {
    if (n < 40) return false;
    ip_len = 40;
    total = 40 + static_cast<size_t>(Be16(p + 4));
  } else {
    return false;
  }
  if (n < ip_len + 20) return false;
  const unsigned char* t = p + ip_len;
  size_t tcp_len = static_cast<size_t>(t[12] >> 4) * 4;
  if (tcp_len < 20 || total < ip_len + tcp_len) return false;
  s->local_port = Be16(t + 2);
  s->seq = Be32(t + 4);
  s->syn = (t[13] & 0x02) != 0;
  s->payload = static_cast<uint32_t>(total - ip_len - tcp_len);
  return true;
}

}  // namespace

SegmentTap::SegmentTap(SegmentTap&& o) noexcept { *this = std::move(o); }

SegmentTap& SegmentTap::operator=(SegmentTap&& o) noexcept {
  if (this == &o) return *this;
  if (ring_ != nullptr) ::munmap(ring_, ring_bytes_);
  fd_ = std::move(o.fd_);
  dropped_ = o.dropped_;
  ring_ = o.ring_;
  ring_bytes_ = o.ring_bytes_;
  frame_size_ = o.frame_size_;
  frames_ = o.frames_;
  next_ = o.next_;
  o.ring_ = nullptr;
  o.ring_bytes_ = 0;
  return *this;
}

SegmentTap::~SegmentTap() {
  if (ring_ != nullptr) ::munmap(ring_, ring_bytes_);
}

Result<SegmentTap> SegmentTap::Open(int server_port) {
  if (server_port <= 0 || server_port > 65535) return InvalidArgument("segment tap: no port " + std::to_string(server_port));
  SegmentTap tap;
  tap.fd_ = Fd(::socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ALL)));
  if (!tap.fd_.valid()) {
    int err = errno;
    return ErrnoStatus(err, err == EPERM ? "a packet socket for per-segment stamps (needs CAP_NET_RAW: run as root)"
                                         : "a packet socket for per-segment stamps");
  }
  std::vector<sock_filter> code = Filter(static_cast<uint16_t>(server_port));
  sock_fprog prog{static_cast<unsigned short>(code.size()), code.data()};
  if (::setsockopt(tap.fd_.get(), SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) != 0) {
    return ErrnoStatus(errno, "attaching the segment tap's filter");
  }
  // Turns the kernel's receive stamps on for the whole stack (the frames carry skb's stamp).
  int on = 1;
  if (::setsockopt(tap.fd_.get(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) {
    return ErrnoStatus(errno, "asking for the segment tap's stamps (SO_TIMESTAMPNS)");
  }
  int version = TPACKET_V2;
  if (::setsockopt(tap.fd_.get(), SOL_PACKET, PACKET_VERSION, &version, sizeof version) != 0) {
    return ErrnoStatus(errno, "the segment tap's ring (TPACKET_V2)");
  }
  // 65 536 frames of 256 bytes (a header, the link address and 128 bytes of packet): tens of
  // thousands of segments between two reads, 16 MiB.
  tpacket_req req{};
  req.tp_frame_size = 256;
  req.tp_block_size = 1 << 16;
  req.tp_block_nr = 256;
  req.tp_frame_nr = req.tp_block_size / req.tp_frame_size * req.tp_block_nr;
  if (::setsockopt(tap.fd_.get(), SOL_PACKET, PACKET_RX_RING, &req, sizeof req) != 0) {
    return ErrnoStatus(errno, "the segment tap's ring (PACKET_RX_RING)");
  }
  tap.ring_bytes_ = static_cast<size_t>(req.tp_block_size) * req.tp_block_nr;
  void* ring = ::mmap(nullptr, tap.ring_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, tap.fd_.get(), 0);
  if (ring == MAP_FAILED) return ErrnoStatus(errno, "mapping the segment tap's ring");
  tap.ring_ = static_cast<unsigned char*>(ring);
  tap.frame_size_ = req.tp_frame_size;
  tap.frames_ = req.tp_frame_nr;
  // What passed before the filter was attached is not ours: drop it.
  SegmentStamp scratch[64];
  while (tap.Read(scratch, 64) == 64) {
  }
  (void)tap.Dropped();
  tap.dropped_ = 0;
  return tap;
}

int SegmentTap::Read(SegmentStamp* out, int max) {
  int n = 0;
  while (n < max) {
    auto* h = reinterpret_cast<tpacket2_hdr*>(ring_ + static_cast<size_t>(next_) * frame_size_);
    uint32_t status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
    if ((status & TP_STATUS_USER) == 0) break;
    SegmentStamp s;
    const unsigned char* data = reinterpret_cast<const unsigned char*>(h) + h->tp_net;
    if (h->tp_net + h->tp_snaplen <= frame_size_ && Parse(data, h->tp_snaplen, &s)) {
      s.realtime_ns = static_cast<int64_t>(h->tp_sec) * 1'000'000'000 + h->tp_nsec;
      out[n++] = s;
    }
    __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    next_ = next_ + 1 == frames_ ? 0 : next_ + 1;
  }
  return n;
}

uint64_t SegmentTap::Dropped() {
  tpacket_stats st{};
  socklen_t len = sizeof st;
  // Reading the statistics resets them: keep the sum.
  if (::getsockopt(fd_.get(), SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) dropped_ += st.tp_drops;
  return dropped_;
}

}  // namespace ream::net
