#!/usr/bin/env bash
# The conformance check (check.py) against the release build and the Java jar.
# Usage: ffi-tests/conformance/run.sh JDK22_HOME JAR [LIBDIR]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd -P)
jdk=$1 jar=$2 lib=${3:-$root/target/release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/ffi-tests/conformance/check.py" "$root/include/bufkit.h" "$lib/libbufkit.a" "$jdk" "$jar" \
  "$root/bindings/erlang/c_src" "$work"
