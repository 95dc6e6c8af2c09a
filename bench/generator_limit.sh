#!/usr/bin/env bash
# Is ream's generator at this host's limit? At each rate, `ream load` (its default settings) and
# the simplest open-loop sender (bench/bare_sender.sh: C, spinning, no allocation) take turns
# against the same server on the same CPUs, A B A B A B, and the script prints each one's timely
# share (median of the rounds), the ratio of their late shares and ream's lead or lag in points.
# The bare sender's losses are the host's send path; what ream loses beyond it is ream's own.
#   memcached (one thread), one connection: 1 000, 10 000 and 30 000 QPS;
#   nginx (one worker), 8 connections: 0.5x and 0.9x wrk's closed-loop peak, measured first in
#   the same run (wrk -t 1 -c 8);
# and bench/stalls.sh's floor (a spin loop's instants > 20 us late) in the same run.
# Generator (ream, the bare sender, wrk) on GEN_CPU, servers on SERVER_CPU. Loopback only; every
# server is stopped and every file removed on exit.
#
#   bench/generator_limit.sh [BUILD_DIR]     (default: build; needs BUILD_DIR/ream)
# Environment: GEN_CPU (0), SERVER_CPU (1), SECONDS_PER (5: each trial's measured seconds),
#   ROUNDS (3), RATES ("1000 10000 30000": memcached's), NGINX_X ("0.5 0.9"), TOLERANCE_US (20),
#   REAM_ARGS (extra `ream load` flags, e.g. "--wait sleep" to see what a setting costs).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ream=$build/ream
gen_cpu=${GEN_CPU:-0}
server_cpu=${SERVER_CPU:-1}
secs=${SECONDS_PER:-5}
rounds=${ROUNDS:-3}
rates=${RATES:-1000 10000 30000}
nginx_x=${NGINX_X:-0.5 0.9}
tol=${TOLERANCE_US:-20}
read -r -a ream_args <<<"${REAM_ARGS:-}"

die() { echo "generator_limit.sh: $*" >&2; exit 1; }
[ -x "$ream" ] || die "no ream binary at $ream; build first (make build)"
for tool in memcached nginx wrk taskset python3 cc; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || die "$tool is missing; run scripts/install-deps"
done
[ "$gen_cpu" -lt "$(nproc)" ] && [ "$server_cpu" -lt "$(nproc)" ] || die "GEN_CPU / SERVER_CPU: this machine has $(nproc) CPUs"
for v in "$secs" "$rounds" "$tol"; do case $v in '' | *[!0-9]*) die "'$v' must be a whole number" ;; esac; done

. "$here/bench/servers.sh"
bench_setup generator-limit

echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# generator (ream load, bench/bare_sender.sh, wrk) on CPU $gen_cpu; servers on CPU $server_cpu;" \
  "${secs} s a trial, $rounds rounds of ream then bare, timely tolerance ${tol} us"
echo "# ream load ${ream_args[*]:-(default settings)}"
floor=$("$here/bench/stalls.sh" 2 2>&1) || die "bench/stalls.sh failed: $floor"
spin_floor=$(echo "$floor" | sed -n "s|^ *CPU $gen_cpu:.*20 / 50 / 100 us: \([0-9.]*\) /.*|\1|p" | head -1)
[ -n "$spin_floor" ] || die "could not read bench/stalls.sh's output: $floor"
echo "floor (bench/stalls.sh 2): a spin loop on CPU $gen_cpu finds $spin_floor % of instants > 20 us late"

# memcached: one thread; the bare sender's key, which it sets itself.
mport=$(free_port)
taskset -c "$server_cpu" memcached -p "$mport" -l 127.0.0.1 -t 1 -u nobody >"$tmp/memcached.log" 2>&1 &
pids+=($!)
wait_port "$mport"
# nginx: one worker, keep-alive for ever (the bare sender does not reconnect), a 64-byte answer.
nport=$(free_port)
nd=$tmp/nginx
mkdir -p "$nd/html"
"$here/bench/nginx_conf.sh" "$nd" "$nport" >"$nd/nginx.conf"
taskset -c "$server_cpu" nginx -p "$nd" -c "$nd/nginx.conf" >"$nd/log" 2>&1 &
pids+=($!)
wait_port "$nport"
peak=$(taskset -c "$gen_cpu" wrk -t 1 -c 8 -d "${secs}s" "http://127.0.0.1:$nport/" | awk '/^Requests\/sec:/ {printf "%d", $2}')
[ "${peak:-0}" -gt 0 ] 2>/dev/null || die "wrk measured no peak against nginx"
echo "wrk -t 1 -c 8, closed loop against nginx: $peak requests/s"

# One ream trial: its timely %, or "-" (and the reason on stderr) when it gave no result.
ream_trial() {
  local port=$1 proto=$2 qps=$3 conns=$4 out=$tmp/ream.json
  rm -f "$out"
  taskset -c "$gen_cpu" "$ream" load --target "127.0.0.1:$port" --protocol "$proto" --qps "$qps" \
    --duration "${secs}s" --connections "$conns" --timely-tolerance "${tol}us" --json "$out" \
    --send-floor cached --send-floor-cache "$tmp/send_floor.json" "${ream_args[@]}" >"$tmp/ream.log" 2>&1 || true
  if [ -s "$out" ]; then
    # Its timely % and its own bare sender's (send_floor, cached for the rounds after the first).
    python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); f = j.get("send_floor") or {}
print("%.2f" % (100 * j["timely_ratio"]), "%.2f" % (100 * f["timely_ratio"]) if f.get("available") else "-")' "$out"
  else
    echo "generator_limit.sh: ream gave no result: $(tail -1 "$tmp/ream.log")" >&2
    echo - -
  fi
}
bare_trial() {
  local t
  t=$("$here/bench/bare_sender.sh" "$1" "$2" "$3" "$4" "$secs" "$gen_cpu" "$tol" 2>"$tmp/bare.log" |
    sed -n 's|.*timely \([0-9.]*\) %.*|\1|p')
  [ -n "$t" ] || echo "generator_limit.sh: the bare sender gave no result: $(tail -1 "$tmp/bare.log")" >&2
  echo "${t:--}"
}
# Median of the rounds, the ratio of the medians' late shares, ream's lag in points.
summary() {
  python3 - "$@" <<'EOF'
import statistics, sys
ream = [float(x) for x in sys.argv[1].split() if x != "-"]
bare = [float(x) for x in sys.argv[2].split() if x != "-"]
if not ream or not bare:
    print("%9s %9s %11s %10s" % ("-", "-", "-", "-")); sys.exit()
r, b = statistics.median(ream), statistics.median(bare)
ratio = "%.2fx" % ((100 - r) / (100 - b)) if b < 100 else ("1.00x" if r >= 100 else "inf")
print("%9.2f %9.2f %11s %+10.2f" % (r, b, ratio, b - r))
EOF
}

printf '\n%-30s %6s %9s %9s %11s %10s   %s\n' point conns "ream %" "bare %" "late ratio" "lag (pt)" "rounds (ream / bare, timely %)"
point() {
  local label=$1 port=$2 proto=$3 qps=$4 conns=$5 rs=() bs=() fs=() r f
  for _ in $(seq "$rounds"); do
    read -r r f < <(ream_trial "$port" "$proto" "$qps" "$conns")
    rs+=("$r")
    fs+=("$f")
    bs+=("$(bare_trial "$port" "$proto" "$qps" "$conns")")
  done
  printf '%-30s %6s %s   %s / %s; ream'"'"'s send_floor %s\n' "$label" "$conns" "$(summary "${rs[*]}" "${bs[*]}")" \
    "${rs[*]}" "${bs[*]}" "${fs[*]}"
}
for q in $rates; do point "memcached $q QPS" "$mport" memcached "$q" 1; done
for x in $nginx_x; do
  q=$(python3 -c "print(int($peak * $x))")
  point "nginx ${x}x wrk = $q QPS" "$nport" http "$q" 8
done
echo
echo "# 'late ratio': ream's late share over the bare sender's (medians); 'lag': bare % - ream % (points);"
echo "# ream's send_floor: the host's limit ream measured itself after its run (--send-floor, cached after the first round)."
echo "# floor: $spin_floor % (spin loop, CPU $gen_cpu); load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
