#!/usr/bin/env bash
# Side-by-side inflate benchmark in one run: git's per-object zlib loop (C, system zlib) against
# bufkit, libdeflate called directly, flate2 (zlib-rs), miniz_oxide and zlib-ng (git's loop and its
# best usage, one stream reset per object), on two real packs and one large stream. CPU seconds, median of ROUNDS alternating rounds (each round: every engine, 5
# passes, its median). Prints a markdown table of ratios to git's loop.
# Usage: bench-reports/strided-inflate/run.sh [ROUNDS]   (needs gcc, zlib1g-dev, git, python3; cmake for the
# zlib-ng rows, which are left out without it)
set -euo pipefail
rounds=${1:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-inflate-bench}
mkdir -p "$work"
cd "$root"
cargo build --release -q -p bufkit-bench --bin pack_bench
gcc -O2 -o "$work/git_loop" bench-reports/strided-inflate/git_loop.c -lz
zlibng=
if command -v cmake >/dev/null; then
  cargo build --release -q --manifest-path bench-reports/strided-inflate/zlibng/Cargo.toml
  zlibng=bench-reports/strided-inflate/zlibng/target/release/zlibng-loop
else
  echo "cmake not found: no zlib-ng rows" >&2
fi
[[ -d /tmp/bufkit-bench-repo ]] || bench-reports/strided-inflate/make-pack.sh >/dev/null
[[ -d /tmp/bufkit-history-repo ]] || python3 bench-reports/strided-inflate/make-history-pack.py >/dev/null
stdlib_pack=$(ls /tmp/bufkit-bench-repo/.git/objects/pack/*.pack)
history_pack=$(ls /tmp/bufkit-history-repo/.git/objects/pack/*.pack)
# One large stream: 32 MiB of the standard library's text, zlib level 6.
python3 - "$work/large.z" <<'PY'
import sys, sysconfig, os, zlib
root = sysconfig.get_paths()["stdlib"]; data = bytearray()
for d, _, fs in sorted(os.walk(root)):
    for f in sorted(fs):
        if f.endswith(".py") and len(data) < 32 << 20:
            data += open(os.path.join(d, f), "rb").read()
data = bytes(data[: 32 << 20])
open(sys.argv[1], "wb").write(zlib.compress(data, 6))
open(sys.argv[1] + ".size", "w").write(str(len(data)))
PY
large="STREAM:$work/large.z:$(cat "$work/large.z.size")"
results=$work/results.jsonl
: >"$results"
for r in $(seq "$rounds"); do
  for case in "stdlib:$stdlib_pack" "history:$history_pack" "large:$large"; do
    name=${case%%:*} src=${case#*:}
    table=$work/$name.table
    ./target/release/pack_bench "$src" "$table" 5 | sed "s/^{/{\"case\":\"$name\",\"round\":$r,/" >>"$results"
    file=${src#STREAM:}; file=${file%%:*}
    "$work/git_loop" "$file" "$table" 5 | sed "s/^{/{\"case\":\"$name\",\"round\":$r,/" >>"$results"
    [[ -z $zlibng ]] || "$zlibng" "$file" "$table" 5 | sed "s/^{/{\"case\":\"$name\",\"round\":$r,/" >>"$results"
  done
done
python3 - "$results" <<'PY'
import json, sys, statistics, collections
rows = [json.loads(l) for l in open(sys.argv[1])]
by = collections.defaultdict(list)
meta = {}
for r in rows:
    by[(r["case"], r["engine"])].append(r["seconds"])
    meta[r["case"]] = r
engines = ["git-zlib-loop", "bufkit", "bufkit-chunked", "libdeflate-direct", "flate2-zlib-rs", "miniz_oxide", "zlib-ng-loop", "zlib-ng-reset"]
print("| input | engine | CPU s (median) | per object | vs git's loop |")
print("|---|---|---:|---:|---:|")
for case in ["stdlib", "history", "large"]:
    base = statistics.median(by[(case, "git-zlib-loop")])
    n = meta[case]["objects"]
    for e in engines:
        if (case, e) in by:
            s = statistics.median(by[(case, e)])
            print(f"| {case} | {e} | {s:.4f} | {s / n * 1e9:.0f} ns | {base / s:.2f}× |")
PY
