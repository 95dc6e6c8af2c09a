#!/usr/bin/env python3
"""Captures real replies from memcached, redis-server and nginx on loopback as seed inputs
for the parser fuzzers: fuzz/corpus/<parser>/seed-<name>. Each server runs on a free port in
a throwaway directory and is stopped (and the directory removed) at the end, also on error.

  fuzz/capture_seeds.py [OUT_DIR]   (default: fuzz/corpus next to this script)
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server did not listen on port {port} within {timeout}s")


def exchange(port, payload, idle=0.25):
    """Sends payload and returns every byte received until the server is idle for `idle` s."""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(payload)
        s.settimeout(idle)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
        return out


def save(out_dir, parser, name, data):
    d = os.path.join(out_dir, parser)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def memcached_seeds(tmp, out_dir):
    port = free_port()
    proc = subprocess.Popen(["memcached", "-l", "127.0.0.1", "-p", str(port), "-U", "0",
                             "-m", "16", "-u", "nobody", "-I", "2m"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port, proc)
        cases = {
            "miss": b"get nokey\r\n",
            "set": b"set k1 0 0 5\r\nhello\r\n",
            "hit": b"get k1\r\n",
            "gets-cas": b"gets k1\r\n",
            "multi-get": b"set k2 7 0 3\r\nabc\r\nget k1 k2 k3\r\n",
            "delete": b"delete k2\r\ndelete k2\r\n",
            "pipeline": b"set a 0 0 1\r\nx\r\nget a\r\nget b\r\ndelete a\r\nget a\r\n",
            "error": b"bogus\r\n",
            "client-error": b"set k 0 0 2\r\nabcdef\r\n",
            "too-large": b"set big 0 0 3000000\r\n" + b"z" * 3000000 + b"\r\n",
            "binary-value": b"set bin 0 0 4\r\n\r\n\x00\xff\r\nget bin\r\n",
            "empty-value": b"set e 0 0 0\r\n\r\nget e\r\n",
            "add-exists": b"add k1 0 0 1\r\nx\r\n",
            "touch": b"touch k1 10\r\n",
        }
        for name, payload in cases.items():
            save(out_dir, "memcached", name, exchange(port, payload))
    finally:
        proc.terminate()
        proc.wait()


def memcached_binary_seeds(tmp, out_dir):
    import struct
    port = free_port()
    proc = subprocess.Popen(["memcached", "-l", "127.0.0.1", "-p", str(port), "-U", "0",
                             "-m", "16", "-u", "nobody", "-I", "2m", "-B", "binary"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def req(opcode, key=b"", value=b"", extras=b"", opaque=1):
        body = len(extras) + len(key) + len(value)
        return struct.pack(">BBHBBHIIQ", 0x80, opcode, len(key), len(extras), 0, 0, body, opaque, 0) + \
            extras + key + value

    def set_(key, value):
        return req(0x01, key, value, struct.pack(">II", 0, 0))

    try:
        wait_port(port, proc)
        cases = {
            "get-miss": req(0x00, b"nokey"),
            "set": set_(b"k1", b"hello"),
            "get-hit": set_(b"k1", b"hello") + req(0x00, b"k1"),
            "getk-hit": req(0x0c, b"k1"),
            "delete": set_(b"k2", b"abc") + req(0x04, b"k2") + req(0x04, b"k2"),
            "multiget": set_(b"a", b"x") + set_(b"b", b"yy") + req(0x0d, b"a") + req(0x0d, b"b") +
                        req(0x0d, b"nokey") + req(0x0a),
            "multiget-all-miss": req(0x0d, b"m1") + req(0x0d, b"m2") + req(0x0a),
            "noop": req(0x0a),
            "pipeline": set_(b"p", b"1") + req(0x00, b"p") + req(0x00, b"q") + req(0x04, b"p") + req(0x00, b"p"),
            "too-large": set_(b"big", b"z" * 3000000),
            "binary-value": set_(b"bin", b"\r\n\x00\xff") + req(0x00, b"bin"),
            "empty-value": set_(b"e", b"") + req(0x00, b"e"),
            "add-exists": set_(b"k1", b"v") + req(0x02, b"k1", b"v", struct.pack(">II", 0, 0)),
        }
        for name, payload in cases.items():
            save(out_dir, "memcached_binary", name, exchange(port, payload))
    finally:
        proc.terminate()
        proc.wait()


def redis_seeds(tmp, out_dir):
    port = free_port()
    d = os.path.join(tmp, "redis")
    os.makedirs(d)
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--dir", d, "--save", "", "--appendonly", "no",
                             "--enable-debug-command", "yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def cmd(*args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        return out

    try:
        wait_port(port, proc)
        cases = {
            "set-get": cmd("SET", "k", "hello") + cmd("GET", "k"),
            "null-bulk": cmd("GET", "missing"),
            "integer": cmd("INCR", "n") + cmd("DEL", "k"),
            "error": cmd("NOSUCH"),
            "wrongtype": cmd("LPUSH", "l", "a") + cmd("GET", "l"),
            "array": cmd("RPUSH", "l2", "a", "b", "c") + cmd("LRANGE", "l2", 0, -1),
            "nested": cmd("EVAL", "return {1,{2,'x'},{},false}", 0),
            "null-array": cmd("BLPOP", "nolist", "0.01"),
            "binary": cmd("SET", "b", b"\r\n\x00\xff") + cmd("GET", "b"),
            "pipeline": b"".join(cmd("SET", f"key{i}", "v" * i) for i in range(8)) +
                        b"".join(cmd("GET", f"key{i}") for i in range(8)),
            "inline": b"PING\r\nECHO hi\r\n",
        }
        # RESP3: the same server after HELLO 3, and every reply type DEBUG PROTOCOL emits.
        resp3 = cmd("HELLO", 3)
        for t in ["string", "integer", "double", "bignum", "null", "array", "set", "map",
                  "attrib", "push", "verbatim", "true", "false"]:
            resp3 += cmd("DEBUG", "PROTOCOL", t)
        cases["resp3-types"] = resp3
        cases["resp3-hello"] = cmd("HELLO", 3)
        for name, payload in cases.items():
            save(out_dir, "redis", name, exchange(port, payload))
        for t in ["double", "bignum", "map", "set", "attrib", "push", "verbatim", "true"]:
            reply = exchange(port, cmd("HELLO", 3) + cmd("DEBUG", "PROTOCOL", t))
            # Drop the HELLO map: keep only the type under test.
            hello = exchange(port, cmd("HELLO", 3))
            save(out_dir, "redis", "resp3-" + t, reply[len(hello):])
    finally:
        proc.terminate()
        proc.wait()


def nginx_seeds(tmp, out_dir):
    port = free_port()
    d = os.path.join(tmp, "nginx")
    os.makedirs(os.path.join(d, "html", "dir"))
    with open(os.path.join(d, "html", "index.html"), "w") as f:
        f.write("<html>hello from nginx</html>\n")
    with open(os.path.join(d, "html", "dir", "a.txt"), "w") as f:
        f.write("a\n")
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""
daemon off; master_process off; worker_processes 1;
error_log {d}/error.log; pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  server {{
    listen 127.0.0.1:{port};
    root {d}/html;
    location /dir/ {{ autoindex on; }}
    location /item/ {{ return 200 "item\\n"; }}
    location /empty {{ return 204; }}
    location /gone {{ return 503; }}
  }}
}}
""")
    proc = subprocess.Popen(["nginx", "-p", d, "-c", conf],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    h = lambda path, extra=b"", method=b"GET": (
        method + b" " + path + b" HTTP/1.1\r\nHost: localhost\r\n" + extra + b"\r\n")
    try:
        wait_port(port, proc)
        cases = {
            "200": h(b"/index.html"),
            "404": h(b"/nothing"),
            "301": h(b"/dir"),
            "autoindex-chunked": h(b"/dir/"),
            "return-200": h(b"/item/key0000000000001"),
            "204": h(b"/empty"),
            "503": h(b"/gone"),
            "405-post": h(b"/index.html", b"Content-Length: 3\r\n", b"POST") + b"abc",
            "304": h(b"/index.html", b"If-Modified-Since: Sat, 01 Jan 2050 00:00:00 GMT\r\n"),
            "400": b"GARBAGE\r\n\r\n",
            "pipeline": h(b"/index.html") + h(b"/item/a") + h(b"/nothing") + h(b"/dir/"),
            "range": h(b"/index.html", b"Range: bytes=0-3\r\n"),
            "close": h(b"/index.html", b"Connection: close\r\n"),
        }
        for name, payload in cases.items():
            save(out_dir, "http", name, exchange(port, payload))
    finally:
        proc.terminate()
        proc.wait()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    tmp = tempfile.mkdtemp(prefix="ream-seeds-")
    os.chmod(tmp, 0o755)
    try:
        memcached_seeds(tmp, out_dir)
        memcached_binary_seeds(tmp, out_dir)
        redis_seeds(tmp, out_dir)
        nginx_seeds(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"seeds written under {out_dir}")


if __name__ == "__main__":
    main()
