#!/usr/bin/env bash
# Assets in place, measured from C: bufkit's bk_archive_* against libzip on an APK-shaped archive
# (make-apk.py) and, when present, the JDK's src.zip. One JSON line per archive (medians of the
# rounds, alternating libraries within each round), with the first start (open included, every
# file read once) against libzip and against `bufkit extract` (bk_extract) to tmpfs.
# Usage: bench-reports/assets-in-place/run.sh [ROUNDS]   (needs gcc, python3, libzip-dev)
set -euo pipefail
rounds=${1:-21}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-assets-bench}
mkdir -p "$work"
cd "$root"
cargo build --release -q -p bufkit-ffi
gcc -O2 -std=c11 -DROUNDS="$rounds" -Iinclude bench-reports/assets-in-place/in_place_bench.c -o "$work/in_place_bench" \
  target/release/libbufkit.a -lzip -lpthread -ldl -lm
python3 bench-reports/assets-in-place/make-apk.py "$work/app.apk"
# `bufkit extract`'s row extracts to tmpfs, as the target says.
shm=$(mktemp -d /dev/shm/bufkit-assets-bench.XXXXXX)
trap 'rm -rf "$shm"' EXIT
"$work/in_place_bench" "$work/app.apk" apk-222 "$shm"
for src in /usr/lib/jvm/*/lib/src.zip; do
  [[ -f $src ]] || continue
  "$work/in_place_bench" "$(readlink -f "$src")" "src.zip-$(basename "$(dirname "$(dirname "$src")")")" "$shm"
  break
done
