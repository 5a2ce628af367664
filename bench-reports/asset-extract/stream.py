#!/usr/bin/env python3
"""Extraction from a pipe (asset-extract.md, "From a stream"): `cat ARCHIVE | bufkit extract - DEST`
against `bufkit extract ARCHIVE DEST` (the same archive from its file) and against
`cat ARCHIVE | bsdtar -xf - -C DEST` (libarchive, which streams). Alternating rounds, medians of
wall time; bufkit's peak RSS from wait4; the trees compared with unzip's once. DEST on tmpfs
(/dev/shm), where the spool goes too.

Usage: python3 stream.py BUFKIT ROUNDS ARCHIVE...   (quiet machine)"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, feed=None):
    """Wall seconds and peak RSS (KiB) of `cmd`, its standard input `cat feed` when given (the
    pipe's writer started first, no shell in between)."""
    t0 = time.perf_counter()
    cat = subprocess.Popen(["cat", feed], stdout=subprocess.PIPE) if feed else None
    proc = subprocess.Popen(cmd, stdin=cat.stdout if cat else subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    if cat:
        cat.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if cat:
        cat.wait()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if status != 0:
        raise SystemExit(f"{cmd} failed ({status}): {err}")
    return wall, usage.ru_maxrss


def same_tree(a, b):
    return subprocess.run(["diff", "-r", "-q", a, b], capture_output=True).returncode == 0


def main():
    bufkit, rounds, archives = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    print("| archive | from the file | from a pipe | file / pipe | `bsdtar -xf -` from a pipe | bsdtar / pipe | bufkit peak RSS from a pipe | tree as unzip's |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for archive in archives:
        if not os.path.isfile(archive):
            print(f"skipping {archive}: no such file", file=sys.stderr)
            continue
        work = tempfile.mkdtemp(prefix="bufkit-stream-", dir="/dev/shm")
        try:
            # Byte-identical to unzip's extraction, once.
            subprocess.run(["unzip", "-qq", archive, "-d", f"{work}/unzip"], check=True)
            subprocess.run(f"cat {archive} | {bufkit} extract - {work}/check", shell=True, check=True, capture_output=True)
            identical = same_tree(f"{work}/unzip", f"{work}/check")
            shutil.rmtree(f"{work}/unzip")
            shutil.rmtree(f"{work}/check")
            times = {"file": [], "pipe": [], "bsdtar": []}
            rss = []
            for r in range(rounds):
                order = ["file", "pipe", "bsdtar"]
                order = order[r % 3:] + order[:r % 3]
                for how in order:
                    dest = f"{work}/{how}"
                    if how == "file":
                        wall, _ = timed([bufkit, "extract", archive, dest])
                    elif how == "pipe":
                        wall, maxrss = timed([bufkit, "extract", "-", dest], feed=archive)
                        rss.append(maxrss)
                    else:
                        os.mkdir(dest)
                        wall, _ = timed(["bsdtar", "-xf", "-", "-C", dest], feed=archive)
                    times[how].append(wall)
                    shutil.rmtree(dest)
            f, p, b = (statistics.median(times[k]) for k in ("file", "pipe", "bsdtar"))
            name = os.path.basename(archive)
            print(f"| {name} | {f * 1000:.1f} ms | {p * 1000:.1f} ms | {f / p:.2f}× | {b * 1000:.1f} ms | {b / p:.2f}× "
                  f"| {max(rss) / 1024:.1f} MiB | {'identical' if identical else 'DIFFERENT'} |")
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
