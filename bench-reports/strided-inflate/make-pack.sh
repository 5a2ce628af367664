#!/usr/bin/env bash
# Builds a real git pack from real files on the host: Python's standard library (.py files),
# committed over several rounds in which a tenth of the files change a little (so there are
# deltas, many small trees and commits), then `git gc --aggressive`. Prints the .pack path.
# Usage: bench-reports/strided-inflate/make-pack.sh [DIR]   (default /tmp/bufkit-bench-repo)
set -euo pipefail
dir=${1:-/tmp/bufkit-bench-repo}
src=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
g() { git -c user.name=bench -c user.email=bench@example.invalid -c init.defaultBranch=main -c gc.auto=0 "$@"; }
g init -q
(cd "$src" && find . -name '*.py' -size -400k -print0 | tar --null -cf - -T -) | tar -xf -
g add -A && g commit -q -m "import the standard library"
mapfile -t files < <(git ls-files)
for round in 1 2 3 4 5 6; do
  for ((i = round; i < ${#files[@]}; i += 10)); do
    printf '\n# round %d: touched by the benchmark\n' "$round" >>"${files[$i]}"
  done
  g commit -q -am "round $round"
done
g gc -q --aggressive
ls "$dir"/.git/objects/pack/*.pack
