#!/usr/bin/env bash
# One 256 MiB deflated entry (bench-reports/assets-in-place/log_archive.py) streamed to /dev/null by
# `bufkit cat`, against `bufkit extract --threads 1` of the same entry (to tmpfs), `unzip -p` and
# Python's zipfile (ZipFile.open, copied to stdout in 64 KiB reads), alternating, ROUNDS rounds;
# prints each tool's median wall and CPU time and its ratio to `bufkit extract --threads 1`.
# Optional OLD: another bufkit binary measured beside (the one before a change).
# Usage: bench-reports/asset-extract/cat_one_entry.sh ROUNDS BUFKIT [OLD]
set -u
rounds=${1:?rounds} bufkit=${2:?bufkit} old=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /dev/shm/bufkit-cat.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 -c "import sys; sys.path.insert(0, '$here/../assets-in-place'); import log_archive; log_archive.make('$work/log.zip')"
name=app.log
declare -A cmds=(
  [bufkit-cat]="$bufkit cat $work/log.zip $name"
  [bufkit-extract-1]="$bufkit extract $work/log.zip $work/out --threads 1"
  [unzip-p]="unzip -p $work/log.zip $name"
  [python-zipfile]="python3 -c \"import shutil, sys, zipfile; shutil.copyfileobj(zipfile.ZipFile('$work/log.zip').open('$name'), sys.stdout.buffer, 65536)\""
)
order=(bufkit-cat bufkit-extract-1 unzip-p python-zipfile)
if [[ -n $old ]]; then cmds[old-bufkit-cat]="$old cat $work/log.zip $name"; order+=(old-bufkit-cat); fi
declare -A wall cpu
for ((r = 0; r < rounds; r++)); do
  for t in "${order[@]}"; do
    rm -rf "$work/out"
    line=$( { /usr/bin/time -f "%e %U %S" bash -c "${cmds[$t]} >/dev/null"; } 2>&1 | tail -n 1)
    read -r e u s <<<"$line"
    wall[$t]+="$e "; cpu[$t]+="$(echo "$u + $s" | bc) "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
base=$(echo "${wall[bufkit-extract-1]}" | median)
printf '%-18s %10s %10s %16s\n' tool "wall (s)" "cpu (s)" "wall / extract-1"
for t in "${order[@]}"; do
  w=$(echo "${wall[$t]}" | median); c=$(echo "${cpu[$t]}" | median)
  printf '%-18s %10.3f %10.3f %15.2fx\n' "$t" "$w" "$c" "$(echo "$w / $base" | bc -l)"
done
