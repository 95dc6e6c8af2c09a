#!/usr/bin/env bash
# The whole generator, measured on this machine: `ream serve synthetic --service const:0`
# pinned to CPU 0, `ream load` (one thread, one connection) pinned to CPU 1. Prints
#   - the lateness p99 at 1 000 QPS,
#   - the generator's CPU microseconds per request at 10 000 QPS (and how much it sleeps),
#   - the highest rate one generator thread holds *valid* (timely >= 97.5 %, rate within 2 %,
#     no errors), found by a coarse sweep then bisection, and the
#     CPU per request there.
# Usage: bench/loadgen.sh [BUILD_DIR]   (default: build). Env: DURATION (default 5s),
#   PRIORITY="nice -n -10" to run both sides at a higher priority (say so when reporting),
#   TIMELY_TOLERANCE (default 20us, ream's default; state it with any figure quoted: on a
#   machine whose own timer noise exceeds it, see bench/stalls.sh, no rate is valid at 20us).
set -euo pipefail
BUILD=${1:-build}
REAM="$BUILD/ream"
DURATION=${DURATION:-5s}
PRIORITY=${PRIORITY:-}
TOLERANCE=${TIMELY_TOLERANCE:-20us}
[ -x "$REAM" ] || { echo "loadgen.sh: $REAM not found; build first (make build)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "loadgen.sh: taskset (util-linux) is required" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "loadgen.sh: needs 2 CPUs (server on 0, generator on 1)" >&2; exit 2; }

OUT=$(mktemp -d /tmp/ream-loadgen.XXXXXX)
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$OUT"
}
trap cleanup EXIT

$PRIORITY taskset -c 0 "$REAM" serve synthetic --service const:0 --threads 1 --port 0 >"$OUT/server.out" &
SERVER_PID=$!
for _ in $(seq 100); do grep -q '^ready ' "$OUT/server.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/^ready [^:]*:\([0-9]*\).*/\1/p' "$OUT/server.out")
[ -n "$PORT" ] || { echo "loadgen.sh: the server did not become ready" >&2; exit 1; }

# run QPS -> prints "valid timely lateness_p99_us cpu_us_per_req achieved" and keeps the JSON
run() {
  local qps=$1
  $PRIORITY taskset -c 1 "$REAM" load --target "127.0.0.1:$PORT" --qps "$qps" --duration "$DURATION" \
    --warmup 1s --timely-tolerance "$TOLERANCE" --json - >"$OUT/run.json" 2>/dev/null || true
  python3 - "$OUT/run.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(str(j["valid"]).lower(), "%.4f" % j["timely_ratio"], j["lateness_us"]["p99"],
      "%.2f" % (j["generator_cpu_us_per_request"] or 0), "%.0f" % j["achieved_qps"],
      "|", "; ".join(j["invalid_reasons"]))
PY
}

echo "# ream load benchmark: server const:0 on CPU 0, generator (1 thread, 1 connection) on CPU 1"
echo "# $(date -u +%FT%TZ) $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg), duration $DURATION, timely tolerance $TOLERANCE${PRIORITY:+, priority: $PRIORITY}"

read -r v t late cpu ach _ <<<"$(run 1000)"
echo "1000 QPS:   lateness p99 ${late} us (target <= 10 us), timely $t, valid $v, CPU ${cpu} us/request"
read -r v t late cpu ach _ <<<"$(run 10000)"
echo "10000 QPS:  CPU ${cpu} us/request (= $(python3 -c "print('%.0f' % ($cpu * 10000 / 1e4))") % of one CPU), timely $t, valid $v, lateness p99 ${late} us"

# Highest valid rate: coarse sweep upwards, then bisect between the last valid and first invalid.
lo=0; hi=0; lo_line=
for qps in 25000 50000 75000 100000 125000 150000 175000 200000 250000 300000; do
  line=$(run $qps)
  echo "  sweep $qps QPS: $line"
  if [ "${line%% *}" = true ]; then lo=$qps; lo_line=$line; else hi=$qps; break; fi
done
if [ "$hi" -ne 0 ] && [ "$lo" -ne 0 ]; then
  for _ in 1 2 3; do
    mid=$(( (lo + hi) / 2 ))
    line=$(run $mid)
    echo "  bisect $mid QPS: $line"
    if [ "${line%% *}" = true ]; then lo=$mid; lo_line=$line; else hi=$mid; fi
  done
fi
if [ "$lo" -eq 0 ]; then
  echo "highest valid rate: none of the rates tried was valid"
else
  read -r v t late cpu ach _ <<<"$lo_line"
  echo "highest valid rate: $lo QPS (target >= 150000), timely $t, CPU ${cpu} us/request, lateness p99 ${late} us"
fi
