#!/usr/bin/env bash
# The seed's workload from Java: JInterface's OtpOutputStream against bufkit's GrowableBuffer
# OutputStream view (and ByteArrayOutputStream), JDK 17 through JNI and JDK 22+ through Panama.
# Usage: bench-reports/abi/java/jinterface.sh [ROUNDS]   (needs Debian's erlang-jinterface)
set -euo pipefail
rounds=${1:-9}
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
otp=$(ls /usr/lib/erlang/lib/jinterface-*/priv/OtpErlang.jar 2>/dev/null | head -n 1)
[[ -n $otp ]] || { echo "OtpErlang.jar not found: apt-get install erlang-jinterface" >&2; exit 1; }
cargo build --release -q -p bufkit-ffi
jdk17=$(scripts/find-jdk 17 exactly)
jdk22=$(scripts/find-jdk 22)
bindings/java/build.sh "$jdk22" "$root/target/release" >/dev/null
work=$(mktemp -d /dev/shm/bufkit-jinterface.XXXXXX)
trap 'rm -rf "$work"' EXIT
for front in jni panama; do
  jdk=$([[ $front == jni ]] && echo "$jdk17" || echo "$jdk22")
  mkdir -p "$work/classes-$front"
  "$jdk/bin/javac" -cp "build/java/bufkit.jar:$otp" -d "$work/classes-$front" bench-reports/abi/java/JInterfaceBench.java
  flags=(-Xmx1g -cp "build/java/bufkit.jar:$otp:$work/classes-$front")
  [[ $front == panama ]] && flags+=(--enable-native-access=ALL-UNNAMED)
  XDG_CACHE_HOME=$work/cache "$jdk/bin/java" "${flags[@]}" JInterfaceBench "$front" "$work/out" "$rounds"
done
