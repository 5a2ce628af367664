#!/usr/bin/env bash
# Where a small archive's extraction time goes: the 222-entry APK-shaped archive extracted to
# tmpfs 300 times (bench-reports/programs/src/bin/extract_loop.rs) on 1 and 2 threads, then profiled on 2 (perf,
# cpu-clock: this VM has no hardware counters), with the time spent removing the outputs between
# rounds (not part of the extraction) left in the profile and named.
# Usage: bench-reports/asset-extract/phases.sh   (needs perf)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p bufkit-bench --bin extract_loop
bin=target/release/extract_loop
"$bin" 300 1
"$bin" 300 2
perf record -q -e cpu-clock -g -o /tmp/bufkit-extract-phases.data "$bin" 300 2 >/dev/null 2>&1
perf report -i /tmp/bufkit-extract-phases.data --children --sort symbol 2>/dev/null | grep -E '^ +[0-9]' | head -40
