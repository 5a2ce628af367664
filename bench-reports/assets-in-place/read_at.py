#!/usr/bin/env python3
"""Random reads inside a 256 MiB deflated entry (issue 28): makes the archive once (log-like lines,
zipfile at level 6, in /tmp/bufkit-read-at/), builds read_at_bench.c against the release
libbufkit.a, and runs it: one full inflate, the first bk_archive_read_at (which builds the
checkpoints), READS random 4 KiB reads, and reads with checkpoints off.

Usage: python3 bench-reports/assets-in-place/read_at.py [READS]   (prints the bench's JSON line)"""
import os
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import log_archive  # noqa: E402

work = pathlib.Path("/tmp/bufkit-read-at")
archive = work / "log256.zip"
reads = sys.argv[1] if len(sys.argv) > 1 else "1000"


if not archive.exists():
    work.mkdir(exist_ok=True)
    log_archive.make(archive)
bench = work / "read_at_bench"
subprocess.run(["cargo", "build", "--release", "-q", "-p", "bufkit-ffi"], cwd=root, check=True)
subprocess.run(["gcc", "-O2", "-I", str(root / "include"), str(root / "bench-reports/assets-in-place/read_at_bench.c"),
                str(root / "target/release/libbufkit.a"), "-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc",
                "-o", str(bench)], check=True)
os.execv(bench, [str(bench), str(archive), "app.log", reads, "4096"])
