#!/usr/bin/env python3
"""Archives written by Python's zipfile with bzip2 (12) and LZMA (14), another encoder than the
library tests' and 7-Zip's: `bufkit cat` must give exactly what zipfile reads, and `bufkit test`
must pass; the same archive with one byte of an entry's data flipped must be refused by both
(issue 26, "every archive users actually have").

Usage: ffi-tests/corpus/methods.py BUFKIT   Prints one line per archive, "N passed, N failed" last.
"""
import os, random, subprocess, sys, tempfile, zipfile


def files(seed):
    rnd = random.Random(seed)
    text = "".join(f"{i:05} {rnd.choice(['alpha', 'beta', 'gamma'])} assets/js/{rnd.randrange(99)}.js\n" for i in range(4000))
    noise = bytes(rnd.getrandbits(8) for _ in range(30000))
    return [("small.txt", b"hello\n"), ("empty", b""), ("text.txt", text.encode()), ("mixed.bin", noise + text.encode() + noise)]


def main():
    bufkit = sys.argv[1]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for method, label in [(zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "lzma")]:
            for level, seed in [(1, 1), (9, 2)]:
                path = os.path.join(work, f"{label}-{level}.zip")
                with zipfile.ZipFile(path, "w", method, compresslevel=level) as z:
                    for name, data in files(seed):
                        z.writestr(name, data)
                with zipfile.ZipFile(path) as z:
                    expected = b"".join(z.read(name) for name in z.namelist())
                cat = subprocess.run([bufkit, "cat", path], capture_output=True)
                test = subprocess.run([bufkit, "test", path], capture_output=True)
                problems = []
                if cat.returncode != 0 or cat.stdout != expected:
                    problems.append(f"cat: exit {cat.returncode}, {len(cat.stdout)} of {len(expected)} bytes, {cat.stderr.decode()[-200:]}")
                if test.returncode != 0:
                    problems.append(f"test: exit {test.returncode}, {test.stdout.decode()[-200:]}")
                # One byte in the middle of the last entry's data flipped: refused by both readers.
                with zipfile.ZipFile(path) as z:
                    info = z.infolist()[-1]
                with open(path, "rb") as f:
                    data = bytearray(f.read())
                at = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + info.compress_size // 2
                data[at] ^= 0x55
                damaged = os.path.join(work, f"{label}-{level}-damaged.zip")
                with open(damaged, "wb") as f:
                    f.write(data)
                try:
                    with zipfile.ZipFile(damaged) as z:
                        z.read(info.filename)
                    problems.append("zipfile reads the damaged archive: the damage is not where meant")
                except Exception:
                    pass
                if subprocess.run([bufkit, "cat", damaged], capture_output=True).returncode == 0:
                    problems.append("cat accepts the damaged archive")
                ok = not problems
                print(f"{'ok  ' if ok else 'FAIL'} {label} level {level}: " + ("; ".join(problems) or "read as zipfile reads it, damage refused"))
                passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
