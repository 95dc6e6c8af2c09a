#!/usr/bin/env bash
# What ream's relay (the LogGP knobs' path, `ream relay`) adds by itself: the same low-rate
# load measured directly, through the relay at 0 (in the path, delaying nothing), and through
# the relay at L = 200us, all in one run. `ream serve synthetic --service const:0` on CPU 1,
# `ream load` and the relay on CPU 0 (the relay always runs on the generator's CPUs).
# Prints the mean / p50 / p99 round trip of each path and the differences:
#   relay at 0 - direct  = the relay's own added latency
#   (relay at L - relay at 0) / 2 = the L the path really adds one way
# Usage: bench/relay.sh [BUILD_DIR]   (default: build). Env: QPS (default 1000), DURATION (5s),
#   REPEAT (default 3: each path is measured REPEAT times, interleaved, and the medians shown).
set -euo pipefail
BUILD=${1:-build}
REAM="$BUILD/ream"
QPS=${QPS:-1000}
DURATION=${DURATION:-5s}
REPEAT=${REPEAT:-3}
[ -x "$REAM" ] || { echo "relay.sh: $REAM not found; build first (make build)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "relay.sh: taskset (util-linux) is required" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "relay.sh: needs 2 CPUs (server on 1, generator and relay on 0)" >&2; exit 2; }

OUT=$(mktemp -d /tmp/ream-relay.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$OUT"
}
trap cleanup EXIT

wait_line() {  # FILE PATTERN -> the first matching line
  for _ in $(seq 100); do grep -m1 "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "relay.sh: no '$2' in $1" >&2; return 1
}

taskset -c 1 "$REAM" serve synthetic --service const:0 --threads 1 --port 0 >"$OUT/server.out" &
PIDS+=($!)
PORT=$(wait_line "$OUT/server.out" '^ready ' | sed -n 's/^ready [^:]*:\([0-9]*\).*/\1/p')
start_relay() {  # NAME LATENCY: in this shell (not a $(...) subshell) so cleanup knows its pid
  taskset -c 0 "$REAM" relay --to "127.0.0.1:$PORT" --latency "$2" --protocol ream >"$OUT/$1.out" &
  PIDS+=($!)
}
relay_port() { wait_line "$OUT/$1.out" '^ream-relay ready ' | sed -n 's/^ream-relay ready [^:]*:\([0-9]*\).*/\1/p'; }
start_relay zero 0
start_relay withl 200us
ZERO=$(relay_port zero)
WITHL=$(relay_port withl)

run() {  # PORT -> "mean p50 p99" in µs
  taskset -c 0 "$REAM" load --target "127.0.0.1:$1" --qps "$QPS" --duration "$DURATION" --warmup 1s \
    --connections 1 --timely-tolerance 200us --json - 2>/dev/null >"$OUT/run.json" || true
  python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["latency_us"]; print(l["mean"], l["p50"], l["p99"])' "$OUT/run.json"
}

echo "# ream relay benchmark: server const:0 on CPU 1; generator and relay on CPU 0; $QPS QPS, 1 connection"
echo "# $(date -u +%FT%TZ) $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg), duration $DURATION, repeat $REPEAT"
for i in $(seq "$REPEAT"); do
  echo "direct $(run "$PORT")" >>"$OUT/all"
  echo "zero $(run "$ZERO")" >>"$OUT/all"
  echo "withl $(run "$WITHL")" >>"$OUT/all"
done
python3 - "$OUT/all" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, *v = line.split()
    rows.setdefault(name, []).append([float(x) for x in v])
med = {k: [statistics.median(c) for c in zip(*v)] for k, v in rows.items()}
for k, label in (("direct", "direct          "), ("zero", "relay at 0      "), ("withl", "relay at L=200us")):
    m, p50, p99 = med[k]
    print(f"{label}  mean {m:8.1f} us   p50 {p50:8.1f} us   p99 {p99:8.1f} us   ({len(rows[k])} runs)")
print(f"the relay's own added latency (relay at 0 - direct): mean {med['zero'][0] - med['direct'][0]:+.1f} us, "
      f"p50 {med['zero'][1] - med['direct'][1]:+.1f} us")
print(f"L measured ((relay at L - relay at 0) / 2): mean {(med['withl'][0] - med['zero'][0]) / 2:.1f} us "
      f"(requested 200 us), p50 {(med['withl'][1] - med['zero'][1]) / 2:.1f} us")
PY
