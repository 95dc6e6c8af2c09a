#!/usr/bin/env bash
# What a sleeping generator costs the server. Runs `ream serve synthetic --service const:0`
# (one worker, pinned to CPU 0) and drives it with `ream load` (pinned to CPU 1) at each rate,
# once with --wait sleep and once with --wait spin, and prints the server's CPU time per
# request (from /proc/PID/task/*/schedstat around the run), the round trip and the
# generator's own CPU per request. On a VM, a response sent to a generator whose vCPU is idle
# wakes it with an IPI, and the server's send pays for that.
# Usage: bench/wait_cost.sh [BUILD_DIR]   (default: build). Env: RATES (default "1000 2000 6000"),
# REPEAT (default 2), DURATION (default 2s).
set -euo pipefail
BUILD=${1:-build}
REAM="$BUILD/ream"
RATES=${RATES:-1000 2000 6000}
REPEAT=${REPEAT:-2}
DURATION=${DURATION:-2s}
[ -x "$REAM" ] || { echo "wait_cost.sh: $REAM not found; build first (make build)" >&2; exit 2; }

OUT=$(mktemp -d /tmp/ream-wait-cost.XXXXXX)
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null; rm -rf "$OUT"; }
trap cleanup EXIT

taskset -c 0 "$REAM" serve synthetic --service const:0 --threads 1 --port 0 >"$OUT/server" &
SERVER=$!
for _ in $(seq 50); do grep -q '^ready ' "$OUT/server" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/^ready [^:]*:\([0-9]*\).*/\1/p' "$OUT/server")
[ -n "$PORT" ] || { echo "wait_cost.sh: the server did not become ready" >&2; exit 1; }

cpu_ns() { awk '{s += $1} END {printf "%d\n", s}' /proc/"$SERVER"/task/*/schedstat; }

printf "%-6s %-6s %22s %14s %12s %24s\n" QPS wait "server CPU/request" "RTT mean" "RTT p95" "generator CPU/request"
for qps in $RATES; do
  for _ in $(seq "$REPEAT"); do
    for wait in sleep spin; do
      rm -f "$OUT/load.json"
      before=$(cpu_ns)
      # Exit 3 (some requests failed) still writes the JSON; no JSON means no figures.
      taskset -c 1 "$REAM" load --target "127.0.0.1:$PORT" --qps "$qps" --duration "$DURATION" \
        --warmup 300ms --wait "$wait" --json "$OUT/load.json" >"$OUT/load.log" 2>&1 || true
      after=$(cpu_ns)
      if [ ! -s "$OUT/load.json" ]; then
        printf "%-6s %-6s unavailable: ream load wrote no result: %s\n" "$qps" "$wait" "$(tail -1 "$OUT/load.log")"
        continue
      fi
      python3 - "$qps" "$wait" "$before" "$after" "$OUT/load.json" <<'PY'
import json, sys
qps, wait, before, after, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
j = json.load(open(path))
per = (after - before) / 1e3 / j["completed_total"]
print("%-6s %-6s %19.1f us %11.1f us %9.1f us %21.1f us" % (qps, wait, per, j["latency_us"]["mean"],
      j["latency_us"]["p95"], j["generator_cpu_us_per_request"]))
PY
    done
  done
done
