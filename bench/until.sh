#!/usr/bin/env bash
# Measure until known against a fixed duration, on the memcached example (examples/memcached.toml),
# in one run of this script: the example's own probes first choose its levels (ream run as
# shipped); then the same levels are swept three times, without probes:
#   fixed   the example's fixed duration, 1 s a point, as shipped;
#   judged  the same 1 s points with the judge watching but unable to stop them (its half-width,
#           ±0.01 %, is below the histogram's precision, so each runs to max 1s): the judge's
#           batch means interval of a fixed 1 s point, the honest one for answers alike;
#   until   `[load] until = "$UNTIL"`.
# For every level it prints how long each measured and the p95's 95 % intervals: ream analyze's
# (the binomial interval of the stored histogram, as if the answers were independent; ± its
# larger side relative to p95) and the judge's (from batches of consecutive windows), with the
# check that ended each until point; then each sweep's total measured time and wall time, and
# the widest judged interval of a valid point on each side.
# Usage: bench/until.sh [BUILD_DIR]   (default build; root, memcached). Env: UNTIL (default
# "p95 ±5% max 5s"); KEEP=1 keeps the specs, databases and logs (the directory is printed).
set -euo pipefail
BUILD=${1:-build}
REAM="$(cd "$(dirname "$BUILD/ream")" && pwd)/ream"
UNTIL=${UNTIL:-p95 ±5% max 5s}
HERE=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$REAM" ] || { echo "until.sh: $REAM not found; build first (make build)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "until.sh: ream run needs root (sandboxes)" >&2; exit 2; }
command -v memcached >/dev/null || { echo "until.sh: memcached is not installed (scripts/install-deps)" >&2; exit 2; }

OUT=$(mktemp -d /tmp/ream-until.XXXXXX)
if [ -n "${KEEP:-}" ]; then echo "until.sh: keeping $OUT"; else trap 'rm -rf "$OUT"' EXIT; fi
cd "$HERE"

# 1. The example as shipped: its probes choose the levels.
"$REAM" run examples/memcached.toml --db "$OUT/probe.db" >"$OUT/probe.log" 2>&1 ||
  { cat "$OUT/probe.log" >&2; exit 1; }
LEVELS=$(python3 - "$OUT/probe.db" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT DISTINCT p.target_load FROM points p JOIN runs r ON p.run_id = r.id "
                  "WHERE r.scenario = '1-ST' ORDER BY p.target_load").fetchall()
print(", ".join("%.0f" % r[0] for r in rows))
EOF
)
[ -n "$LEVELS" ] || { echo "until.sh: the example measured no level" >&2; exit 1; }
echo "levels chosen by the example's probes (1-ST): $LEVELS QPS"

# 2. The same levels, fixed and until, each a grid without probes (1-ST only: the scenario
# every machine can place).
spec() {  # NAME EXTRA_LOAD_LINE
  sed -e "s/^name = .*/name = \"$1\"/" -e 's/^scenarios = .*/scenarios = ["1-ST"]/' \
      -e "s/^qps = \"auto\"/qps = [$LEVELS]/" -e '/^probe_start/d' -e '/^probe_duration/d' -e '/^steps/d' \
      -e "s/^duration = \"1s\"/duration = \"1s\"\n$2/" examples/memcached.toml
}
spec fixed "" >"$OUT/fixed.toml"
spec judged "until = \"p95 ±0.01% max 1s\"" >"$OUT/judged.toml"
spec until "until = \"$UNTIL\"" >"$OUT/until.toml"
for name in fixed judged until; do
  start=$(date +%s.%N)
  "$REAM" run "$OUT/$name.toml" --db "$OUT/$name.db" >"$OUT/$name.log" 2>&1 || { cat "$OUT/$name.log" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc >"$OUT/$name.wall"
  # No valid point (a host too busy to keep any schedule): no analysis, the table says "-".
  "$REAM" analyze --json --db "$OUT/$name.db" --experiment "$name" >"$OUT/$name.json" 2>/dev/null || echo '{}' >"$OUT/$name.json"
done

python3 - "$OUT" "$UNTIL" <<'EOF'
import json, sqlite3, sys
out, rule = sys.argv[1], sys.argv[2]
def load(name):
    db = sqlite3.connect(f"{out}/{name}.db")
    cols = [r[1] for r in db.execute("PRAGMA table_info(points)")]
    extra = ", until_decided, until_interval" if "until_decided" in cols else ", NULL, NULL"
    rows = db.execute("SELECT target_load, duration_s, valid" + extra + " FROM points ORDER BY target_load, attempt").fetchall()
    pts = {}
    for load_, dur, valid, decided, interval in rows:
        # A level measured again ([load] attempts): its last attempt shown, every attempt's time counted.
        before = pts.get(round(load_), {})
        pts[round(load_)] = dict(duration=(before.get("duration") or 0) + (dur or 0), valid=valid, decided=decided,
                                 judge=interval, attempts=before.get("attempts", 0) + 1)
    a = json.load(open(f"{out}/{name}.json"))
    for g in a.get("groups", []):
        for p in g["points"]:
            t, lo, hi = p.get("tail_us"), p.get("tail_low_us"), p.get("tail_high_us")
            key = round(p.get("target_qps", p.get("target_load", 0)))
            if key in pts and t and lo is not None and hi is not None:
                pts[key]["interval"] = max(t - lo, hi - t) / t
                pts[key]["p95"] = t
    wall = float(open(f"{out}/{name}.wall").read())
    return pts, wall
fixed, fwall = load("fixed")
judged, jwall = load("judged")
until, uwall = load("until")
pct = lambda v: "%.2f %%" % (100 * v) if v is not None else "-"
print(f"\n{'':>8}  {'fixed 1 s':^24}  |  {'judged 1 s':^17}  |  {'until':^34}")
print(f"{'QPS':>8}  {'s':>5} {'p95 us':>7} {'binomial':>9}  |  {'p95 us':>7} {'judge':>9}  |  "
      f"{'s':>5} {'p95 us':>7} {'binomial':>9} {'judge':>9}  decided by")
for q in sorted(set(fixed) | set(judged) | set(until)):
    f, j, u = fixed.get(q, {}), judged.get(q, {}), until.get(q, {})
    mark = lambda p: "" if p.get("valid", 1) else "!"
    print(f"{q:>8}  {f.get('duration') or 0:>5.2f} {f.get('p95') or 0:>7.1f} {pct(f.get('interval')):>9}{mark(f):1} |  "
          f"{j.get('p95') or 0:>7.1f} {pct(j.get('judge')):>9}{mark(j):1} |  "
          f"{u.get('duration') or 0:>5.2f} {u.get('p95') or 0:>7.1f} {pct(u.get('interval')):>9} {pct(u.get('judge')):>9}{mark(u):1} "
          f"{(u.get('decided') or '-')[:150]}")
print("(s: every attempt's measured time; ! after an interval: the level's last attempt is invalid)")
total = lambda pts: sum(p.get("duration") or 0 for p in pts.values())
widest = lambda pts, k: max((p[k] for p in pts.values() if p.get("valid") and p.get(k) is not None), default=None)
fsum, jsum, usum = total(fixed), total(judged), total(until)
print(f"\nfixed 1s : measured {fsum:.2f} s in all, sweep wall {fwall:.1f} s; widest binomial interval of a valid point {pct(widest(fixed, 'interval'))}")
print(f"judged 1s: measured {jsum:.2f} s in all, sweep wall {jwall:.1f} s; widest judged interval of a valid point {pct(widest(judged, 'judge'))}")
print(f"until    : measured {usum:.2f} s in all, sweep wall {uwall:.1f} s; widest judged interval of a valid point {pct(widest(until, 'judge'))}  ({rule})")
print(f"until / fixed: measured time {usum / fsum:.2f}x, wall {uwall / fwall:.2f}x")
EOF
