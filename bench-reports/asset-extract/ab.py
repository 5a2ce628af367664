#!/usr/bin/env python3
"""Before/after for one change to extraction: two `bufkit` binaries on the same archives (those of
run.py), alternating rounds (and which goes first in each), 2 threads, to tmpfs and to the local disk; median wall time of each
and the ratio after/before.

Usage: python3 bench-reports/asset-extract/ab.py BEFORE_BUFKIT AFTER_BUFKIT [ROUNDS [ARCHIVE...]]
Build a BEFORE binary from an older commit with, e.g.:
  git worktree add /tmp/old COMMIT && (cd /tmp/old && cargo build --release -p bufkit-cli --target-dir /tmp/old-target)
"""
import importlib.util, os, shutil, statistics, subprocess, sys, time

spec = importlib.util.spec_from_file_location("run", os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py"))
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)

def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    bins = {"before": sys.argv[1], "after": sys.argv[2]}
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    archives = run.make_archives()
    names = sys.argv[4:] or ["assets", "stdlib"]
    print("| archive | destination | before | after | after / before |")
    print("|---|---|---:|---:|---:|")
    for name in names:
        for target, base in [("tmpfs", "/dev/shm/bufkit-ab"), ("disk", os.path.join(run.WORK, "ab"))]:
            os.makedirs(base, exist_ok=True)
            times = {k: [] for k in bins}
            for r in range(rounds):
                # Which binary goes first alternates: the second of a pair pays for the first's
                # deletions and page reclaim (2-5% on many-file archives, more to disk).
                pairs = list(bins.items())
                for k, binary in (pairs if r % 2 == 0 else pairs[::-1]):
                    dest = os.path.join(base, k)
                    shutil.rmtree(dest, ignore_errors=True)
                    start = time.perf_counter()
                    subprocess.run([binary, "extract", archives[name], dest, "--threads", "2"], check=True, stdout=subprocess.DEVNULL)
                    times[k].append(time.perf_counter() - start)
            before, after = statistics.median(times["before"]), statistics.median(times["after"])
            print(f"| {name} | {target} | {before * 1000:.2f} ms | {after * 1000:.2f} ms | {after / before:.3f}× |", flush=True)
            shutil.rmtree(base, ignore_errors=True)

if __name__ == "__main__":
    main()
