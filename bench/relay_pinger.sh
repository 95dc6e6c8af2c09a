#!/usr/bin/env bash
# What the relay's L adds for a client that is not ream's generator: a plain
# Python pinger (one PING at a time, asleep in recv, every 2 ms) to redis-server in a node, once
# through `ream exec --node --net-latency L --relay-port 6379` and once straight to the node's
# address, interleaved in rounds, in each of RUNS runs of ream exec. Prints, per run, the
# pinger's median round trip both ways, what the relay added, and the figure it should add:
# 2·L plus the relay's own cost at L as ream exec's start-up calibration reported it (its twin
# pinger's); "ok" when the added one-way delay is within TOL (10 %) of that. The host's floor
# (bench/stalls.sh 1) first, since the verdict is meant for a noisy instance as for a quiet one.
# COMMAND (redis-server) on CPU 0; the relay (ream's, on the generator's CPU) and the pinger on
# CPU 1.
# Usage: bench/relay_pinger.sh [BUILD_DIR] (default build). Env: RUNS (5), L (200us), PINGS (600
#   per path per run), TOL (0.10).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
REAM="$BUILD/ream"
RUNS=${RUNS:-5}
L=${L:-200us}
PINGS=${PINGS:-600}
TOL=${TOL:-0.10}
[ -x "$REAM" ] || { echo "relay_pinger.sh: $REAM not found; build first (make build)" >&2; exit 2; }
command -v redis-server >/dev/null || { echo "relay_pinger.sh: redis-server is missing (scripts/install-deps)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "relay_pinger.sh: python3 is missing" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "relay_pinger.sh: needs root (a node: network namespace, veth)" >&2; exit 2; }
case $L in *us) l_us=${L%us} ;; *) echo "relay_pinger.sh: L must be given in us (200us)" >&2; exit 2 ;; esac

OUT=$(mktemp -d /tmp/ream-relay-pinger.XXXXXX)
EXEC_PID=
cleanup() {
  if [ -n "$EXEC_PID" ]; then kill "$EXEC_PID" 2>/dev/null && wait "$EXEC_PID" 2>/dev/null || true; fi
  rm -rf "$OUT"
}
trap cleanup EXIT

cat >"$OUT/pinger.py" <<'EOF'
import socket, sys, time
relay_port, node_addr, pings = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def conn(host, port):
    for _ in range(100):
        try:
            s = socket.create_connection((host, port), timeout=2)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"cannot connect to {host}:{port}")
paths = {"relay": conn("127.0.0.1", relay_port), "direct": conn(node_addr, 6379)}
rtts = {k: [] for k in paths}
for r in range(6):  # interleaved rounds: the host's noise falls on both paths
    for name, s in paths.items():
        for _ in range(pings // 6):
            t0 = time.perf_counter_ns()
            s.sendall(b"PING\r\n")
            got = b""
            while not got.endswith(b"\r\n"):
                got += s.recv(64)
            rtts[name].append((time.perf_counter_ns() - t0) / 1e3)
            time.sleep(0.002)
med = lambda v: sorted(v)[len(v) // 2]
print(f"{med(rtts['direct']):.1f} {med(rtts['relay']):.1f} {len(rtts['relay'])}")
EOF

echo "# $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); L = $L, $RUNS run(s), $PINGS pings per path per run, every 2 ms"
"$here/bench/stalls.sh" 1 2>&1 | grep -v '^#' || true
printf '%-4s %12s %12s %10s %14s %12s %10s  %s\n' run "direct p50" "relay p50" added "2L + cost" "cost at L" "off" verdict
ok=0
for run in $(seq "$RUNS"); do
  : >"$OUT/err"
  taskset -c 1 "$REAM" exec --node --cpus 0 --net-latency "$L" --relay-port 6379 --user root -- \
    redis-server --port 6379 --save '' --appendonly no --protected-mode no >"$OUT/out" 2>"$OUT/err" &
  EXEC_PID=$!
  for _ in $(seq 200); do grep -q '^relay 127.0.0.1:' "$OUT/out" 2>/dev/null && break; sleep 0.05; done
  port=$(sed -n 's/^relay 127.0.0.1:\([0-9]*\)$/\1/p' "$OUT/out" | head -1)
  node=$(sed -n 's/.*node address \([0-9.]*\) .*/\1/p' "$OUT/err" | head -1)
  cal=$(grep 'relay calibration' "$OUT/err" || true)
  cost=$(sed -n "s/.*(2·L \([-+0-9.]*\) us, the relay's own cost at L.*/\1/p" <<<"$cal")
  if [ -z "$port" ] || [ -z "$node" ] || [ -z "$cost" ]; then
    echo "run $run: ream exec did not come up:"; cat "$OUT/err"; kill "$EXEC_PID" 2>/dev/null || true
    wait "$EXEC_PID" 2>/dev/null || true; EXEC_PID=; continue
  fi
  read -r direct relay n < <(taskset -c 1 python3 "$OUT/pinger.py" "$port" "$node" "$PINGS")
  kill "$EXEC_PID" 2>/dev/null || true
  wait "$EXEC_PID" 2>/dev/null || true
  EXEC_PID=
  python3 - "$run" "$direct" "$relay" "$l_us" "$cost" "$TOL" >>"$OUT/rows" <<'EOF'
import sys
run, direct, relay, l, cost, tol = sys.argv[1], *map(float, sys.argv[2:])
added, want = relay - direct, 2 * l + cost
off = (added - want) / want
print(f"{run:<4} {direct:9.1f} us {relay:9.1f} us {added:7.1f} us {want:11.1f} us {cost:9.1f} us {100*off:+8.1f} %  {'ok' if abs(off) <= tol else 'OFF'}")
EOF
  tail -1 "$OUT/rows"
  echo "     ream exec: ${cal#ream exec: }"
  tail -1 "$OUT/rows" | grep -q ' ok$' && ok=$((ok + 1))
done
echo "within $(python3 -c "print(round(100*$TOL))") % of 2L + the relay's cost: $ok of $RUNS runs"
