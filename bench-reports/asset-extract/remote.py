#!/usr/bin/env python3
"""Remote archives (asset-extract.md, "From a URL"): `bufkit cat URL NAME` of one small entry of a
280 MB APK-shaped archive served by a range-serving HTTP server on 127.0.0.1 (started here, for
the run), against downloading the archive (`curl -o`) and then `bufkit cat FILE NAME`; with the
bytes the server sent for each. Alternating rounds, medians. Then a 4 KiB slice of a 256 MiB
deflated entry (LOG_ZIP's app.log) served the same way, from the checkpoints `bufkit index`
wrote, with the bytes fetched against one checkpoint span.

Then, when RIPUNZIP is given, the whole archive and one entry extracted from the URL by
`bufkit extract` and by `ripunzip unzip-uri` (DEST on tmpfs), with the bytes each fetched.

Usage: python3 remote.py BUFKIT ROUNDS [LOG_ZIP [RIPUNZIP]]   (quiet machine)"""
import http.server
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile


def make_archive(path):
    """An APK's shape at 280 MB: 200 deflated scripts, stored images, and large stored blobs
    (native libraries, media) of random bytes."""
    rng = random.Random(280)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("AndroidManifest.xml"), b"<manifest/>" * 100, compress_type=zipfile.ZIP_DEFLATED)
        for i in range(200):
            body = "".join(f"function f{i}_{j}(x) {{ return x * {j}; }}\n" for j in range(rng.randint(20, 2000)))
            z.writestr(zipfile.ZipInfo(f"assets/js/m{i}.js"), body.encode(), compress_type=zipfile.ZIP_DEFLATED)
        for i in range(20):
            z.writestr(zipfile.ZipInfo(f"res/drawable/i{i}.png"), rng.randbytes(40_000), compress_type=zipfile.ZIP_STORED)
        for i in range(14):
            z.writestr(zipfile.ZipInfo(f"lib/arm64-v8a/lib{i}.so"), rng.randbytes(20 << 20), compress_type=zipfile.ZIP_STORED)


class Served:
    sent = 0
    lock = threading.Lock()


def handler(path):
    data = open(path, "rb").read()
    etag = '"%x"' % os.stat(path).st_mtime_ns

    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as written, no delayed-ACK stall

        def do_GET(self):
            r = self.headers.get("Range")
            n = len(data)
            if r:
                m = re.fullmatch(r"bytes=(\d*)-(\d*)", r)
                a, b = (n - int(m.group(2)), n - 1) if m.group(1) == "" else (int(m.group(1)), min(int(m.group(2) or n - 1), n - 1))
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {a}-{b}/{n}")
            else:
                a, b = 0, n - 1
                self.send_response(200)
            self.send_header("Content-Length", str(b - a + 1))
            self.send_header("ETag", etag)
            self.end_headers()
            self.wfile.write(memoryview(data)[a:b + 1])
            with Served.lock:
                Served.sent += b - a + 1

        def log_message(self, *args):
            pass

    return H


def timed(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main():
    bufkit, rounds = sys.argv[1], int(sys.argv[2])
    work = tempfile.mkdtemp(prefix="bufkit-remote-")
    archive = os.path.join(work, "app.apk")
    make_archive(archive)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler(archive))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/app.apk"
    name = "assets/js/m7.js"
    with zipfile.ZipFile(archive) as z:
        info = z.getinfo(name)
        central = os.path.getsize(archive) - z.start_dir
    remote, download, sent_remote, sent_download = [], [], [], []
    copy = os.path.join(work, "copy.apk")
    for r in range(rounds):
        for how in (["remote", "download"] if r % 2 == 0 else ["download", "remote"]):
            before = Served.sent
            if how == "remote":
                remote.append(timed([bufkit, "cat", url, name]))
                sent_remote.append(Served.sent - before)
            else:
                t0 = time.perf_counter()
                subprocess.run(["curl", "-s", "-o", copy, url], check=True)
                subprocess.run([bufkit, "cat", copy, name], check=True, stdout=subprocess.DEVNULL)
                download.append(time.perf_counter() - t0)
                sent_download.append(Served.sent - before)
                os.remove(copy)
    server.shutdown()
    size = os.path.getsize(archive)
    bound = central + info.compress_size + len(name) + 30 + (64 << 10)
    rm, dm = statistics.median(remote), statistics.median(download)
    print(f"archive: {size / 1e6:.1f} MB, {central} bytes of central directory; entry {name}: "
          f"{info.compress_size} bytes compressed")
    print("| how | median | bytes the server sent | against the bound |")
    print("|---|---:|---:|---:|")
    print(f"| `bufkit cat URL {name}` | {rm * 1000:.1f} ms | {max(sent_remote):,} | {max(sent_remote) / bound:.2f} of {bound:,} |")
    print(f"| `curl -o` then `bufkit cat FILE {name}` | {dm * 1000:.1f} ms | {max(sent_download):,} | |")
    print(f"download then read / read remotely: {dm / rm:.1f}×")
    if len(sys.argv) > 4 and sys.argv[4]:
        against_ripunzip(bufkit, sys.argv[4], archive, name, rounds)
    if len(sys.argv) > 3:
        slice_of(bufkit, sys.argv[3], work)
    subprocess.run(["rm", "-rf", work])


def against_ripunzip(bufkit, ripunzip, archive, name, rounds):
    """Whole-archive and one-entry extraction from the URL: bufkit against ripunzip."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler(archive))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/app.apk"
    dest = tempfile.mkdtemp(prefix="bufkit-remote-dest-", dir="/dev/shm")
    runs = {
        ("whole", "bufkit"): lambda d: [bufkit, "extract", url, d],
        ("whole", "ripunzip"): lambda d: [ripunzip, "unzip-uri", url, "-d", d],
        ("one entry", "bufkit"): lambda d: [bufkit, "extract", "--only", name, url, d],
        ("one entry", "ripunzip"): lambda d: [ripunzip, "unzip-uri", url, name, "-d", d],
    }
    walls = {k: [] for k in runs}
    sent = {k: [] for k in runs}
    for r in range(rounds):
        keys = list(runs) if r % 2 == 0 else list(reversed(runs))
        for key in keys:
            out = os.path.join(dest, "out")
            if key[1] == "ripunzip":
                os.mkdir(out)
            before = Served.sent
            walls[key].append(timed(runs[key](out)))
            sent[key].append(Served.sent - before)
            subprocess.run(["rm", "-rf", out])
    server.shutdown()
    subprocess.run(["rm", "-rf", dest])
    print()
    print("extraction from the URL, DEST on tmpfs, medians:")
    print("| what | bufkit | ripunzip | ripunzip / bufkit | bytes fetched: bufkit | ripunzip |")
    print("|---|---:|---:|---:|---:|---:|")
    for what in ("whole", "one entry"):
        b, r = statistics.median(walls[(what, "bufkit")]), statistics.median(walls[(what, "ripunzip")])
        print(f"| {what} | {b * 1000:.1f} ms | {r * 1000:.1f} ms | {r / b:.2f}× | {max(sent[(what, 'bufkit')]):,} "
              f"| {max(sent[(what, 'ripunzip')]):,} |")


def slice_of(bufkit, log_zip, work):
    """A 4 KiB slice of a remote 256 MiB deflated entry, from its checkpoints."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler(log_zip))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/log.zip"
    points = os.path.join(work, "log.idx")
    before = Served.sent
    subprocess.run([bufkit, "index", url, "app.log", "-o", points], check=True, stderr=subprocess.DEVNULL)
    indexed = Served.sent - before
    with zipfile.ZipFile(log_zip) as z:
        info = z.getinfo("app.log")
        central = os.path.getsize(log_zip) - z.start_dir
    at = info.file_size * 3 // 4 + 12345
    before = Served.sent
    t0 = time.perf_counter()
    out = subprocess.run([bufkit, "cat", "--range", f"{at}:4096", "--checkpoints", points, url, "app.log"],
                         check=True, capture_output=True).stdout
    wall = time.perf_counter() - t0
    fetched = Served.sent - before
    server.shutdown()
    with zipfile.ZipFile(log_zip) as z, z.open("app.log") as f:
        f.seek(at)
        assert f.read(4096) == out, "the slice differs"
    span = info.compress_size * (1 << 20) // info.file_size  # a 1 MiB output span, in compressed bytes
    tail = 65536 + 22
    print()
    print(f"slice: 4 KiB at {at} of app.log ({info.file_size >> 20} MiB, {info.compress_size:,} bytes compressed); "
          f"checkpoints {os.path.getsize(points):,} bytes, `bufkit index` fetched {indexed:,}")
    print("| what | bytes the server sent |")
    print("|---|---:|")
    print(f"| `bufkit cat --range {at}:4096 --checkpoints` ({wall * 1000:.1f} ms) | {fetched:,} |")
    print(f"| of which the first request (end records and central directory, {central:,} bytes of it) | {tail:,} |")
    print(f"| the rest, against one checkpoint span ({span:,} compressed) + 64 KiB = {span + 65536:,} | {fetched - tail:,} |")


if __name__ == "__main__":
    main()
