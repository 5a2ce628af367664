#!/usr/bin/env bash
# From Java, on the assets archive made by bench-reports/asset-extract/run.py, to tmpfs: the mobile
# runtime's ZipFile loops (fresh 100 KB buffer + BufferedOutputStream; static 4 KiB buffer) vs
# Bufkit.extract, JNI on JDK 17 and Panama on the JDK 22+ under /usr/lib/jvm. Then the APK case
# (issue 25): app.apk (bench-reports/asset-extract/only_what_is_asked.py makes it), only 'assets/'.
# Usage: bench-reports/asset-extract/java/run.sh [ROUNDS]
set -euo pipefail
rounds=${1:-7}
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=/tmp/bufkit-extract-bench
archive=$work/assets.zip
[[ -f $archive ]] || { echo "run bench-reports/asset-extract/run.py first (it makes $archive)" >&2; exit 1; }
cd "$root"
cargo build --release -q -p bufkit-ffi
jdk17=/usr/lib/jvm/java-17-openjdk-amd64
jdk25=$(ls -d /usr/lib/jvm/temurin-2*-jdk-amd64 | tail -1)
mkdir -p /dev/shm/bufkit-java-extract
bindings/java/build.sh "$jdk25" "$root/target/release"   # build/java/bufkit.jar, natives inside
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for front in jni panama; do
  jdk=$([[ $front == jni ]] && echo "$jdk17" || echo "$jdk25")
  mkdir -p "$work/java-$front"
  "$jdk/bin/javac" -cp build/java/bufkit.jar -d "$work/java-$front" bench-reports/asset-extract/java/ExtractBench.java
  flags=(-cp "build/java/bufkit.jar:$work/java-$front")
  [[ $front == panama ]] && flags+=(--enable-native-access=ALL-UNNAMED)
  XDG_CACHE_HOME=$cache "$jdk/bin/java" "${flags[@]}" ExtractBench "$front" "$archive" /dev/shm/bufkit-java-extract "$rounds"
  if [[ -f $work/app.apk ]]; then
    XDG_CACHE_HOME=$cache "$jdk/bin/java" "${flags[@]}" ExtractBench "$front" "$work/app.apk" /dev/shm/bufkit-java-extract "$rounds" assets/
  fi
done
