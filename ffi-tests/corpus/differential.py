#!/usr/bin/env python3
"""Differential fuzzing of bufkit's reading of zip archives against Python's zipfile: structure-
aware mutations of seed archives (fields of the end records, central and local headers set to
boundary or random values, records repeated, the archive placed after a copy of itself, comments
stretched, bytes cut or appended). The rule is "one reading or none": where both read a mutant,
they must read the same files with the same bytes in the same order; bufkit may refuse what
Python reads (it is stricter on purpose), never read it otherwise. bufkit must also never crash
(a panic, a signal) or hang.

Usage: ffi-tests/corpus/differential.py BUFKIT [--mutants N] [--seed S] [--keep DIR]
The test command runs 300 mutants; the long run is
    ffi-tests/corpus/differential.py target/release/bufkit --mutants 20000 --keep /tmp/bufkit-diff
which keeps every failing mutant in DIR. Prints one line per failure, "N passed, N failed" last.
"""
import argparse, io, json, os, random, struct, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ambiguous import Unseekable  # a file zipfile cannot seek in, so it writes data descriptors

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
    choice = rng.randrange(10)
    if choice < 5:
        return set_field(data, rng)
    if choice == 5:  # a copy of the archive, one byte different, placed before it, offsets as they were
        at = rng.randrange(len(data))
        copy = data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1:]
        return copy + data
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
    passed = failed = refused = agreed = stricter = 0
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "mutant.zip")
        for n in range(args.mutants):
            data = rng.choice(base)
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                data = mutate(data, rng)
            with open(path, "wb") as f:
                f.write(data)
            theirs = python_reads(path)
            ours, crash = bufkit_reads(args.bufkit, path)
            problem = crash
            if problem is None and ours is not None and theirs is not None and ours != theirs:
                names = lambda r: [name for name, _ in r]
                problem = f"read one way where Python reads another: bufkit {names(ours)}, python {names(theirs)}"
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
    print(f"differential: {args.mutants} mutants, {agreed} read alike by both, {refused} refused by bufkit "
          f"({stricter} of them read by Python)", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
