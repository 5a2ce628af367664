#!/usr/bin/env bash
# One 256 MiB deflated entry (bench-reports/assets-in-place/log_archive.py) streamed front to back from Java:
# AssetArchive.open, its transferTo and channel() against ZipFile.getInputStream, on both fronts
# (JNI on JDK 17, Panama on the JDK 22+ under /usr/lib/jvm).
# Usage: bench-reports/assets-in-place/java/stream.sh [ROUNDS]
set -euo pipefail
rounds=${1:-5}
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d /dev/shm/bufkit-java-stream.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$root"
cargo build --release -q -p bufkit-ffi
jdk17=$(scripts/find-jdk 17 exactly)
jdk22=$(scripts/find-jdk 22)
bindings/java/build.sh "$jdk22" "$root/target/release" >/dev/null
python3 -c "import sys; sys.path.insert(0, 'bench-reports/assets-in-place'); import log_archive; log_archive.make('$work/log.zip')"
for front in jni panama; do
  jdk=$([[ $front == jni ]] && echo "$jdk17" || echo "$jdk22")
  mkdir -p "$work/java-$front"
  "$jdk/bin/javac" -cp build/java/bufkit.jar -d "$work/java-$front" bench-reports/assets-in-place/java/StreamBench.java
  flags=(-cp "build/java/bufkit.jar:$work/java-$front")
  [[ $front == panama ]] && flags+=(--enable-native-access=ALL-UNNAMED)
  XDG_CACHE_HOME=$work "$jdk/bin/java" "${flags[@]}" StreamBench "$front" "$work/log.zip" app.log "$rounds"
done
