#!/usr/bin/env bash
# The CPU cost of ream's monitor at a 100 ms sample interval, measured two ways in one run:
#  1. the sampling thread's own CPU time (CLOCK_THREAD_CPUTIME_ID, "monitor_cpu_s" in the
#     --samples JSON), over the run's duration;
#  2. independently, the whole `ream exec` process's CPU time (getrusage of the finished
#     child: user+sys, including ream's start-up and teardown) with a 100 ms interval, minus
#     the same run with a 60-minute interval (no sampling at all), over the duration.
# The workload is `sleep`, which uses no CPU, in a sandbox with a node, a memory limit and a
# disk limit so every sampler family (cgroup cpu/memory/blkio, veth) is read each time.
# Usage: bench/monitor.sh [BUILD_DIR] [SECONDS]   (root)
set -euo pipefail
BUILD=${1:-build}
SECS=${2:-20}
REAM=$BUILD/ream
[ -x "$REAM" ] || { echo "bench/monitor.sh: $REAM not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench/monitor.sh: needs root (ream exec creates cgroups)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/ream-bench-monitor.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# Runs ream exec with interval $1 (in the $(...) subshell, so ream is that shell's only
# child); prints the CPU seconds (user+sys) of ream and the children it waited for.
run() {
  local interval=$1 json=$2
  # Pin ream to the last CPU. The figures are CPU time, not wall time, so other load on the
  # machine does not inflate them.
  taskset -c "$(( $(nproc --all) - 1 ))" "$REAM" exec --node --memory 256M \
    --disk-read-bps 100M --sample-interval "$interval" --samples "$json" -- sleep "$SECS" \
    2>"$TMP/stderr" || { cat "$TMP/stderr" >&2; exit 1; }
  times > "$TMP/times.$interval"
  awk 'NR == 2 { split($1, u, "m"); split($2, s, "m");
                 printf "%.4f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$TMP/times.$interval"
}

with=$(run 100ms "$TMP/with.json")
without=$(run 60m "$TMP/without.json")
python3 - "$TMP/with.json" "$with" "$without" "$SECS" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
with_cpu, without_cpu, secs = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
dur = j["duration_s"]
n = len(j["timeline"])
thread = j["monitor_cpu_s"]
print(f"monitor at 100 ms: {n} samples over {dur:.1f} s")
print(f"  sampling thread CPU      {thread*1e3:8.1f} ms = {100*thread/dur:.3f} % of one CPU "
      f"({thread/n*1e6:.0f} us per sample)")
diff = with_cpu - without_cpu
print(f"  ream process CPU         {with_cpu*1e3:8.1f} ms with sampling, {without_cpu*1e3:.1f} ms without "
      f"-> {diff*1e3:.1f} ms = {100*diff/dur:.3f} % of one CPU")
worst = max(thread, diff) / dur
print(f"  verdict: {'under' if worst < 0.01 else 'NOT under'} 1 % of one CPU (worst of the two: {100*worst:.3f} %)")
sys.exit(0 if worst < 0.01 else 1)
PY
