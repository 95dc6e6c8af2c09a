// libream-overhead.so: the LogGP per-message CPU overhead o, applied inside the workload's own
// process by LD_PRELOAD. It is an OS shim (interposed libc calls), so it depends on no layer of
// ream and is exempt from scripts/check-layers' os rule.
//
// Environment (read once, when the library loads):
//   REAM_NET_OVERHEAD_NS     o in nanoseconds; unset or 0: every hook only forwards the call.
//   REAM_NET_OVERHEAD_STATS  a directory; each process writes <dir>/<pid>.json (below).
//
// Two ways of counting messages:
//   calls   (default) every send/recv/read/write-family call on a SOCKET that moved at least one
//           byte is a message: a read that returns two pipelined requests counts once, a reply
//           written in two calls counts twice. Files, pipes and terminals cost nothing.
//   frames  a program that knows its message boundaries (ream's own servers) calls
//           ream_overhead_take_over() once: the hooks then only forward, and the program calls
//           ream_overhead_charge() once per message received and once per message sent.
// Either way a message costs o of the calling thread's CPU time: the thread spins until
// CLOCK_THREAD_CPUTIME_ID has advanced by o, so the overhead is real CPU on the workload's CPUs,
// charged to its cgroup, and a thread preempted mid-spin still spends the whole o once it runs.
//
// Statistics (the calibration of o): <dir>/<pid>.json, rewritten atomically (write to
// <pid>.tmp, rename) at most every 100 ms while messages flow and at exit:
//   {"pid":P,"mode":"calls","requested_ns":o,"messages":N,"cpu_ns":C,"wall_ns":W}
// cpu_ns is the thread CPU the spins consumed (with their reads of the CPU clock, whose cost is
// measured when the library loads), wall_ns the wall time they took (more than cpu_ns when a
// spinning thread was preempted). A forked child starts its own counts and file.
//
// The hooks allocate nothing and take no lock: the real functions are resolved with
// dlsym(RTLD_NEXT) when the library loads, the per-fd "is a socket" cache is an array of atomics.
// The hooks define read() and friends themselves; fortified inline wrappers would clash.
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>

namespace {

using ReadFn = ssize_t (*)(int, void*, size_t);
using WriteFn = ssize_t (*)(int, const void*, size_t);
using ReadvFn = ssize_t (*)(int, const struct iovec*, int);
using RecvFn = ssize_t (*)(int, void*, size_t, int);
using SendFn = ssize_t (*)(int, const void*, size_t, int);
using RecvfromFn = ssize_t (*)(int, void*, size_t, int, struct sockaddr*, socklen_t*);
using SendtoFn = ssize_t (*)(int, const void*, size_t, int, const struct sockaddr*, socklen_t);
using RecvmsgFn = ssize_t (*)(int, struct msghdr*, int);
using SendmsgFn = ssize_t (*)(int, const struct msghdr*, int);
using RecvmmsgFn = int (*)(int, struct mmsghdr*, unsigned int, int, struct timespec*);
using SendmmsgFn = int (*)(int, struct mmsghdr*, unsigned int, int);
using SendfileFn = ssize_t (*)(int, int, off_t*, size_t);
using ReadChkFn = ssize_t (*)(int, void*, size_t, size_t);
using RecvChkFn = ssize_t (*)(int, void*, size_t, size_t, int);
using RecvfromChkFn = ssize_t (*)(int, void*, size_t, size_t, int, struct sockaddr*, socklen_t*);
using CloseFn = int (*)(int);
using DupFn = int (*)(int);
using Dup2Fn = int (*)(int, int);
using Dup3Fn = int (*)(int, int, int);
using SocketFn = int (*)(int, int, int);
using SocketpairFn = int (*)(int, int, int, int*);
using AcceptFn = int (*)(int, struct sockaddr*, socklen_t*);
using Accept4Fn = int (*)(int, struct sockaddr*, socklen_t*, int);

struct Real {
  ReadFn read;
  WriteFn write;
  ReadvFn readv;
  ReadvFn writev;
  RecvFn recv;
  SendFn send;
  RecvfromFn recvfrom;
  SendtoFn sendto;
  RecvmsgFn recvmsg;
  SendmsgFn sendmsg;
  RecvmmsgFn recvmmsg;
  SendmmsgFn sendmmsg;
  SendfileFn sendfile;
  SendfileFn sendfile64;
  ReadChkFn read_chk;
  RecvChkFn recv_chk;
  RecvfromChkFn recvfrom_chk;
  CloseFn close;
  DupFn dup;
  Dup2Fn dup2;
  Dup3Fn dup3;
  SocketFn socket;
  SocketpairFn socketpair;
  AcceptFn accept;
  Accept4Fn accept4;
};
Real g_real;

template <typename F>
F Resolve(F* slot, const char* name) {
  if (*slot == nullptr) *slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  return *slot;
}
// Each hook resolves its function on first use too: another library's constructor may call it
// before this library's constructor has run.
#define REAL(field, name) Resolve(&g_real.field, name)

void ResolveAll() {
  REAL(read, "read");
  REAL(write, "write");
  REAL(readv, "readv");
  REAL(writev, "writev");
  REAL(recv, "recv");
  REAL(send, "send");
  REAL(recvfrom, "recvfrom");
  REAL(sendto, "sendto");
  REAL(recvmsg, "recvmsg");
  REAL(sendmsg, "sendmsg");
  REAL(recvmmsg, "recvmmsg");
  REAL(sendmmsg, "sendmmsg");
  REAL(sendfile, "sendfile");
  REAL(sendfile64, "sendfile64");
  REAL(read_chk, "__read_chk");
  REAL(recv_chk, "__recv_chk");
  REAL(recvfrom_chk, "__recvfrom_chk");
  REAL(close, "close");
  REAL(dup, "dup");
  REAL(dup2, "dup2");
  REAL(dup3, "dup3");
  REAL(socket, "socket");
  REAL(socketpair, "socketpair");
  REAL(accept, "accept");
  REAL(accept4, "accept4");
}

// o in ns; 0: inactive. Written once by the constructor (or take-over), read by every hook.
std::atomic<int64_t> g_overhead_ns{0};
std::atomic<bool> g_frames_mode{false};

std::atomic<uint64_t> g_messages{0};
std::atomic<int64_t> g_cpu_ns{0};
std::atomic<int64_t> g_wall_ns{0};
std::atomic<int64_t> g_last_write_ns{0};
std::atomic<bool> g_writing{false};
constexpr int64_t kWriteEveryNs = 100'000'000;

// "is a socket" per fd: 0 unknown, 1 socket, 2 something else. Beyond the table: fstat each time.
constexpr int kFdCache = 65536;
std::atomic<uint8_t> g_fd_kind[kFdCache];

char g_stats_dir[512];
char g_stats_path[600];
char g_stats_tmp[600];

int64_t Now(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// What one read of the thread's CPU clock costs here (a system call: 0.3 µs on one VM, 1.3 µs on
// another of the same kind), measured when the library loads. A spin's own reads are part of
// what it spends, so Charge aims its last read to land on o and counts the reads in (below).
std::atomic<int64_t> g_cpu_read_ns{0};
// What the charges so far spent beyond o (negative: short of it), paid back by the next ones.
std::atomic<int64_t> g_debt_ns{0};

int64_t MeasureCpuClockRead() {
  constexpr int kReads = 31;
  int64_t t[kReads];
  for (int i = 0; i < kReads; ++i) {
    int64_t a = Now(CLOCK_MONOTONIC);
    (void)Now(CLOCK_THREAD_CPUTIME_ID);
    t[i] = Now(CLOCK_MONOTONIC) - a;
  }
  // The median: an interrupt during one read does not move it.
  for (int i = 1; i < kReads; ++i) {
    for (int j = i; j > 0 && t[j - 1] > t[j]; --j) {
      int64_t x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  }
  return t[kReads / 2];
}

bool IsSocket(int fd) {
  if (fd < 0) return false;
  if (fd < kFdCache) {
    uint8_t k = g_fd_kind[fd].load(std::memory_order_relaxed);
    if (k != 0) return k == 1;
  }
  struct stat st;
  bool sock = fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
  if (fd < kFdCache) g_fd_kind[fd].store(sock ? 1 : 2, std::memory_order_relaxed);
  return sock;
}

void Forget(int fd) {
  if (fd >= 0 && fd < kFdCache) g_fd_kind[fd].store(0, std::memory_order_relaxed);
}
void MarkSocket(int fd) {
  if (fd >= 0 && fd < kFdCache) g_fd_kind[fd].store(1, std::memory_order_relaxed);
}

// Decimal digits of v into buf (no locale, no allocation); returns the end.
char* PutInt(char* buf, int64_t v) {
  if (v < 0) {
    *buf++ = '-';
    v = -v;
  }
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  while (n > 0) *buf++ = tmp[--n];
  return buf;
}
char* PutStr(char* buf, const char* s) {
  while (*s) *buf++ = *s++;
  return buf;
}

void SetStatsPaths() {
  g_stats_path[0] = g_stats_tmp[0] = '\0';
  if (g_stats_dir[0] == '\0') return;
  char pid[24];
  *PutInt(pid, getpid()) = '\0';
  char* e = PutStr(PutStr(PutStr(g_stats_path, g_stats_dir), "/"), pid);
  PutStr(e, ".json")[0] = '\0';
  e = PutStr(PutStr(PutStr(g_stats_tmp, g_stats_dir), "/"), pid);
  PutStr(e, ".tmp")[0] = '\0';
}

// Writes the statistics file; one writer at a time (a thread that finds another writing skips).
void WriteStats() {
  if (g_stats_path[0] == '\0') return;
  if (g_writing.exchange(true, std::memory_order_acquire)) return;
  int saved_errno = errno;
  char doc[256];
  char* e = PutStr(doc, "{\"pid\":");
  e = PutInt(e, getpid());
  e = PutStr(e, g_frames_mode.load() ? ",\"mode\":\"frames\"" : ",\"mode\":\"calls\"");
  e = PutStr(e, ",\"requested_ns\":");
  e = PutInt(e, g_overhead_ns.load());
  e = PutStr(e, ",\"messages\":");
  e = PutInt(e, static_cast<int64_t>(g_messages.load()));
  e = PutStr(e, ",\"cpu_ns\":");
  e = PutInt(e, g_cpu_ns.load());
  e = PutStr(e, ",\"wall_ns\":");
  e = PutInt(e, g_wall_ns.load());
  e = PutStr(e, "}\n");
  int fd = open(g_stats_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    Forget(fd);
    ssize_t want = e - doc;
    bool ok = REAL(write, "write")(fd, doc, static_cast<size_t>(want)) == want;
    REAL(close, "close")(fd);
    if (ok) rename(g_stats_tmp, g_stats_path);
  }
  errno = saved_errno;
  g_writing.store(false, std::memory_order_release);
}

// Spends o of this thread's CPU time for `messages` messages and counts them.
void Charge(uint64_t messages) {
  int64_t o = g_overhead_ns.load(std::memory_order_relaxed);
  if (o <= 0 || messages == 0) return;
  int saved_errno = errno;
  int64_t wall0 = Now(CLOCK_MONOTONIC);
  // The thread's CPU clock is a system call (r ns a read, measured at load: 0.3 µs on one VM,
  // 1.3 µs on another of the same kind; a spin on it alone would make dozens per message, all
  // kernel entries in the workload's path). So spin on the monotonic clock (vDSO, no system
  // call) for what is left of o — CPU time cannot advance faster than wall time — and only then
  // ask the CPU clock; a thread preempted meanwhile finds less CPU spent and spins again.
  // A read's value is taken inside it: the part of the first read before its value and of the
  // last after it together cost about r, spent but outside the values' difference. So the
  // spend is counted as the difference plus r, and the spin stops at o - r apart, each
  // monotonic stretch aimed so that the next read's value lands a little (kLandNs) past that.
  // Even so a spin on a virtual machine overshoots by a microsecond or so (interrupts, the
  // hypervisor: measured +1.2 µs a message at o = 20 µs), so each charge also pays back what
  // the ones before overspent (g_debt, at most half of o either way): the mean spend is o.
  constexpr int64_t kLandNs = 200;
  const int64_t want = o * static_cast<int64_t>(messages);
  const int64_t r = g_cpu_read_ns.load(std::memory_order_relaxed);
  const int64_t debt = std::clamp<int64_t>(g_debt_ns.load(std::memory_order_relaxed), -want / 2, want / 2);
  int64_t cpu0 = Now(CLOCK_THREAD_CPUTIME_ID);
  int64_t target = cpu0 + want - debt - r;
  int64_t cpu = cpu0;
  while (cpu < target) {
    // The next read's value comes about r after the spin ends.
    if (target - cpu + kLandNs > r) {
      int64_t until = Now(CLOCK_MONOTONIC) + (target - cpu + kLandNs - r);
      while (Now(CLOCK_MONOTONIC) < until) {
      }
    }
    cpu = Now(CLOCK_THREAD_CPUTIME_ID);
  }
  int64_t wall = Now(CLOCK_MONOTONIC);
  const int64_t spent = cpu - cpu0 + r;
  // A debt that cannot be paid (o below one read of the clock) is not carried for ever.
  const int64_t owed = g_debt_ns.fetch_add(spent - want, std::memory_order_relaxed) + spent - want;
  if (owed > 1'000'000 || owed < -1'000'000) g_debt_ns.store(0, std::memory_order_relaxed);
  g_messages.fetch_add(messages, std::memory_order_relaxed);
  g_cpu_ns.fetch_add(spent, std::memory_order_relaxed);
  g_wall_ns.fetch_add(wall - wall0, std::memory_order_relaxed);
  int64_t last = g_last_write_ns.load(std::memory_order_relaxed);
  if (wall - last >= kWriteEveryNs &&
      g_last_write_ns.compare_exchange_strong(last, wall, std::memory_order_relaxed)) {
    WriteStats();
  }
  errno = saved_errno;
}

// After a socket call that returned `n`: one message when it moved a byte (calls mode).
inline void AfterCall(int fd, ssize_t n) {
  if (n <= 0 || g_overhead_ns.load(std::memory_order_relaxed) <= 0 ||
      g_frames_mode.load(std::memory_order_relaxed) || !IsSocket(fd))
    return;
  Charge(1);
}

void AtForkChild() {
  g_debt_ns.store(0);
  g_messages.store(0);
  g_cpu_ns.store(0);
  g_wall_ns.store(0);
  g_last_write_ns.store(0);
  g_writing.store(false);
  SetStatsPaths();
}

__attribute__((constructor)) void Init() {
  ResolveAll();
  const char* o = getenv("REAM_NET_OVERHEAD_NS");
  int64_t ns = 0;
  if (o != nullptr && *o != '\0') {
    char* end = nullptr;
    long long v = strtoll(o, &end, 10);
    if (end == nullptr || *end != '\0' || v < 0) {
      static const char kMsg[] =
          "libream-overhead: REAM_NET_OVERHEAD_NS is not a count of nanoseconds; o not applied\n";
      REAL(write, "write")(2, kMsg, sizeof kMsg - 1);
    } else {
      ns = v;
    }
  }
  const char* dir = getenv("REAM_NET_OVERHEAD_STATS");
  if (dir != nullptr && strlen(dir) < sizeof g_stats_dir) strcpy(g_stats_dir, dir);
  SetStatsPaths();
  pthread_atfork(nullptr, nullptr, AtForkChild);
  if (ns > 0) g_cpu_read_ns.store(MeasureCpuClockRead());
  g_overhead_ns.store(ns);
  if (ns > 0) WriteStats();  // the file exists from the start, with 0 messages
}

__attribute__((destructor)) void Fini() {
  if (g_overhead_ns.load() > 0) WriteStats();
}

}  // namespace

// Everything below is what the library exports (the rest is hidden): the interposed calls and
// the frames-mode entry points.
#pragma GCC visibility push(default)
extern "C" {

// frames mode: the caller counts its own messages through ream_overhead_charge. Returns o in ns
// (0: o is not applied, and the caller need not call ream_overhead_charge).
int64_t ream_overhead_take_over(void) {
  g_frames_mode.store(true);
  int64_t o = g_overhead_ns.load();
  if (o > 0) WriteStats();
  return o;
}
// One message received or sent by the calling thread: spends o of its CPU time.
void ream_overhead_charge(void) { Charge(1); }

ssize_t read(int fd, void* buf, size_t n) {
  ssize_t r = REAL(read, "read")(fd, buf, n);
  AfterCall(fd, r);
  return r;
}
ssize_t __read_chk(int fd, void* buf, size_t n, size_t buflen) {
  ssize_t r = REAL(read_chk, "__read_chk")(fd, buf, n, buflen);
  AfterCall(fd, r);
  return r;
}
ssize_t write(int fd, const void* buf, size_t n) {
  ssize_t r = REAL(write, "write")(fd, buf, n);
  AfterCall(fd, r);
  return r;
}
ssize_t readv(int fd, const struct iovec* iov, int count) {
  ssize_t r = REAL(readv, "readv")(fd, iov, count);
  AfterCall(fd, r);
  return r;
}
ssize_t writev(int fd, const struct iovec* iov, int count) {
  ssize_t r = REAL(writev, "writev")(fd, iov, count);
  AfterCall(fd, r);
  return r;
}
ssize_t recv(int fd, void* buf, size_t n, int flags) {
  ssize_t r = REAL(recv, "recv")(fd, buf, n, flags);
  if (!(flags & MSG_PEEK)) AfterCall(fd, r);
  return r;
}
ssize_t __recv_chk(int fd, void* buf, size_t n, size_t buflen, int flags) {
  ssize_t r = REAL(recv_chk, "__recv_chk")(fd, buf, n, buflen, flags);
  if (!(flags & MSG_PEEK)) AfterCall(fd, r);
  return r;
}
ssize_t send(int fd, const void* buf, size_t n, int flags) {
  ssize_t r = REAL(send, "send")(fd, buf, n, flags);
  AfterCall(fd, r);
  return r;
}
ssize_t recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* addr, socklen_t* len) {
  ssize_t r = REAL(recvfrom, "recvfrom")(fd, buf, n, flags, addr, len);
  if (!(flags & MSG_PEEK)) AfterCall(fd, r);
  return r;
}
ssize_t __recvfrom_chk(int fd, void* buf, size_t n, size_t buflen, int flags,
                       struct sockaddr* addr, socklen_t* len) {
  ssize_t r = REAL(recvfrom_chk, "__recvfrom_chk")(fd, buf, n, buflen, flags, addr, len);
  if (!(flags & MSG_PEEK)) AfterCall(fd, r);
  return r;
}
ssize_t sendto(int fd, const void* buf, size_t n, int flags, const struct sockaddr* addr,
               socklen_t len) {
  ssize_t r = REAL(sendto, "sendto")(fd, buf, n, flags, addr, len);
  AfterCall(fd, r);
  return r;
}
ssize_t recvmsg(int fd, struct msghdr* msg, int flags) {
  ssize_t r = REAL(recvmsg, "recvmsg")(fd, msg, flags);
  if (!(flags & MSG_PEEK)) AfterCall(fd, r);
  return r;
}
ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  ssize_t r = REAL(sendmsg, "sendmsg")(fd, msg, flags);
  AfterCall(fd, r);
  return r;
}
// One message per datagram moved (each mmsghdr is a message of its own).
int recvmmsg(int fd, struct mmsghdr* v, unsigned int n, int flags, struct timespec* timeout) {
  int r = REAL(recvmmsg, "recvmmsg")(fd, v, n, flags, timeout);
  if (r > 0 && !(flags & MSG_PEEK) && g_overhead_ns.load(std::memory_order_relaxed) > 0 &&
      !g_frames_mode.load(std::memory_order_relaxed) && IsSocket(fd))
    Charge(static_cast<uint64_t>(r));
  return r;
}
int sendmmsg(int fd, struct mmsghdr* v, unsigned int n, int flags) {
  int r = REAL(sendmmsg, "sendmmsg")(fd, v, n, flags);
  if (r > 0 && g_overhead_ns.load(std::memory_order_relaxed) > 0 &&
      !g_frames_mode.load(std::memory_order_relaxed) && IsSocket(fd))
    Charge(static_cast<uint64_t>(r));
  return r;
}
ssize_t sendfile(int out, int in, off_t* offset, size_t n) {
  ssize_t r = REAL(sendfile, "sendfile")(out, in, offset, n);
  AfterCall(out, r);
  return r;
}
ssize_t sendfile64(int out, int in, off_t* offset, size_t n) {
  ssize_t r = REAL(sendfile64, "sendfile64")(out, in, offset, n);
  AfterCall(out, r);
  return r;
}

// The fd cache follows the calls that end or reuse a descriptor.
int close(int fd) {
  Forget(fd);
  return REAL(close, "close")(fd);
}
int dup(int fd) {
  int r = REAL(dup, "dup")(fd);
  Forget(r);
  return r;
}
int dup2(int from, int to) {
  int r = REAL(dup2, "dup2")(from, to);
  Forget(to);
  return r;
}
int dup3(int from, int to, int flags) {
  int r = REAL(dup3, "dup3")(from, to, flags);
  Forget(to);
  return r;
}
int socket(int domain, int type, int protocol) {
  int r = REAL(socket, "socket")(domain, type, protocol);
  MarkSocket(r);
  return r;
}
int socketpair(int domain, int type, int protocol, int sv[2]) {
  int r = REAL(socketpair, "socketpair")(domain, type, protocol, sv);
  if (r == 0) {
    MarkSocket(sv[0]);
    MarkSocket(sv[1]);
  }
  return r;
}
int accept(int fd, struct sockaddr* addr, socklen_t* len) {
  int r = REAL(accept, "accept")(fd, addr, len);
  MarkSocket(r);
  return r;
}
int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  int r = REAL(accept4, "accept4")(fd, addr, len, flags);
  MarkSocket(r);
  return r;
}

}  // extern "C"
#pragma GCC visibility pop
