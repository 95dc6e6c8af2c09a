#!/usr/bin/env python3
"""Seeds fuzz/corpus/spec/: every shipped spec (examples/*.toml) and the value forms of
docs/spec.md, in the input format of fuzz/spec_targets.h (SpecInput): a first byte 0 and a
spec's TOML, or a first byte 1, a parser index and the value's text. Files are named by
their SHA-1, like libFuzzer's. Run from the source tree: python3 fuzz/spec_seeds.py"""
import glob
import hashlib
import os

out = os.path.join("fuzz", "corpus", "spec")
os.makedirs(out, exist_ok=True)

# parser index (fuzz/spec_targets.cc SpecValue) -> texts
values = {
    0: ["250ms", "1s", "100us", "2m", "0", "1.5s"],
    1: ["5s", "250ms", "20us", "1m", "3"],
    2: ["20us", "1.5ms", "100ns", "2s", "0"],
    3: ["512M", "1G", "4096", "64k"],
    4: ["20M", "20M/s", "1GB/s"],
    5: ["100mbit", "1gbit", "500kbit", "1000000bit", "12.5MB/s"],
    6: ["4000MBps", "4000MB/s", "50%"],
    7: ["50%", "0.5", "100%"],
    8: ["0-3,8,10-11", "0", "1,3", ""],
    9: ["default", "none", "7", "6-7"],
    10: ["1-ST", "2-ST", "2-SMT", "3-ST", "0,2-3"],
    11: ["const:20us", "exp:100us", "lognormal:mean=100us,sigma=1", "bimodal:10us,1ms,p=0.01"],
    12: ["uniform", "zipf", "zipf:0.99", "zipf:0.5"],
    13: ["exponential", "constant", "trace:gaps.txt\n100\n# a comment\n\n250.5\n"],
    14: ["100\n200\n", "# only a comment\n1.5\n"],
    15: ["32K", "8192K", "1M"],
}

def write(data: bytes) -> None:
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)

for path in sorted(glob.glob("examples/*.toml")):
    with open(path, "rb") as f:
        write(b"\x00" + f.read())
for index, texts in values.items():
    for t in texts:
        write(b"\x01" + bytes([index]) + t.encode())
