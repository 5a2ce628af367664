#!/usr/bin/env python3
"""Random reads inside a 256 MiB deflated entry (issue 28): makes the archive once (log-like lines,
zipfile at level 6, in /tmp/bufkit-read-at/), builds read_at_bench.c against the release
libbufkit.a, and runs it: one full inflate, the first bk_archive_read_at (which builds the
checkpoints), READS random 4 KiB reads, and reads with checkpoints off.

Usage: python3 bench-reports/assets/read_at.py [READS]   (prints the bench's JSON line)"""
import os
import pathlib
import random
import subprocess
import sys
import zipfile

root = pathlib.Path(__file__).resolve().parents[2]
work = pathlib.Path("/tmp/bufkit-read-at")
archive = work / "log256.zip"
reads = sys.argv[1] if len(sys.argv) > 1 else "1000"


def make():
    work.mkdir(exist_ok=True)
    rng = random.Random(28)
    paths = [f"/api/v{v}/{w}" for v in (1, 2) for w in ("items", "users", "orders", "search", "health", "login")]
    agents = ["curl/8.5", "Mozilla/5.0 (X11; Linux x86_64)", "okhttp/4.12", "python-requests/2.31"]
    target = 256 << 20
    info = zipfile.ZipInfo("app.log")
    info.compress_type = zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(archive, "w", compresslevel=6) as z, z.open(info, "w", force_zip64=True) as out:
        written, second = 0, 0
        while written < target:
            lines = []
            for _ in range(5000):
                second += rng.randrange(3)
                lines.append(
                    f"2026-12-02T{second // 3600 % 24:02}:{second // 60 % 60:02}:{second % 60:02}Z "
                    f"10.{rng.randrange(4)}.{rng.randrange(256)}.{rng.randrange(256)} "
                    f"{rng.choice(('GET', 'GET', 'GET', 'POST', 'PUT'))} {rng.choice(paths)}/{rng.randrange(100000)} "
                    f"{rng.choice((200, 200, 200, 201, 304, 404, 500))} {rng.randrange(20, 90000)} "
                    f"{rng.randrange(1, 2000)}ms \"{rng.choice(agents)}\"\n"
                )
            chunk = "".join(lines).encode()[: target - written]
            out.write(chunk)
            written += len(chunk)


if not archive.exists():
    make()
bench = work / "read_at_bench"
subprocess.run(["cargo", "build", "--release", "-q", "-p", "bufkit-ffi"], cwd=root, check=True)
subprocess.run(["gcc", "-O2", "-I", str(root / "include"), str(root / "bench-reports/assets/read_at_bench.c"),
                str(root / "target/release/libbufkit.a"), "-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc",
                "-o", str(bench)], check=True)
os.execv(bench, [str(bench), str(archive), "app.log", reads, "4096"])
