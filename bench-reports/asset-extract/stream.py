#!/usr/bin/env python3
"""Extraction from a pipe (asset-extract.md, "From a stream"): `cat ARCHIVE | bufkit extract - DEST`
against `bufkit extract ARCHIVE DEST` (the same archive from its file) and against
`cat ARCHIVE | bsdtar -xf - -C DEST` (libarchive, which streams). Alternating rounds, medians of
wall time; bufkit's peak RSS from wait4; the trees compared with unzip's once. DEST on tmpfs
(/dev/shm), where the spool goes too. A second table gives the CPU time each took (both processes
of a pipe) and the transfer alone, taken by the least a reader does (`pipe_receiver.c`): one that
keeps nothing, and one that splices the bytes into a file on the destination's file system, as a
reader that keeps them within bounded memory must. From them, the floors on this machine's cores:
the file's extraction and the transfer spread perfectly over them.

Usage: python3 stream.py BUFKIT ROUNDS ARCHIVE...   (quiet machine)

With `--rate MBPS` before the archives, each archive arrives at that pace instead (64 KiB pieces
written by this script, `--pace` mode, as a download arrives), and is compared with what a user
does by hand without a streaming extractor: download it to a file, then extract the file; and with
bsdtar on the same pace. The transfer alone (the paced writer into /dev/null) is the floor."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


RATE = None


def pace(path, rate):
    """Writes `path` to standard output at `rate` MB/s in 64 KiB pieces."""
    data = open(path, "rb").read()
    out = sys.stdout.buffer
    t0, sent, rate = time.perf_counter(), 0, rate * 1e6
    while sent < len(data):
        n = min(65536, len(data) - sent)
        out.write(data[sent:sent + n])
        out.flush()
        sent += n
        ahead = sent / rate - (time.perf_counter() - t0)
        if ahead > 0:
            time.sleep(ahead)


def feeder(feed):
    """The writer of a pipe carrying `feed`: `cat`, or this script at RATE."""
    if RATE is None:
        return ["cat", feed]
    return [sys.executable, os.path.abspath(__file__), "--pace", feed, str(RATE)]


def timed(cmd, feed=None):
    """Wall seconds, peak RSS (KiB) and CPU seconds (user + system, of `cmd` and of the pipe's
    writer) of `cmd`, its standard input `feed` through a pipe when given (the pipe's writer
    started first, no shell in between)."""
    t0 = time.perf_counter()
    cat = subprocess.Popen(feeder(feed), stdout=subprocess.PIPE) if feed else None
    proc = subprocess.Popen(cmd, stdin=cat.stdout if cat else subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    if cat:
        cat.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    cpu = usage.ru_utime + usage.ru_stime
    if cat:
        _, _, writer = os.wait4(cat.pid, 0)
        cpu += writer.ru_utime + writer.ru_stime
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if status != 0:
        raise SystemExit(f"{cmd} failed ({status}): {err}")
    return wall, usage.ru_maxrss, cpu


def alternating(kinds, rounds, run):
    """Runs `run(kind)` for every kind, `rounds` times, the order rotated each round (so no kind
    always follows another): each kind's results, in a list."""
    results = {kind: [] for kind in kinds}
    for r in range(rounds):
        for kind in kinds[r % len(kinds):] + kinds[:r % len(kinds)]:
            results[kind].append(run(kind))
    return results


def same_tree(a, b):
    return subprocess.run(["diff", "-r", "-q", a, b], capture_output=True).returncode == 0


def paced_main(bufkit, rounds, archives):
    print(f"| archive | at {RATE:g} MB/s: the transfer alone | `bufkit extract -` from the pipe | download, then `bufkit extract FILE` | download-then-extract / pipe | `bsdtar -xf -` from the pipe | bsdtar / pipe |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for archive in archives:
        if not os.path.isfile(archive):
            print(f"skipping {archive}: no such file", file=sys.stderr)
            continue
        work = tempfile.mkdtemp(prefix="bufkit-stream-", dir="/dev/shm")
        try:
            def run(how):
                dest = f"{work}/{how}"
                if how == "alone":
                    wall, _, _ = timed(["cat"], feed=archive)
                elif how == "pipe":
                    wall, _, _ = timed([bufkit, "extract", "-", dest], feed=archive)
                elif how == "then":
                    t0 = time.perf_counter()
                    with open(f"{work}/download.zip", "wb") as out:
                        subprocess.run(feeder(archive), stdout=out, check=True)
                    subprocess.run([bufkit, "extract", f"{work}/download.zip", dest], check=True,
                                   stdout=subprocess.DEVNULL)
                    wall = time.perf_counter() - t0
                    os.remove(f"{work}/download.zip")
                else:
                    os.mkdir(dest)
                    wall, _, _ = timed(["bsdtar", "-xf", "-", "-C", dest], feed=archive)
                shutil.rmtree(dest, ignore_errors=True)
                return wall

            times = alternating(["alone", "pipe", "then", "bsdtar"], rounds, run)
            a, p, t, b = (statistics.median(times[k]) for k in ("alone", "pipe", "then", "bsdtar"))
            name = os.path.basename(archive)
            print(f"| {name} | {a * 1000:.0f} ms | {p * 1000:.0f} ms | {t * 1000:.0f} ms | {t / p:.2f}× "
                  f"| {b * 1000:.0f} ms | {b / p:.2f}× |")
        finally:
            shutil.rmtree(work, ignore_errors=True)


def main():
    global RATE
    if sys.argv[1] == "--pace":
        pace(sys.argv[2], float(sys.argv[3]))
        return
    bufkit, rounds, archives = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    if archives[:1] == ["--rate"]:
        RATE = float(archives[1])
        paced_main(bufkit, rounds, archives[2:])
        return
    print("| archive | from the file | from a pipe | file / pipe | `bsdtar -xf -` from a pipe | bsdtar / pipe | bufkit peak RSS from a pipe | tree as unzip's |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    # What the CPU allows on this machine's cores: the pipe's work is the file's extraction plus
    # the transfer (`cat` writing the pipe, a reader taking the bytes out of it). Both spread
    # perfectly over the cores is the floor: with the least reader that keeps the bytes (spliced
    # into a file), and with one that keeps none.
    cores = os.cpu_count()
    cpu_rows = []
    helper = os.path.join(tempfile.mkdtemp(prefix="bufkit-stream-helper-"), "pipe_receiver")
    subprocess.run(["cc", "-O2", "-o", helper, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "pipe_receiver.c")], check=True)
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
            def run(how):
                """Wall seconds, peak RSS and CPU seconds of one way of extracting (or the transfer)."""
                dest = f"{work}/{how}"
                if how == "file":
                    measured = timed([bufkit, "extract", archive, dest])
                elif how == "pipe":
                    measured = timed([bufkit, "extract", "-", dest], feed=archive)
                elif how == "kept":
                    measured = timed([helper, "spool", work], feed=archive)
                elif how == "discarded":
                    measured = timed([helper, "discard"], feed=archive)
                else:
                    os.mkdir(dest)
                    measured = timed(["bsdtar", "-xf", "-", "-C", dest], feed=archive)
                shutil.rmtree(dest, ignore_errors=True)
                return measured

            runs = alternating(["file", "pipe", "bsdtar", "kept", "discarded"], rounds, run)
            times = {k: [wall for wall, _, _ in v] for k, v in runs.items()}
            cpu = {k: [used for _, _, used in v] for k, v in runs.items()}
            rss = [maxrss for _, maxrss, _ in runs["pipe"]]
            f, p, b = (statistics.median(times[k]) for k in ("file", "pipe", "bsdtar"))
            name = os.path.basename(archive)
            print(f"| {name} | {f * 1000:.1f} ms | {p * 1000:.1f} ms | {f / p:.2f}× | {b * 1000:.1f} ms | {b / p:.2f}× "
                  f"| {max(rss) / 1024:.1f} MiB | {'identical' if identical else 'DIFFERENT'} |")
            fc, pc, kc, dc = (statistics.median(cpu[k]) for k in ("file", "pipe", "kept", "discarded"))
            kw, dw = (statistics.median(times[k]) for k in ("kept", "discarded"))
            kept, discarded = max(f, (fc + kc) / cores), max(f, (fc + dc) / cores)
            cpu_rows.append(f"| {name} | {fc * 1000:.0f} ms | {kw * 1000:.1f} ms, {kc * 1000:.0f} ms CPU "
                            f"| {dw * 1000:.1f} ms, {dc * 1000:.0f} ms CPU | {pc * 1000:.0f} ms "
                            f"| {f / kept:.2f}× | {f / discarded:.2f}× | {f / p:.2f}× |")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(os.path.dirname(helper), ignore_errors=True)
    print()
    print(f"| archive | CPU, from the file | the transfer, bytes kept (spliced into a file) "
          f"| the transfer, bytes discarded | CPU, from a pipe (`cat` and bufkit) "
          f"| best ratio on {cores} cores, bytes kept | best ratio, bytes discarded | file / pipe |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in cpu_rows:
        print(row)


if __name__ == "__main__":
    main()
