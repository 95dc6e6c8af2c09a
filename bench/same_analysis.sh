#!/usr/bin/env bash
# Does a change of ream keep its analysis? Runs each spec with two ream binaries in turn (OLD,
# then NEW), then compares:
#   same data    OLD's database analysed by both binaries: the JSON must be the same, but for
#                keys only NEW prints (listed, never silently accepted);
#   same keys    NEW's analysis of its own run against OLD's of its own: the same keys everywhere;
#   figures      every capacity with an interval (and the co-location table's alone/together
#                capacities) measured by NEW against OLD's: the intervals must overlap, and a
#                bound ("at least N") must be a bound on both sides.
# Usage: bench/same_analysis.sh OLD_REAM NEW_REAM SPEC.toml...
#   e.g. bench/same_analysis.sh /tmp/old/build/ream build/ream examples/colocation.toml examples/batch.toml
# Runs as root (the specs' sandboxes); the databases and analyses stay in $OUT (default a new
# directory under /var/tmp) for a second look; with REUSE=1 a database already there is compared
# again without running its spec (a database holding other experiments too is fine: the spec's
# own is analysed). Exit 0 when every comparison holds, 1 otherwise.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
old=$(readlink -f "$1") new=$(readlink -f "$2")
shift 2
out=${OUT:-$(mktemp -d /var/tmp/ream-same-analysis.XXXXXX)}
mkdir -p "$out"
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# old: $old ($("$old" --version 2>/dev/null | head -1))"
echo "# new: $new ($("$new" --version 2>/dev/null | head -1))"
echo "# results in $out"
# Specs by absolute path, run from a directory every account may write: a ream that starts its
# co-runners in its own working directory (as older ones did) needs one their user can write.
specs=()
for spec in "$@"; do specs+=("$(readlink -f "$spec")"); done
scratch=$(mktemp -d /tmp/ream-same-analysis.XXXXXX)
chmod 1777 "$scratch"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
status=0
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .toml)
  for side in old new; do
    bin=$old
    [[ $side == new ]] && bin=$new
    db=$out/$name-$side.db
    if [[ -n ${REUSE:-} && -s $db ]]; then
      echo "$name: $side run reused from $db"
      continue
    fi
    rm -f "$db"
    t0=$SECONDS
    if ! "$bin" run "$spec" --db "$db" >"$out/$name-$side.run.log" 2>&1; then
      echo "$name: the $side ream's run failed (see $out/$name-$side.run.log)"
      status=1
      continue 2
    fi
    echo "$name: $side run in $((SECONDS - t0)) s"
  done
  # The spec's own experiment, so a database that holds others too (bench/interference.sh's
  # subject and reporter) compares the right one.
  exp=$(sed -n 's/^name *= *"\([^"]*\)".*/\1/p' "$spec" | head -1)
  "$old" analyze --db "$out/$name-old.db" --experiment "$exp" --json >"$out/$name-old-by-old.json"
  "$new" analyze --db "$out/$name-old.db" --experiment "$exp" --json >"$out/$name-old-by-new.json"
  "$new" analyze --db "$out/$name-new.db" --experiment "$exp" --json >"$out/$name-new-by-new.json"
  python3 - "$out" "$name" <<'EOF' || status=1
import json, sys

out, name = sys.argv[1], sys.argv[2]
load = lambda s: json.load(open(f"{out}/{name}-{s}.json"))
old_by_old, old_by_new, new_by_new = load("old-by-old"), load("old-by-new"), load("new-by-new")

def paths(x, p=""):
    """Every key path; list items by index."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield p + "." + k
            yield from paths(v, p + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from paths(v, f"{p}[{i}]")

def strip_index(p):
    import re
    return re.sub(r"\[\d+\]", "[]", p)

ok = True
# Same data: the two binaries' analyses of one database.
a, b = set(paths(old_by_old)), set(paths(old_by_new))
only_new = sorted({strip_index(p) for p in b - a})
only_old = sorted({strip_index(p) for p in a - b})
if only_old:
    ok = False
    print(f"{name}: same data: keys the new ream no longer prints: {', '.join(only_old)}")
if only_new:
    print(f"{name}: same data: keys only the new ream prints: {', '.join(only_new)}")

def drop(x, keys):
    if isinstance(x, dict):
        return {k: drop(v, keys) for k, v in x.items() if strip_index(k) not in keys}
    if isinstance(x, list):
        return [drop(v, keys) for v in x]
    return x

new_leaf_keys = {p.rsplit(".", 1)[-1] for p in only_new}
diffs = []
def compare(x, y, p=""):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in x.keys() & y.keys():
            compare(x[k], y[k], p + "." + k)
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (u, v) in enumerate(zip(x, y)):
            compare(u, v, f"{p}[{i}]")
    elif isinstance(x, float) and isinstance(y, float):
        if abs(x - y) > 1e-9 * max(1.0, abs(x)):
            diffs.append(f"{p}: {x} -> {y}")
    elif x != y:
        diffs.append(f"{p}: {json.dumps(x)[:80]} -> {json.dumps(y)[:80]}")
compare(drop(old_by_old, new_leaf_keys), drop(old_by_new, new_leaf_keys))
if diffs:
    ok = False
    print(f"{name}: same data: {len(diffs)} figures differ:")
    for d in diffs[:20]:
        print("   ", d)
else:
    print(f"{name}: same data: every figure the same ({len(a)} keys)")

# Same keys: each binary's analysis of its own run.
a, b = {strip_index(p) for p in paths(old_by_new)}, {strip_index(p) for p in paths(new_by_new)}
if a != b:
    # A key that holds a value in one run and null in the other can hide the keys below it.
    print(f"{name}: same keys: differ: only old run {sorted(a - b)[:10]}, only new run {sorted(b - a)[:10]}")
    ok = ok and not (a - b) and not (b - a)
else:
    print(f"{name}: same keys: yes ({len(a)} key paths)")

# Figures: capacities with their intervals, wherever they stand.
def capacities(x, p=""):
    if isinstance(x, dict):
        if "lower_bound" in x and ("capacity" in x or "qps" in x):
            c = dict(x)
            c["capacity"] = x.get("capacity", x.get("qps"))
            yield p, c
        for k, v in x.items():
            yield from capacities(v, p + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from capacities(v, f"{p}[{i}]")

def show(c):
    if c.get("capacity") is None:
        return "none"
    s = ("≥ " if c.get("lower_bound") else "") + f"{c['capacity']:.0f}"
    if c.get("low") is not None and c.get("high") is not None:
        s += f" [{c['low']:.0f}, {c['high']:.0f}]"
    return s

old_caps, new_caps = dict(capacities(old_by_new)), dict(capacities(new_by_new))
held = total = 0
for p in sorted(old_caps.keys() & new_caps.keys()):
    o, n = old_caps[p], new_caps[p]
    total += 1
    if o.get("capacity") is None or n.get("capacity") is None:
        same = (o.get("capacity") is None) == (n.get("capacity") is None)
    elif o.get("lower_bound") or n.get("lower_bound"):
        same = bool(o.get("lower_bound")) == bool(n.get("lower_bound")) and o["capacity"] == n["capacity"]
    else:
        lo_o, hi_o = o.get("low", o["capacity"]), o.get("high", o["capacity"])
        lo_n, hi_n = n.get("low", n["capacity"]), n.get("high", n["capacity"])
        lo_o = o["capacity"] if lo_o is None else lo_o
        hi_o = o["capacity"] if hi_o is None else hi_o
        lo_n = n["capacity"] if lo_n is None else lo_n
        hi_n = n["capacity"] if hi_n is None else hi_n
        same = lo_o <= hi_n and lo_n <= hi_o
    held += same
    print(f"    {'ok  ' if same else 'DIFF'} {p}: old {show(o)}, new {show(n)}")
print(f"{name}: figures: {held} of {total} capacities agree within their intervals")
if held < total:
    ok = False

# Figures with an interval across repetitions: {"mean", "low", "high"} (a batch program's run
# time, its slowdowns).
def intervals(x, p=""):
    if isinstance(x, dict):
        if "mean" in x and "low" in x and "high" in x:
            yield p, x
        for k, v in x.items():
            yield from intervals(v, p + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from intervals(v, f"{p}[{i}]")

old_iv, new_iv = dict(intervals(old_by_new)), dict(intervals(new_by_new))
held = total = 0
for p in sorted(old_iv.keys() & new_iv.keys()):
    o, n = old_iv[p], new_iv[p]
    if None in (o.get("low"), o.get("high"), n.get("low"), n.get("high")):
        continue  # no interval on a side: nothing to hold it to
    total += 1
    same = o["low"] <= n["high"] and n["low"] <= o["high"]
    held += same
    print(f"    {'ok  ' if same else 'DIFF'} {p}: old {o['mean']:.4g} [{o['low']:.4g}, {o['high']:.4g}], "
          f"new {n['mean']:.4g} [{n['low']:.4g}, {n['high']:.4g}]")
if total:
    print(f"{name}: figures: {held} of {total} means with intervals agree within them")
    if held < total:
        ok = False
sys.exit(0 if ok else 1)
EOF
done
exit $status
