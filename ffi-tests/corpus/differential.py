#!/usr/bin/env python3
"""Differential fuzzing of bufkit's reading of zip archives against Python's zipfile and Info-ZIP
unzip: structure-aware mutations of seed archives (fields of the end records, central and local
headers set to boundary or random values, records repeated, the archive placed before or after a
copy of itself, comments stretched, bytes cut or appended). The rule is "one reading or none":
where bufkit reads a mutant, it reads the same files with the same bytes as each of Python and
unzip that reads it; it may refuse what they read (it is stricter on purpose), never read it
otherwise. bufkit reads each mutant from four places, which must give one reading or one
refusal: the file (`ls`, `cat`, and `cat` inflating on several cores), the file extracted, a pipe
(`extract -`), and a URL served by range requests from a server this script starts on 127.0.0.1.
bufkit must also never crash (a panic, a signal) or hang.

Usage: ffi-tests/corpus/differential.py BUFKIT [--mutants N] [--seed S] [--keep DIR]
The test command runs 300 mutants; the long run is
    ffi-tests/corpus/differential.py target/release/bufkit --mutants 20000 --keep /tmp/bufkit-diff
which keeps every failing mutant in DIR. Prints one line per failure, "N passed, N failed" last.
"""
import argparse, http.server, io, json, os, random, shutil, struct, subprocess, sys, tempfile, threading, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ambiguous import Unseekable, unzip_reads  # a file zipfile cannot seek in; unzip's reading

EOCD, ZIP64_EOCD, ZIP64_LOCATOR = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"
CENTRAL, LOCAL = b"PK\x01\x02", b"PK\x03\x04"


def seeds(rng):
    """Small archives of the shapes writers make: stored and deflated entries, directories, a
    comment, ZIP64 records, data descriptors."""
    text = b"".join(b"line %d of a text that compresses\n" % i for i in range(200))
    files = [("assets/", b""), ("assets/app.js", text), ("assets/raw.bin", bytes(range(256)) * 4), ("readme.txt", b"hello\n")]
    out = []
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        b = io.BytesIO()
        with zipfile.ZipFile(b, "w", method) as z:
            for name, data in files:
                z.writestr(zipfile.ZipInfo(name, (2020, 1, 2, 3, 4, 6)), data, compress_type=method)
            z.comment = b"a comment"
        out.append(b.getvalue())
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files[1:]:
            with z.open(zipfile.ZipInfo(name, (2020, 1, 2, 3, 4, 6)), "w", force_zip64=True) as w:
                w.write(data)
    out.append(b.getvalue())
    s = io.BytesIO()
    with zipfile.ZipFile(Unseekable(s), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files[1:]:
            with z.open(zipfile.ZipInfo(name, (2020, 1, 2, 3, 4, 6)), "w") as w:
                w.write(data)
    out.append(s.getvalue())
    return out


def records(data):
    """Where each record starts: (kind, offset) for every signature found."""
    found = []
    for sig, kind in ((EOCD, "eocd"), (CENTRAL, "central"), (LOCAL, "local"), (ZIP64_EOCD, "zip64"), (ZIP64_LOCATOR, "locator")):
        at = data.find(sig)
        while at >= 0:
            found.append((kind, at))
            at = data.find(sig, at + 1)
    return found


# (field offset, width) per record kind: every field a reader might read.
FIELDS = {
    "eocd": [(4, 2), (6, 2), (8, 2), (10, 2), (12, 4), (16, 4), (20, 2)],
    "central": [(4, 2), (6, 2), (8, 2), (10, 2), (12, 2), (14, 2), (16, 4), (20, 4), (24, 4), (28, 2), (30, 2),
                (32, 2), (34, 2), (36, 2), (38, 4), (42, 4)],
    "local": [(4, 2), (6, 2), (8, 2), (10, 2), (12, 2), (14, 4), (18, 4), (22, 4), (26, 2), (28, 2)],
    "zip64": [(4, 8), (16, 4), (20, 4), (24, 8), (32, 8), (40, 8), (48, 8)],
    "locator": [(4, 4), (8, 8), (16, 4)],
}


def set_field(data, rng):
    recs = [r for r in records(data) if r[1] + 30 <= len(data)]
    if not recs:
        return data
    kind, at = rng.choice(recs)
    off, width = rng.choice(FIELDS[kind])
    if at + off + width > len(data):
        return data
    old = int.from_bytes(data[at + off:at + off + width], "little")
    top = (1 << (8 * width)) - 1
    value = rng.choice([0, 1, top, top - 1, old + 1, max(old - 1, 0), old ^ (1 << rng.randrange(8 * width)),
                        rng.randrange(top + 1), 8, 0x0800, 0x0808, 0o040755 << 16, 0o120777 << 16]) & top
    return data[:at + off] + value.to_bytes(width, "little") + data[at + off + width:]


def mutate(data, rng):
    choice = rng.randrange(11)
    if choice < 5:
        return set_field(data, rng)
    if choice == 10:  # a copy with a field set or a name bufkit refuses, placed before or after the archive
        if rng.random() < 0.5:
            copy = set_field(data, rng)
        else:
            copy = data.replace(b"assets/app.js", rng.choice([b"a:sets/app.js", b"assets\\app.js", b"../ets/app.js",
                                                               b"/ssets/app.js", b"assets/app.j\0"]))
        return copy + data if rng.random() < 0.5 else data + copy
    if choice == 5:  # a copy of the archive, one byte different, placed before or after it, offsets as they were
        at = rng.randrange(len(data))
        copy = data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1:]
        return copy + data if rng.random() < 0.5 else data + copy
    if choice == 6:  # a record repeated
        recs = records(data)
        if recs:
            kind, at = rng.choice(recs)
            end = min(len(data), at + rng.randrange(22, 200))
            return data + data[at:end] if rng.random() < 0.5 else data[:at] + data[at:end] + data[at:]
    if choice == 7:  # the comment stretched over what follows, then more appended
        eocd = data.rfind(EOCD)
        if eocd < 0 or eocd + 22 > len(data):
            return data
        tail = data[:eocd + 22]
        more = rng.choice([b"junk", data[data.find(CENTRAL):] if CENTRAL in data else b"", bytes(rng.randrange(64))])
        stretched = bytearray(tail + more)
        struct.pack_into("<H", stretched, eocd + 20, (len(more) + rng.choice([0, 0, 1, -1])) % 0x10000)
        return bytes(stretched)
    if choice == 8:  # cut
        return data[:rng.randrange(len(data))]
    at = rng.randrange(len(data) + 1)  # bytes inserted
    return data[:at] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))) + data[at:]


def is_symlink(info):
    """A Unix host's symlink entry: a link, which bufkit lists but never reads as a file (unzip
    creates a link); Python's zipfile has no links and reads its target as the file's bytes."""
    return info.create_system == 3 and (info.external_attr >> 16) & 0o170000 == 0o120000


def python_reads(path):
    try:
        with zipfile.ZipFile(path) as z:
            return [(i.filename, z.read(i)) for i in z.infolist() if not i.is_dir() and not is_symlink(i)]
    except Exception:
        return None


class RangeServer(http.server.ThreadingHTTPServer):
    """Serves `self.archive` at any path on 127.0.0.1 by range requests (206 with Content-Range,
    an ETag), as an object store does."""
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), RangeHandler)
        self.archive = b""
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self, n):
        return f"http://127.0.0.1:{self.server_address[1]}/mutant-{n}.zip"


class RangeHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        data, size = self.server.archive, len(self.server.archive)
        spec = (self.headers.get("Range") or "").removeprefix("bytes=")
        if not spec:
            start, end = 0, size - 1
        elif spec.startswith("-"):
            start, end = max(size - int(spec[1:]), 0), size - 1
        else:
            a, _, b = spec.partition("-")
            start, end = int(a), min(int(b) if b else size - 1, size - 1)
        if size == 0 or start > end:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(206 if spec else 200)
        if spec:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("ETag", f'"{hash(data) & 0xffffffff:08x}"')
        self.end_headers()
        self.wfile.write(data[start:end + 1])


def tree(root):
    """The files under `root`: (relative path, bytes), sorted."""
    found = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                found.append((os.path.relpath(path, root), f.read()))
    return sorted(found)


def extractions(bufkit, path, data, url, work):
    """bufkit's extraction of the mutant from the file, a pipe and the URL: {place: tree or None
    (refused)}, and a problem if one crashed or hung."""
    found = {}
    for place, archive, stdin in (("file", path, None), ("pipe", "-", data), ("url", url, None)):
        dest = os.path.join(work, "out-" + place)
        try:
            run = subprocess.run([bufkit, "extract", archive, dest], input=stdin, capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            return found, f"extract from the {place} hung (30 s)"
        if run.returncode not in (0, 1):
            return found, f"extract from the {place} exited {run.returncode}: {run.stderr[-300:]!r}"
        if run.returncode == 0:
            found[place] = tree(dest)
        elif os.path.exists(dest):
            return found, f"a refused extraction from the {place} left {dest}"
        else:
            found[place] = None
        shutil.rmtree(dest, ignore_errors=True)
    return found, None


def bufkit_reads(bufkit, path):
    """(files, crashed): bufkit's reading (None when it refuses), and whether it crashed."""
    try:
        listing = subprocess.run([bufkit, "ls", "--json", path], capture_output=True, timeout=20)
        if listing.returncode not in (0, 1):
            return None, f"ls exited {listing.returncode}: {listing.stderr[-300:]!r}"
        if listing.returncode:
            return None, None
        rows = [r for r in json.loads(listing.stdout) if r["kind"] == "file"]
        whole = subprocess.run([bufkit, "cat", path], capture_output=True, timeout=20)
        # Every deflated entry cut into chunks on several cores: the same bytes or refusal.
        on_cores = subprocess.run([bufkit, "cat", "--parallel-inflate", "always", path], capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        return None, "hung (20 s)"
    if whole.returncode not in (0, 1):
        return None, f"cat exited {whole.returncode}: {whole.stderr[-300:]!r}"
    if (on_cores.returncode, on_cores.stdout) != (whole.returncode, whole.stdout):
        return None, f"cat --parallel-inflate always exited {on_cores.returncode} (not {whole.returncode}) or read other bytes"
    if whole.returncode:  # the structure read, the data refused (a CRC, a stream): a refusal
        return None, None
    files, at = [], 0
    for r in rows:
        files.append((r["name"], whole.stdout[at:at + r["size"]]))
        at += r["size"]
    return files, None


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("bufkit")
    parser.add_argument("--mutants", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--keep")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    base = seeds(rng)
    passed = failed = refused = agreed = stricter = everywhere = 0
    server = RangeServer()
    names = lambda r: [name for name, _ in r]
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "mutant.zip")
        for n in range(args.mutants):
            data = rng.choice(base)
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                data = mutate(data, rng)
            with open(path, "wb") as f:
                f.write(data)
            server.archive = data
            peers = {"python": python_reads(path), "unzip": unzip_reads(path)}
            theirs = peers["python"]
            ours, crash = bufkit_reads(args.bufkit, path)
            problem = crash
            for peer, reading in peers.items():
                if problem is None and ours is not None and reading is not None and sorted(ours) != sorted(reading):
                    problem = f"read one way where {peer} reads another: bufkit {names(ours)}, {peer} {names(reading)}"
            if problem is None:
                places, problem = extractions(args.bufkit, path, data, server.url(n), work)
                # Extraction refuses what reading by name cannot tell (a tree that cannot be made).
                readings = {p: t for p, t in places.items()}
                if problem is None and len({repr(t) for t in readings.values()}) > 1:
                    said = ", ".join(f"{p}: {'refused' if t is None else len(t)}" for p, t in readings.items())
                    problem = f"the places disagree: {said}"
                extracted = readings.get("file")
                everywhere += problem is None and extracted is not None
                if problem is None and extracted is not None and ours is None:
                    problem = "extracted from the file, refused by ls/cat"
                if problem is None and extracted is not None and names(extracted) != sorted(names(ours)):
                    if sorted(extracted) != sorted((name, b) for name, b in ours if not name.endswith("/")):
                        problem = f"extracted other files than ls/cat read: {names(extracted)} against {names(ours)}"
            if problem:
                failed += 1
                print(f"FAIL mutant {n}: {problem}")
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    with open(os.path.join(args.keep, f"mutant-{args.seed}-{n}.zip"), "wb") as f:
                        f.write(data)
            else:
                passed += 1
                refused += ours is None
                stricter += ours is None and theirs is not None
                agreed += ours is not None and theirs is not None
    print(f"differential: {args.mutants} mutants, {agreed} read alike by bufkit and Python, {refused} refused by "
          f"bufkit ({stricter} of them read by Python), {everywhere} extracted alike from the file, a pipe and a URL",
          file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
