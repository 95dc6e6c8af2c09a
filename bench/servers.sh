# What the benchmarks that start their own servers share (sourced by bench/peers.sh,
# bench/generator_limit.sh and bench/mutilate.sh, which define die()): a temporary directory
# and the servers started for the run, both gone on exit however the script ends, and
# loopback ports.

# bench_setup NAME: tmp=/tmp/ream-NAME-XXXXXX, readable by servers that drop to nobody; pids=()
# for the caller to add each server it starts to; on exit they are stopped and tmp removed.
bench_setup() {
  tmp=$(mktemp -d "/tmp/ream-$1-XXXXXX")
  chmod 755 "$tmp"
  pids=()
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM
}
bench_cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}

# A TCP port free on 127.0.0.1 now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits up to 5 s for a server to accept on 127.0.0.1:PORT, else dies saying so.
wait_port() {
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  die "server on port $1 did not start"
}
