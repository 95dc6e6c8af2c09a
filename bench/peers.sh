#!/usr/bin/env bash
# ream's open-loop generator against the real servers, side by side with their own closed-loop
# load tools, in one run: Redis (redis-benchmark) and nginx (wrk), the server pinned to one
# CPU and every load generator to another, the same connection count for both tools.
#
# For each server it prints the peer tool's closed-loop maximum (requests/s), the highest rate
# at which `ream load` stays valid (ream's own verdict: timely >= 97.5 %, achieved rate within
# 2 %, no errors) *and keeps up* (p99 sojourn <= $REAM_P99_LIMIT_US, since
# an overloaded server's queue grows for the whole run, which a few-second window could
# otherwise hide behind a still-valid send schedule), and their ratio. Target: ratio >= 0.9.
#
#   bench/peers.sh [BUILD_DIR]     (default: build; needs BUILD_DIR/ream)
# Environment: SERVER_CPU (0), LOAD_CPU (1), CONNECTIONS (8), PEER_SECONDS (10),
#   TRIAL_SECONDS (4), REAM_P99_LIMIT_US (5000), BENCH_NICE (0; e.g. -20 as root so that other
#   work on a shared machine does not take the pinned CPUs from the servers and generators —
#   it applies to both sides alike), TIMELY_TOLERANCE (ream's default, 20us; a machine whose
#   own timer noise exceeds it — see bench/stalls.sh — needs a wider one, and the figure is
#   only meaningful with the tolerance stated next to it, as this script prints it).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ream=$build/ream
server_cpu=${SERVER_CPU:-0}
load_cpu=${LOAD_CPU:-1}
conns=${CONNECTIONS:-8}
peer_s=${PEER_SECONDS:-10}
trial_s=${TRIAL_SECONDS:-4}
p99_limit_us=${REAM_P99_LIMIT_US:-5000}
bench_nice=${BENCH_NICE:-0}
tolerance=${TIMELY_TOLERANCE:-20us}
# Every load generator runs through this: pinned, at the chosen priority. (Servers are started
# with the same nice/taskset prefix written out, so that $! is the server itself: nice and
# taskset exec, a shell function would not.)
on_cpu() { local cpu=$1; shift; nice -n "$bench_nice" taskset -c "$cpu" "$@"; }

die() { echo "peers.sh: $*" >&2; exit 1; }
[ -x "$ream" ] || die "no ream binary at $ream; build first (cmake --build $build)"
for tool in redis-server redis-benchmark redis-cli nginx wrk memcached taskset python3; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] ||
    die "$tool is missing; run scripts/install-deps"
done
ncpu=$(nproc)
[ "$server_cpu" -lt "$ncpu" ] && [ "$load_cpu" -lt "$ncpu" ] ||
  die "SERVER_CPU=$server_cpu / LOAD_CPU=$load_cpu: this machine has $ncpu CPUs"

. "$here/bench/servers.sh"
bench_setup peers-bench

# One `ream load` trial at rate $2 against port $1 (protocol args follow); prints
# "valid p99_us achieved_qps reasons".
ream_trial() {
  local port=$1 qps=$2
  shift 2
  local out=$tmp/trial.json
  on_cpu "$load_cpu" "$ream" load --target "127.0.0.1:$port" --qps "$qps" \
    --duration "${trial_s}s" --warmup 1s --connections "$conns" --threads 1 \
    --timely-tolerance "$tolerance" --json "$out" "$@" >/dev/null 2>&1 || true
  [ -s "$out" ] || { echo "false 0 0 no-json"; return; }
  python3 - "$out" "$p99_limit_us" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
p99 = (j.get("latency_us") or {}).get("p99") or 0
ok = bool(j["valid"]) and p99 <= float(sys.argv[2])
why = "; ".join(j.get("invalid_reasons") or []) or ("p99 %.0f us over the limit" % p99 if not ok else "")
print("true" if ok else "false", "%.0f" % p99, "%.0f" % j["achieved_qps"], why.replace(" ", "_")[:160])
EOF
}

# Highest passing rate: step up from a fraction of the peer's maximum until a trial fails,
# then bisect to 2 %. Prints the rate; the trials go to stderr.
search_rate() {
  local port=$1 peer_max=$2
  shift 2
  local lo=0 hi=0 rate verdict
  rate=$(python3 -c "print(int($peer_max * 0.9))")
  while :; do
    read -r verdict p99 achieved why < <(ream_trial "$port" "$rate" "$@")
    echo "  ream at $rate QPS: pass=$verdict p99=${p99}us achieved=$achieved $why" >&2
    if [ "$verdict" = true ]; then
      lo=$rate
      rate=$(python3 -c "print(int($rate * 1.1))")
      if python3 -c "import sys; sys.exit(0 if $rate > 3 * $peer_max else 1)"; then break; fi
    else
      hi=$rate
      [ "$lo" -gt 0 ] && break
      rate=$(python3 -c "print(int($rate * 0.8))")
      [ "$rate" -lt 100 ] && break
    fi
  done
  while [ "$lo" -gt 0 ] && [ "$hi" -gt 0 ] &&
    python3 -c "import sys; sys.exit(0 if $hi > $lo * 1.02 else 1)"; do
    rate=$(( (lo + hi) / 2 ))
    read -r verdict p99 achieved why < <(ream_trial "$port" "$rate" "$@")
    echo "  ream at $rate QPS: pass=$verdict p99=${p99}us achieved=$achieved $why" >&2
    if [ "$verdict" = true ]; then lo=$rate; else hi=$rate; fi
  done
  echo "$lo"
}

echo "bench/peers.sh: server on CPU $server_cpu, load generators on CPU $load_cpu," \
  "$conns connections, peer runs ${peer_s}s, ream trials ${trial_s}s (+1s warm-up)," \
  "ream pass = valid (timely tolerance $tolerance) and p99 <= ${p99_limit_us}us, nice $bench_nice"
echo "$(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, ream $("$ream" --version 2>/dev/null | head -1)"

# --- Redis ------------------------------------------------------------------------------
rport=$(free_port)
mkdir "$tmp/redis"
nice -n "$bench_nice" taskset -c "$server_cpu" redis-server --port "$rport" --bind 127.0.0.1 --dir "$tmp/redis" \
  --save "" --appendonly no --daemonize no >"$tmp/redis/log" 2>&1 &
pids+=($!)
wait_port "$rport"
# Both tools read existing 64-byte values: preload redis-benchmark's keys (key:NNNNNNNNNNNN)
# and ream's (key0000000000000..) alike.
on_cpu "$load_cpu" redis-benchmark -p "$rport" -c "$conns" -n 200000 -r 100000 -d 64 \
  -t set -q >/dev/null
on_cpu "$load_cpu" "$ream" load --target "127.0.0.1:$rport" --protocol redis --qps 20000 \
  --duration 5s --warmup 0s --get-ratio 0 --keys 100000 --key-dist uniform --value-bytes 64 \
  --connections "$conns" >/dev/null 2>&1 || true
requests=$(( peer_s * 100000 ))
redis_peer=$(on_cpu "$load_cpu" redis-benchmark -p "$rport" -c "$conns" -n "$requests" \
  -r 100000 -d 64 -t get --csv 2>/dev/null | python3 -c '
import csv, sys
rows = [r for r in csv.reader(sys.stdin) if r and r[0].upper().startswith("GET")]
print(int(float(rows[-1][1])))')
echo "redis-benchmark GET, $conns connections, closed loop: $redis_peer requests/s"
redis_ream=$(search_rate "$rport" "$redis_peer" --protocol redis --get-ratio 1 --keys 100000 \
  --key-dist uniform --value-bytes 64)

# --- nginx ------------------------------------------------------------------------------
nport=$(free_port)
nd=$tmp/nginx
mkdir -p "$nd/html"
"$here/bench/nginx_conf.sh" "$nd" "$nport" >"$nd/nginx.conf"
nice -n "$bench_nice" taskset -c "$server_cpu" nginx -p "$nd" -c "$nd/nginx.conf" >"$nd/log" 2>&1 &
pids+=($!)
wait_port "$nport"
nginx_peer=$(on_cpu "$load_cpu" wrk -t 1 -c "$conns" -d "${peer_s}s" \
  "http://127.0.0.1:$nport/" | awk '/^Requests\/sec:/ {printf "%d", $2}')
echo "wrk, $conns connections, closed loop: $nginx_peer requests/s"
nginx_ream=$(search_rate "$nport" "$nginx_peer" --protocol http --get-ratio 1)

# --- memcached and mutilate (timeliness against the floor) -----------------------
# mutilate is not in Debian: it builds from its source (bench/build-mutilate.sh SRC_DIR); where
# it is not built, its part is skipped and the script says so.
mutilate=${MUTILATE:-$build/peers/mutilate}
mport=$(free_port)
nice -n "$bench_nice" taskset -c "$server_cpu" memcached -p "$mport" -l 127.0.0.1 -t 1 -u nobody \
  >"$tmp/memcached.log" 2>&1 &
pids+=($!)
wait_port "$mport"
mc_peer=0
if [ -x "$mutilate" ]; then
  on_cpu "$load_cpu" "$mutilate" -s "127.0.0.1:$mport" --loadonly -K 30 -V 64 -r 100000 >/dev/null 2>&1
  # Closed loop, depth 1 (one outstanding request per connection, as ream's connections are),
  # gets only (-u 0).
  mc_peer=$(on_cpu "$load_cpu" "$mutilate" -s "127.0.0.1:$mport" --noload -K 30 -V 64 -r 100000 \
    -c "$conns" -d 1 -u 0 -t "$peer_s" 2>/dev/null | awk '/^Total QPS/ {printf "%d", $4}')
  echo "mutilate gets, $conns connections, depth 1, closed loop: $mc_peer requests/s"
else
  echo "mutilate: not built at $mutilate (bench/build-mutilate.sh SRC_DIR builds it): its part is skipped"
fi
# ream writes the keys it reads (ream's own key names), once.
on_cpu "$load_cpu" "$ream" load --target "127.0.0.1:$mport" --protocol memcached --qps 20000 \
  --duration 6s --warmup 0s --get-ratio 0 --keys 100000 --key-dist uniform --value-bytes 64 \
  --connections "$conns" >/dev/null 2>&1 || true

# The CPU time a closed-loop peer spends per request: its user + system time (the kernel's
# accounting of the finished child) over the requests it reported.
cpu_of() {
  python3 -c '
import resource, subprocess, sys
out = subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout
r = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stdout.write(out)
print("cpu_s %.3f" % (r.ru_utime + r.ru_stime))' "$@"
}
wrk_out=$(cpu_of nice -n "$bench_nice" taskset -c "$load_cpu" wrk -t 1 -c "$conns" -d "${peer_s}s" \
  "http://127.0.0.1:$nport/")
wrk_rps=$(echo "$wrk_out" | awk '/^Requests\/sec:/ {print $2}')
wrk_cpu=$(echo "$wrk_out" | awk '/^cpu_s/ {print $2}')
wrk_us_per_req=$(python3 -c "print('%.2f' % ($wrk_cpu * 1e6 / ($wrk_rps * $peer_s)))")
echo "wrk again, with its CPU time: $wrk_rps requests/s, $wrk_us_per_req us of CPU per request"

# The floor, in the same run: the share of instants a perfect spinning generator on the load
# CPU would find more than 20 us late, and the same after a sleep (bench/stalls.sh).
floor_out=$("$here/bench/stalls.sh" 2 2>&1)
# "CPU 1: ... instants late by > 20 / 50 / 100 us: A / B / C %" and "2. ... late by > 20 us: D %"
spin_floor=$(echo "$floor_out" | sed -n "s|.*CPU $load_cpu:.*20 / 50 / 100 us: \([0-9.]*\) /.*|\1|p")
sleep_floor=$(echo "$floor_out" | sed -n 's|^2\..*late by > 20 us: \([0-9.]*\) %.*|\1|p')
[ -n "$spin_floor" ] && [ -n "$sleep_floor" ] || die "could not read bench/stalls.sh's output: $floor_out"
echo "floor (bench/stalls.sh 2): instants > 20 us late: spinning on CPU $load_cpu $spin_floor %, after a sleep $sleep_floor %"

# One timeliness trial: prints "timely_% valid achieved us_per_request".
timely_trial() {
  local port=$1 qps=$2
  shift 2
  local out=$tmp/timely.json
  rm -f "$out"
  on_cpu "$load_cpu" "$ream" load --target "127.0.0.1:$port" --qps "$qps" \
    --duration "${trial_s}s" --warmup 1s --connections "$conns" --threads 1 --json "$out" "$@" \
    >/dev/null 2>&1 || true
  [ -s "$out" ] || { echo "- false 0 -"; return; }
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("%.2f" % (100 * j["timely_ratio"]), str(j["valid"]).lower(), "%.0f" % j["achieved_qps"],
      "%.2f" % (j.get("generator_cpu_us_per_request") or 0))' "$out"
}
# The bare sender's timely % at PORT PROTO QPS (bench/bare_sender.sh), "-" when it gave none.
bare_trial() {
  local out
  out=$(nice -n "$bench_nice" "$here/bench/bare_sender.sh" "$1" "$2" "$3" "$conns" "$trial_s" "$load_cpu" \
    2>/dev/null | sed -n 's|.*timely \([0-9.]*\) %.*|\1|p')
  echo "${out:--}"
}
# (100 - timely) - floor, in percentage points; "-" when the trial gave no result.
over_floor() { python3 -c "import sys; t = sys.argv[1]; print('-' if t == '-' else '%+.2f' % ((100 - float(t)) - float(sys.argv[2])))" "$1" "$2"; }
# ream's non-timely share less the bare sender's, in percentage points ("-" if either is missing).
over_bare() { [ "$2" = - ] && echo - || over_floor "$1" "$(python3 -c "print(100 - $2)")"; }
echo
echo "ream's timeliness at the default 20 us tolerance, one thread on CPU $load_cpu (wait sleep);"
echo "'late-floor' = ream's non-timely share less the spinning floor, percentage points;"
echo "'bare %' = the timely share of the simplest open-loop sender (bench/bare_sender.sh: C, spinning,"
echo "no parsing) at the same rate, connections, server and CPU, just before ream's trial: the"
echo "floor of sending at that rate here; 'late-bare' = ream's non-timely share less the bare sender's:"
printf '  %-10s %-6s %9s %9s %10s %8s %10s %s\n' server x QPS "timely %" late-floor "bare %" late-bare verdict
for server in nginx memcached; do
  if [ "$server" = nginx ]; then
    peer=$nginx_peer port=$nport args=(--protocol http --get-ratio 1)
  else
    peer=$mc_peer port=$mport
    args=(--protocol memcached --get-ratio 1 --keys 100000 --key-dist uniform --value-bytes 64)
  fi
  [ "$peer" -gt 0 ] 2>/dev/null || { echo "  $server: no peer peak measured, skipped"; continue; }
  for x in 0.25 0.5 0.5 0.5 0.9; do
    qps=$(python3 -c "print(int($peer * $x))")
    bare=$(bare_trial "$port" "$([ "$server" = nginx ] && echo http || echo memcached)" "$qps")
    read -r timely valid _ _ < <(timely_trial "$port" "$qps" "${args[@]}")
    printf '  %-10s %-6s %9s %9s %10s %8s %10s valid=%s\n' "$server" "${x}x" "$qps" "$timely" \
      "$(over_floor "$timely" "$spin_floor")" "$bare" "$(over_bare "$timely" "$bare")" "$valid"
    # At 0.5x, each round once more with both CPUs kept awake (`--keep-awake`: the kernel's idle
    # polling where the CPUs' idle driver can poll): the sends no longer wait for the server's
    # halted vCPU to be woken (bench/stalls.sh probe 4).
    if [ "$x" = 0.5 ]; then
      read -r timely valid _ _ < <(timely_trial "$port" "$qps" "${args[@]}" --keep-awake "$server_cpu,$load_cpu")
      printf '  %-10s %-6s %9s %9s %10s %8s %10s valid=%s (CPUs %s kept awake)\n' "$server" "${x}x" "$qps" "$timely" \
        "$(over_floor "$timely" "$spin_floor")" "$bare" "$(over_bare "$timely" "$bare")" "$valid" "$server_cpu,$load_cpu"
    fi
  done
  # ream's send capacity: the rate achieved when asked for 1.5x the peer's closed-loop peak.
  read -r _ _ achieved per_req < <(timely_trial "$port" "$(python3 -c "print(int($peer * 1.5))")" "${args[@]}")
  echo "  $server: send capacity (achieved at 1.5x the peer's peak): $achieved QPS against a peer peak of $peer; ream's CPU per request there: $per_req us"
done
# Sparse load, sleeping: 2 000 QPS against memcached, against the after-sleep floor.
# The bare sender spins, so it is the floor of sending here, not of sleeping between sends.
# Each round also runs ream with the generator's CPU kept awake (`--keep-awake` on the load
# CPU only: the thread still sleeps between sends, the kernel's idle polling (or a SCHED_IDLE
# poller) keeps the CPU from halting; the server's CPU is left alone, so nothing of the workload's changes): on this VM a
# thread woken from a halted CPU often waits for it ("woke on time, then waited for its CPU").
for _ in 1 2 3; do
  bare=$(bare_trial "$mport" memcached 2000)
  for awake in "" "$load_cpu"; do
    read -r timely valid _ _ < <(timely_trial "$mport" 2000 --protocol memcached --get-ratio 1 \
      --keys 100000 --key-dist uniform --value-bytes 64 ${awake:+--keep-awake "$awake"})
    printf '  %-10s %-6s %9s %9s %10s %8s %10s valid=%s (late-floor against the after-sleep floor%s)\n' \
      memcached sparse 2000 "$timely" "$(over_floor "$timely" "$sleep_floor")" "$bare" \
      "$(over_bare "$timely" "$bare")" "$valid" "${awake:+; CPU $awake kept awake}"
  done
done

echo
printf '%-8s %-16s %14s %18s %7s\n' server peer "peer max/s" "ream valid QPS" ratio
python3 - "$redis_peer" "$redis_ream" "$nginx_peer" "$nginx_ream" <<'EOF'
import sys
rp, rr, np_, nr = map(float, sys.argv[1:])
for name, tool, peer, ream in (("redis", "redis-benchmark", rp, rr), ("nginx", "wrk", np_, nr)):
    ratio = ream / peer if peer else 0
    print("%-8s %-16s %14.0f %18.0f %7.2f %s" % (name, tool, peer, ream, ratio,
          "(>= 0.9)" if ratio >= 0.9 else "(below the 0.9 target)"))
EOF
