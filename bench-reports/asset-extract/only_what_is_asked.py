#!/usr/bin/env python3
"""Reading only what is asked (issue 25), in one run, each tool alternating with the others:

- apk-assets: `bufkit extract app.apk --only 'assets/*'` against `unzip app.apk 'assets/*'`, a
  libzip read loop with a name filter (libzip_extract.c with PREFIX), and bufkit on an archive of
  the assets alone. app.apk holds 280 MB of stored libraries and resources (incompressible bytes)
  and 200 deflated JavaScript assets (real files, `zlib -9`).
- apk-cat: one small asset to stdout, `bufkit cat` against `unzip -p`.
- zip64-5gib: one 30-byte entry of a sparse 5 GiB ZIP64 archive, `bufkit cat` and `bufkit extract
  --only` against `unzip -p`.
- whole: whole extractions of run.py's archives (assets, stdlib, big), bufkit now against the
  bufkit binary given as BEFORE (built from an earlier commit), with peak RSS.
- cold: apk-assets, apk-cat and whole stdlib again, the archive evicted from the page cache before
  every run (posix_fadvise DONTNEED: only the archive, not the tools' binaries; the destination is
  tmpfs), so what each tool reads comes from the disk.

Every run is timed by spawn_time.c (posix_spawn to wait4, stdout to /dev/null) with the tool's
own peak RSS; the destination is tmpfs. Medians over ROUNDS; ratios are the other tool's median
over bufkit's (higher: bufkit faster). Outputs are compared with unzip's.

Usage: python3 bench-reports/asset-extract/only_what_is_asked.py [ROUNDS [BEFORE]]
"""
import os, shutil, statistics, subprocess, sys, zipfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run as allrun  # the archives and the built helpers of the all-tools bench

WORK = allrun.WORK
BUFKIT = allrun.BUFKIT
OUT = "/dev/shm/bufkit-only-bench"


def make_apk():
    """app.apk (libraries, assets, resources, in an APK's order) and assets.apk (the assets alone)."""
    apk, alone = os.path.join(WORK, "app.apk"), os.path.join(WORK, "assets-alone.apk")
    if os.path.exists(apk) and os.path.exists(alone):
        return apk, alone
    src = allrun.make_archives()["assets"]
    with zipfile.ZipFile(src) as z:
        assets = [(f"assets/js/{i:03d}-{os.path.basename(n)}", z.read(n)) for i, n in enumerate(x for x in z.namelist() if not x.endswith("/"))]
    rnd = open("/dev/urandom", "rb")
    def write(path, parts):
        with zipfile.ZipFile(path, "w") as out:
            for name, data, method in parts:
                out.writestr(zipfile.ZipInfo(name, (2026, 12, 2, 0, 0, 0)), data, compress_type=method, compresslevel=9)
    libs = [(f"lib/arm64-v8a/lib{i}.so", rnd.read(24 << 20), zipfile.ZIP_STORED) for i in range(10)]
    res = [(f"res/drawable/icon{i:03d}.png", rnd.read(50 << 10), zipfile.ZIP_STORED) for i in range(800)]
    js = [(n, d, zipfile.ZIP_DEFLATED) for n, d in assets]
    write(apk, [("AndroidManifest.xml", b"<manifest/>" * 100, zipfile.ZIP_DEFLATED)] + libs + js + res)
    write(alone, js)
    return apk, alone


def make_sparse():
    path = os.path.join(WORK, "huge-zip64.zip")
    if not os.path.exists(path):
        allrun.sh(os.environ.get("CARGO", "cargo"), "run", "--release", "-q", "-p", "bufkit-bench", "--bin", "sparse_zip64", "--",
                  path, str(5 << 30), "assets/small.txt=thirty bytes of a small asset", cwd=ROOT)
    return path


def timed(cmd):
    p = subprocess.run([allrun.SPAWN_TIME, *cmd], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}: {p.stderr.strip()}")
    wall, rss = p.stdout.split()
    return float(wall), int(rss)


def evict(path):
    """Drops `path`'s pages from the page cache (they are clean: nothing writes the archives)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def compare(rows, rounds, reference, title, cold=None):
    """rows: name -> (command builder, setup); runs them alternately; prints ms, ratio, RSS.
    With `cold` (an archive path), it is evicted from the page cache before every run."""
    times = {n: [] for n in rows}
    rss = {n: 0 for n in rows}
    for _ in range(rounds):
        for name, (cmd, setup) in rows.items():
            setup()
            if cold:
                evict(cold)
            t, m = timed(cmd())
            times[name].append(t)
            rss[name] = max(rss[name], m)
    ref = statistics.median(times[reference])
    for name in rows:
        m = statistics.median(times[name])
        print(f"| {title} | {name} | {m * 1000:.2f} ms | {m / ref:.2f}× | {rss[name] / 1024:.1f} MiB |", flush=True)


def fresh(path):
    def setup():
        shutil.rmtree(path, ignore_errors=True)
    return setup


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    before = sys.argv[2] if len(sys.argv) > 2 else None
    os.makedirs(WORK, exist_ok=True)
    allrun.sh(os.environ.get("CARGO", "cargo"), "build", "--release", "-q", "-p", "bufkit-cli", cwd=ROOT)
    allrun.sh("gcc", "-O2", "-o", allrun.LIBZIP, os.path.join(HERE, "libzip_extract.c"), "-lzip")
    allrun.sh("gcc", "-O2", "-o", allrun.SPAWN_TIME, os.path.join(HERE, "spawn_time.c"))
    apk, alone = make_apk()
    huge = make_sparse()
    os.makedirs(OUT, exist_ok=True)
    d = lambda n: os.path.join(OUT, n)
    print("| case | tool | median | vs bufkit | peak RSS |")
    print("|---|---|---:|---:|---:|")
    compare({
        "bufkit --only 'assets/*'": (lambda: [BUFKIT, "extract", apk, d("bufkit"), "--only", "assets/*"], fresh(d("bufkit"))),
        "unzip 'assets/*'": (lambda: ["unzip", "-q", "-o", apk, "assets/*", "-d", d("unzip")], fresh(d("unzip"))),
        "libzip loop, prefix assets/": (lambda: [allrun.LIBZIP, apk, d("libzip"), "assets/"], fresh(d("libzip"))),
        "bufkit, assets alone": (lambda: [BUFKIT, "extract", alone, d("alone")], fresh(d("alone"))),
    }, rounds, "bufkit --only 'assets/*'", "apk-assets")
    for tool in ("bufkit", "libzip", "alone"):
        if subprocess.run(["diff", "-r", "-q", d("unzip"), d(tool)], capture_output=True).returncode != 0:
            raise SystemExit(f"{tool}'s assets differ from unzip's")
    with zipfile.ZipFile(apk) as z:
        small = min((i for i in z.infolist() if i.filename.startswith("assets/")), key=lambda i: i.file_size).filename
    compare({
        "bufkit cat": (lambda: [BUFKIT, "cat", apk, small], lambda: None),
        "unzip -p": (lambda: ["unzip", "-p", apk, small], lambda: None),
    }, rounds * 3, "bufkit cat", f"apk-cat ({small})")
    compare({
        "bufkit cat": (lambda: [BUFKIT, "cat", huge, "assets/small.txt"], lambda: None),
        "bufkit extract --only": (lambda: [BUFKIT, "extract", huge, d("huge"), "--only", "assets/small.txt"], fresh(d("huge"))),
        "unzip -p": (lambda: ["unzip", "-p", huge, "assets/small.txt"], lambda: None),
    }, rounds * 3, "bufkit cat", "zip64-5gib")
    if before:
        for name, archive in allrun.make_archives().items():
            compare({
                "bufkit now": (lambda a=archive: [BUFKIT, "extract", a, d("now"), "--threads", "2"], fresh(d("now"))),
                "bufkit before": (lambda a=archive: [before, "extract", a, d("before"), "--threads", "2"], fresh(d("before"))),
            }, rounds, "bufkit now", f"whole {name}")
            if subprocess.run(["diff", "-r", "-q", d("now"), d("before")], capture_output=True).returncode != 0:
                raise SystemExit(f"now and before differ on {name}")
    compare({
        "bufkit --only 'assets/*'": (lambda: [BUFKIT, "extract", apk, d("bufkit"), "--only", "assets/*"], fresh(d("bufkit"))),
        "unzip 'assets/*'": (lambda: ["unzip", "-q", "-o", apk, "assets/*", "-d", d("unzip")], fresh(d("unzip"))),
        "libzip loop, prefix assets/": (lambda: [allrun.LIBZIP, apk, d("libzip"), "assets/"], fresh(d("libzip"))),
    }, rounds, "bufkit --only 'assets/*'", "cold apk-assets", cold=apk)
    compare({
        "bufkit cat": (lambda: [BUFKIT, "cat", apk, small], lambda: None),
        "unzip -p": (lambda: ["unzip", "-p", apk, small], lambda: None),
    }, rounds * 3, "bufkit cat", "cold apk-cat", cold=apk)
    if before:
        stdlib = allrun.make_archives()["stdlib"]
        compare({
            "bufkit now": (lambda: [BUFKIT, "extract", stdlib, d("now"), "--threads", "2"], fresh(d("now"))),
            "bufkit before": (lambda: [before, "extract", stdlib, d("before"), "--threads", "2"], fresh(d("before"))),
            "unzip": (lambda: ["unzip", "-q", "-o", stdlib, "-d", d("unzip")], fresh(d("unzip"))),
        }, rounds, "bufkit now", "cold whole stdlib", cold=stdlib)
    shutil.rmtree(OUT, ignore_errors=True)
    print()
    print(f"- app.apk: {os.path.getsize(apk) / 1e6:.1f} MB, {len(zipfile.ZipFile(apk).namelist())} entries; assets alone: {os.path.getsize(alone) / 1e6:.2f} MB")
    print(f"- huge-zip64.zip: {os.path.getsize(huge) / 2**30:.2f} GiB apparent, {os.stat(huge).st_blocks * 512 / 1024:.0f} KiB on disk")


if __name__ == "__main__":
    main()
