#!/usr/bin/env python3
"""Layouts the bytes may admit more than one reading of, each read by Python's zipfile, by
Info-ZIP unzip and by bufkit (issue 26, "one reading or none"). bufkit either reads what every
reader that reads the archive reads, or refuses it: it never picks one reading where another reader
sees another, nor reads what no reader reads. And where every reader reads the same thing, bufkit reads it too (no false
refusal), unless the layout is listed as refused on purpose.

Usage: ffi-tests/corpus/ambiguous.py BUFKIT   Prints one line per layout, "N passed, N failed" last.
"""
import io, os, re, struct, subprocess, sys, tempfile, zipfile


def build(files, comment=b"", method=zipfile.ZIP_DEFLATED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as z:
        for name, data in files:
            z.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data, compress_type=method)
        z.comment = comment
    return out.getvalue()


def eocd_at(data):
    return data.rindex(b"PK\x05\x06")


def set_comment_len(data, n):
    at = eocd_at(data)
    return data[:at + 20] + struct.pack("<H", n) + data[at + 22:]


def layouts():
    outer_files = [("outer.txt", b"what the outer archive holds\n" * 10)]
    inner = build([("inner.txt", b"a hidden entry\n" * 5)], method=zipfile.ZIP_STORED)
    inner_cd = inner[struct.unpack("<I", inner[-6:-2])[0]:]  # its central directory and end record
    base = build([("a.txt", b"alpha\n" * 50), ("b.txt", b"beta\n" * 40)])
    # 1. The case: a cut comment holding an embedded archive's directory and end record.
    outer = build([("outer.bin", inner)] + outer_files, comment=inner_cd, method=zipfile.ZIP_STORED)
    yield "cut comment holding another archive's end", set_comment_len(outer, len(inner_cd) + 10), False
    # 2. A whole second end record in the comment, for another directory.
    fake = build([("x", b"x")])
    yield "planted end record in the comment", build(outer_files, comment=fake[-22:]), False
    # 3. The directory and end record appended again after junk.
    cd = struct.unpack("<I", base[-6:-2])[0]
    yield "directory appended twice", base + b"junk" + base[cd:] + b"more", False
    # 4. Single readings: a stub before, junk after, a cut comment alone, a comment that fits.
    yield "stub before the archive", b"#!/bin/sh\nexit 0\n" + base, False
    yield "junk after the end record", base + b"APPENDED", False
    yield "comment cut short", set_comment_len(base, 40), False
    yield "comment mentioning PK\\5\\6", build(outer_files, comment=b"see PK\x05\x06 for details"), False
    # 5. Two entries with one name: readers differ on which one a name means.
    dup = io.BytesIO()
    with zipfile.ZipFile(dup, "w") as z:
        import warnings
        warnings.simplefilter("ignore")
        z.writestr("same.txt", b"first")
        z.writestr("same.txt", b"second")
    yield "two entries with one name", dup.getvalue(), True
    # 6. An archive after a copy of itself (one byte different), its offsets left as they were:
    # the end record's offset lands on the copy's directory, a complete reading of its own, while
    # readers that allow for prepended data read the second. Refused: two complete readings.
    visible = build([("app.js", b"the code every reader runs\n" * 4)], method=zipfile.ZIP_STORED)
    hidden = visible.replace(b"every reader", b"one reader!!")
    yield "an archive after a copy of itself, offsets unadjusted", hidden + visible, True
    # 6b. The same with the later copy edited (one name changed): a second, different directory
    # right before the end records, which unzip and Python read, while the end record's offset
    # lands on the first copy's. Refused: two complete readings (issue 51).
    first = build([("sub/data.bin", b"the first copy\n" * 50), ("readme.txt", b"hello\n")])
    yield "an archive before an edited copy of itself, offsets unadjusted", first + first.replace(b"sub/", b"s:b/"), True
    # 6c. Other projects' own test archives, read as those projects read them (issue 51):
    # CPython's stub before a ZIP64 archive with nothing adjusted, and zip2's empty archives
    # whose comment is shorter than the bytes after it.
    for peer in ("exe_with_z64", "exe_with_zip"):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "cpython-" + peer), "rb") as f:
            yield f"CPython's {peer}", f.read(), False
    empty = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0, 0, 0, 0, 6)
    yield "zip2's comment_garbage.zip", empty + b"short.omment bla bla bla", False
    yield "zip2's misaligned_comment.zip", empty + b"short.omment bla bla bla" + bytes(467), False
    # 7. A file's name with a directory's mode and 800 bytes of data: a file, by its name.
    info = zipfile.ZipInfo("readme.txt", (2020, 1, 1, 0, 0, 0))
    info.external_attr = (0o040755 << 16) | 0x10
    info.create_system = 3
    info.compress_type = zipfile.ZIP_DEFLATED
    moded = io.BytesIO()
    with zipfile.ZipFile(moded, "w") as z:
        z.writestr(info, bytes(range(32, 122)) * 8 + b"0123456789" * 8)
    yield "a file name with a directory's mode", moded.getvalue(), False
    # 8. A data descriptor flag in the central record only (its local header says sizes 0).
    streamed = io.BytesIO()
    with zipfile.ZipFile(Unseekable(streamed), "w", zipfile.ZIP_DEFLATED) as z:
        with z.open(zipfile.ZipInfo("a.txt", (2020, 1, 1, 0, 0, 0)), "w") as w:
            w.write(b"250 bytes of data " * 14)
    data = bytearray(streamed.getvalue())
    data[6] &= ~0x08
    yield "a data descriptor flag in the central record only", bytes(data), False
    # 9. A stretched comment over a second directory whose end record says another disk: the last
    # record is the one unzip and Python read, never skipped for the first.
    first = build([("first.txt", b"the first directory\n")], method=zipfile.ZIP_STORED)
    second = build([("second.txt", b"the second directory\n")], method=zipfile.ZIP_STORED)
    moved = bytearray(first + second)
    struct.pack_into("<H", moved, len(first) - 2, len(second))
    cd2 = len(first) + struct.unpack("<I", second[-6:-2])[0]
    struct.pack_into("<I", moved, cd2 + 42, len(first))
    struct.pack_into("<I", moved, len(moved) - 6, cd2)
    struct.pack_into("<H", moved, len(moved) - 18, 0xFFFF)
    yield "a last end record on another disk after a stretched comment", bytes(moved), False
    # 10. Bytes after an entry's stream, inside its compressed size, in each method Python
    # writes: one reading (the stream's end ends the data), read past as Python reads them.
    for method, label in [(zipfile.ZIP_DEFLATED, "deflate"), (zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "lzma")]:
        plain = build([("data.txt", b"a line the stream ends after\n" * 300)], method=method)
        yield f"128 bytes after a {label} stream, inside its compressed size", with_junk_after_stream(plain, bytes(range(128))), False


def with_junk_after_stream(one_entry, junk):
    """`one_entry` (an archive of one entry, no data descriptor) with `junk` after its entry's
    data, its compressed size and the directory's offset moved to match."""
    data = bytearray(one_entry)
    name_len, extra_len = struct.unpack_from("<HH", data, 26)
    size = struct.unpack_from("<I", data, 18)[0]
    end = 30 + name_len + extra_len + size
    data[end:end] = junk
    struct.pack_into("<I", data, 18, size + len(junk))
    cd = end + len(junk)
    struct.pack_into("<I", data, cd + 20, size + len(junk))
    eocd = eocd_at(bytes(data))
    struct.pack_into("<I", data, eocd + 16, cd)
    return bytes(data)


class Unseekable(io.RawIOBase):
    """A file that cannot seek, so that zipfile writes data descriptors."""

    def __init__(self, out):
        self.out = out

    def writable(self):
        return True

    def write(self, b):
        return self.out.write(b)


def python_reads(path):
    try:
        with zipfile.ZipFile(path) as z:
            return [(i.filename, z.read(i)) for i in z.infolist() if not i.is_dir()]
    except Exception:
        return None


def unzip_reads(path):
    names = subprocess.run(["unzip", "-Z1", path], capture_output=True)
    if names.returncode > 1:
        return None
    if names.stdout == b"Empty zipfile.\n":
        return []  # what zipinfo says in place of names
    names = names.stdout.decode("utf-8", "replace").splitlines()
    # Symlinks, which unzip makes as links (-p prints their targets): not files, as for bufkit.
    long = subprocess.run(["unzip", "-Z", path], capture_output=True).stdout.decode("utf-8", "replace")
    kinds = [line[0] for line in long.splitlines() if re.match(r"^\S{10}\s+\d+\.\d+ ", line)]
    links = {name for name, kind in zip(names, kinds) if kind == "l"} if len(kinds) == len(names) else set()
    out = []
    for name in names:
        if name.endswith("/") or name in links:
            continue
        # unzip takes a name as a pattern: its wildcards escaped.
        data = subprocess.run(["unzip", "-p", path, re.sub(r"([\[\]*?])", r"\\\1", name)], capture_output=True)
        if data.returncode > 1:
            return None
        out.append((name, data.stdout))
    return out


def bufkit_reads(bufkit, path):
    listing = subprocess.run([bufkit, "ls", "--json", path], capture_output=True)
    if listing.returncode != 0:
        return None, listing.stderr.decode("utf-8", "replace").strip()
    import json
    names = [row["name"] for row in json.loads(listing.stdout) if row["kind"] == "file"]
    out = []
    for name in names:
        data = subprocess.run([bufkit, "cat", path, name], capture_output=True)
        on_cores = subprocess.run([bufkit, "cat", "--parallel-inflate", "always", path, name], capture_output=True)
        if (on_cores.returncode, on_cores.stdout) != (data.returncode, data.stdout):
            # Not a refusal but another reading: the whole run fails.
            raise RuntimeError(f"{path} {name}: other bytes or status with --parallel-inflate always")
        if data.returncode != 0:
            return None, data.stderr.decode("utf-8", "replace").strip()
        out.append((name, data.stdout))
    return out, ""


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    bufkit = sys.argv[1]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for i, (what, data, refused_on_purpose) in enumerate(layouts()):
            path = os.path.join(work, f"layout{i}.zip")
            with open(path, "wb") as f:
                f.write(data)
            readers = {"python": python_reads(path), "unzip": unzip_reads(path)}
            ours, why = bufkit_reads(bufkit, path)
            reading = [r for r in readers.values() if r is not None]
            if ours is not None and not reading:
                ok = False
                verdict = "read where no reader reads anything"
            elif ours is not None:
                ok = all(r == ours for r in reading)
                verdict = "read as every reader reads it" if ok else "read one way where another reader reads another"
            elif reading and all(r == reading[0] for r in reading) and len(reading) == len(readers):
                ok = refused_on_purpose
                verdict = f"refused ({why}) although every reader agrees" + (", on purpose" if ok else "")
            else:
                ok = True
                verdict = f"refused: {why}"
            seen = ", ".join(f"{k}: {'refuses' if v is None else str(len(v)) + ' files'}" for k, v in readers.items())
            print(f"{'ok  ' if ok else 'FAIL'} {what}: {verdict} ({seen})")
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
