#!/usr/bin/env bash
# What a compiler flag costs or saves: compiles the same translation units of a configured
# build tree with its own command line and with FLAGS appended, alternating (A B A B ...) so
# the host's drift touches both alike, and prints each pair and the ratio of the totals.
# Usage: bench/compile-cost.sh BUILD_DIR "FLAGS" [REPS] [TARGET_REGEX]
#   bench/compile-cost.sh build "-fno-var-tracking" 2
set -euo pipefail
build=${1:?usage: bench/compile-cost.sh BUILD_DIR FLAGS [REPS] [TARGET_REGEX]}
flags=${2:?FLAGS}
reps=${3:-2}
re=${4:-'ream_experiment.dir/Unity/unity_1|ream.dir/Unity/unity_0|analysis_test.dir|store_test.dir|monitor_test.dir|generator_test.dir'}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mapfile -t cmds < <(ninja -C "$build" -t commands | grep -E -- "-c .*($re)" | grep -v -- '-fsyntax-only' |
  sed -E "s# -o [^ ]+\.o # -o $out/x.o #" | sort -u)
[ ${#cmds[@]} -gt 0 ] || { echo "compile-cost: no compile command matches '$re' in $build" >&2; exit 1; }
secs() {
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$build" && eval "$1") >/dev/null 2>&1 || { echo "compile-cost: failed: $1" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }
ta=0; tb=0
for ((r = 1; r <= reps; r++)); do
  for c in "${cmds[@]}"; do
    a=$(secs "$c"); b=$(secs "$c $flags")
    ta=$(add "$ta" "$a"); tb=$(add "$tb" "$b")
    name=$(grep -oE -- "-c [^ ]+" <<<"$c" | sed -E 's#.*/src/##; s#-c ##')
    printf '%6.1f s  %6.1f s  %s\n' "$a" "$b" "$name"
  done
done
awk -v a="$ta" -v b="$tb" -v f="$flags" \
  'BEGIN { printf "total: %.1f s as configured, %.1f s with %s: ratio %.2f\n", a, b, f, b / a }'
