#!/usr/bin/env bash
# Builds one Java front and runs the shared behavioural tests against it.
# Usage: ffi-tests/java/run.sh jni|panama JDK_HOME [LIBDIR]   (LIBDIR default target/release)
# JNI runs with -Xcheck:jni (any JNI warning fails the suite); Panama with --enable-native-access.
set -u
front=$1 jdk=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=${3:-$root/target/release}
out=$root/build/java/$front
fail() { echo "$*" >&2; echo "0 passed, 1 failed"; exit 1; }
"$root/bindings/java/build.sh" "$front" "$jdk" "$lib" || fail "building the $front front failed"
mkdir -p "$out/tests"
sources=("$root"/ffi-tests/java/dev/bufkit/tests/*.java)
[[ $front == panama ]] && sources+=("$root"/ffi-tests/java/panama/dev/bufkit/tests/*.java)
"$jdk/bin/javac" -Xlint:all -Werror -cp "$root/build/java/bufkit-$front.jar" -d "$out/tests" "${sources[@]}" \
  || fail "compiling the tests failed"
version=$(sed -nE 's/^#define BK_VERSION "(.*)"/\1/p' "$root/include/bufkit.h")
abi=$(sed -nE 's/^#define BK_ABI_VERSION ([0-9]+)/\1/p' "$root/include/bufkit.h")
props=(-Dbufkit.expectedVersion="$version" -Dbufkit.expectedAbi="$abi")
cp="$root/build/java/bufkit-$front.jar:$out/tests"
if [[ $front == jni ]]; then
  "$jdk/bin/java" -Xcheck:jni "${props[@]}" -Ddev.bufkit.jni.library="$root/build/java/libbufkit_jni.so" \
    -cp "$cp" dev.bufkit.tests.BufferTests jni 2>&1 | tee "$out/run.log"
else
  "$jdk/bin/java" --enable-native-access=ALL-UNNAMED "${props[@]}" -Ddev.bufkit.library="$lib/libbufkit.so" \
    -cp "$cp" dev.bufkit.tests.BufferTests panama 2>&1 | tee "$out/run.log"
fi
rc=${PIPESTATUS[0]}
if grep -q "WARNING in native method\|FATAL ERROR in native method" "$out/run.log"; then
  echo "-Xcheck:jni reported a problem" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
exit "$rc"
