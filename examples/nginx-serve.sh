#!/bin/sh
# nginx for examples/nginx.toml: Debian's nginx with its default keep-alive settings (a
# connection is closed after 1000 requests, as a stock install does), serving a small static
# page on 127.0.0.1:PORT with THREADS worker processes, in the foreground, with its files in a
# temporary directory removed when it exits. Usage: nginx-serve.sh PORT THREADS
set -eu
port=$1
threads=$2
dir=$(mktemp -d /tmp/ream-nginx.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM
mkdir -p "$dir/html"
# The workers run as an unprivileged user (nobody) and must read the page.
chmod 755 "$dir" "$dir/html"
printf 'ream\n' > "$dir/html/index.html"
cat > "$dir/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes $threads;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  server {
    listen 127.0.0.1:$port;
    root $dir/html;
    location / { }
  }
}
CONF
nginx -p "$dir" -c "$dir/nginx.conf" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
wait $pid
