#!/usr/bin/env bash
# Builds bufkit's one Java jar with plain javac/jar (no Maven): OUT/bufkit.jar, a multi-release jar
# with the JNI front for Java 17+ at its base, the Panama front under META-INF/versions/22, a JPMS
# module-info (module dev.bufkit), and native libraries inside: dev/bufkit/native/PLATFORM/FILE,
# the C ABI and the JNI glue in one file that exports only the bk_* and Java_* symbols, each
# listed with its file name and SHA-256 in dev/bufkit/native/index.properties. The host's platform
# always; others from BUFKIT_JAVA_NATIVES, space-separated PLATFORM=LIBDIR pairs (LIBDIR holding
# that platform's libbufkit.a), among:
#   linux-aarch64        Debian's aarch64-linux-gnu-gcc
#   linux-musl-x86_64    zig's cc (PyPI's ziglang), with Rust's own musl libunwind.a
#   linux-musl-aarch64   the same
#   windows-x86_64       mingw-w64's gcc; jni_md.h from the Windows Java runtime that
#                        BUFKIT_JAVA_WINDOWS_JDK names (scripts/java-runtime windows-x86_64 fetches one)
#   macos-x86_64         zig's cc (deployment targets: scripts/macos/targets); jni_md.h as Linux's,
#   macos-aarch64        which is the same there
# OUT/classes/ keeps the compiled classes, OUT/native/ the libraries.
# Usage: bindings/java/build.sh JDK22_HOME [LIBDIR [OUT]]   (LIBDIR: where the host's libbufkit.a
# is, default target/release; OUT default build/java). One JDK 22+ compiles both fronts (--release
# 17 and 22).
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
mkdir -p "$classes/base" "$classes/22" "$out/native"

"$jdk/bin/javac" --release 17 -Xlint:all -Werror -d "$classes/base" \
  $(find "$here/src/main/java" -name '*.java')
# restricted calls are the point of the Panama front
"$jdk/bin/javac" --release 22 -Xlint:all,-restricted -Werror -cp "$classes/base" -d "$classes/22" \
  $(find "$here/src/main/java22" -name '*.java' ! -name module-info.java)

# The file each platform's library has (System.mapLibraryName there).
library_file() { # platform
  case $1 in windows-*) echo bufkit_java.dll ;; macos-*) echo libbufkit_java.dylib ;; *) echo libbufkit_java.so ;; esac
}
zig_cc() { python3 -m ziglang cc "$@"; }
# The native library for one platform: the JNI glue and that platform's libbufkit.a in one file.
jni_library() { # platform, libdir
  local target=$out/native/$1/$(library_file "$1")
  local flags=(-std=c11 -O2 -Wall -Wextra -Werror -I"$jdk/include" -I"$root/include" -I"$here/c_src" "$here"/c_src/*.c)
  local linux_libs=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)
  local elf_exports=(-Wl,--version-script="$here/c_src/exports.map" -Wl,--no-undefined -Wl,-S)
  mkdir -p "$out/native/$1"
  case $1 in
    linux-x86_64|linux-aarch64)
      local cc=gcc; [[ $1 == "linux-$arch" ]] || cc=${1#linux-}-linux-gnu-gcc
      "$cc" "${flags[@]}" -I"$jdk/include/linux" -fPIC -shared "$2/libbufkit.a" "${elf_exports[@]}" "${linux_libs[@]}" -o "$target" ;;
    linux-musl-x86_64|linux-musl-aarch64)
      # Rust's musl staticlib leaves the unwinder to the final link: Rust's own libunwind.a.
      local a=${1#linux-musl-}
      zig_cc -target "$a-linux-musl" "${flags[@]}" -I"$jdk/include/linux" -fPIC -shared "$2/libbufkit.a" \
        "$(rustc --print sysroot)/lib/rustlib/$a-unknown-linux-musl/lib/self-contained/libunwind.a" -Wl,--eh-frame-hdr \
        "${elf_exports[@]}" -o "$target" ;;
    windows-x86_64)
      local win=${BUFKIT_JAVA_WINDOWS_JDK:?windows-x86_64 needs BUFKIT_JAVA_WINDOWS_JDK: a Windows Java runtime with include/win32}
      # JNIEXPORT exports the Java_ functions; the .def file adds the bk_ ones (the header's).
      { echo EXPORTS; sed -nE 's/^[a-z].* \**(bk_[a-z0-9_]+)\(.*/    \1/p' "$root/include/bufkit.h" | sort -u; } >"$out/native/bufkit_java.def"
      x86_64-w64-mingw32-gcc "${flags[@]}" -I"$win/include/win32" -shared "$out/native/bufkit_java.def" "$2/libbufkit.a" \
        -lkernel32 -lntdll -luserenv -lws2_32 -ldbghelp -static-libgcc -Wl,-S -o "$target" ;;
    macos-x86_64|macos-aarch64)
      # Exports cut to bk_ and Java_: the glue compiled hidden but for JNIEXPORT, and the static
      # library's other symbols hidden (zig's linker ignores export lists; see scripts/c-package).
      . "$root/scripts/macos/targets"
      local a=${1#macos-} min_var=macos_min_${1#macos-}
      "$root/scripts/macos/hide-symbols" "$2/libbufkit.a" "$out/native/$1/hidden.a" _bk_ >/dev/null
      zig_cc -target "$a-macos.${!min_var}" "${flags[@]}" -I"$jdk/include/linux" -fPIC -fvisibility=hidden -shared \
        -Wl,-force_load,"$out/native/$1/hidden.a" -Wl,-dead_strip -Wl,-install_name,@rpath/libbufkit_java.dylib -o "$target"
      rm -f "$out/native/$1/hidden.a" ;;
    *) echo "bindings/java/build.sh: no recipe for platform $1" >&2; return 1 ;;
  esac
}
jni_library "$platform" "$lib"
platforms=$platform
for pair in ${BUFKIT_JAVA_NATIVES:-}; do
  [[ ${pair%%=*} == "$platform" ]] && continue
  [[ -f ${pair#*=}/libbufkit.a ]] || { echo "bindings/java/build.sh: no ${pair#*=}/libbufkit.a for ${pair%%=*}" >&2; exit 1; }
  jni_library "${pair%%=*}" "${pair#*=}"
  platforms=$platforms,${pair%%=*}
done

# The jar's tree, laid out by hand: `jar --release` refuses version-only classes (the Panama front
# has no JDK 17 twin), which the multi-release class loader nonetheless serves.
# The natives as the jar holds them, also kept alone in OUT/natives/: the Maven build's tests
# (pom.xml) put that directory on their class path.
natives=$out/natives
rm -rf "$natives"
mkdir -p "$natives/dev/bufkit/native"
printf 'version=%s\nplatforms=%s\n' "$version" "$platforms" >"$natives/dev/bufkit/native/index.properties"
for p in ${platforms//,/ }; do
  cp -r "$out/native/$p" "$natives/dev/bufkit/native/"
  file=$(library_file "$p")
  printf '%s.file=%s\n%s.sha256=%s\n' "$p" "$file" "$p" "$(sha256sum "$out/native/$p/$file" | cut -d' ' -f1)" >>"$natives/dev/bufkit/native/index.properties"
done
tree=$out/jar-tree
rm -rf "$tree"
mkdir -p "$tree/META-INF/versions/22"
cp -r "$classes/base/." "$natives/." "$tree/"
cp -r "$classes/22/." "$tree/META-INF/versions/22/"
cat >"$out/MANIFEST.MF" <<MF
Multi-Release: true
Automatic-Module-Name: dev.bufkit
Enable-Native-Access: ALL-UNNAMED
Implementation-Title: bufkit
Implementation-Version: $version
MF
rm -f "$out/bufkit.jar"
"$jdk/bin/jar" --create --file "$out/bufkit.jar" --manifest "$out/MANIFEST.MF" -C "$tree" .
