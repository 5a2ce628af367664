#!/usr/bin/env python3
"""Turns the criterion results of `cargo bench -p bufkit-buffer-pool --bench pool` into the table and the
SVG bar chart of bench-reports/buffer-pool.md. Usage: python3 bench-reports/pool_report.py [CRITERION_DIR]"""
import json
import math
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
here = os.path.dirname(os.path.abspath(__file__))


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
    # bar chart, log scale
    bars = sorted(r.items(), key=lambda kv: (kv[0][1], kv[1]))
    W, L, row = 720, 250, 26
    H = 40 + row * len(bars) + 30
    lo, hi = 1, math.ceil(math.log10(max(r.values())))
    x = lambda ns: L + (math.log10(ns) - lo) / (hi - lo) * (W - L - 80)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           '<text x="10" y="20" font-size="14">buffer-pool: one acquire + release (log scale, median)</text>']
    for e in range(lo, hi + 1):
        gx = x(10 ** e)
        out.append(f'<line x1="{gx:.1f}" y1="30" x2="{gx:.1f}" y2="{H - 25}" stroke="#ddd"/>')
        out.append(f'<text x="{gx:.1f}" y="{H - 10}" text-anchor="middle">{fmt(10 ** e)}</text>')
    for i, ((variant, size), ns) in enumerate(bars):
        y = 36 + i * row
        color = "#1f77b4" if variant.startswith("pool") else "#d62728" if "fresh" in variant or "mmap" in variant else "#888"
        out.append(f'<text x="{L - 8}" y="{y + 14}" text-anchor="end">{variant} {size}</text>')
        out.append(f'<rect x="{L}" y="{y + 2}" width="{max(x(ns) - L, 1):.1f}" height="{row - 8}" fill="{color}"/>')
        out.append(f'<text x="{x(ns) + 4:.1f}" y="{y + 14}">{fmt(ns)}</text>')
    out.append("</svg>")
    with open(os.path.join(here, "buffer-pool.svg"), "w") as f:
        f.write("\n".join(out) + "\n")


main()
