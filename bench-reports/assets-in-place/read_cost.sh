#!/usr/bin/env bash
# A deflated entry read whole through AssetArchive against strided-inflate's decoder on the same
# bytes, in instructions per read (callgrind: exact, unlike time on a shared machine, which drifts).
# Usage: bench-reports/assets-in-place/read_cost.sh   (needs valgrind)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cargo build --release -q -p bufkit-bench --bin read_cost
bin=target/release/read_cost
rounds=200
instructions() { # way size rounds
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for size in 2000 30000 110000; do
  line="{\"target_size\":$size"
  for way in decoder decoder+crc32 map read; do
    base=$(instructions "$way" "$size" 0)
    total=$(instructions "$way" "$size" "$rounds")
    line+=",\"$way\":$(( (total - base) / rounds ))"
  done
  echo "$line}"
done
