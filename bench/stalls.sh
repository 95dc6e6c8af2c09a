#!/usr/bin/env bash
# The machine's own timing noise, which bounds how timely any open-loop generator can be here.
# Three probes, each pinned:
#   1. an otherwise idle spin loop per CPU: gaps between two clock reads longer than 20 us
#      (hypervisor exits, interrupts), and the share of random instants that fall late by more
#      than 20 / 50 / 100 us into such a gap -- the best timely ratio a perfect spinning
#      generator could reach at that tolerance;
#   2. the same after a sleep: sleep 800 us, then spin 250 us (what a generator does between
#      sparse sends), on CPU 1;
#   3. the cost of one write() of a request to a loopback TCP peer pinned to CPU 0 that answers
#      it (an echo server), from CPU 1, every 1 ms and every 100 us: writing to a peer whose CPU
#      is idle wakes that CPU, and on a virtual machine the wake-up (an IPI) can be slow. The
#      time spent in write() delays the next send.
#   4. probe 3 again with CPU 0 polling in idle (the kernel's way of `--keep-awake`).
#   5. probe 1 on every CPU at once: no CPU of the machine ever idles, as with `--keep-awake` or a
#      spinning generator beside a busy workload on a 2-CPU VM. A hypervisor that finds no halted
#      vCPU to run its own work in preempts one, for milliseconds (the "> 1 ms" figure).
# Usage: bench/stalls.sh [SECONDS]   (per spin probe; default 2)
set -euo pipefail
secs=${1:-2}
case $secs in '' | *[!0-9]*) echo "stalls.sh: SECONDS must be a whole number, got '$secs'" >&2; exit 2 ;; esac
[ "$(nproc)" -ge 2 ] || { echo "stalls.sh: needs 2 CPUs" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/stalls.c" <<'C'
#include "probe.h"

#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

// Continuous spin for `secs` seconds.
static void spin(long long secs) {
  long long dur = secs * 1000000000LL, s = now(), p = s, n20 = 0, n100 = 0, n1ms = 0, tot = 0, mx = 0;
  double e20 = 0, e50 = 0, e100 = 0;
  for (;;) {
    long long t = now(), d = t - p;
    if (d > 20000) { n20++; tot += d; e20 += d - 20000; }
    if (d > 50000) e50 += d - 50000;
    if (d > 100000) { n100++; e100 += d - 100000; }
    if (d > 1000000) n1ms++;
    if (d > mx) mx = d;
    p = t;
    if (t - s > dur) break;
  }
  double T = p - s, secs_d = T / 1e9;
  printf("stalls > 20 us: %.0f/s, > 100 us: %.0f/s, > 1 ms: %lld in %.0f s, time lost: %.2f %%, longest: %lld us; "
         "instants late by > 20 / 50 / 100 us: %.2f / %.2f / %.3f %%\n",
         n20 / secs_d, n100 / secs_d, n1ms, secs_d, 100.0 * tot / T, mx / 1000, 100 * e20 / T, 100 * e50 / T,
         100 * e100 / T);
}

// Sleep `sleep_us`, spin `spin_us`, `n` times: stalls inside the spins.
static void sleep_then_spin(long sleep_us, long spin_us, int n) {
  prctl(PR_SET_TIMERSLACK, 1);
  double spun = 0, e20 = 0;
  long long n20 = 0;
  for (int i = 0; i < n; i++) {
    struct timespec d = {0, sleep_us * 1000};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &d, 0);
    long long s = now(), p = s;
    for (;;) {
      long long t = now(), dd = t - p;
      p = t;
      if (dd > 20000) { n20++; e20 += dd - 20000; }
      if (t - s > spin_us * 1000) break;
    }
    spun += p - s;
  }
  printf("stalls > 20 us: %.0f per spun second; instants late by > 20 us: %.2f %%\n",
         n20 / (spun / 1e9), 100 * e20 / spun);
}

// write() cost to an echo peer on CPU 0, one request every gap_us, from CPU 1.
static void write_cost(long gap_us, int n) {
  int one = 1;
  struct sockaddr_in a;
  int ls = listen_loopback(&a, 1);
  pid_t child = fork();
  if (child == 0) {
    pin(0);
    int f = accept(ls, 0, 0);
    char b[64];
    setsockopt(f, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (;;) {
      ssize_t r = read(f, b, sizeof b);
      if (r <= 0 || write(f, b, (size_t)r) != r) _exit(0);
    }
  }
  close(ls);
  pin(1);
  int f = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(f, (void*)&a, sizeof a)) { perror("stalls: connect"); exit(1); }
  setsockopt(f, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  long long next = now() + gap_us * 1000, sum = 0, mx = 0;
  int slow = 0;
  char b[64];
  for (int i = 0; i < n; i++) {
    while (now() < next) (void)recv(f, b, sizeof b, MSG_DONTWAIT);
    long long t = now();
    if (write(f, "x", 1) != 1) { perror("stalls: write"); exit(1); }
    long long d = now() - t;
    sum += d;
    slow += d > 20000;
    if (d > mx) mx = d;
    next += gap_us * 1000;
  }
  close(f);
  waitpid(child, 0, 0);
  printf("write() mean %.1f us, > 20 us in %.1f %% of sends, longest %lld us\n", sum / 1e3 / n,
         100.0 * slow / n, mx / 1000);
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "spin") == 0) spin(atoll(argv[2]));
  else if (argc == 3 && strcmp(argv[1], "sleepspin") == 0) sleep_then_spin(800, 250, atoi(argv[2]));
  else if (argc == 4 && strcmp(argv[1], "write") == 0) write_cost(atol(argv[2]), atoi(argv[3]));
  else return 2;
  return 0;
}
C
cc -O2 -I "$(dirname "$0")" -o "$tmp/stalls" "$tmp/stalls.c"
echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "1. continuous spin, ${secs} s per CPU:"
for cpu in $(seq 0 $(($(nproc) - 1))); do
  printf '   CPU %s: ' "$cpu"
  taskset -c "$cpu" "$tmp/stalls" spin "$secs"
done
printf '2. sleep 800 us then spin 250 us, CPU 1, %s times: ' $((secs * 1000))
taskset -c 1 "$tmp/stalls" sleepspin $((secs * 1000))
for gap in 1000 100; do
  printf '3. write() to an echo peer on CPU 0 every %s us, from CPU 1: ' "$gap"
  "$tmp/stalls" write "$gap" $((secs * 1000000 / gap))
done
# 4. Probe 3 with the peer's CPU polling in idle instead of halting (what `ream run --keep-awake`
#    asks of the kernel: a PM QoS resume latency of 0 on that CPU, platform/keep_awake.h): the
#    write() no longer waits for the peer's vCPU to be woken. Only where CPU 0's idle driver has
#    a polling state and nothing holds it already; the value is put back on any exit.
qos=/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us
if [ "$(cat /sys/devices/system/cpu/cpu0/cpuidle/state0/name 2>/dev/null)" = POLL ] && [ -w "$qos" ] &&
  [ "$(cat "$qos")" != n/a ]; then
  old_qos=$(cat "$qos")
  trap 'echo "$old_qos" > "$qos"; rm -rf "$tmp"' EXIT
  echo n/a > "$qos"
  for gap in 1000 100; do
    printf '4. the same, CPU 0 polling in idle, every %s us: ' "$gap"
    "$tmp/stalls" write "$gap" $((secs * 1000000 / gap))
  done
  echo "$old_qos" > "$qos"
else
  echo "4. write() to a peer whose CPU polls in idle: not measured (CPU 0 has no polling idle state, $qos is not writable, or something already holds it at n/a)"
fi
echo "5. continuous spin on every CPU at once, ${secs} s:"
for cpu in $(seq 0 $(($(nproc) - 1))); do
  taskset -c "$cpu" "$tmp/stalls" spin "$secs" > "$tmp/all.$cpu" &
done
wait
for cpu in $(seq 0 $(($(nproc) - 1))); do printf '   CPU %s, every CPU spinning: %s\n' "$cpu" "$(cat "$tmp/all.$cpu")"; done
