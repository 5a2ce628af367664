#!/usr/bin/env bash
# One stream on many cores (strided-inflate.md, "One stream on many cores"): every task of the
# parallel decode timed by its thread's CPU clock (bufkit-bench's parallel_tasks), on a log entry,
# a source-code entry and three entries of mixed content; the wall time projected to 2, 4, 8 and
# 16 cores by parallel_model.py, for each entry and for the three mixed entries extracted at once;
# the smallest entry the model gives 1.2x on 4 cores; and what `--parallel-inflate always` costs
# in CPU on the cores the machine has (parallel_cpu.py).
# Usage: bash bench-reports/strided-inflate/many_cores.sh [ROUNDS]   (quiet machine)
set -euo pipefail
rounds=${1:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
data=/tmp/bufkit-extract-bench
traces=${TRACES:-/tmp/bufkit-many-cores}
mkdir -p "$traces"
python3 -c 'import sys; sys.path.insert(0, "bench-reports/asset-extract"); import run; run.make_archives()'
python3 bench-reports/strided-inflate/mixed_archive.py "$data/mixed.zip"
cargo build --release -q -p bufkit-bench --bin parallel_tasks
cargo build --release -q -p bufkit-cli
tasks=target/release/parallel_tasks
trace() { # archive entry
  "$tasks" "$data/$1" "$2" 2 >"$traces/$2.json"
  echo "$traces/$2.json"
}
log=$(trace log256.zip app.log)
source=$(trace big.zip part0.txt)
mixed=()
for i in 0 1 2; do mixed+=("$(trace mixed.zip mixed$i.bin)"); done
echo "## each entry (2 worker threads measured; projections by the model)"
python3 bench-reports/strided-inflate/parallel_model.py "$log" "$source" "${mixed[@]}"
echo
echo "## the three mixed entries extracted at once, against one core decoding them in turn"
python3 bench-reports/strided-inflate/parallel_model.py --archive "${mixed[@]}"
echo
echo "## the smallest entry for 1.2x on 4 cores"
python3 bench-reports/strided-inflate/parallel_model.py --smallest 4 1.2 "$log" "$source" "${mixed[@]}"
echo
echo "## CPU on $(nproc) cores"
python3 bench-reports/strided-inflate/parallel_cpu.py target/release/bufkit "$data/log256.zip" "$rounds"
