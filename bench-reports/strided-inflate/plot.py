#!/usr/bin/env python3
"""Draws bench-reports/strided-inflate.svg from the pack-pass table of bench-reports/strided-inflate.md
(or any file holding rows `| input | engine | CPU s | per object | vs git's loop |`): each engine's
speed as a multiple of git's per-object zlib loop, per input (bars; longer is faster).
Usage: python3 bench-reports/strided-inflate/plot.py [REPORT_OR_TABLE [OUT_SVG]]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # bench-reports/
import plot  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "strided-inflate.md")
target = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "strided-inflate.svg")
COLORS = {"bufkit": "#1b7837", "git-zlib-loop": "#444444"}

groups = []
for line in open(source):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 5 and cells[4].endswith("×") and cells[2][:1].isdigit() and not cells[2].endswith("×"):
        if not groups or groups[-1][0] != cells[0]:
            groups.append((cells[0], []))
        groups[-1][1].append((cells[1], float(cells[4].rstrip("×"))))
plot.bars(target, "speed vs git's per-object zlib loop (CPU time; longer is faster)",
          [(name, [(engine, ratio, COLORS.get(engine, plot.GREY)) for engine, ratio in rows]) for name, rows in groups],
          width=700, row=16, markers=[(3, "3× target", "#d73027")])
