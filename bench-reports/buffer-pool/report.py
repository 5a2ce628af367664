#!/usr/bin/env python3
"""Turns the criterion results of `cargo bench -p bufkit-buffer-pool --bench pool` into the table and the
SVG bar chart of bench-reports/buffer-pool.md. Usage: python3 bench-reports/buffer-pool/report.py [CRITERION_DIR]"""
import json
import math
import os
import sys

# plot.py and the report's figure are beside the report, one directory up.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plot  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def median(path):
    with open(os.path.join(path, "new", "estimates.json")) as f:
        return json.load(f)["median"]["point_estimate"]


def load():
    r = {}
    base = os.path.join(root, "acquire-release")
    for variant in sorted(os.listdir(base)):
        vdir = os.path.join(base, variant)
        for size in os.listdir(vdir):
            if os.path.isfile(os.path.join(vdir, size, "new", "estimates.json")):
                r[(variant.replace("_", "/"), size)] = median(os.path.join(vdir, size))
    fresh = os.path.join(root, "fresh-1MiB")
    for variant in os.listdir(fresh) if os.path.isdir(fresh) else []:
        if os.path.isfile(os.path.join(fresh, variant, "new", "estimates.json")):
            r[(variant, "1MiB")] = median(os.path.join(fresh, variant))
    return r


def fmt(ns):
    return f"{ns / 1000:.1f} µs" if ns >= 1000 else f"{ns:.1f} ns"


def main():
    r = load()
    print("| operation | size | median | vs pool hit (same threads) |")
    print("|---|---|---:|---:|")
    for (variant, size), ns in sorted(r.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        threads = variant.split("/")[-1] if "/" in variant else "1t"
        ref = r.get((f"pool/{threads}", size)) or r.get(("pool/1t", size))
        print(f"| {variant} | {size} | {fmt(ns)} | {ns / ref:.1f}× |")
    bars = sorted(r.items(), key=lambda kv: (kv[0][1], kv[1]))
    colour = lambda v: "#1f77b4" if v.startswith("pool") else "#d62728" if "fresh" in v or "mmap" in v else "#888"  # noqa: E731
    low, high = 1, math.ceil(math.log10(max(r.values())))
    plot.bars(os.path.join(here, "buffer-pool.svg"), "buffer-pool: one acquire + release (log scale, median)",
              [(None, [(f"{variant} {size}", ns, colour(variant)) for (variant, size), ns in bars])],
              log=True, label=fmt, width=720, left=250, row=26, floor=10 ** low,
              grid=[10 ** e for e in range(low, high + 1)])

main()
