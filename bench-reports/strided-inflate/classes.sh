#!/usr/bin/env bash
# Issue 13's class table: inflate-only CPU per class of stream (commits, trees, deltas, blobs by
# size, poorly compressible objects) for every engine, in one run: bufkit, libdeflate called
# directly and zlib-rs (flate2) alternate inside `class_bench`; git's loop (system zlib) and zlib-ng
# (its best usage, `inflateReset` per object, and git's loop on it) time the same per-class object
# tables in the same rounds; so does upstream libdeflate 1.26 (`class_bench` built by
# build-upstream.sh without bufkit's two patches: its libdeflate-direct rows become
# "libdeflate-upstream"). Prints one markdown table per pack, ns per object (medians); "fastest
# other" is the fastest engine that is not bufkit's own decoder (the patched libdeflate bufkit
# links, called directly, is shown beside it).
# Usage: bench-reports/strided-inflate/classes.sh [ROUNDS] [PACK...]   (needs gcc, zlib1g-dev, cmake)
set -euo pipefail
rounds=${1:-5}
shift || true
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-inflate-bench}/classes
mkdir -p "$work"
cd "$root"
cargo build --release -q -p bufkit-bench --bin class_bench
cargo build --release -q --manifest-path bench-reports/strided-inflate/zlibng/Cargo.toml
gcc -O2 -o "$work/git_loop" bench-reports/strided-inflate/git_loop.c -lz
upstream=$(bench-reports/strided-inflate/build-upstream.sh)
packs=("$@")
[[ ${#packs[@]} -gt 0 ]] || mapfile -t packs < <(bench-reports/strided-inflate/default-packs.sh)
results=$work/results.jsonl
: >"$results"
for pack in "${packs[@]}"; do
  name=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$pack")")")")")
  for ((r = 0; r < rounds; r++)); do
    ./target/release/class_bench "$pack" "$work/$name" 1 | sed "s/^{/{\"pack\":\"$name\",/" >>"$results"
    "$upstream/class_bench" "$pack" "$work/$name-upstream" 1 | grep '"engine":"libdeflate-direct"' |
      sed -e "s/^{/{\"pack\":\"$name\",/" -e 's/"engine":"libdeflate-direct"/"engine":"libdeflate-upstream"/' >>"$results"
    for table in "$work/$name"/*.table; do
      class=$(basename "$table" .table)
      for tool in "$work/git_loop" bench-reports/strided-inflate/zlibng/target/release/zlibng-loop; do
        "$tool" "$pack" "$table" 5 | sed "s/^{/{\"pack\":\"$name\",\"class\":\"$class\",/" >>"$results"
      done
    done
  done
done
python3 - "$results" <<'PY'
import json, sys, statistics, collections
rows = [json.loads(l) for l in open(sys.argv[1])]
secs = collections.defaultdict(list); info = {}
for r in rows:
    secs[(r["pack"], r["class"], r["engine"])].append(r["seconds"])
    if "median_size" in r:
        info[(r["pack"], r["class"])] = (r["objects"], r["median_size"])
engines = ["git-zlib-loop", "zlib-ng-loop", "zlib-ng-reset", "flate2-zlib-rs", "libdeflate-upstream", "libdeflate-direct", "bufkit"]
others = ["git-zlib-loop", "zlib-ng-loop", "zlib-ng-reset", "flate2-zlib-rs", "libdeflate-upstream"]
for pack in sorted({p for p, _ in info}):
    print(f"\n{pack} (ns per object, median of rounds)\n")
    print("| class | objects | median size | " + " | ".join(engines) + " | fastest other ÷ bufkit |")
    print("|---|---:|---:|" + "---:|" * len(engines) + "---:|")
    for (p, c), (n, size) in sorted(info.items()):
        if p != pack: continue
        ns = {e: statistics.median(secs[(p, c, e)]) / n * 1e9 for e in engines if secs.get((p, c, e))}
        best = min(v for e, v in ns.items() if e in others)
        cells = " | ".join(f"{ns[e]:,.0f}" if e in ns else "—" for e in engines)
        print(f"| {c} | {n:,} | {size:,} | {cells} | {best / ns['bufkit']:.2f}× |")
PY
