#!/usr/bin/env python3
"""Decoding speed of each compression method (issue 26), in one run: `bufkit test` (decode and
check every entry, write nothing) against `7zz t` (7-Zip 26, Debian's `7zip`) and the `zip`
crate 9.8 reading every entry to its end (which checks the CRC-32; zipcrate/src/main.rs `test`).

The same files in every archive: 2,000 Python sources from run.py's stdlib archive (small
entries), 16 MiB of its concatenated sources as one file (a large entry) and 2 MiB of random
bytes. deflate.zip and deflate64.zip are 7-Zip's (`-mm=Deflate` / `-mm=Deflate64`, level 5); the
others are rewritten from deflate.zip by `bench-reports/programs/src/bin/recompress.rs` with each method's reference
encoder at its default level.

Each tool on one core (`bufkit test --threads 1`, `7zz t -mmt1`, the zip crate has no threads)
and at its default on the host's cores (`bufkit test`, `7zz t`), alternating, medians of
ROUNDS; spawn_time.c times each run (wall, from posix_spawn to wait4), and the run's CPU is read
from the children's rusage. MB/s is uncompressed MB (10^6 bytes) per wall second; parallel
efficiency is CPU / (threads x wall).

Usage: python3 bench-reports/asset-extract/methods_speed.py [ROUNDS]
"""
import os, random, resource, statistics, subprocess, sys, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run as allrun

WORK = os.path.join(allrun.WORK, "methods")
BUFKIT = allrun.BUFKIT
ZIPCRATE = allrun.ZIPCRATE
SEVEN = "7zz"
METHODS = ["deflate", "deflate64", "bzip2", "lzma", "zstd", "xz"]


def sh(*args, **kw):
    subprocess.run(args, check=True, **kw)


def make_archives():
    src = os.path.join(WORK, "src")
    if not os.path.isdir(src):
        os.makedirs(src)
        stdlib = allrun.make_archives()["stdlib"]
        with zipfile.ZipFile(stdlib) as z:
            names = [i for i in z.infolist() if not i.is_dir() and i.filename.endswith(".py")][:2000]
            for i in names:
                path = os.path.join(src, "py", i.filename.replace("/", "_"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(z.read(i))
        with open(os.path.join(allrun.WORK, "bigsrc", "part0.txt"), "rb") as f:
            big = f.read(16 << 20)
        with open(os.path.join(src, "big.txt"), "wb") as f:
            f.write(big)
        with open(os.path.join(src, "random.bin"), "wb") as f:
            f.write(random.Random(26).randbytes(2 << 20))
    paths = {m: os.path.join(WORK, f"{m}.zip") for m in METHODS}
    for method, seven in [("deflate", "Deflate"), ("deflate64", "Deflate64")]:
        if not os.path.exists(paths[method]):
            sh(SEVEN, "a", "-tzip", f"-mm={seven}", "-mx5", paths[method], ".", cwd=src, stdout=subprocess.DEVNULL)
    for method in ["bzip2", "lzma", "zstd", "xz"]:
        if not os.path.exists(paths[method]):
            sh(os.path.join(ROOT, "target/release/recompress"), paths["deflate"], method, paths[method])
    return paths


def timed(cmd):
    """(wall seconds, CPU seconds) of one run of cmd."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([allrun.SPAWN_TIME] + cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{cmd} failed: {out.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return float(out.stdout.split()[0]), cpu


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    cargo = os.environ.get("CARGO", "cargo")
    sh(cargo, "build", "--release", "-q", "-p", "bufkit-cli", cwd=ROOT)
    sh(cargo, "build", "--release", "-q", "-p", "bufkit-bench", "--bin", "recompress", cwd=ROOT)
    sh(cargo, "build", "--release", "-q", cwd=os.path.join(HERE, "zipcrate"))
    os.makedirs(allrun.WORK, exist_ok=True)
    sh("gcc", "-O2", "-o", allrun.SPAWN_TIME, os.path.join(HERE, "spawn_time.c"))
    paths = make_archives()
    print("| method | archive | tool | threads | median | MB/s | parallel efficiency | vs bufkit (same threads) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for method in METHODS:
        path = paths[method]
        with zipfile.ZipFile(path) as z:
            size = sum(i.file_size for i in z.infolist())
        tools = {
            ("bufkit test", 1): [BUFKIT, "test", path, "--threads", "1"],
            ("7zz t", 1): [SEVEN, "t", "-bd", "-mmt1", path],
            ("zip crate", 1): [ZIPCRATE, "test", path],
            ("bufkit test", 2): [BUFKIT, "test", path],
            ("7zz t", 2): [SEVEN, "t", "-bd", path],
        }
        for cmd in tools.values():  # warm the page cache and check every tool reads it
            timed(cmd)
        runs = {k: [] for k in tools}
        for _ in range(rounds):
            for k, cmd in tools.items():
                runs[k].append(timed(cmd))
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
        for (tool, threads), (wall, cpu) in med.items():
            ours = med[("bufkit test", threads)][0]
            print(f"| {method} | {os.path.getsize(path) / 1e6:.1f} MB | {tool} | {threads} | {wall * 1e3:.0f} ms | "
                  f"{size / 1e6 / wall:.0f} | {cpu / (threads * wall):.2f} | {wall / ours:.2f}× |")
    print(f"\nUncompressed: {size / 1e6:.1f} MB in {len(zipfile.ZipFile(paths['deflate']).infolist())} entries per archive.")


if __name__ == "__main__":
    main()
