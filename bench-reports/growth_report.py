#!/usr/bin/env python3
"""Turns the criterion results of `cargo bench -p bufkit-growable-buffer --bench growth` into the tables and
the SVG plot of bench-reports/growable-buffer.md. Reads target/criterion/*/*/new/estimates.json.

Usage: python3 bench-reports/growth_report.py [CRITERION_DIR] > table.md   (writes growable-buffer.svg)
"""
import json
import math
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
here = os.path.dirname(os.path.abspath(__file__))
POLICIES = ["memcpy-fresh", "geometric-x2", "geometric-x1.5", "segmented-64k", "linear-2k"]
COLORS = {"memcpy-fresh": "#444444", "geometric-x2": "#1f77b4", "geometric-x1.5": "#2ca02c",
          "segmented-64k": "#ff7f0e", "linear-2k": "#d62728"}


def median_ns(path):
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def load():
    """{group: {policy: median_ns}} for every group the bench wrote."""
    results = {}
    for group in sorted(os.listdir(root)):
        gdir = os.path.join(root, group)
        if not os.path.isdir(gdir) or group == "report":
            continue
        for bench in os.listdir(gdir):
            bdir = os.path.join(gdir, bench)
            # memcpy-fresh/new/… or geometric-x2/<size>/new/…
            candidates = [os.path.join(bdir, "new", "estimates.json")]
            if os.path.isdir(bdir):
                candidates += [os.path.join(bdir, sub, "new", "estimates.json") for sub in os.listdir(bdir)]
            for c in candidates:
                if os.path.isfile(c):
                    results.setdefault(group, {})[bench] = median_ns(c)
    return results


def size_mb(group):
    return int(group.split("-")[1].rstrip("MB")) if group.startswith("append-") else None


def fmt_time(ns):
    s = ns / 1e9
    return f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} µs"


def table(results):
    lines = ["| workload | policy | median | vs memcpy into fresh pages |", "|---|---|---:|---:|"]
    for group in sorted(results, key=lambda g: (size_mb(g) is None, size_mb(g) or 0)):
        ref = results[group].get("memcpy-fresh")
        for p in POLICIES:
            if p in results[group]:
                t = results[group][p]
                ratio = f"{t / ref:.2f}×" if ref else "—"
                lines.append(f"| {group} | {p} | {fmt_time(t)} | {ratio} |")
    return "\n".join(lines)


def svg(results, path):
    groups = sorted((g for g in results if size_mb(g)), key=size_mb)
    if not groups:
        return
    W, H, L, R, T, B = 640, 420, 70, 170, 30, 50
    xs = [size_mb(g) for g in groups]
    ts = [t for g in groups for t in results[g].values()]
    x0, x1 = math.log10(min(xs)) - 0.1, math.log10(max(xs)) + 0.1
    y0, y1 = math.floor(math.log10(min(ts) / 1e9)), math.ceil(math.log10(max(ts) / 1e9))
    px = lambda mb: L + (math.log10(mb) - x0) / (x1 - x0) * (W - L - R)
    py = lambda s: T + (y1 - math.log10(s)) / (y1 - y0) * (H - T - B)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="18" font-size="14">growable-buffer: time to append 20–30-byte pieces (log–log)</text>']
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#ddd"/>')
        label = {-6: "1 µs", -5: "10 µs", -4: "100 µs", -3: "1 ms", -2: "10 ms", -1: "100 ms", 0: "1 s", 1: "10 s"}.get(e, f"1e{e} s")
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for mb in xs:
        x = px(mb)
        out.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{H - B + 18}" text-anchor="middle">{mb} MB</text>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 10}" text-anchor="middle">total appended</text>')
    for i, p in enumerate(POLICIES):
        pts = [(px(size_mb(g)), py(results[g][p] / 1e9)) for g in groups if p in results[g]]
        if not pts:
            continue
        c = COLORS[p]
        dash = ' stroke-dasharray="5,4"' if p == "memcpy-fresh" else ""
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2"{dash} points="' +
                   " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{c}"/>' for x, y in pts]
        ly = T + 20 + i * 20
        out.append(f'<line x1="{W - R + 15}" y1="{ly}" x2="{W - R + 40}" y2="{ly}" stroke="{c}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{W - R + 46}" y="{ly + 4}">{p}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    res = load()
    svg(res, os.path.join(here, "growable-buffer.svg"))
    print(table(res))
    big = {size_mb(g): res[g] for g in res if size_mb(g)}
    if 40 in big and 400 in big:
        for p in ("geometric-x2", "geometric-x1.5", "segmented-64k"):
            if p in big[40] and p in big[400]:
                print(f"\n{p}: time(400 MB) / time(40 MB) = {big[400][p] / big[40][p]:.1f}", end="")
        print()
