#!/usr/bin/env bash
# Assets in place from Java: AssetArchive (JNI on JDK 17, Panama on the JDK 22+ under /usr/lib/jvm)
# against java.util.zip.ZipFile, on the APK-shaped archive of make-apk.py and the JDK's src.zip.
# Usage: bench-reports/assets-in-place/java/run.sh [ROUNDS]
set -euo pipefail
rounds=${1:-11}
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-assets-bench}
mkdir -p "$work"
cd "$root"
cargo build --release -q -p bufkit-ffi
jdk17=$(scripts/find-jdk 17 exactly)
jdk22=$(scripts/find-jdk 22)
bindings/java/build.sh "$jdk22" "$root/target/release" >/dev/null
python3 bench-reports/assets-in-place/make-apk.py "$work/app.apk"
archives=("$work/app.apk")
for src in /usr/lib/jvm/*/lib/src.zip; do [[ -f $src ]] && archives+=("$(readlink -f "$src")") && break; done
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for front in jni panama; do
  jdk=$([[ $front == jni ]] && echo "$jdk17" || echo "$jdk22")
  mkdir -p "$work/java-$front"
  "$jdk/bin/javac" -cp build/java/bufkit.jar -d "$work/java-$front" bench-reports/assets-in-place/java/InPlaceBench.java
  flags=(-cp "build/java/bufkit.jar:$work/java-$front")
  [[ $front == panama ]] && flags+=(--enable-native-access=ALL-UNNAMED)
  for archive in "${archives[@]}"; do
    r=$rounds
    [[ $archive == *src.zip ]] && r=$(( (rounds + 1) / 2 ))
    XDG_CACHE_HOME=$cache "$jdk/bin/java" "${flags[@]}" InPlaceBench "$front" "$archive" "$r"
  done
done
