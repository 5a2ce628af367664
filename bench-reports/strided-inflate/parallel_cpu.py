#!/usr/bin/env python3
"""What inflating on several cores costs in CPU where the cores are few: `bufkit extract` of
ARCHIVE with `--parallel-inflate never` and with `--parallel-inflate always --threads 8`, in
alternating order for ROUNDS rounds, each run's user and system seconds from wait4 and its wall
time. Prints the medians and the ratios (always / never). The destination is a new directory
under /tmp, removed after each run.

Usage: python3 parallel_cpu.py BUFKIT ARCHIVE ROUNDS"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

MODES = {
    "never": ["--parallel-inflate", "never"],
    "always, --threads 8": ["--parallel-inflate", "always", "--threads", "8"],
}


def run(bufkit, archive, flags):
    dest = tempfile.mkdtemp(prefix="bufkit-parallel-cpu-")
    os.rmdir(dest)
    start = time.perf_counter()
    proc = subprocess.Popen([bufkit, "extract", archive, dest, *flags], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    shutil.rmtree(dest, ignore_errors=True)
    if status != 0:
        sys.exit(f"bufkit extract {' '.join(flags)} failed ({status})")
    return usage.ru_utime + usage.ru_stime, wall


def main():
    bufkit, archive, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seen = {mode: ([], []) for mode in MODES}
    order = list(MODES)
    for r in range(rounds):
        for mode in order if r % 2 == 0 else reversed(order):
            cpu, wall = run(bufkit, archive, MODES[mode])
            seen[mode][0].append(cpu)
            seen[mode][1].append(wall)
    print(f"`bufkit extract {os.path.basename(archive)}`, {rounds} rounds, {os.cpu_count()} cores, medians:\n")
    print("| mode | CPU (user + system) | wall |")
    print("|---|---:|---:|")
    base_cpu, base_wall = (statistics.median(v) for v in seen["never"])
    for mode, (cpus, walls) in seen.items():
        cpu, wall = statistics.median(cpus), statistics.median(walls)
        print(f"| {mode} | {cpu * 1000:.0f} ms ({cpu / base_cpu:.2f}×) | {wall * 1000:.0f} ms ({wall / base_wall:.2f}×) |")


if __name__ == "__main__":
    main()
