#!/usr/bin/env bash
# `bufkit inflate-pack PACK --idx IDX` as a whole process: a build before the parallel walk (the
# sequential walk, SHA-1 first, then the index check) against this one on 1 and 2 threads, in
# ROUNDS alternating runs; median wall and CPU seconds, and parallel efficiency CPU / (threads ×
# wall). Packs from make-pack.sh and make-history-pack.py.
# Usage: bench-reports/strided-inflate/parallel_walk.sh OLD_BUFKIT NEW_BUFKIT [ROUNDS]
set -euo pipefail
old=$1 new=$2 rounds=${3:-7}
[[ -d /tmp/bufkit-bench-repo ]] || "$(dirname "$0")/make-pack.sh" >/dev/null
[[ -d /tmp/bufkit-history-repo ]] || python3 "$(dirname "$0")/make-history-pack.py" >/dev/null
times=$(mktemp)
trap 'rm -f "$times"' EXIT
for repo in bench-repo history-repo; do
  pack=$(ls /tmp/bufkit-$repo/.git/objects/pack/*.pack)
  for ((r = 0; r < rounds; r++)); do
    /usr/bin/time -f "$repo old 1 %e %U %S" "$old" inflate-pack "$pack" --idx "${pack%.pack}.idx" --json >/dev/null 2>>"$times"
    for t in 1 2; do
      /usr/bin/time -f "$repo new $t %e %U %S" "$new" inflate-pack "$pack" --idx "${pack%.pack}.idx" --json --threads "$t" >/dev/null 2>>"$times"
    done
  done
done
python3 - "$times" <<'PY'
import statistics, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    repo, build, threads, wall, user, sys_ = line.split()
    runs[(repo, build, int(threads))].append((float(wall), float(user) + float(sys_)))
print("| pack | build | threads | wall (median) | CPU (median) | wall vs old | parallel efficiency |")
print("|---|---|---:|---:|---:|---:|---:|")
for (repo, build, threads), rs in sorted(runs.items()):
    wall = statistics.median(w for w, _ in rs); cpu = statistics.median(c for _, c in rs)
    old = statistics.median(w for w, _ in runs[(repo, "old", 1)])
    print(f"| {repo} | {build} | {threads} | {wall:.3f} s | {cpu:.3f} s | {old / wall:.2f}x | {cpu / (threads * wall):.0%} |")
PY
