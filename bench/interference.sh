#!/usr/bin/env bash
# Bubble-Up's prediction checked against measured pairs (docs/interference.md).
#
# Two experiments in one results database, both with the same sources of interference and the
# same four co-runners (examples/interference.toml):
#   interference     memcached, the subject: its sensitivity curves, and memcached measured beside
#                    each co-runner (the measured pairs);
#   interference-kv  ream's kv, the reporter (examples/interference-kv.toml): its curves, and its
#                    pressure scores of each co-runner.
# Then `ream analyze --reporter interference-kv` predicts memcached beside each co-runner from
# memcached's own curves read at kv's scores, and prints prediction and measurement side by side.
# This script prints that table and the mean absolute error of the predicted capacity (QPS under
# QoS together / alone, in percentage points) over the pairs where both sides have a figure.
#
# Usage: bench/interference.sh [BUILD_DIR] [DB] [--analyze]   (about 25 min on a 2-vCPU machine)
#   --analyze: measure nothing; print the table and the error from the experiments already in DB
# memcached on CPU 0 with every co-runner, the generator on CPU 1 (the examples' placement).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=${2:-/tmp/ream-interference.db}
ream=$build/ream
analyze_only=${3:-}
[ -x "$ream" ] || { echo "interference.sh: no $ream (make build first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$analyze_only" = --analyze ]; then
  [ -f "$db" ] || { echo "interference.sh: --analyze: no database $db" >&2; exit 2; }
else
[ -z "$analyze_only" ] || { echo "interference.sh: unknown option '$analyze_only' (--analyze)" >&2; exit 2; }
rm -f "$db"

# The reporter's spec ships beside the subject's; both must differ only in [workload].
if ! diff -q <(sed -n '/^\[load\]/,$p' examples/interference.toml) \
             <(sed -n '/^\[load\]/,$p' examples/interference-kv.toml) >/dev/null; then
  echo "interference.sh: examples/interference.toml and interference-kv.toml differ beyond [workload]" >&2
  exit 2
fi

echo "== $(date -u +%FT%TZ) the subject: memcached (examples/interference.toml)"
"$ream" run examples/interference.toml --db "$db" >"$work/subject.log" 2>&1 || { tail -20 "$work/subject.log"; exit 1; }
tail -1 "$work/subject.log"
echo "== $(date -u +%FT%TZ) the reporter: ream's kv (the same sources and co-runners)"
"$ream" run examples/interference-kv.toml --db "$db" >"$work/reporter.log" 2>&1 || { tail -20 "$work/reporter.log"; exit 1; }
tail -1 "$work/reporter.log"
fi
echo "== $(date -u +%FT%TZ) memcached beside each co-runner: predicted from kv's scores, and measured"
"$ream" analyze --db "$db" --experiment interference --reporter interference-kv >"$work/analysis.txt"
sed -n '/^  Predicted beside/,/^  sensitive:/p' "$work/analysis.txt" | sed '$d'
"$ream" analyze --db "$db" --experiment interference --reporter interference-kv --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
preds = a.get("interference", {}).get("predictions", [])
errs = [p["capacity_error_pp"] for p in preds if p.get("capacity_error_pp") is not None]
bounds = [p["set"] for p in preds if p.get("capacity_bound")]
agree = [p["set"] for p in preds if p.get("predicted_meets_qos") is not None and p.get("measured_meets_qos") is not None
         and p["predicted_meets_qos"] == p["measured_meets_qos"]]
judged = [p["set"] for p in preds if p.get("predicted_meets_qos") is not None and p.get("measured_meets_qos") is not None]
bound_note = " (read from a lower bound: " + ", ".join(bounds) + ")" if bounds else ""
print(f"pairs: {len(preds)}; with a capacity on both sides: {len(errs)}{bound_note}")
if errs:
    print(f"mean absolute error of the predicted QPS under QoS: {sum(abs(e) for e in errs) / len(errs):.1f} "
          f"percentage points (Bubble-Up reports 1-2 %)")
else:
    print("mean absolute error: unavailable (no pair has a capacity ratio on both sides)")
print(f"safe / unsafe at QoS predicted as measured: {len(agree)} of {len(judged)} pairs")
'
echo "database: $db"
