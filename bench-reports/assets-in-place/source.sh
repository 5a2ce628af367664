#!/usr/bin/env bash
# A caller's source against the built-in file source, from C (assets-in-place.md, "A caller's
# source"): bk_archive_open_source with a read_at callback doing pread, against bk_archive_open,
# on the APK-shaped archive (make-apk.py) and on the 200-asset archive. One JSON line each.
# Usage: bash bench-reports/assets-in-place/source.sh [ROUNDS]   (quiet machine; needs gcc, python3)
set -euo pipefail
rounds=${1:-21}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-assets-bench}
mkdir -p "$work"
cd "$root"
cargo build --release -q -p bufkit-ffi
gcc -O2 -std=c11 -DROUNDS="$rounds" -Iinclude bench-reports/assets-in-place/source_bench.c -o "$work/source_bench" \
  target/release/libbufkit.a -lpthread -ldl -lm
python3 bench-reports/assets-in-place/make-apk.py "$work/app.apk"
python3 -c 'import sys; sys.path.insert(0, "bench-reports/asset-extract"); import run; run.make_archives()'
"$work/source_bench" "$work/app.apk" apk-222
"$work/source_bench" /tmp/bufkit-extract-bench/assets.zip assets-200
"$work/source_bench" /tmp/bufkit-extract-bench/big.zip big-3x50MB
