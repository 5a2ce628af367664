#!/usr/bin/env python3
"""Builds a git pack shaped like a long-lived repository's: thousands of commits that each change a
line or two of real files (Python's standard library, files under 8 KB), so most objects are small
commits, trees and deltas, as in linux.git. Uses `git fast-import`, then `git gc --aggressive`.
Usage: make-history-pack.py [DIR] [COMMITS]   (default /tmp/bufkit-history-repo, 4000). Prints the .pack path."""
import os
import random
import subprocess
import sys
import sysconfig

repo = sys.argv[1] if len(sys.argv) > 1 else "/tmp/bufkit-history-repo"
commits = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
stdlib = sysconfig.get_paths()["stdlib"]
files = sorted(os.path.join(d, f)[len(stdlib) + 1:] for d, _, fs in os.walk(stdlib) for f in fs
               if f.endswith(".py") and os.path.getsize(os.path.join(d, f)) < 8192)[:600]
contents = {f: open(os.path.join(stdlib, f), "rb").read().split(b"\n") for f in files}
subprocess.run(["rm", "-rf", repo], check=True)
subprocess.run(["git", "init", "-q", repo], check=True)
rng = random.Random(7)
out = []
def blob(data):
    out.append(b"data %d\n" % len(data) + data + b"\n")
for n in range(commits):
    touched = files if n == 0 else rng.sample(files, rng.choice([1, 1, 2, 3]))
    msg = b"change %d: tidy up" % n
    out.append(b"commit refs/heads/main\n")
    out.append(b"committer Bench <bench@example.invalid> %d +0000\n" % (1700000000 + n * 600))
    out.append(b"data %d\n%s\n" % (len(msg), msg))
    for f in touched:
        lines = contents[f]
        if n:
            i = rng.randrange(len(lines))
            lines.insert(i, b"# revision %d" % n)
        out.append(b"M 100644 inline " + f.encode() + b"\n")
        blob(b"\n".join(lines))
p = subprocess.run(["git", "-C", repo, "fast-import", "--quiet"], input=b"".join(out), check=True)
subprocess.run(["git", "-C", repo, "-c", "gc.auto=0", "gc", "-q", "--aggressive"], check=True)
pack_dir = os.path.join(repo, ".git/objects/pack")
print(os.path.join(pack_dir, [f for f in os.listdir(pack_dir) if f.endswith(".pack")][0]))
