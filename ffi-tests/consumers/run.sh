#!/usr/bin/env bash
# Consumer projects: each outside the workspace, in a temporary directory, using only the artifacts
# scripts/dist put in DIST, each doing real work (grow a buffer, lease from a pool, inflate at an
# offset, extract an archive):
#   c-shared, c-static, c-moved-prefix   a C program built with pkg-config against the unpacked
#                                        tarball; shared (only the prefix's lib on the loader path),
#                                        static, and after the prefix is moved (relocatable .pc)
#   c-aarch64-shared, c-aarch64-static   the same program against the aarch64 tarball, built by
#                                        the cross gcc and run under qemu-user
#   java-jni, java-panama                a Java program with only bufkit-VERSION.jar on the class
#                                        path and no -D flags, on JDK 17 (JNI) and on JDK 22+ (Panama)
#   java-aarch64-natives                 the jar carries linux-aarch64's natives; loaded on x86-64
#                                        they give a clear exception, not a crash
#   java-aarch64-jni                     the Java program on Debian's arm64 JDK 17 under qemu-user
#   erlang-rebar3                        a rebar3 project with bufkit in _checkouts/: rebar3 eunit
#   erlang-rebar3-linked-checkout        the same, _checkouts/bufkit a symlink into this checkout
#   erlang-missing-library               no libbufkit.a: the NIF build says what to run
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

# --- Java -------------------------------------------------------------------------------------
jar=$dist/bufkit-$version.jar
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

echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
