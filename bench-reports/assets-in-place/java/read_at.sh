#!/usr/bin/env bash
# Random 4 KiB reads inside a 256 MiB deflated entry from Java (issue 28): AssetArchive.readAt on
# both fronts (JNI on JDK 17, Panama on the JDK 22+ under /usr/lib/jvm) against ZipFile's
# getInputStream + skipNBytes + readNBytes. The archive is bench-reports/assets-in-place/read_at.py's.
# Usage: bench-reports/assets-in-place/java/read_at.sh [READS]
set -euo pipefail
reads=${1:-1000}
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
archive=/tmp/bufkit-read-at/log256.zip
[[ -f $archive ]] || python3 bench-reports/assets-in-place/read_at.py 1 >/dev/null
cargo build --release -q -p bufkit-ffi
jdk17=$(scripts/find-jdk 17 exactly)
jdk22=$(scripts/find-jdk 22)
bindings/java/build.sh "$jdk22" "$root/target/release" >/dev/null
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
"$jdk22/bin/javac" --release 17 -cp build/java/bufkit.jar -d "$classes" bench-reports/assets-in-place/java/ReadAtBench.java
"$jdk17/bin/java" -cp "build/java/bufkit.jar:$classes" ReadAtBench jni "$archive" app.log "$reads"
"$jdk22/bin/java" --enable-native-access=ALL-UNNAMED -cp "build/java/bufkit.jar:$classes" ReadAtBench panama "$archive" app.log "$reads"
