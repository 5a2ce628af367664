#!/usr/bin/env python3
"""Side-by-side extraction benchmark, in one run: bufkit (2 threads and 1), ripunzip, the zip crate, Info-ZIP unzip, bsdtar,
a plain libzip extractor (libzip_extract.c) and Python's zipfile, on three real archives, to tmpfs
(/dev/shm) and to the local disk. Wall-clock medians over alternating rounds, ratios to bufkit at 2
threads, peak RSS per tool (wait4), and every tool's output compared byte for byte with unzip's.

Each run is timed by spawn_time.c (built here): from posix_spawn to wait4, with nothing of the
harness inside the clock, and the tool's own peak RSS from wait4.

Usage: python3 bench-reports/asset-extract/run.py [ROUNDS [ARCHIVE...]]   (ARCHIVE: assets, stdlib, big, log256, all by
default; and dostimes, only when named; needs zip, unzip, bsdtar, libzip-dev, gcc, and `cargo install ripunzip --locked` for
the ripunzip rows)

dostimes is the standard library again, written by Python's zipfile (DOS times only, no extra
fields, as zips made on Windows or by scripts are), every entry with a time of its own: the most
local-time conversions an archive asks for. On it, bufkit's files must also have unzip's times.
"""
import os, shutil, statistics, subprocess, sys, sysconfig

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = "/tmp/bufkit-extract-bench"
BUFKIT = os.path.join(ROOT, "target/release/bufkit")
LIBZIP = os.path.join(WORK, "libzip_extract")
SPAWN_TIME = os.path.join(WORK, "spawn_time")
ZIPCRATE = os.path.join(ROOT, "bench-reports/asset-extract/zipcrate/target/release/zipcrate-extract")

def sh(*args, **kw):
    subprocess.run(args, check=True, **kw)

def make_archives():
    os.makedirs(WORK, exist_ok=True)
    archives = {}
    # (a) ~200 real JavaScript files, ~3.6 MB, zip -9.
    a = os.path.join(WORK, "assets.zip")
    if not os.path.exists(a):
        js = []
        for d, _, fs in os.walk("/usr/lib/node_modules"):
            js += [os.path.join(d, f) for f in fs if f.endswith(".js")]
        js.sort(key=os.path.getsize, reverse=True)
        start = 0
        while sum(map(os.path.getsize, js[start:start + 200])) > 3_600_000:
            start += 1
        chosen = [os.path.relpath(p, "/usr/lib/node_modules") for p in js[start:start + 200]]
        sh("zip", "-q", "-9", a, *chosen, cwd="/usr/lib/node_modules")
    archives["assets"] = a
    # (b) thousands of files: Python's standard library.
    b = os.path.join(WORK, "stdlib.zip")
    if not os.path.exists(b):
        stdlib = sysconfig.get_paths()["stdlib"]
        sh("zip", "-q", "-r", "-9", b, os.path.basename(stdlib), "-x", "*__pycache__*", cwd=os.path.dirname(stdlib))
    archives["stdlib"] = b
    # (c) three 50 MB entries of real text.
    c = os.path.join(WORK, "big.zip")
    if not os.path.exists(c):
        text = bytearray()
        for d, _, fs in sorted(os.walk(sysconfig.get_paths()["stdlib"])):
            for f in sorted(fs):
                if f.endswith(".py"):
                    text += open(os.path.join(d, f), "rb").read()
        bigdir = os.path.join(WORK, "bigsrc")
        os.makedirs(bigdir, exist_ok=True)
        for i in range(3):
            blob = bytes((text * 2)[i * 1000:]) if len(text) < 50_000_000 else bytes(text[i * 1000:])
            open(os.path.join(bigdir, f"part{i}.txt"), "wb").write((blob * 2)[: 50 << 20])
        sh("zip", "-q", "-6", c, "part0.txt", "part1.txt", "part2.txt", cwd=bigdir)
    archives["big"] = c
    # (d) one 256 MiB entry of log lines (issue 28's one-entry case; the same archive as the
    # random-read bench's).
    d = os.path.join(WORK, "log256.zip")
    if not os.path.exists(d):
        sys.path.insert(0, os.path.join(ROOT, "bench-reports/assets-in-place"))
        import log_archive
        log_archive.make(d)
    archives["log256"] = d
    return archives

def make_dostimes():
    """The dostimes archive (see the module's doc): every entry 7,919 s after the last, from 2010."""
    import datetime, zipfile
    e = os.path.join(WORK, "dostimes.zip")
    if not os.path.exists(e):
        stdlib = sysconfig.get_paths()["stdlib"]
        start, i = datetime.datetime(2010, 1, 1), 0
        with zipfile.ZipFile(e + ".part", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            for d, _, fs in sorted(os.walk(stdlib)):
                if "__pycache__" in d:
                    continue
                for f in sorted(fs):
                    path = os.path.join(d, f)
                    if os.path.islink(path) or not os.path.isfile(path):
                        continue
                    when = (start + datetime.timedelta(seconds=7919 * i)).timetuple()[:6]
                    info = zipfile.ZipInfo(os.path.relpath(path, os.path.dirname(stdlib)), date_time=when)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    z.writestr(info, open(path, "rb").read())
                    i += 1
        os.rename(e + ".part", e)
    return e

def same_times(a, b):
    """Paths of the files under `a` whose modification time differs from the same file's under `b`."""
    differ = []
    for d, _, fs in os.walk(a):
        for f in fs:
            p = os.path.join(d, f)
            q = os.path.join(b, os.path.relpath(p, a))
            if int(os.stat(p).st_mtime) != int(os.stat(q).st_mtime):
                differ.append(os.path.relpath(p, a))
    return differ

TOOLS = {
    "bufkit-2t": lambda a, d: [BUFKIT, "extract", a, d, "--threads", "2"],
    "bufkit-1t": lambda a, d: [BUFKIT, "extract", a, d, "--threads", "1"],
    "ripunzip": lambda a, d: [os.path.expanduser("~/.cargo/bin/ripunzip"), "unzip-file", "-q", a, "-d", d],
    "zip-crate": lambda a, d: [ZIPCRATE, a, d],
    "unzip": lambda a, d: ["unzip", "-q", "-o", a, "-d", d],
    "bsdtar": lambda a, d: ["bsdtar", "-xf", a, "-C", d],
    "libzip": lambda a, d: [LIBZIP, a, d],
    "python-zipfile": lambda a, d: [sys.executable, "-c", "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", a, d],
}

def run(tool, archive, dest):
    shutil.rmtree(dest, ignore_errors=True)
    if tool == "bsdtar":
        os.makedirs(dest)
    # spawn_time starts the tool itself and times only it (see spawn_time.c): the harness's own
    # fork and exec stay outside the clock, and the peak RSS is the tool's, not Python's.
    p = subprocess.run([SPAWN_TIME, *TOOLS[tool](archive, dest)], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{tool} failed on {archive}: {p.stderr.strip()}")
    elapsed, rss_kib = p.stdout.split()
    return float(elapsed), int(rss_kib)

def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    os.makedirs(WORK, exist_ok=True)
    sh(os.environ.get("CARGO", "cargo"), "build", "--release", "-q", "-p", "bufkit-cli", cwd=ROOT)
    sh(os.environ.get("CARGO", "cargo"), "build", "--release", "-q", cwd=os.path.join(ROOT, "bench-reports/asset-extract/zipcrate"))
    sh("gcc", "-O2", "-o", LIBZIP, os.path.join(ROOT, "bench-reports/asset-extract/libzip_extract.c"), "-lzip")
    sh("gcc", "-O2", "-o", SPAWN_TIME, os.path.join(ROOT, "bench-reports/asset-extract/spawn_time.c"))
    archives = make_archives()
    if "dostimes" in sys.argv[2:]:
        archives["dostimes"] = make_dostimes()
    if len(sys.argv) > 2:
        archives = {n: a for n, a in archives.items() if n in sys.argv[2:]}
    print(f"| archive | destination | tool | median | vs bufkit 2 threads | peak RSS |")
    print("|---|---|---|---:|---:|---:|")
    for name, archive in archives.items():
        for target_name, base in [("tmpfs", "/dev/shm/bufkit-bench"), ("disk", os.path.join(WORK, "out"))]:
            os.makedirs(base, exist_ok=True)
            times = {t: [] for t in TOOLS}
            rss = {t: 0 for t in TOOLS}
            for _ in range(rounds):
                for tool in TOOLS:
                    t, m = run(tool, archive, os.path.join(base, tool))
                    times[tool].append(t)
                    rss[tool] = max(rss[tool], m)
            # Same bytes as unzip's, for every tool.
            for tool in TOOLS:
                if tool != "unzip":
                    diff = subprocess.run(["diff", "-r", "-q", os.path.join(base, "unzip"), os.path.join(base, tool)], capture_output=True)
                    if diff.returncode != 0:
                        raise SystemExit(f"{tool} output differs from unzip on {name}: {diff.stdout[:300]}")
            # bufkit gives each file the time unzip gives it (the DOS time read as local time).
            differ = same_times(os.path.join(base, "bufkit-2t"), os.path.join(base, "unzip"))
            if differ:
                raise SystemExit(f"bufkit's times differ from unzip's on {name}: {len(differ)} files, {differ[:3]}")
            ref = statistics.median(times["bufkit-2t"])
            for tool in TOOLS:
                m = statistics.median(times[tool])
                print(f"| {name} | {target_name} | {tool} | {m * 1000:.1f} ms | {m / ref:.2f}× | {rss[tool] / 1024:.1f} MiB |", flush=True)
            shutil.rmtree(base, ignore_errors=True)
    sizes = {n: os.path.getsize(a) for n, a in archives.items()}
    counts = {n: int(subprocess.run(["unzip", "-Z1", a], capture_output=True).stdout.count(b"\n")) for n, a in archives.items()}
    print()
    for n in archives:
        print(f"- {n}: {sizes[n] / 1e6:.1f} MB archive, {counts[n]} entries")

if __name__ == "__main__":
    main()
