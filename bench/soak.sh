#!/usr/bin/env bash
# A soak: one long `ream run` (ream serve kv, 1-ST, levels cycling from 2 000 to 10 000 QPS),
# sampled every INTERVAL seconds for ream's resident memory, its open descriptors, its threads
# and the results database's size on disk (the file, its WAL and its shared memory); then the
# run is interrupted as a user would (SIGINT), and the database is checked
# (`PRAGMA integrity_check`, every point read back by `ream export`).
# A leak shows as a line that climbs with the points: the script prints the first and last
# samples and the growth per stored point of each figure.
# Usage: bench/soak.sh [MINUTES [INTERVAL_SECONDS]]   (defaults 60 and 60)
set -euo pipefail
minutes=${1:-60}
interval=${2:-60}
for v in "$minutes" "$interval"; do
  case $v in '' | *[!0-9]* | 0) echo "soak.sh: MINUTES and INTERVAL_SECONDS are whole numbers > 0, got '$v'" >&2; exit 2 ;; esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
ream=${REAM:-$here/build/ream}
[ -x "$ream" ] || { echo "soak.sh: no ream at $ream (make build, or REAM=path)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "soak.sh: sqlite3 is missing (scripts/install-deps)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ream-soak.XXXXXX)
pid=
cleanup() {
  # SIGTERM: a job started with & in a script starts with SIGINT ignored, until ream installs
  # its handler.
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# Enough levels for longer than the soak: 5 levels x 200 repetitions x ~10.5 s = ~3 h.
cat > "$tmp/soak.toml" <<'EOF'
name = "soak"
scenarios = ["1-ST"]
repetitions = 200
[workload]
builtin = "kv"
args = ["--records", "100000"]
[load]
warmup = "500ms"
duration = "10s"
connections = 16
[sweep]
qps = [2000, 4000, 6000, 8000, 10000]
EOF
db=$tmp/soak.db
"$ream" run "$tmp/soak.toml" --db "$db" >"$tmp/run.log" 2>&1 &
pid=$!
size() {
  local total=0 f
  for f in "$db" "$db-wal" "$db-shm"; do [ -f "$f" ] && total=$((total + $(stat -c %s "$f"))); done
  echo "$total"
}
points() { sqlite3 "file:$db?mode=ro" "select count(*) from points" 2>/dev/null || echo 0; }
echo "soak: ream run (pid $pid) for $minutes min, a sample every $interval s; workload pinned by 1-ST, generator on the other CPU"
printf '%8s %8s %10s %6s %8s %12s\n' minute points rss_kib fds threads db_bytes
first=
last=
end=$((SECONDS + minutes * 60))
next=$SECONDS
while [ $SECONDS -lt $end ]; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "soak.sh: ream run ended early; its output:" >&2
    tail -n 20 "$tmp/run.log" >&2
    pid=
    exit 1
  fi
  if [ $SECONDS -ge $next ]; then
    rss=$(awk '/^VmRSS:/ {print $2}' /proc/$pid/status)
    fds=$(ls /proc/$pid/fd | wc -l)
    thr=$(awk '/^Threads:/ {print $2}' /proc/$pid/status)
    row="$(( (SECONDS - end + minutes * 60) / 60 )) $(points) $rss $fds $thr $(size)"
    printf '%8s %8s %10s %6s %8s %12s\n' $row
    # The baseline is the first sample after a point is stored: before it, ream is starting.
    [ -n "$first" ] || [ "$(echo "$row" | cut -d' ' -f2)" = 0 ] || first=$row
    last=$row
    next=$((next + interval))
  fi
  sleep 1
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
pid=
echo "soak: ream run interrupted (SIGINT) after $minutes min, exit status $rc: $(tail -n 1 "$tmp/run.log")"
integrity=$(sqlite3 "$db" "pragma integrity_check")
stored=$(points)
"$ream" export --db "$db" --format hdrlog --out "$tmp/export" >/dev/null
read_back=$(find "$tmp/export" -name '*.hlog' | wc -l)
"$ream" export --db "$db" --format csv --out "$tmp/csv" >/dev/null
rows=$(($(wc -l <"$tmp/csv/points.csv") - 1))
echo "soak: database integrity: $integrity; $stored points stored; ream export read back $rows point rows and wrote $read_back histogram logs (one per point and kind)"
read -r _ p0 r0 f0 t0 s0 <<<"$first"
read -r _ p1 r1 f1 t1 s1 <<<"$last"
dp=$((${p1:-0} - ${p0:-0}))
if [ "$dp" -gt 0 ]; then
  echo "soak: from the first sample to the last ($dp points): rss $r0 -> $r1 KiB ($(( (r1 - r0) * 1024 / dp )) B/point)," \
    "fds $f0 -> $f1, threads $t0 -> $t1, database $s0 -> $s1 B ($(( (s1 - s0) / dp )) B/point)"
fi
[ "$integrity" = ok ] && [ "$stored" = "$rows" ]
