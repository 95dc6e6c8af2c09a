#!/usr/bin/env bash
# The evidence for which batch programs are memory-bound and which compute-bound on this machine:
# every `ream batch` program at its default size (--seconds 5), once alone on CPU 0, once beside
# `stress-ng --stream 1` on the same CPU (the test of the method: the two time-share CPU 0, so a program
# indifferent to caches and memory runs about 2x as long, and one whose cached data the stream
# evicts at every switch runs longer still), and once beside the stream on CPU 1 (no CPU shared:
# what is left is the LLC and the memory bandwidth the stream takes). Each run is `ream batch`'s
# own wall time of the program; inputs are prepared first, so no run includes generation.
# Prints one row per program: alone, with the stream on CPU 0 and its slowdown, with the stream
# on CPU 1 and its slowdown.
# Usage: bench/batch_suite.sh [BUILD_DIR] [SECONDS]   (needs stress-ng: scripts/install-deps)
set -euo pipefail

build=${1:-build}
seconds=${2:-5}
ream="$build/ream"
[ -x "$ream" ] || { echo "batch_suite: no $ream; run make build" >&2; exit 1; }
command -v stress-ng >/dev/null || { echo "batch_suite: stress-ng missing (scripts/install-deps)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "batch_suite: python3 missing" >&2; exit 1; }

names=$("$ream" batch --list --json | python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)))')
field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])["seconds"])'; }

# run NAME CPU_OF_STREAM ("" for none): the program's seconds on CPU 0.
run() {
  local name=$1 stream_cpu=$2 spid="" out
  if [ -n "$stream_cpu" ]; then
    taskset -c "$stream_cpu" stress-ng --stream 1 --timeout 600 --quiet &
    spid=$!
    sleep 1  # the stream's arrays allocated and touched before the program starts
  fi
  out=$(taskset -c 0 "$ream" batch "$name" --seconds "$seconds" --json) || { [ -n "$spid" ] && kill "$spid"; return 1; }
  if [ -n "$spid" ]; then
    kill "$spid" 2>/dev/null || true
    wait "$spid" 2>/dev/null || true
  fi
  echo "$out" | field
}

# The load average is printed at the start and the end: on a shared machine, other work moves
# these figures more than a co-runner does (docs/workloads.md).
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') bench/batch_suite.sh $build $seconds on $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %9s %12s %8s %12s %8s\n' program alone "stream@cpu0" slowdown "stream@cpu1" slowdown
for n in $names; do
  "$ream" batch "$n" --seconds "$seconds" --prepare >/dev/null
  alone=$(run "$n" "")
  same=$(run "$n" 0)
  other=$(run "$n" 1)
  python3 -c "import sys; a,s,o=map(float,sys.argv[2:]); print('%-8s %8.2fs %11.2fs %7.2fx %11.2fs %7.2fx' % (sys.argv[1],a,s,s/a,o,o/a))" \
    "$n" "$alone" "$same" "$other"
done
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
