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
# This script prints that table, the mean absolute error of the predicted capacity (QPS under
# QoS together / alone, in percentage points) over the pairs where both sides have a figure, and
# the mean relative error of the predicted tail at the curve's load (Bubble-Up's own figure) over
# the pairs where both tails are figures, each beside the naive guess's on the same pairs.
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
c = a.get("interference", {}).get("prediction_check")
if c is None:
    sys.exit("no predictions: " + a.get("interference", {}).get("reporter_note", "no interference section"))
n, judged, err, naive, share = (c["measured_pairs"], len(c["judged"]), c["mean_abs_error_pp"],
                                c["naive_mean_abs_error_pp"], c["naive_share"])
print(f"measured pairs: {n}; judged (both shares exact): {judged}")
for why in c["left_out"]:
    print(f"  left out: {why}")
if err is not None:
    print(f"mean absolute error of the predicted QPS under QoS: {err:.1f} percentage points, against "
          f"{naive:.1f} for the naive guess (every pair at the mean measured share, {share * 100:.1f} %)")
else:
    print("mean absolute error: unavailable (" + c["note"] + ")")
terr, tnaive, tmean = c.get("tail_mean_abs_error_pct"), c.get("naive_tail_mean_abs_error_pct"), c.get("naive_tail_us")
if terr is not None:
    sets, nt = ", ".join(c["tail_judged"]), len(c["tail_judged"])
    print(f"the tail at the load of the curves, judged on {nt} pair(s) ({sets}): mean absolute error "
          f"{terr:.1f} %, against {tnaive:.1f} % for the naive guess (every pair at the mean measured tail, {tmean:.0f} us)")
else:
    print("the error of the tail: unavailable (" + c.get("tail_note", "") + ")")
agree, safe = c["safe_agree"], c["safe_judged"]
print(f"safe / unsafe at QoS predicted as measured: {agree} of {safe} pairs")
'
echo "database: $db"
