#!/usr/bin/env bash
# The nginx the benchmarks drive (bench/peers.sh, bench/generator_limit.sh): one worker, no
# master, keep-alive for ever (the load tools, and the bare sender, do not reconnect), a 64-byte
# answer to every request, every file under DIR. Prints the configuration; run nginx with
# `nginx -p DIR -c DIR/nginx.conf` after writing it there.
# Usage: bench/nginx_conf.sh DIR PORT
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bench/nginx_conf.sh DIR PORT" >&2; exit 2; }
nd=$1 port=$2
cat <<EOF
daemon off; master_process off; worker_processes 1;
error_log $nd/error.log; pid $nd/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000000; keepalive_timeout 60s;
  client_body_temp_path $nd/body; proxy_temp_path $nd/proxy; fastcgi_temp_path $nd/fcgi;
  uwsgi_temp_path $nd/uwsgi; scgi_temp_path $nd/scgi;
  server {
    listen 127.0.0.1:$port;
    root $nd/html;
    location / { return 200 "0123456789012345678901234567890123456789012345678901234567890123"; }
  }
}
EOF
