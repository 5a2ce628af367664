#!/usr/bin/env bash
# Issue 13's pack target, whole process against whole process: `bufkit inflate-pack PACK --idx IDX`
# (every object inflated, its CRC-32 and size checked against the index and header, the pack's
# SHA-1 checked) on 1 and 2 threads, against git's per-object zlib loop (`git_loop.c`: inflate
# only, no hashing, one pass) as a process of its own on the same pack. ROUNDS alternating runs;
# median wall and CPU seconds (`/usr/bin/time`), ratio of wall times, parallel efficiency
# CPU ÷ (threads × wall).
# Usage: bench-reports/inflate/pack_vs_git_loop.sh [ROUNDS] [PACK...]
#   (default packs: make-pack.sh's stdlib pack and make-history-pack.py's history pack;
#    e.g. `python3 bench-reports/inflate/make-history-pack.py /tmp/bufkit-history-big 22000`
#    builds a 156,000-object history pack)
set -euo pipefail
rounds=${1:-7}
shift || true
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-inflate-bench}
mkdir -p "$work"
cd "$root"
cargo build --release -q -p bufkit-cli -p bufkit-strided-inflate --example pack_bench
gcc -O2 -o "$work/git_loop" bench-reports/inflate/git_loop.c -lz
packs=("$@")
if [[ ${#packs[@]} -eq 0 ]]; then
  [[ -d /tmp/bufkit-bench-repo ]] || bench-reports/inflate/make-pack.sh >/dev/null
  [[ -d /tmp/bufkit-history-repo ]] || python3 bench-reports/inflate/make-history-pack.py >/dev/null
  packs=(/tmp/bufkit-bench-repo/.git/objects/pack/*.pack /tmp/bufkit-history-repo/.git/objects/pack/*.pack)
fi
times=$(mktemp)
trap 'rm -f "$times"' EXIT
for pack in "${packs[@]}"; do
  table=$work/$(basename "$pack" .pack).table
  ./target/release/examples/pack_bench "$pack" "$table" 1 >/dev/null # writes the object table git_loop reads
  name=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$pack")")")")")
  for ((r = 0; r < rounds; r++)); do
    /usr/bin/time -f "$name git-loop 1 %e %U %S" "$work/git_loop" "$pack" "$table" 1 >/dev/null 2>>"$times"
    for t in 1 2; do
      /usr/bin/time -f "$name bufkit $t %e %U %S" ./target/release/bufkit inflate-pack "$pack" --idx "${pack%.pack}.idx" \
        --json --threads "$t" >/dev/null 2>>"$times"
    done
  done
done
python3 - "$times" <<'PY'
import statistics, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    pack, tool, threads, wall, user, sys_ = line.split()
    runs[(pack, tool, int(threads))].append((float(wall), float(user) + float(sys_)))
print("| pack | process | threads | wall (median) | CPU (median) | git's loop wall ÷ this | parallel efficiency |")
print("|---|---|---:|---:|---:|---:|---:|")
for (pack, tool, threads), rs in sorted(runs.items()):
    wall = statistics.median(w for w, _ in rs); cpu = statistics.median(c for _, c in rs)
    git = statistics.median(w for w, _ in runs[(pack, "git-loop", 1)])
    print(f"| {pack} | {tool} | {threads} | {wall:.3f} s | {cpu:.3f} s | {git / wall:.2f}x | {cpu / (threads * wall):.0%} |")
PY
