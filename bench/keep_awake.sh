#!/usr/bin/env bash
# Keep-awake and the lateness causes, measured side by side in one run: `ream serve kv` pinned
# to CPU 1, `ream load` (one thread, 4 connections, sleeping between sends) pinned to CPU 0, at
# each rate with and without `--keep-awake 0,1` (SCHED_IDLE pollers on both CPUs), alternating
# so the host's noise falls on both. Prints per run: timely ratio at 20 us, p50/p95/p99 from
# the schedule, the distortion (p95 from the schedule vs from the send) and the shares of the
# late requests' causes; first, the host's floor (a pinned spin loop per CPU, as
# platform/timing_floor.h measures it at the start of `ream run`).
# Usage: bench/keep_awake.sh [BUILD_DIR] (default build). Env: RATES (default "2000 5000 20000"),
#   DURATION (default 5s), ROUNDS (default 2).
set -euo pipefail
BUILD=${1:-build}
REAM="$BUILD/ream"
RATES=${RATES:-"2000 5000 20000"}
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-2}
[ -x "$REAM" ] || { echo "keep_awake.sh: $REAM not found; build first (make build)" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "keep_awake.sh: needs 2 CPUs (generator on 0, server on 1)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "keep_awake.sh: python3 is needed to read the JSON" >&2; exit 2; }
OUT=$(mktemp -d /tmp/ream-keep-awake.XXXXXX)
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$OUT"
}
trap cleanup EXIT
taskset -c 1 "$REAM" serve kv --records 100000 --port 0 >"$OUT/server.out" &
SERVER_PID=$!
for _ in $(seq 100); do grep -q '^ready ' "$OUT/server.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/^ready [^:]*:\([0-9]*\).*/\1/p' "$OUT/server.out")
[ -n "$PORT" ] || { echo "keep_awake.sh: the server did not become ready" >&2; exit 1; }
echo "$(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# The floor, at the start: one pinned spin loop per CPU for 1 s each, as ream run measures it.
python3 - <<'PY'
import os, time
for cpu in (0, 1):
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {cpu})
        t0 = prev = time.perf_counter_ns(); late = 0
        while prev - t0 < 1_000_000_000:
            t = time.perf_counter_ns(); d = t - prev
            if d > 20_000: late += d - 20_000
            prev = t
        print(f"floor CPU {cpu}: {100 * late / (prev - t0):.2f} % of instants > 20 us late (python spin loop, 1 s)")
        os._exit(0)
    os.waitpid(pid, 0)
PY
printf '%-6s %-6s %8s %9s %9s %9s %10s  %s\n' qps awake timely p50_us p95_us p99_us p95_moved causes
for round in $(seq "$ROUNDS"); do
  for qps in $RATES; do
    for awake in off on; do
      extra=()
      [ "$awake" = on ] && extra=(--keep-awake 0,1)
      taskset -c 0 "$REAM" load --target "127.0.0.1:$PORT" --qps "$qps" --duration "$DURATION" --warmup 1s \
        --connections 4 "${extra[@]}" --json "$OUT/r.json" >/dev/null 2>&1 || true
      python3 - "$OUT/r.json" "$qps" "$awake" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); l = j["latency_us"] or {}; d = j.get("distortion") or {}
c = j["lateness_causes"]["causes"]
causes = ", ".join(f"{k} {100 * v['share_of_issued']:.2f}%" for k, v in c.items() if v["requests"])
print(f"{sys.argv[2]:<6} {sys.argv[3]:<6} {100 * j['timely_ratio']:7.2f}% {l.get('p50', 0):9.1f} {l.get('p95', 0):9.1f} "
      f"{l.get('p99', 0):9.1f} {100 * d.get('lateness_share', 0):9.1f}%  {causes or 'none late'}")
PY
    done
  done
done
