#!/usr/bin/env bash
# How steady is "the highest load under QoS" on this machine? Runs the same fine grid sweep
# (the knee-vs-grid test's: synthetic server, exp:100us, one worker, 1-ST; 1 000-8 000 QPS in
# steps of 250; p95 target 2 ms; timely tolerance 200us; a spinning generator) REPEAT times
# back to back and prints,
# for each, the highest level that met QoS with a valid point and ream analyze's interpolated
# capacity. Identical sweeps that disagree by more than a knee's stated precision bound how
# closely any knee search can be checked against a grid here.
# Usage: bench/grid_repeat.sh [BUILD_DIR]   (default: build). Env: REPEAT (default 3),
# TARGET (default 2ms, the test's; the figures before 2026-11-30 21:00 UTC were taken at 1ms).
# ream run pins the workload and the generator to different CPUs itself (1-ST).
set -euo pipefail
BUILD=${1:-build}
REAM="$BUILD/ream"
REPEAT=${REPEAT:-3}
TARGET=${TARGET:-2ms}
[ -x "$REAM" ] || { echo "grid_repeat.sh: $REAM not found; build first (make build)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "grid_repeat.sh: ream run needs root (sandboxes)" >&2; exit 2; }

OUT=$(mktemp -d /tmp/ream-grid-repeat.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

for i in $(seq "$REPEAT"); do
  cat >"$OUT/grid$i.toml" <<EOF
name = "grid$i"
scenarios = ["1-ST"]
[workload]
builtin = "synthetic"
args = ["--service", "exp:100us"]
threads = 1
[load]
warmup = "300ms"
duration = "1500ms"
response_timeout = "200ms"
connections = 2
timely_tolerance = "200us"
wait = "spin"
[qos]
target = "$TARGET"
[sweep]
start = 1000
stop = 8000
step = 250
stop_after_invalid = 2
remeasure_invalid = 2
EOF
  start=$(date -u +%H:%M:%S)
  "$REAM" run "$OUT/grid$i.toml" --db "$OUT/r.db" >"$OUT/run$i.log" 2>&1 ||
    { echo "grid_repeat.sh: run $i failed:" >&2; tail -5 "$OUT/run$i.log" >&2; exit 1; }
  "$REAM" analyze --db "$OUT/r.db" --experiment "grid$i" --json | python3 -c '
import json, sys
g = json.load(sys.stdin)["groups"][0]
c = g["capacity"]
last = c.get("last_pass_qps")
print("run %s (started %s UTC): highest level meeting QoS %s QPS, capacity %s QPS (%s), %d valid of %d points"
      % (sys.argv[1], sys.argv[2], "none" if last is None else "%.0f" % last,
         "unavailable" if c.get("qps") is None else "%.0f" % c["qps"], c.get("status", ""),
         g["valid_points"], len(g["points"])))
' "$i" "$start"
done
