#!/usr/bin/env python3
"""Draws bench-reports/strided-inflate.svg from the pack-pass table of bench-reports/strided-inflate.md
(or any file holding rows `| input | engine | CPU s | per object | vs git's loop |`): each engine's
speed as a multiple of git's per-object zlib loop, per input (bars; longer is faster).
Usage: python3 bench-reports/inflate/plot.py [REPORT_OR_TABLE]"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "strided-inflate.md")
COLORS = {"bufkit": "#1b7837", "git-zlib-loop": "#444444"}

groups = []
for line in open(source):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 5 and cells[4].endswith("×") and cells[2][:1].isdigit():
        if not groups or groups[-1][0] != cells[0]:
            groups.append((cells[0], []))
        groups[-1][1].append((cells[1], float(cells[4].rstrip("×"))))
top = max(r for _, rows in groups for _, r in rows)
L, R, row, head, W = 150, 70, 16, 24, 700
H = 60 + sum(head + row * len(rows) for _, rows in groups)
x = lambda r: L + (W - L - R) * r / top  # noqa: E731
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<text x="{L}" y="16" font-size="13">speed vs git\'s per-object zlib loop (CPU time; longer is faster)</text>']
y = 30
for name, rows in groups:
    out.append(f'<text x="4" y="{y + 14}" font-weight="bold">{name}</text>')
    y += head
    for engine, ratio in rows:
        out.append(f'<text x="{L - 6}" y="{y + row - 4}" text-anchor="end">{engine}</text>')
        out.append(f'<rect x="{L}" y="{y + 1}" width="{x(ratio) - L:.1f}" height="{row - 3}" fill="{COLORS.get(engine, "#999999")}"/>')
        out.append(f'<text x="{x(ratio) + 4:.1f}" y="{y + row - 4}">{ratio:.2f}×</text>')
        y += row
out.append(f'<line x1="{x(3):.1f}" y1="26" x2="{x(3):.1f}" y2="{y}" stroke="#d73027" stroke-dasharray="4 3"/>')
out.append(f'<text x="{x(3) + 3:.1f}" y="{y + 14}" fill="#d73027">3× target</text>')
out.append("</svg>")
with open(os.path.join(here, "..", "strided-inflate.svg"), "w") as f:
    f.write("\n".join(out) + "\n")
