#!/usr/bin/env bash
# Generator threads that scale: the highest valid rate against a null server (`ream serve
# synthetic --service const:0`, one thread) with one generator thread and with two, found the
# same way for both (a coarse sweep upwards, then bisection). Placement, stated in the output:
# the server on CPU 1; one generator thread on CPU 0; two threads on CPUs 0 and 1 — on a 2-CPU
# machine the second shares the server's CPU, so part of what it costs is the server's time.
# Also checks that one and two threads give the same point at the same total rate (achieved
# rate; p50 and p99 with their spread over ROUNDS runs).
# Usage: bench/threads.sh [BUILD_DIR] (default build). Env: DURATION (default 3s),
#   TIMELY_TOLERANCE (default 20us), VALIDITY (default seed), SAME_RATE (default 20000), ROUNDS (3),
#   TWO_THREAD_CPUS (default 0,1; "0" puts both threads on CPU 0, beside each other and away from
#   the server: what the merge of two threads' points gives when neither shares the server's CPU),
#   WAIT (default sleep; "yield" gives the CPU away on every turn of the spin before a send, for
#   threads that share a CPU; the same for one thread and two), KEEP_AWAKE (default 0; 1 keeps
#   both CPUs out of idle during every run, `ream load --keep-awake 0,1`, so no request pays a
#   CPU's wake-up on either side), PIN_THREADS (default 0: the threads share the CPUs given
#   to the process, and the kernel places them; 1 pins thread t to the t-th of them, `--cpus`).
set -euo pipefail
BUILD=${1:-build}
REAM="$BUILD/ream"
DURATION=${DURATION:-3s}
TOLERANCE=${TIMELY_TOLERANCE:-20us}
VALIDITY=${VALIDITY:-seed}
SAME_RATE=${SAME_RATE:-20000}
ROUNDS=${ROUNDS:-3}
TWO_THREAD_CPUS=${TWO_THREAD_CPUS:-0,1}
WAIT=${WAIT:-sleep}
KEEP_AWAKE=${KEEP_AWAKE:-0}
PIN_THREADS=${PIN_THREADS:-0}
case $PIN_THREADS in 0 | 1) ;; *) echo "threads.sh: PIN_THREADS must be 0 or 1, got '$PIN_THREADS'" >&2; exit 2 ;; esac
case $KEEP_AWAKE in 0) AWAKE=() ;; 1) AWAKE=(--keep-awake "0,1") ;; *) echo "threads.sh: KEEP_AWAKE must be 0 or 1, got '$KEEP_AWAKE'" >&2; exit 2 ;; esac
case $WAIT in sleep | spin | yield) ;; *) echo "threads.sh: WAIT must be sleep, spin or yield, got '$WAIT'" >&2; exit 2 ;; esac
case $TWO_THREAD_CPUS in 0 | 0,1) ;; *) echo "threads.sh: TWO_THREAD_CPUS must be 0 or 0,1, got '$TWO_THREAD_CPUS'" >&2; exit 2 ;; esac
[ -x "$REAM" ] || { echo "threads.sh: $REAM not found; build first (make build)" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "threads.sh: needs 2 CPUs" >&2; exit 2; }
OUT=$(mktemp -d /tmp/ream-threads.XXXXXX)
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$OUT"
}
trap cleanup EXIT
taskset -c 1 "$REAM" serve synthetic --service const:0 --threads 1 --port 0 >"$OUT/server.out" &
SERVER_PID=$!
for _ in $(seq 100); do grep -q '^ready ' "$OUT/server.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/^ready [^:]*:\([0-9]*\).*/\1/p' "$OUT/server.out")
[ -n "$PORT" ] || { echo "threads.sh: the server did not become ready" >&2; exit 1; }

# run THREADS QPS -> "valid achieved p50 p99 timely"
run() {
  local threads=$1 qps=$2 cpus=0
  [ "$threads" -ge 2 ] && cpus=$TWO_THREAD_CPUS
  local pin=()
  [ "$PIN_THREADS" = 1 ] && pin=(--cpus "$cpus")
  taskset -c "$cpus" "$REAM" load --target "127.0.0.1:$PORT" --qps "$qps" --duration "$DURATION" --warmup 1s \
    --threads "$threads" "${pin[@]}" "${AWAKE[@]}" --connections $((threads * 4)) --wait "$WAIT" --timely-tolerance "$TOLERANCE" --validity "$VALIDITY" \
    --json "$OUT/r.json" >/dev/null 2>&1 || true
  python3 - "$OUT/r.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); l = j["latency_us"] or {}
print(str(j["valid"]).lower(), "%.0f" % j["achieved_qps"], l.get("p50", 0), l.get("p99", 0), "%.4f" % j["timely_ratio"])
PY
}
highest() {
  local threads=$1 lo=0 hi=0
  for qps in 20000 40000 60000 80000 100000 120000 160000 200000 250000; do
    read -r v _ <<<"$(run "$threads" $qps)"
    if [ "$v" = true ]; then lo=$qps; else hi=$qps; break; fi
  done
  if [ "$hi" -ne 0 ] && [ "$lo" -ne 0 ]; then
    for _ in 1 2 3; do
      local mid=$(( (lo + hi) / 2 ))
      read -r v _ <<<"$(run "$threads" $mid)"
      if [ "$v" = true ]; then lo=$mid; else hi=$mid; fi
    done
  fi
  echo "$lo"
}
echo "# $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg); server on CPU 1; 1 thread on CPU 0, 2 threads on CPUs $TWO_THREAD_CPUS (4 connections per thread); tolerance $TOLERANCE, validity rule $VALIDITY, wait $WAIT, keep-awake $([ "$KEEP_AWAKE" = 1 ] && echo "CPUs 0,1" || echo off), threads $([ "$PIN_THREADS" = 1 ] && echo "pinned one to a CPU" || echo "placed by the kernel within those CPUs")"
for t in 1 2; do
  for r in $(seq "$ROUNDS"); do echo "same rate $SAME_RATE QPS, $t thread(s), round $r: $(run "$t" "$SAME_RATE") (valid achieved p50_us p99_us timely)"; done
done
h1=$(highest 1)
h2=$(highest 2)
echo "highest valid rate: 1 thread ${h1} QPS, 2 threads ${h2} QPS (ratio $(python3 -c "print('%.2f' % ($h2 / $h1) if $h1 else 'n/a')"))"
