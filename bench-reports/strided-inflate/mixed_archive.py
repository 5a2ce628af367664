#!/usr/bin/env python3
"""Three 50 MB entries of mixed content: the files of this Python's standard library in name
order, of every kind it holds (sources, compiled .pyc, shared libraries, data), back to back,
cut into three entries and deflated at level 6 by zipfile.

Usage: python3 bench-reports/strided-inflate/mixed_archive.py OUT.zip"""
import os
import sys
import sysconfig
import zipfile

PART = 50 << 20


def main():
    out = sys.argv[1]
    if os.path.exists(out):
        return
    lib = sysconfig.get_paths()["stdlib"]
    data = bytearray()
    for base, dirs, files in sorted(os.walk(lib)):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(base, f)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as fh:
                data += fh.read()
            if len(data) >= 3 * PART:
                break
        if len(data) >= 3 * PART:
            break
    if len(data) < 3 * PART:
        raise SystemExit(f"only {len(data)} bytes of {lib}: not enough for three 50 MB entries")
    with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for i in range(3):
            z.writestr(f"mixed{i}.bin", bytes(data[i * PART:(i + 1) * PART]))
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
