#!/usr/bin/env bash
# Runs the shared behavioural tests against one Java front of the one bufkit jar.
# Usage: ffi-tests/java/run.sh jni|panama JDK_HOME JAR
# The tests are compiled by JDK_HOME against JAR and run with JAR and the tests alone on the class
# path, no -D library flag: the front loads the native library the jar carries, unpacked into a
# temporary XDG_CACHE_HOME. JNI runs with -Xcheck:jni (any JNI warning fails the suite); Panama
# with --enable-native-access.
set -u
front=$1 jdk=$2 jar=$3
root=$(cd "$(dirname "$0")/../.." && pwd -P)
out=$root/build/java/tests-$front
fail() { echo "$*" >&2; echo "0 passed, 1 failed"; exit 1; }
[[ -f $jar ]] || fail "no jar at $jar (bindings/java/build.sh builds it)"
rm -rf "$out" && mkdir -p "$out/classes"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
sources=("$root"/ffi-tests/java/dev/bufkit/tests/*.java "$root"/ffi-tests/java/loader/dev/bufkit/*.java)
[[ $front == panama ]] && sources+=("$root"/ffi-tests/java/panama/dev/bufkit/tests/*.java)
"$jdk/bin/javac" -Xlint:all -Werror -cp "$jar" -d "$out/classes" "${sources[@]}" || fail "compiling the tests failed"
version=$(sed -nE 's/^#define BK_VERSION "(.*)"/\1/p' "$root/include/bufkit.h")
abi=$(sed -nE 's/^#define BK_ABI_VERSION ([0-9]+)/\1/p' "$root/include/bufkit.h")
props=(-Dbufkit.expectedVersion="$version" -Dbufkit.expectedAbi="$abi"
  -Dbufkit.methodsZip="$root/crates/asset-extract/tests/data/methods.zip")
if [[ $front == jni ]]; then flags=(-Xcheck:jni); else flags=(--enable-native-access=ALL-UNNAMED); fi
XDG_CACHE_HOME=$cache "$jdk/bin/java" "${flags[@]}" "${props[@]}" -cp "$jar:$out/classes" \
  dev.bufkit.tests.Harness "$front" 2>&1 | tee "$out/run.log"
rc=${PIPESTATUS[0]}
if grep -q "WARNING in native method\|FATAL ERROR in native method" "$out/run.log"; then
  echo "-Xcheck:jni reported a problem" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
exit "$rc"
