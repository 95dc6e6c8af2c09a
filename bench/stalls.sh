#!/usr/bin/env bash
# How much of its time a pinned, otherwise idle spin loop loses to stalls (gaps between two
# clock reads) longer than 20 us, per CPU: the machine's own timing noise (hypervisor steal,
# interrupts), which bounds how timely any open-loop generator can be here.
# Usage: bench/stalls.sh [SECONDS]
set -euo pipefail
secs=${1:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/stalls.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static long long now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}
int main(int argc, char** argv) {
  long long dur = atoll(argv[1]) * 1000000000LL, s = now(), p = s, n20 = 0, n100 = 0, tot = 0, mx = 0;
  for (;;) {
    long long t = now(), d = t - p;
    if (d > 20000) { n20++; tot += d; }
    if (d > 100000) n100++;
    if (d > mx) mx = d;
    p = t;
    if (t - s > dur) break;
  }
  double secs = (p - s) / 1e9;
  printf("stalls > 20 us: %.0f/s, > 100 us: %.0f/s, time lost: %.2f %%, longest: %lld us\n",
         n20 / secs, n100 / secs, 100.0 * tot / (p - s), mx / 1000);
  return 0;
}
C
cc -O2 -o "$tmp/stalls" "$tmp/stalls.c"
for cpu in $(seq 0 $(($(nproc) - 1))); do
  printf 'CPU %s: ' "$cpu"
  taskset -c "$cpu" "$tmp/stalls" "$secs"
done
