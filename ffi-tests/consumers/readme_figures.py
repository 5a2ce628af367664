#!/usr/bin/env python3
"""Every speed figure the README states ("3.80×", "3.08–3.32×") must be one a report in
bench-reports/ states too, written the same way: the README quotes the reports, it does not
compute figures of its own, so a figure that is not in a report has gone stale.

Usage: readme_figures.py README.md BENCH_REPORTS_DIR   Prints what it checked; exits 1 on a
figure no report holds.
"""
import pathlib, re, sys

FIGURE = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?:–\d+(?:\.\d+)?)?×")


def main():
    readme, reports = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    text = "\n".join(p.read_text() for p in sorted(reports.glob("*.md")))
    figures = FIGURE.findall(readme.read_text())
    stale = [f for f in figures if f not in text]
    for f in stale:
        print(f"stale: the README says {f}, no report in {reports} does", file=sys.stderr)
    if not figures:
        print("no figures found in the README: the check means nothing", file=sys.stderr)
        sys.exit(1)
    print(f"{len(figures) - len(stale)} of {len(figures)} README figures found in the reports")
    sys.exit(1 if stale else 0)


if __name__ == "__main__":
    main()
