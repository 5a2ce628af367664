#!/usr/bin/env bash
# Builds a Java front with plain javac/jar (no Maven): build/java/bufkit-<front>.jar, and for JNI
# build/java/libbufkit_jni.so (the glue, with libbufkit.a linked in statically, exporting only Java_*).
# Usage: bindings/java/build.sh jni|panama JDK_HOME [LIBDIR]
set -eu
front=$1 jdk=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=${3:-$root/target/release}
out=$root/build/java
rm -rf "$out/classes-$front"
mkdir -p "$out/classes-$front"
case $front in
  jni) release=17 lint=all ;;
  panama) release=22 lint=all,-restricted ;; # restricted calls are the point of this front
  *) echo "unknown front $front" >&2; exit 2 ;;
esac
"$jdk/bin/javac" --release "$release" -Xlint:$lint -Werror -d "$out/classes-$front" \
  $(find "$here/src/common" "$here/src/$front" -name '*.java')
"$jdk/bin/jar" --create --file "$out/bufkit-$front.jar" -C "$out/classes-$front" .
if [[ $front == jni ]]; then
  gcc -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared \
    -I"$jdk/include" -I"$jdk/include/linux" -I"$root/include" \
    "$here/c_src/bufkit_jni.c" "$lib/libbufkit.a" \
    -Wl,--exclude-libs,ALL -Wl,--no-undefined -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc \
    -o "$out/libbufkit_jni.so"
fi
