#!/usr/bin/env bash
# From Java: java.util.zip.Inflater (best usage) vs bufkit per object and in batches, on the
# history pack, JNI on JDK 17 and Panama on the JDK 22+ found under /usr/lib/jvm.
# Usage: [PACK=...] bench-reports/strided-inflate/java/run.sh [ROUNDS]   (default pack: make-history-pack.py's)
set -euo pipefail
rounds=${1:-7}
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-inflate-bench}
cd "$root"
cargo build --release -q -p bufkit-ffi
pack=${PACK:-$(ls /tmp/bufkit-history-repo/.git/objects/pack/*.pack)}  # PACK=... for another pack
./target/release/pack_bench "$pack" "$work/history.table" 1 bufkit >/dev/null
jdk17=/usr/lib/jvm/java-17-openjdk-amd64
jdk25=$(ls -d /usr/lib/jvm/temurin-2*-jdk-amd64 | tail -1)
bindings/java/build.sh "$jdk25" "$root/target/release"   # build/java/bufkit.jar, natives inside
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for front in jni panama; do
  jdk=$([[ $front == jni ]] && echo "$jdk17" || echo "$jdk25")
  mkdir -p "$work/java-$front"
  "$jdk/bin/javac" -cp build/java/bufkit.jar -d "$work/java-$front" bench-reports/strided-inflate/java/InflateBench.java
  flags=(-cp "build/java/bufkit.jar:$work/java-$front")
  [[ $front == panama ]] && flags+=(--enable-native-access=ALL-UNNAMED)
  XDG_CACHE_HOME=$cache "$jdk/bin/java" "${flags[@]}" InflateBench "$front" "$pack" "$work/history.table" "$rounds"
done
