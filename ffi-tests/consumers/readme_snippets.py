#!/usr/bin/env python3
"""Checks that every README code block marked `<!-- from PATH -->` is taken from PATH: each of its
lines, stripped, must appear in a line of PATH (a consumer project the test command builds and
runs), so no snippet drifts from code that compiles. Usage: readme_snippets.py README ROOT"""
import pathlib
import re
import sys

readme, root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
blocks = re.findall(r"<!-- from (\S+) -->\n```\w*\n(.*?)```", readme.read_text(), re.S)
problems = []
for path, body in blocks:
    source = [line.strip() for line in (root / path).read_text().splitlines()]
    for line in filter(None, (l.strip() for l in body.splitlines())):
        if not any(line in s for s in source):
            problems.append(f"{path}: README line not in the project: {line}")
print("\n".join(problems) if problems else f"{len(blocks)} README snippets all taken from their projects")
sys.exit(1 if problems or not blocks else 0)
