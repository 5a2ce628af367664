"""The one plotting module of bench-reports/: the two kinds of chart the reports draw, as plain SVG
(no plotting library to install). Report scripts import it:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # bench-reports/
    import plot
    plot.bars("out.svg", "speed vs X (longer is faster)", [("group", [("label", 2.5, "#1b7837")])])

- `bars`: horizontal bars in labelled groups, on a linear or log scale, each bar with its value
  written after it, and optional vertical marker lines (a target);
- `lines`: one polyline per series over a log-log grid, with a legend.
"""
import math

GREY = "#999999"


def _open(width, height, title, font_size=11, title_x=10):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
            f'font-size="{font_size}">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="{title_x}" y="18" font-size="{font_size + 2}">{title}</text>']


def _write(path, out):
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def bars(path, title, groups, log=False, label=lambda v: f"{v:.2f}×", markers=(), width=760, left=150, row=15,
         floor=None, grid=None):
    """Writes a bar chart to `path`. `groups` is [(group title or None, [(bar label, value, colour)])];
    `log` puts values on a log scale from `floor` (default 1, or the smallest value below 1) to the
    largest; `markers` is [(value, text, colour)] drawn as dashed vertical lines; `grid` is a list of
    values to draw light vertical lines at, labelled with `label`."""
    values = [v for _, rows in groups for _, v, _ in rows]
    top = max(values + [m[0] for m in markers])
    right, head = 70, 24
    if log:
        low = floor if floor is not None else min([1.0] + values)
        span = math.log(top) - math.log(low) or 1.0
        x = lambda v: left + (width - left - right) * (math.log(max(v, low)) - math.log(low)) / span  # noqa: E731
    else:
        x = lambda v: left + (width - left - right) * v / top  # noqa: E731
    height = 40 + sum((head if name else 0) + row * len(rows) for name, rows in groups) + (30 if grid or markers else 0)
    out = _open(width, height, title, title_x=left if groups[0][0] else 10)
    y = 30
    for name, rows in groups:
        if name:
            out.append(f'<text x="4" y="{y + 14}" font-weight="bold">{name}</text>')
            y += head
        for text, value, colour in rows:
            end = max(x(value), left + 1)
            out.append(f'<text x="{left - 6}" y="{y + row - 4}" text-anchor="end">{text}</text>')
            out.append(f'<rect x="{left}" y="{y + 1}" width="{end - left:.1f}" height="{row - 3}" fill="{colour}"/>')
            out.append(f'<text x="{end + 4:.1f}" y="{y + row - 4}">{label(value)}</text>')
            y += row
    for value in grid or ():
        gx = x(value)
        out.append(f'<line x1="{gx:.1f}" y1="26" x2="{gx:.1f}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{gx:.1f}" y="{y + 14}" text-anchor="middle">{label(value)}</text>')
    for value, text, colour in markers:
        mx = x(value)
        out.append(f'<line x1="{mx:.1f}" y1="26" x2="{mx:.1f}" y2="{y}" stroke="{colour}" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{mx + 3:.1f}" y="{y + 14}" fill="{colour}">{text}</text>')
    _write(path, out)


def lines(path, title, series, x_label, x_tick, y_tick, width=640, height=420):
    """Writes a log-log line chart to `path`. `series` is [(name, colour, dashed, [(x, y)])], all
    values positive; `x_tick(x)` and `y_tick(decade exponent)` label the axes."""
    left, right, top_margin, bottom = 70, 170, 30, 50
    xs = sorted({x for _, _, _, pts in series for x, _ in pts})
    ys = [y for _, _, _, pts in series for _, y in pts]
    x0, x1 = math.log10(min(xs)) - 0.1, math.log10(max(xs)) + 0.1
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    px = lambda v: left + (math.log10(v) - x0) / (x1 - x0) * (width - left - right)  # noqa: E731
    py = lambda v: top_margin + (y1 - math.log10(v)) / ((y1 - y0) or 1) * (height - top_margin - bottom)  # noqa: E731
    out = _open(width, height, title, font_size=12, title_x=left)
    for e in range(y0, y1 + 1):
        gy = py(10 ** e)
        out.append(f'<line x1="{left}" y1="{gy:.1f}" x2="{width - right}" y2="{gy:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{gy + 4:.1f}" text-anchor="end">{y_tick(e)}</text>')
    for v in xs:
        gx = px(v)
        out.append(f'<line x1="{gx:.1f}" y1="{top_margin}" x2="{gx:.1f}" y2="{height - bottom}" stroke="#eee"/>')
        out.append(f'<text x="{gx:.1f}" y="{height - bottom + 18}" text-anchor="middle">{x_tick(v)}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 10}" text-anchor="middle">{x_label}</text>')
    for i, (name, colour, dashed, pts) in enumerate(series):
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        points = [(px(a), py(b)) for a, b in pts]
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="'
                   + " ".join(f"{a:.1f},{b:.1f}" for a, b in points) + '"/>')
        out += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{colour}"/>' for a, b in points]
        ly = top_margin + 20 + i * 20
        out.append(f'<line x1="{width - right + 15}" y1="{ly}" x2="{width - right + 40}" y2="{ly}" stroke="{colour}" '
                   f'stroke-width="2"{dash}/>')
        out.append(f'<text x="{width - right + 46}" y="{ly + 4}">{name}</text>')
    _write(path, out)
