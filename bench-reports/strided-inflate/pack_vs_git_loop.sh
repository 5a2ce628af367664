#!/usr/bin/env bash
# Issue 13's pack target, whole process against whole process: `bufkit inflate-pack PACK --idx IDX`
# (every object inflated, its CRC-32 and size checked against the index and header, the pack's
# SHA-1 checked) on 1 and 2 threads, against git's per-object zlib loop (`git_loop.c`: inflate
# only, no hashing, one pass) as a process of its own on the same pack. ROUNDS alternating runs;
# median wall and CPU time, ratio of wall times, parallel efficiency
# CPU ÷ (threads × wall).
# Usage: bench-reports/strided-inflate/pack_vs_git_loop.sh [ROUNDS] [PACK...]
#   (default packs: make-pack.sh's stdlib pack and make-history-pack.py's history pack;
#    e.g. `python3 bench-reports/strided-inflate/make-history-pack.py /tmp/bufkit-history-big 22000`
#    builds a 156,000-object history pack)
set -euo pipefail
rounds=${1:-7}
shift || true
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-inflate-bench}
mkdir -p "$work"
cd "$root"
cargo build --release -q -p bufkit-cli -p bufkit-bench --bin pack_bench
gcc -O2 -o "$work/git_loop" bench-reports/strided-inflate/git_loop.c -lz
packs=("$@")
[[ ${#packs[@]} -gt 0 ]] || mapfile -t packs < <(bench-reports/strided-inflate/default-packs.sh)
runs=()
for pack in "${packs[@]}"; do
  table=$work/$(basename "$pack" .pack).table
  ./target/release/pack_bench "$pack" "$table" 1 >/dev/null # writes the object table git_loop reads
  name=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$pack")")")")")
  runs+=("$name|git-loop|1|$work/git_loop $pack $table 1")
  for t in 1 2; do
    runs+=("$name|bufkit|$t|./target/release/bufkit inflate-pack $pack --idx ${pack%.pack}.idx --json --threads $t")
  done
done
# Wall from a monotonic clock and CPU from the children's rusage, per process, in alternating rounds.
python3 - "$rounds" "${runs[@]}" <<'PY'
import collections, resource, statistics, subprocess, sys, time
rounds, runs = int(sys.argv[1]), [r.split("|", 3) for r in sys.argv[2:]]
seen = collections.defaultdict(list)
for _ in range(rounds):
    for pack, tool, threads, cmd in runs:
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, check=True)
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        seen[(pack, tool, int(threads))].append((wall, cpu))
print("| pack | process | threads | wall (median) | CPU (median) | git's loop wall ÷ this | parallel efficiency |")
print("|---|---|---:|---:|---:|---:|---:|")
for (pack, tool, threads), rs in seen.items():
    wall = statistics.median(w for w, _ in rs); cpu = statistics.median(c for _, c in rs)
    git = statistics.median(w for w, _ in seen[(pack, "git-loop", 1)])
    print(f"| {pack} | {tool} | {threads} | {wall * 1000:.1f} ms | {cpu * 1000:.1f} ms | {git / wall:.2f}x | {cpu / (threads * wall):.0%} |")
PY
