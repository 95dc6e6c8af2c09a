#!/usr/bin/env bash
# ream beside mutilate on Facebook's ETC workload against one memcached, in one run: at each
# asked rate both tools send ETC (keys from fb_key, set values from fb_value, gaps from fb_ia,
# 30 gets to a set, keys uniform over the same count) on the same connections, taking turns
# A B A B A B so the host's drift reaches both, and the script prints per tool the rate memcached
# answered, p50/p95/p99 as each tool reports them, and the bytes each sent and received per
# request, by its own count and by memcached's counters. A last row asks each for its peak:
# mutilate as fast as it can (-q 0), ream at PEAK_X times that. Then it reads back the keys and
# values each tool left in memcached and prints their sizes beside the ETC fits'.
#
# What each reports: mutilate times a request from its send (it reads the clock as it issues
# it) and gets only ("read"); ream times every request (gets and sets) from its scheduled send
# ("schedule", its headline) and from its send ("send"), both from the same run. mutilate's
# percentile table has no median: its p50 is the median of its --save samples (every get); the
# peak row skips --save (each sample copies a key in its hot path), so it has none there.
# mutilate keeps at most DEPTH requests in flight per connection (-d) and then holds back its
# schedule; ream pipelines without a limit, so DEPTH defaults to a depth the asked rates do not
# reach (mutilate's op_q p99, printed, says whether they did). mutilate never seeds its random
# numbers, so every run of it replays the same draws; ream's rounds take seeds 1, 2, 3, so its
# medians are over independent draws (round 1 is its default stream).
#
#   bench/mutilate.sh [BUILD_DIR]     (default: build; needs BUILD_DIR/ream and mutilate, which
#                                      bench/build-mutilate.sh SRC_DIR [BUILD_DIR] builds)
# Environment: SERVER_CPU (0), LOAD_CPU (1), RATES ("5000 20000 40000"), ROUNDS (3),
#   SECONDS_PER (5: each run's measured seconds, after WARMUP (1) unmeasured), CONNECTIONS (8),
#   KEYS (100000), DEPTH (64), PEAK (1: 0 skips the peak row), PEAK_X (1.5),
#   MUTILATE (BUILD_DIR/peers/mutilate), SAMPLE (20000: values read back per tool),
#   BENCH_NICE (0; e.g. -20 as root, for both tools alike). About 3-4 minutes with the defaults.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ream=$build/ream
mutilate=${MUTILATE:-$build/peers/mutilate}
server_cpu=${SERVER_CPU:-0}
load_cpu=${LOAD_CPU:-1}
rates=${RATES:-5000 20000 40000}
rounds=${ROUNDS:-3}
secs=${SECONDS_PER:-5}
warmup=${WARMUP:-1}
conns=${CONNECTIONS:-8}
keys=${KEYS:-100000}
depth=${DEPTH:-64}
peak=${PEAK:-1}
peak_x=${PEAK_X:-1.5}
sample=${SAMPLE:-20000}
bench_nice=${BENCH_NICE:-0}
report=$here/bench/mutilate_report.py

die() { echo "mutilate.sh: $*" >&2; exit 1; }
[ -x "$ream" ] || die "no ream binary at $ream; build first (make build)"
[ -x "$mutilate" ] || die "no mutilate at $mutilate: Debian does not package it; build it from its source with" \
  "bench/build-mutilate.sh SRC_DIR $build (or set MUTILATE to a built one)"
for tool in memcached taskset python3; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || die "$tool is missing; run scripts/install-deps"
done
ncpu=$(nproc)
[ "$server_cpu" -lt "$ncpu" ] && [ "$load_cpu" -lt "$ncpu" ] ||
  die "SERVER_CPU=$server_cpu / LOAD_CPU=$load_cpu: this machine has $ncpu CPUs"
for v in "$rounds" "$secs" "$warmup" "$conns" "$keys" "$depth" "$sample" $rates; do
  case $v in '' | *[!0-9]*) die "'$v' must be a whole number" ;; esac
done

# mutilate's -u is the share of sets; ream's preset asks 30 gets to a set, the same.
update=$(python3 -c 'print(1 / 31)')

. "$here/bench/servers.sh"
bench_setup mutilate-bench
on_cpu() { local cpu=$1; shift; nice -n "$bench_nice" taskset -c "$cpu" "$@"; }

echo "# $(date -u +%FT%TZ) $(uname -r), $ncpu CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# memcached $(memcached -h | head -1 | cut -d' ' -f2) (one thread) pinned to CPU $server_cpu; each generator" \
  "(mutilate, ream load) pinned to CPU $load_cpu, one thread, $conns connections; nice $bench_nice"
echo "# ETC: fb_key / fb_value / fb_ia, 1 set in 31, $keys keys uniform; ${warmup} s warm-up + ${secs} s a run," \
  "$rounds rounds, mutilate then ream; mutilate -d $depth"
echo "# ream $("$ream" --version 2>/dev/null | head -1); mutilate at $mutilate"
# The host's own noise in the same run: no generator is more timely than a spin loop on its CPU
# (at the generators' priority, so that it meets what they meet).
floor=$(nice -n "$bench_nice" "$here/bench/stalls.sh" 1 2>&1) || die "bench/stalls.sh failed: $floor"
floor_of() { echo "$floor" | sed -n "s|^ *CPU $1:.*20 / 50 / 100 us: \([0-9.]*\) /.*|\1|p" | head -1; }
echo "# floor (bench/stalls.sh 1): a spin loop finds $(floor_of "$load_cpu") % of instants > 20 us late on CPU" \
  "$load_cpu (generators), $(floor_of "$server_cpu") % on CPU $server_cpu (memcached)"

# Room for both tools' keys (about 30 MB each at 100 000 keys) so that nothing is evicted.
port=$(free_port)
nice -n "$bench_nice" taskset -c "$server_cpu" memcached -p "$port" -l 127.0.0.1 -t 1 -m 1024 -c 4096 -u nobody \
  >"$tmp/memcached.log" 2>&1 &
pids+=($!)
wait_port "$port"

# Each tool reads its own keys (mutilate's are digits, ream's `key` and digits): mutilate writes
# every one of its records; ream writes 5 sets per key, drawn uniformly (about 99 % of them).
on_cpu "$load_cpu" "$mutilate" -s "127.0.0.1:$port" --loadonly -K fb_key -V fb_value -r "$keys" >"$tmp/load.log" 2>&1 ||
  die "mutilate --loadonly failed: $(tail -3 "$tmp/load.log")"
fill_qps=60000
fill_s=$(( (5 * keys + fill_qps - 1) / fill_qps ))
on_cpu "$load_cpu" "$ream" load --target "127.0.0.1:$port" --protocol memcached --preset etc --get-ratio 0 \
  --keys "$keys" --key-dist uniform --qps "$fill_qps" --duration "${fill_s}s" --warmup 0s --connections "$conns" \
  --threads 1 --send-floor off >"$tmp/load.log" 2>&1 || die "ream's sets of its keys failed: $(tail -3 "$tmp/load.log")"

runs=$tmp/runs.jsonl
: >"$runs"
mutilate_run() {  # ASKED ROUND QPS(0 = as fast as it can) SAVE(yes/no)
  local asked=$1 round=$2 qps=$3 save=$4 out=$tmp/mutilate.out samples=-
  local save_args=()
  if [ "$save" = yes ]; then samples=$tmp/samples; save_args=(--save "$samples"); rm -f "$samples"; fi
  python3 "$report" stats "$port" >"$tmp/before.json"
  on_cpu "$load_cpu" "$mutilate" -s "127.0.0.1:$port" --noload -K fb_key -V fb_value -i fb_ia -r "$keys" \
    -u "$update" -q "$qps" -T 1 -c "$conns" -d "$depth" -t "$secs" -w "$warmup" "${save_args[@]}" >"$out" 2>&1 ||
    die "mutilate failed at $asked: $(tail -3 "$out")"
  python3 "$report" stats "$port" >"$tmp/after.json"
  python3 "$report" mutilate "$out" "$samples" "$tmp/before.json" "$tmp/after.json" "$asked" "$round" | tee -a "$runs" |
    python3 -c 'import json, sys; r = json.loads(sys.stdin.read()); print("  %-7s round %d mutilate         %8.0f QPS, p50 %s p95 %.1f p99 %.1f us, op_q p99 %.0f" % (r["asked"], r["round"], r["qps"], "-" if r["p50"] is None else "%.1f" % r["p50"], r["p95"], r["p99"], r["opq_p99"]))'
}
ream_run() {  # ASKED ROUND QPS
  local asked=$1 round=$2 qps=$3 out=$tmp/ream.json
  rm -f "$out"
  python3 "$report" stats "$port" >"$tmp/before.json"
  on_cpu "$load_cpu" "$ream" load --target "127.0.0.1:$port" --protocol memcached --preset etc --keys "$keys" \
    --key-dist uniform --qps "$qps" --duration "${secs}s" --warmup "${warmup}s" --connections "$conns" --threads 1 \
    --seed "$round" --send-floor off --json "$out" >"$tmp/ream.log" 2>&1 || true
  [ -s "$out" ] || die "ream load gave no result at $asked: $(tail -3 "$tmp/ream.log")"
  python3 "$report" stats "$port" >"$tmp/after.json"
  python3 "$report" ream "$out" "$tmp/before.json" "$tmp/after.json" "$asked" "$round" | tee -a "$runs" |
    python3 -c 'import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print("  %-7s round %d %-16s %8.0f QPS, p50 %.1f p95 %.1f p99 %.1f us, timely %.1f %%, valid %s" % (r["asked"], r["round"], r["tool"], r["qps"], r["p50"], r["p95"], r["p99"], r["timely"], "yes" if r["valid"] else "no"))'
}

for q in $rates; do
  for r in $(seq "$rounds"); do
    mutilate_run "$q" "$r" "$q" yes
    ream_run "$q" "$r" "$q"
  done
done
if [ "$peak" != 0 ]; then
  for r in $(seq "$rounds"); do
    mutilate_run peak "$r" 0 no
    mpeak=$(tail -1 "$runs" | python3 -c 'import json, sys; print(int(json.loads(sys.stdin.read())["qps"]))')
    ream_run peak "$r" "$(python3 -c "print(int($mpeak * $peak_x))")"
  done
fi

echo
echo "QPS: requests answered per second of the measured window (mutilate's 'Total QPS', ream's throughput)."
echo "p50/p95/p99: mutilate gets from its send (p95/p99 its table's, p50 its --save samples' median);"
echo "ream every request, from its schedule and from its send. sent/recv B: bytes per request by the tool's"
echo "own count (mutilate's received count leaves out the CRLF that ends each line it reads: 2 bytes a line);"
echo "server in/out: memcached's bytes_read/bytes_written per request over the run (warm-up too);"
echo "hits: memcached's get_hits over gets. peak: mutilate -q 0 (depth $depth), ream asked ${peak_x}x its result."
python3 "$report" table "$runs"
echo
python3 "$report" sizes "$port" "$sample"
echo "# load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
