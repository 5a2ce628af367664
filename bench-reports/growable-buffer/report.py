#!/usr/bin/env python3
"""Turns the criterion results of `cargo bench -p bufkit-growable-buffer --bench growth` into the tables and
the SVG plot of bench-reports/growable-buffer.md. Reads target/criterion/*/*/new/estimates.json.

Usage: python3 bench-reports/growable-buffer/report.py [CRITERION_DIR] > table.md   (writes growable-buffer.svg)
"""
import json
import os
import sys

# plot.py and the report's figure are beside the report, one directory up.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plot  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
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
    series = [(p, COLORS[p], p == "memcpy-fresh", [(size_mb(g), results[g][p] / 1e9) for g in groups if p in results[g]])
              for p in POLICIES]
    decades = {-6: "1 µs", -5: "10 µs", -4: "100 µs", -3: "1 ms", -2: "10 ms", -1: "100 ms", 0: "1 s", 1: "10 s"}
    plot.lines(path, "growable-buffer: time to append 20–30-byte pieces (log–log)", [s for s in series if s[3]],
               "total appended", lambda mb: f"{mb} MB", lambda e: decades.get(e, f"1e{e} s"))


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
