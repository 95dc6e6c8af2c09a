/* What the C probes embedded in bench/stalls.sh and bench/uring_send.sh share: the monotonic
 * clock in ns, pinning the calling thread to one CPU, and a loopback TCP listener on a free
 * port. Each script compiles its probe with -I bench. */
#ifndef REAM_BENCH_PROBE_H
#define REAM_BENCH_PROBE_H
#define _GNU_SOURCE
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static long long now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  if (sched_setaffinity(0, sizeof s, &s) != 0) {
    perror("sched_setaffinity");
    exit(1);
  }
}

/* A listening socket on 127.0.0.1 at a port the kernel picks; *a is its address. */
static int listen_loopback(struct sockaddr_in* a, int backlog) {
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  socklen_t al = sizeof *a;
  memset(a, 0, sizeof *a);
  a->sin_family = AF_INET;
  a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(ls, (struct sockaddr*)a, sizeof *a) || listen(ls, backlog) || getsockname(ls, (struct sockaddr*)a, &al)) {
    perror("listen on loopback");
    exit(1);
  }
  return ls;
}
#endif
