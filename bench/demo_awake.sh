#!/usr/bin/env bash
# `make demo` with and without `--keep-awake`, side by side (the claim: with
# --keep-awake, make demo's lowest levels are valid and their p95 is not above the p95 at 20 000
# QPS). Runs `ream run` on make demo's spec ROUNDS times each way, alternating so the host's
# noise falls on both, and prints for every sweep (scenario / partition) the p95 of each level
# below 20 000 QPS and at 20 000 QPS with the 95 % interval `ream analyze` gives it (order
# statistics of the point's samples), whether each is valid, and two verdicts on the lowest
# levels: "strict" (no p95 above the 20 000 QPS p95) and "beyond noise" (no p95 whose interval
# lies wholly above the 20 000 QPS p95's interval). The host's floor first (bench/stalls.sh: its
# probe 1, one CPU spinning, and probe 5, every CPU spinning at once, which is what keep-awake
# makes the host see), and a tally per way at the end.
# Usage: bench/demo_awake.sh [BUILD_DIR] (default build). Env: ROUNDS (default 3),
#   SPEC (default examples/quickstart.toml), AT (the reference level, default 20000).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
REAM="$BUILD/ream"
ROUNDS=${ROUNDS:-3}
SPEC=${SPEC:-$here/examples/quickstart.toml}
AT=${AT:-20000}
[ -x "$REAM" ] || { echo "demo_awake.sh: $REAM not found; build first (make build)" >&2; exit 2; }
[ -r "$SPEC" ] || { echo "demo_awake.sh: cannot read the spec $SPEC" >&2; exit 2; }
case $ROUNDS in '' | *[!0-9]* | 0) echo "demo_awake.sh: ROUNDS must be a positive integer, got '$ROUNDS'" >&2; exit 2 ;; esac
command -v python3 >/dev/null || { echo "demo_awake.sh: python3 is needed to read the JSON" >&2; exit 2; }
OUT=$(mktemp -d /tmp/ream-demo-awake.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

echo "# $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); spec $SPEC, $ROUNDS round(s) each way, alternating"
"$here/bench/stalls.sh" 2 2>&1 || true
for r in $(seq "$ROUNDS"); do
  for way in without with; do
    flag=()
    [ "$way" = with ] && flag=(--keep-awake)
    db="$OUT/r$r-$way.db"
    start=$(date -u +%T)
    if ! "$REAM" run "$SPEC" --db "$db" "${flag[@]}" >"$OUT/run.log" 2>&1; then
      echo "round $r, $way keep-awake: ream run failed:"; tail -5 "$OUT/run.log"; continue
    fi
    "$REAM" analyze --db "$db" --json >"$OUT/r$r-$way.json" 2>"$OUT/analyze.err" || {
      echo "round $r, $way keep-awake: ream analyze failed: $(tail -1 "$OUT/analyze.err")"; continue; }
    echo "round $r, $way keep-awake ($start UTC):"
    python3 - "$OUT/r$r-$way.json" "$AT" "$way" "$OUT/tally" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); at = float(sys.argv[2]); way = sys.argv[3]
def fmt(p):
    v = "" if p["valid"] else " INVALID"
    return "%g: %.1f [%.1f, %.1f]%s" % (p["target_qps"], p["p95_us"], p["tail_low_us"], p["tail_high_us"], v)
with open(sys.argv[4], "a") as tally:
    for g in j["groups"]:
        pts = {p["target_qps"]: p for p in g["points"]}
        ref = pts.get(at)
        low = [pts[q] for q in sorted(pts) if q < at]
        if ref is None or not low:
            print("  %s: no point at %g QPS or none below it" % (g["key"], at)); continue
        print("  %s: p95 us [95 %% interval] by QPS: %s; %s" % (g["key"], ", ".join(fmt(p) for p in low), fmt(ref)))
        all_valid = all(p["valid"] for p in low)
        strict = all(p["p95_us"] <= ref["p95_us"] for p in low)
        beyond = [p for p in low if p["tail_low_us"] > ref["tail_high_us"]]
        print("    lowest levels valid: %s; not above the %g QPS p95: %s; above it beyond both intervals: %s" % (
            "yes" if all_valid else "no", at, "yes" if strict else "no",
            ", ".join("%g QPS" % p["target_qps"] for p in beyond) if beyond else "none"))
        tally.write("%s %d %d %d %d\n" % (way, int(all_valid), int(strict), int(not beyond), int(ref["valid"])))
PY
  done
done
echo "# tally (sweeps): way, lowest levels all valid, p95 not above the $AT QPS p95 (strict), none above it beyond both intervals, the $AT QPS point valid"
python3 - "$OUT/tally" <<'PY'
import sys, collections
rows = collections.defaultdict(list)
try:
    for line in open(sys.argv[1]):
        w, *v = line.split(); rows[w].append([int(x) for x in v])
except FileNotFoundError:
    pass
for w in ("without", "with"):
    r = rows.get(w, [])
    n = len(r)
    s = [sum(x[i] for x in r) for i in range(4)] if r else [0] * 4
    print("%s keep-awake: %d sweeps; lowest levels valid in %d; strict in %d; none beyond the intervals in %d; reference valid in %d" % (w, n, *s))
PY
