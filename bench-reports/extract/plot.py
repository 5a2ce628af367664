#!/usr/bin/env python3
"""Draws bench-reports/asset-extract.svg from the markdown table that run.py prints: per archive and
destination, each tool's median time as a multiple of bufkit's at 2 threads (horizontal bars, log
scale). Usage: python3 bench-reports/extract/run.py 5 > table.md && python3 bench-reports/extract/plot.py table.md"""
import math
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
COLORS = {"bufkit-2t": "#1b7837", "bufkit-1t": "#5aae61"}


def rows(path):
    """(archive, destination, tool, ratio) for each table row."""
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[4].endswith("×"):
            yield cells[0], cells[1], cells[2], float(cells[4].rstrip("×"))


def main():
    data = list(rows(sys.argv[1]))
    groups = []
    for archive, dest, tool, ratio in data:
        if not groups or groups[-1][0] != (archive, dest):
            groups.append(((archive, dest), []))
        groups[-1][1].append((tool, ratio))
    top = max(r for _, _, _, r in data)
    L, R, row, head = 150, 70, 15, 24
    W = 760
    H = 40 + sum(head + row * len(tools) for _, tools in groups)
    x = lambda r: L + (W - L - R) * math.log(r) / math.log(top)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="16" font-size="13">time / bufkit at 2 threads (log scale; 1× = bufkit, longer is slower)</text>']
    y = 30
    for (archive, dest), tools in groups:
        out.append(f'<text x="4" y="{y + 14}" font-weight="bold">{archive}, {dest}</text>')
        y += head
        for tool, ratio in tools:
            color = COLORS.get(tool, "#999999")
            out.append(f'<text x="{L - 6}" y="{y + row - 4}" text-anchor="end">{tool}</text>')
            out.append(f'<rect x="{L}" y="{y + 1}" width="{max(x(ratio) - L, 1):.1f}" height="{row - 3}" fill="{color}"/>')
            out.append(f'<text x="{max(x(ratio), L + 1) + 4:.1f}" y="{y + row - 4}">{ratio:.2f}×</text>')
            y += row
    out.append("</svg>")
    with open(os.path.join(here, "..", "asset-extract.svg"), "w") as f:
        f.write("\n".join(out) + "\n")


main()
