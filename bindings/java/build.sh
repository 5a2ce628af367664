#!/usr/bin/env bash
# Builds bufkit's one Java jar with plain javac/jar (no Maven): OUT/bufkit.jar, a multi-release jar
# with the JNI front for Java 17+ at its base, the Panama front under META-INF/versions/22, and the
# native library for this platform inside (dev/bufkit/native/<platform>/libbufkit_java.so: the C ABI
# and the JNI glue in one file, exporting only bk_* and Java_* symbols), and linux-aarch64's too when
# BUFKIT_JAVA_AARCH64_LIBDIR names an aarch64 libbufkit.a; each listed with its SHA-256 in
# dev/bufkit/native/index.properties. OUT/classes/ keeps the compiled classes, OUT/native/ the library.
# Usage: bindings/java/build.sh JDK22_HOME [LIBDIR [OUT]]   (LIBDIR: where libbufkit.a is, default
# target/release; OUT default build/java). One JDK 22+ compiles both fronts (--release 17 and 22).
set -eu
jdk=$1
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
lib=${2:-$root/target/release}
out=${3:-$root/build/java}
[[ -f $lib/libbufkit.a ]] || { echo "no $lib/libbufkit.a: run 'cargo build --release -p bufkit-ffi' first" >&2; exit 1; }
version=$(sed -nE 's/^#define BK_VERSION "(.*)"/\1/p' "$root/include/bufkit.h")
case $(uname -m) in x86_64|amd64) arch=x86_64 ;; aarch64|arm64) arch=aarch64 ;; *) arch=$(uname -m) ;; esac
platform=linux-$arch
classes=$out/classes
rm -rf "$classes" "$out/native"
mkdir -p "$classes/base" "$classes/22" "$out/native/$platform"

"$jdk/bin/javac" --release 17 -Xlint:all -Werror -d "$classes/base" \
  $(find "$here/src/common" "$here/src/jni" -name '*.java')
# restricted calls are the point of the Panama front
"$jdk/bin/javac" --release 22 -Xlint:all,-restricted -Werror -cp "$classes/base" -d "$classes/22" \
  $(find "$here/src/panama" -name '*.java')

# The native library for one platform: the JNI glue and libbufkit.a in one file (jni.h and
# jni_md.h are the same for every Linux architecture).
jni_library() { # cc, libdir, platform
  mkdir -p "$out/native/$3"
  "$1" -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared \
    -I"$jdk/include" -I"$jdk/include/linux" -I"$root/include" -I"$here/c_src" \
    "$here"/c_src/*.c "$2/libbufkit.a" \
    -Wl,--version-script="$here/c_src/exports.map" -Wl,--no-undefined -Wl,-S \
    -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc \
    -o "$out/native/$3/libbufkit_java.so"
}
jni_library gcc "$lib" "$platform"
platforms=$platform
# Another architecture's natives too, when their libbufkit.a is given (scripts/dist: aarch64).
if [[ -n ${BUFKIT_JAVA_AARCH64_LIBDIR:-} && $platform != linux-aarch64 ]]; then
  jni_library aarch64-linux-gnu-gcc "$BUFKIT_JAVA_AARCH64_LIBDIR" linux-aarch64
  platforms=$platforms,linux-aarch64
fi

# The jar's tree, laid out by hand: `jar --release` refuses version-only classes (the Panama front
# has no JDK 17 twin), which the multi-release class loader nonetheless serves.
tree=$out/jar-tree
rm -rf "$tree"
mkdir -p "$tree/META-INF/versions/22" "$tree/dev/bufkit/native"
cp -r "$classes/base/." "$tree/"
cp -r "$classes/22/." "$tree/META-INF/versions/22/"
printf 'version=%s\nplatforms=%s\n' "$version" "$platforms" >"$tree/dev/bufkit/native/index.properties"
for p in ${platforms//,/ }; do
  cp -r "$out/native/$p" "$tree/dev/bufkit/native/"
  printf '%s.sha256=%s\n' "$p" "$(sha256sum "$out/native/$p/libbufkit_java.so" | cut -d' ' -f1)" >>"$tree/dev/bufkit/native/index.properties"
done
cat >"$out/MANIFEST.MF" <<MF
Multi-Release: true
Automatic-Module-Name: dev.bufkit
Enable-Native-Access: ALL-UNNAMED
Implementation-Title: bufkit
Implementation-Version: $version
MF
rm -f "$out/bufkit.jar"
"$jdk/bin/jar" --create --file "$out/bufkit.jar" --manifest "$out/MANIFEST.MF" -C "$tree" .
