#!/usr/bin/env python3
"""Draws bench-reports/asset-extract.svg from the markdown table that run.py prints: per archive and
destination, each tool's median time as a multiple of bufkit's at 2 threads (horizontal bars, log
scale). Usage: python3 bench-reports/asset-extract/run.py 5 > table.md && python3 bench-reports/asset-extract/plot.py table.md"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # bench-reports/
import plot  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
COLORS = {"bufkit-2t": "#1b7837", "bufkit-1t": "#5aae61"}


def rows(path):
    """(archive, destination, tool, ratio) for each table row."""
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[4].endswith("×"):
            yield cells[0], cells[1], cells[2], float(cells[4].rstrip("×"))


def main():
    groups = []
    for archive, dest, tool, ratio in rows(sys.argv[1]):
        if not groups or groups[-1][0] != f"{archive}, {dest}":
            groups.append((f"{archive}, {dest}", []))
        groups[-1][1].append((tool, ratio, COLORS.get(tool, plot.GREY)))
    plot.bars(os.path.join(here, "..", "asset-extract.svg"),
              "time / bufkit at 2 threads (log scale; 1× = bufkit, longer is slower)", groups, log=True)


main()
