#!/usr/bin/env bash
# The machine's floor for *sending* at a rate: how timely the simplest possible open-loop sender
# is against a real server on this host. bench/stalls.sh measures the floor of a thread that only
# reads the clock; a generator must also write each request, and on a virtual machine a
# loopback write() costs tens of microseconds (the peer's TCP receive and its wake-up run inside
# it), which delays the sends due behind it. This sender does nothing but that: C, no
# allocation, no parsing, no bookkeeping beyond one counter per request. It spins (never
# sleeps), keeps the given number of connections, sends request i on connection i mod K at the
# scheduled instant (exponential or constant gaps at QPS), drains whatever answers are ready
# (epoll with a zero timeout) while it waits, and counts a request late when it was written more
# than TOL us after its instant, as ream does. Whatever it loses is the host's send path; what
# ream loses beyond it at the same rate, connections and server is ream's own.
# Prints one line: "bare sender: QPS q, K connections, S s: timely T %, send() mean M us, > TOL us
# in W % of sends, R requests a send, achieved A QPS".
# Usage: bench/bare_sender.sh PORT memcached|http QPS CONNECTIONS SECONDS [CPU] [TOL_US] [exponential|constant]
#   (127.0.0.1:PORT; memcached: "get" of key "k0", which the script sets first with a 64-byte value;
#    http: "GET / HTTP/1.1" keep-alive. CPU to pin to: default 0; TOL_US default 20)
set -euo pipefail
die() { echo "bare_sender.sh: $*" >&2; exit 2; }
[ $# -ge 5 ] || die "usage: bench/bare_sender.sh PORT memcached|http QPS CONNECTIONS SECONDS [CPU] [TOL_US] [exponential|constant]"
port=$1 proto=$2 qps=$3 conns=$4 secs=$5 cpu=${6:-0} tol=${7:-20} arrival=${8:-exponential}
for v in "$port" "$qps" "$conns" "$secs" "$cpu" "$tol"; do
  case $v in '' | *[!0-9]*) die "'$v' must be a whole number" ;; esac
done
case $proto in memcached | http) ;; *) die "protocol must be memcached or http, got '$proto'" ;; esac
case $arrival in exponential | constant) ;; *) die "arrival must be exponential or constant, got '$arrival'" ;; esac
[ "$conns" -ge 1 ] && [ "$conns" -le 1024 ] || die "CONNECTIONS must be 1..1024"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/bare.c" <<'C'
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

static void die(const char* what) { perror(what); exit(1); }

static int dial(int port) {
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int f = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  if (f < 0 || connect(f, (struct sockaddr*)&a, sizeof a)) die("bare sender: connect");
  setsockopt(f, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return f;
}

/* xorshift64*: the gaps' uniform variates (no libc state, no locks). */
static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double uniform01(void) {
  rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
  return ((rng * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

int main(int argc, char** argv) {
  if (argc != 9) return 2;
  int port = atoi(argv[1]), http = strcmp(argv[2], "http") == 0, k = atoi(argv[4]), cpu = atoi(argv[6]);
  double qps = atof(argv[3]), secs = atof(argv[5]), tol_ns = atof(argv[7]) * 1000;
  int expo = strcmp(argv[8], "exponential") == 0;
  pin(cpu);
  const char* req = http ? "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" : "get k0\r\n";
  size_t len = strlen(req);
  int* fd = malloc(sizeof(int) * (size_t)k);
  int ep = epoll_create1(0);
  for (int i = 0; i < k; i++) {
    fd[i] = dial(port);
    struct epoll_event e = {.events = EPOLLIN, .data.fd = fd[i]};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd[i], &e);
  }
  if (!http) { /* the key the gets read, 64 bytes */
    const char* set = "set k0 0 0 64\r\n0123456789012345678901234567890123456789012345678901234567890123\r\n";
    char b[64];
    if (write(fd[0], set, strlen(set)) < 0 || read(fd[0], b, sizeof b) <= 0) die("bare sender: set");
  }
  struct epoll_event ev[64];
  static char buf[1 << 16];
  double mean_gap = 1e9 / qps;
  long long start = now() + 1000000000LL, end = start + (long long)(secs * 1e9);
  long long due = now(), sent = 0, late = 0, writes = 0, wsum = 0, wslow = 0, first = 0, last = 0;
  int next = 0;
  /* One batch: the requests due at once, each with its instant and connection. A connection's
   * due requests go out in one write() (as ream sends them), written in the order the
   * connections first appear; each request's lateness is taken when its write starts. */
  enum { MAXB = 256 };
  static char rep[MAXB * 64];
  for (int i = 0; i < MAXB; i++) memcpy(rep + i * len, req, len);
  long long bdue[MAXB];
  int bconn[MAXB], cnt[1024] = {0}, order[MAXB];
  for (;;) {
    long long t = now();
    if (t >= due) {
      if (due >= end) break;
      int nb = 0, no = 0;
      while (due <= t && nb < MAXB && due < end) {
        bdue[nb] = due;
        bconn[nb] = next;
        if (cnt[next]++ == 0) order[no++] = next;
        nb++;
        next = (next + 1) % k;
        due += (long long)(expo ? -log(1.0 - uniform01()) * mean_gap : mean_gap);
      }
      for (int o = 0; o < no; o++) {
        int c = order[o];
        long long ts = now();
        for (int i = 0; i < nb; i++) {
          if (bconn[i] != c || bdue[i] < start) continue;
          if (!sent) first = ts;
          last = ts;
          sent++;
          late += (ts - bdue[i]) > tol_ns;
        }
        ssize_t want = (ssize_t)(cnt[c] * len);
        ssize_t got = send(fd[c], rep, (size_t)want, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (got < 0) die("bare sender: send");
        if (got != want) {
          fprintf(stderr, "bare sender: the server stopped reading (connection %d's send buffer is full)\n", c);
          return 1;
        }
        long long w = now() - ts;
        if (ts >= start) { writes++; wsum += w; wslow += w > tol_ns; }
        cnt[c] = 0;
      }
      continue;
    }
    int n = epoll_wait(ep, ev, 64, 0);
    for (int i = 0; i < n; i++)
      while (recv(ev[i].data.fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {}
  }
  double span = (last - first) / 1e9;
  printf("bare sender: QPS %.0f, %d connections, %.0f s: timely %.2f %%, send() mean %.1f us, "
         "> %.0f us in %.1f %% of sends, %.2f requests a send, achieved %.0f QPS\n",
         qps, k, secs, 100.0 * (sent - late) / (sent ? sent : 1), wsum / 1e3 / (writes ? writes : 1),
         tol_ns / 1e3, 100.0 * wslow / (writes ? writes : 1), (double)sent / (writes ? writes : 1),
         span > 0 ? (sent - 1) / span : 0);
  return 0;
}
C
cc -O2 -I "$here" -o "$tmp/bare" "$tmp/bare.c" -lm
"$tmp/bare" "$port" "$proto" "$qps" "$conns" "$secs" "$cpu" "$tol" "$arrival"
