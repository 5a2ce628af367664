#!/usr/bin/env bash
# Builds the inflate benches against upstream libdeflate 1.26, for the "libdeflate (upstream)"
# columns: copies the workspace to a scratch directory, takes `used-symbols.patch` and then
# `strict.patch` back out of its vendored libdeflate, and builds `class_bench` and `pack_bench`
# there. Prints the directory holding the two binaries.
# Usage: bench-reports/strided-inflate/build-upstream.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${BENCH_WORK:-/tmp/bufkit-inflate-bench}/upstream-libdeflate
rm -rf "$scratch"
mkdir -p "$scratch"
tar -C "$root" --exclude=./target --exclude=./build --exclude=./.git -cf - . | tar -C "$scratch" -xf -
(
  cd "$scratch/crates/libdeflate-sys"
  patch -s -R -p1 <used-symbols.patch
  patch -s -R -p1 <strict.patch
)
CARGO_TARGET_DIR="$scratch/target" cargo build --release -q --manifest-path "$scratch/Cargo.toml" \
  -p bufkit-bench --bin class_bench --bin pack_bench >&2
echo "$scratch/target/release"
