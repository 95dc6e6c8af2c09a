#!/usr/bin/env bash
# Would an io_uring back end make the generator's sends cheaper here? (an io_uring back end is
# worth building only if the figures show it helps.) The generator's late requests on this
# machine are put down to stalls and to slow sends: a write() to a loopback peer whose CPU is
# idle pays that CPU's wake-up. This measures, side by side in one run, what a send costs the
# sending thread with write() and with io_uring (liburing), from CPU 1 to an echo peer on CPU 0:
#   single  one 64-byte request per send, every PERIOD us: write() against one SQE submitted
#           with io_uring_submit() (issued inline by the kernel, as the generator would use it);
#   batch8  eight requests due together on eight connections: eight write()s against one
#           io_uring_submit() of eight SQEs (the batching io_uring offers across connections).
# Each mode alternates with its peer in rounds, so the host's noise falls on both. Reported per
# request: mean, p50, p99 of the time the sending thread spent, and the share over 20 us.
# SQPOLL is not measured: its kernel thread needs a CPU of its own, and on 2 CPUs it would take
# the workload's or the generator's.
# Usage: bench/uring_send.sh [REQUESTS]   (per mode and period; default 20000)
set -euo pipefail
n=${1:-20000}
case $n in '' | *[!0-9]*) echo "uring_send.sh: REQUESTS must be a whole number, got '$n'" >&2; exit 2 ;; esac
[ "$(nproc)" -ge 2 ] || { echo "uring_send.sh: needs 2 CPUs" >&2; exit 2; }
[ -e /usr/include/liburing.h ] || { echo "uring_send.sh: liburing-dev is missing (scripts/install-deps installs it)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/u.c" <<'C'
#include "probe.h"

#include <errno.h>
#include <liburing.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define CONNS 8
static void die(const char* what) { perror(what); exit(1); }
static int cmp(const void* a, const void* b) {
  long long x = *(const long long*)a, y = *(const long long*)b;
  return x < y ? -1 : x > y;
}
// The echo peer: on CPU 0, answers every byte it reads, sleeping in epoll between requests.
static void echo(int listener) {
  pin(0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  char buf[65536];
  for (;;) {
    struct epoll_event evs[16];
    int k = epoll_wait(ep, evs, 16, -1);
    for (int i = 0; i < k; ++i) {
      int fd = evs[i].data.fd;
      if (fd == listener) {
        int c = accept(listener, NULL, NULL);
        int one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct epoll_event e2 = {.events = EPOLLIN, .data.fd = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, c, &e2);
        continue;
      }
      ssize_t r = read(fd, buf, sizeof buf);
      if (r <= 0) { close(fd); continue; }
      if (write(fd, buf, (size_t)r) < 0) { close(fd); }
    }
  }
}
static int fds[CONNS];
static struct io_uring ring;
static char msg[64];
static void drain(void) {
  char buf[65536];
  for (int i = 0; i < CONNS; ++i) while (recv(fds[i], buf, sizeof buf, MSG_DONTWAIT) > 0) {}
}
static void reap(int want) {
  struct io_uring_cqe* cqe;
  for (int i = 0; i < want; ++i) {
    if (io_uring_wait_cqe(&ring, &cqe) != 0) die("io_uring_wait_cqe");
    if (cqe->res != (int)sizeof msg) { fprintf(stderr, "send: %d\n", cqe->res); exit(1); }
    io_uring_cqe_seen(&ring, cqe);
  }
}
// One round: `count` requests, `per` at a time every `period` ns, by write() (uring = 0) or
// io_uring; the time each batch took the sender, per request, into costs[].
static void round_(int uring, int per, long long period, int count, long long* costs) {
  long long due = now() + period;
  for (int done = 0; done < count; done += per) {
    while (now() < due) {}
    long long t0 = now();
    if (!uring) {
      for (int j = 0; j < per; ++j) {
        if (write(fds[(done + j) % CONNS], msg, sizeof msg) != (ssize_t)sizeof msg) die("write");
      }
    } else {
      for (int j = 0; j < per; ++j) {
        struct io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        io_uring_prep_send(sqe, fds[(done + j) % CONNS], msg, sizeof msg, 0);
      }
      if (io_uring_submit(&ring) != per) die("io_uring_submit");
    }
    long long spent = now() - t0;
    for (int j = 0; j < per && done + j < count; ++j) costs[done + j] = spent / per;
    if (uring) reap(per);  // the completions are the sender's bookkeeping, not the send
    drain();
    due += period;
  }
}
static void report(const char* label, long long* c, int n) {
  qsort(c, (size_t)n, sizeof *c, cmp);
  double sum = 0;
  int over = 0;
  for (int i = 0; i < n; ++i) { sum += (double)c[i]; over += c[i] > 20000; }
  printf("   %-22s mean %6.2f us  p50 %6.2f us  p99 %7.2f us  > 20 us: %5.2f %%\n", label, sum / n / 1e3,
         (double)c[n / 2] / 1e3, (double)c[n * 99 / 100] / 1e3, 100.0 * over / n);
}
int main(int argc, char** argv) {
  int n = atoi(argv[1]);
  struct sockaddr_in a;
  int l = listen_loopback(&a, 16);
  pid_t p = fork();
  if (p == 0) echo(l);
  pin(1);
  for (int i = 0; i < CONNS; ++i) {
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fds[i], (struct sockaddr*)&a, sizeof a)) die("connect");
  }
  if (io_uring_queue_init(64, &ring, 0) != 0) die("io_uring_queue_init");
  memset(msg, 'x', sizeof msg);
  long long* cw = malloc(sizeof(long long) * (size_t)n);
  long long* cu = malloc(sizeof(long long) * (size_t)n);
  const long long periods[] = {1000000, 100000};
  for (int pi = 0; pi < 2; ++pi) {
    for (int per = 1; per <= 8; per += 7) {
      long long period = periods[pi] * per;  // the same request rate for both batchings
      const int rounds = 10, chunk = n / rounds;
      for (int r = 0; r < rounds; ++r) {  // alternating, so the host's noise falls on both
        round_(0, per, period, chunk, cw + r * chunk);
        round_(1, per, period, chunk, cu + r * chunk);
      }
      printf("%s, one request every %lld us (%d requests each):\n", per == 1 ? "single" : "batch8",
             periods[pi] / 1000, chunk * rounds);
      report(per == 1 ? "write()" : "8 x write()", cw, chunk * rounds);
      report(per == 1 ? "io_uring, 1 SQE" : "io_uring, 8 SQEs", cu, chunk * rounds);
    }
  }
  kill(p, SIGKILL);
  waitpid(p, NULL, 0);
  return 0;
}
C
cc -O2 -I "$(dirname "$0")" -o "$tmp/u" "$tmp/u.c" -luring
echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs; sender on CPU 1, echo peer on CPU 0"
"$tmp/u" "$n"
