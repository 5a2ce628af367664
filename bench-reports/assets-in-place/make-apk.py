#!/usr/bin/env python3
"""An APK-shaped archive for the in-place benchmarks: 200 JavaScript-like assets (0.3-120 KB,
deflated, as in `bufkit-demo`), 20 stored PNG-like images and a stored resources.arsc, as
Android's packager leaves media and the resource table uncompressed. Deterministic.
Usage: make-apk.py OUT.zip"""
import random, sys, zipfile

words = ("function return const let this props state render item value index node children options "
         "callback result error data key map filter reduce length push then async await export import "
         "default null undefined").split()
punct = ["(", ")", "{", "}", ".", ", ", ";\n", " = "]
rng = random.Random(0x12345678)
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr(zipfile.ZipInfo("AndroidManifest.xml"), b"<manifest/>" * 200, compress_type=zipfile.ZIP_DEFLATED)
    arsc = zipfile.ZipInfo("resources.arsc")
    z.writestr(arsc, bytes(rng.getrandbits(8) for _ in range(64 << 10)), compress_type=zipfile.ZIP_STORED)
    for i in range(200):
        size = int(300 * 400 ** rng.random())
        out = []
        n = 0
        while n < size:
            w = rng.choice(words) + (str(rng.randrange(1000)) if rng.random() < 0.14 else "") + rng.choice(punct)
            out.append(w)
            n += len(w)
        body = "".join(out).encode()[:size]
        z.writestr(zipfile.ZipInfo(f"assets/{['app', 'vendor', 'lib', 'ui'][i % 4]}/module{i}.js"), body,
                   compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    for i in range(20):
        png = b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(rng.randrange(500, 20000)))
        z.writestr(zipfile.ZipInfo(f"res/drawable/icon{i}.png"), png, compress_type=zipfile.ZIP_STORED)
