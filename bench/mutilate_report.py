#!/usr/bin/env python3
"""What bench/mutilate.sh reads and prints: memcached's counters, one run of each tool as a
record, the table of medians, and the sizes each tool left in memcached against the ETC fits.

  mutilate_report.py stats PORT                        -> memcached's `stats`, as JSON
  mutilate_report.py mutilate OUT SAVE|- BEFORE AFTER ASKED ROUND   -> one JSON record
  mutilate_report.py ream JSON BEFORE AFTER ASKED ROUND              -> two (from schedule, from send)
  mutilate_report.py table RUNS                        -> the table of medians
  mutilate_report.py sizes PORT SAMPLE                 -> the stored keys' and values' sizes
"""
import json
import math
import random
import re
import socket
import statistics
import sys


def memcached(port, command, end=b"END\r\n"):
    with socket.create_connection(("127.0.0.1", int(port)), timeout=10) as s:
        s.sendall(command)
        data = b""
        while not data.endswith(end):
            chunk = s.recv(1 << 20)
            if not chunk:
                raise SystemExit("mutilate_report.py: memcached closed the connection during %r" % command[:40])
            data += chunk
        return data


def stats(port):
    out = {}
    for line in memcached(port, b"stats\r\n").decode().split("\r\n"):
        f = line.split()
        if len(f) == 3 and f[0] == "STAT":
            out[f[1]] = f[2]
    return out


def server_view(before_path, after_path):
    """Bytes per request each way and the get hit ratio, from memcached's counters over the run."""
    b, a = (json.load(open(p)) for p in (before_path, after_path))
    d = {k: int(a[k]) - int(b[k]) for k in ("bytes_read", "bytes_written", "cmd_get", "cmd_set", "get_hits", "get_misses")}
    reqs = d["cmd_get"] + d["cmd_set"]
    gets = d["get_hits"] + d["get_misses"]
    return {
        "srv_in": d["bytes_read"] / reqs if reqs else None,
        "srv_out": d["bytes_written"] / reqs if reqs else None,
        "hit_pct": 100.0 * d["get_hits"] / gets if gets else None,
    }


def nearest_rank(sorted_values, q):
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))]


def mutilate_record(out_path, save_path, before, after, asked, rnd):
    text = open(out_path).read()
    rec = {"tool": "mutilate", "asked": asked, "round": int(rnd)}
    m = re.search(r"^Total QPS = ([0-9.]+) \((\d+) /", text, re.M)
    if not m:
        raise SystemExit("mutilate_report.py: no 'Total QPS' in mutilate's output:\n" + text[-2000:])
    rec["qps"] = float(m.group(1))
    total = int(m.group(2))
    # "#type avg std min 5th 10th 90th 95th 99th": its own percentiles, from its log histogram.
    read = re.search(r"^read\s+(.*)$", text, re.M).group(1).split()
    rec["p95"], rec["p99"] = float(read[6]), float(read[7])
    opq = re.search(r"^op_q\s+(.*)$", text, re.M).group(1).split()
    rec["opq_p99"] = float(opq[7])
    # Its percentile table has no median: the median of its --save samples (every get's
    # latency) stands in for it. The peak row runs without --save and has none.
    rec["p50"] = None
    if save_path != "-":
        lat = sorted(float(line.split()[1]) for line in open(save_path) if line.strip())
        rec["p50"] = nearest_rank(lat, 0.50)
        # Its table's p95/p99 come from bins 10 % wide; the samples' say how far that moves them.
        rec["s_p95"], rec["s_p99"] = nearest_rank(lat, 0.95), nearest_rank(lat, 0.99)
    rx = int(re.search(r"^RX\s+(\d+) bytes", text, re.M).group(1))
    tx = int(re.search(r"^TX\s+(\d+) bytes", text, re.M).group(1))
    rec["sent_b"] = tx / total if total else None
    rec["recv_b"] = rx / total if total else None
    rec.update(server_view(before, after))
    print(json.dumps(rec))


def ream_records(json_path, before, after, asked, rnd):
    j = json.load(open(json_path))
    sent = j.get("sent") or {}
    base = {"asked": asked, "round": int(rnd), "qps": j["throughput_qps"],
            "sent_b": sent["request_bytes"] / j["issued"] if j.get("issued") else None,
            "recv_b": sent["response_bytes"] / j["completed"] if j.get("completed") else None,
            "timely": 100 * j["timely_ratio"], "valid": bool(j["valid"]), "sent_qps": j["achieved_qps"],
            "errors": j["errors"],
            "key_mean": (sent.get("key_bytes") or {}).get("mean"),
            "value_mean": (sent.get("value_bytes") or {}).get("mean")}
    base.update(server_view(before, after))
    for tool, key in (("ream (schedule)", "latency_us"), ("ream (send)", "latency_from_send_us")):
        lat = j.get(key) or {}
        rec = dict(base, tool=tool, p50=lat.get("p50"), p95=lat.get("p95"), p99=lat.get("p99"))
        print(json.dumps(rec))


def fmt(v, spec):
    return "-" if v is None else spec % v


def table(runs_path):
    runs = [json.loads(line) for line in open(runs_path) if line.strip()]
    rows = []
    for r in runs:
        key = (r["asked"], r["tool"])
        if key not in rows:
            rows.append(key)
    print("%-7s %-16s %8s %8s %8s %8s %7s %7s %14s %6s  %s" % (
        "asked", "tool", "QPS", "p50 us", "p95 us", "p99 us", "sent B", "recv B", "server in/out", "hits", "medians of the rounds; beside them"))
    for asked, tool in rows:
        rs = [r for r in runs if r["asked"] == asked and r["tool"] == tool]

        def med(k):
            vals = [r[k] for r in rs if r.get(k) is not None]
            return statistics.median(vals) if vals else None

        srv = "%s/%s" % (fmt(med("srv_in"), "%.0f"), fmt(med("srv_out"), "%.0f"))
        if tool == "mutilate":
            note = "op_q p99 <= %.0f" % max(r["opq_p99"] for r in rs)
            if med("s_p95") is not None:
                note += "; its samples' p95/p99 %.1f/%.1f" % (med("s_p95"), med("s_p99"))
        else:
            note = "timely %.1f-%.1f %%, valid %d/%d, sent %.0f/s, errors %d" % (
                min(r["timely"] for r in rs), max(r["timely"] for r in rs), sum(r["valid"] for r in rs), len(rs),
                med("sent_qps"), max(r["errors"] for r in rs))
        print("%-7s %-16s %8s %8s %8s %8s %7s %7s %14s %6s  %s" % (
            asked, tool, fmt(med("qps"), "%.0f"), fmt(med("p50"), "%.1f"), fmt(med("p95"), "%.1f"),
            fmt(med("p99"), "%.1f"), fmt(med("sent_b"), "%.1f"), fmt(med("recv_b"), "%.1f"), srv,
            fmt(med("hit_pct"), "%.1f%%"), note))
    sizes = [(r["key_mean"], r["value_mean"]) for r in runs if r["tool"] == "ream (schedule)" and r.get("key_mean")]
    if sizes:
        print("ream's own count of what it sent (all its runs): key bytes mean %.1f-%.1f, set value bytes mean %.1f-%.1f"
              % (min(s[0] for s in sizes), max(s[0] for s in sizes),
                 min(s[1] for s in sizes if s[1] is not None), max(s[1] for s in sizes if s[1] is not None)))


# The ETC fits both tools cite (Atikoglu et al., SIGMETRICS 2012; mutilate's Generator.cc and
# ream's load/distribution.cc give the same numbers): the sizes a reader should expect.
FB_KEY = (30.7984, 8.20449, 0.078688)
FB_VALUE_HEAD = [0.00536, 0.00047, 0.17820, 0.09239, 0.00018, 0.02740, 0.00065, 0.00606,
                 0.00023, 0.00837, 0.00837, 0.08989, 0.00092, 0.00326, 0.01980]
FB_VALUE_TAIL = (15.0, 214.476, 0.348238)


def key_quantile(q):
    loc, scale, shape = FB_KEY
    return loc + scale * ((-math.log(q)) ** -shape - 1) / shape


def value_quantile(q):
    cum = 0.0
    for size, p in enumerate(FB_VALUE_HEAD):
        cum += p
        if q < cum:
            return float(size)
    t = (q - cum) / (1 - cum)
    loc, scale, shape = FB_VALUE_TAIL
    return loc + scale * ((1 - t) ** -shape - 1) / shape


def asked_sizes():
    loc, scale, shape = FB_KEY
    key_mean = loc + scale * (math.gamma(1 - shape) - 1) / shape
    head = sum(FB_VALUE_HEAD)
    tl, ts, tk = FB_VALUE_TAIL
    value_mean = sum(i * p for i, p in enumerate(FB_VALUE_HEAD)) + (1 - head) * (tl + ts / (1 - tk))
    return ([key_mean] + [key_quantile(q) for q in (0.5, 0.95, 0.99)],
            [value_mean] + [value_quantile(q) for q in (0.5, 0.95, 0.99)])


def sizes(port, sample):
    """The keys each tool wrote (mutilate's are all digits, ream's `key` and digits) and, for a
    sample of them, the values memcached holds: what each tool's sets carried, last write wins."""
    dump = memcached(port, b"lru_crawler metadump all\r\n").decode()
    groups = {"mutilate": [], "ream": []}
    # Its lines end in a bare newline, the closing END in CRLF.
    for line in dump.splitlines():
        if not line.startswith("key="):
            continue
        k = line.split()[0][4:]
        if k.isdigit():
            groups["mutilate"].append(k)
        elif k.startswith("key") and k[3:].isdigit():
            groups["ream"].append(k)
    rng = random.Random(1)
    print("%-22s %7s %9s %6s %6s %6s %6s   %9s %6s %6s %6s %6s" % (
        "sizes (bytes)", "keys", "key mean", "p50", "p95", "p99", "max", "val mean", "p50", "p95", "p99", "max"))
    kq, vq = asked_sizes()
    print("%-22s %7s %9.1f %6.1f %6.1f %6.1f %6s   %9.1f %6.1f %6.1f %6.1f %6s" % (
        "asked (fb_key/value)", "-", kq[0], kq[1], kq[2], kq[3], "-", vq[0], vq[1], vq[2], vq[3], "-"))
    for tool, keys in groups.items():
        if not keys:
            print("%-22s no keys of its form in memcached" % ("stored by " + tool))
            continue
        klen = sorted(len(k) for k in keys)
        chosen = rng.sample(keys, min(sample, len(keys)))
        vlen = []
        for i in range(0, len(chosen), 100):
            reply = memcached(port, ("get " + " ".join(chosen[i:i + 100]) + "\r\n").encode())
            pos = 0
            while reply.startswith(b"VALUE ", pos):
                eol = reply.index(b"\r\n", pos)
                n = int(reply[pos:eol].split()[3])
                vlen.append(n)
                pos = eol + 2 + n + 2
        vlen.sort()

        def row(v):
            return "%9.1f %6d %6d %6d %6d" % (statistics.fmean(v), nearest_rank(v, 0.5), nearest_rank(v, 0.95),
                                              nearest_rank(v, 0.99), v[-1])
        print("%-22s %7d %s   %s  (values of %d sampled keys)" % ("stored by " + tool, len(keys), row(klen),
                                                                 row(vlen) if vlen else "-", len(vlen)))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "stats":
        print(json.dumps(stats(args[0])))
    elif cmd == "mutilate":
        mutilate_record(*args)
    elif cmd == "ream":
        ream_records(*args)
    elif cmd == "table":
        table(args[0])
    elif cmd == "sizes":
        sizes(args[0], int(args[1]))
    else:
        raise SystemExit("mutilate_report.py: unknown command " + cmd)


if __name__ == "__main__":
    main()
