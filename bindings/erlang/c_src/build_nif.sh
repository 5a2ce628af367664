#!/usr/bin/env bash
# Builds priv/bufkit_nif.so: the NIF (c_src/*.c: bufkit_nif.c and one file per object) with
# libbufkit.a linked in statically, and every symbol but the NIF's entry point kept private. rebar3 runs it before compiling (rebar.config); build.sh runs it too.
# Where libbufkit.a and bufkit.h come from, first found:
#   1. BUFKIT_LIBDIR (libbufkit.a; bufkit.h from BUFKIT_INCLUDE, default BUFKIT_LIBDIR/../include);
#   2. c_src/vendor/PLATFORM/, bufkit.h in c_src/vendor/, as in the rebar3 application scripts/dist
#      packs: PLATFORM is ARCH (x86_64 or aarch64) on glibc Linux, ARCH-musl on musl Linux
#      (Alpine), macos-ARCH on macOS;
#   3. the bufkit checkout this application sits in (bindings/erlang): target/release and
#      include/. With --cargo (rebar3's hook) the static library is built first with
#      `cargo build --release -p bufkit-ffi`; without it a missing one is an error saying what to run.
# The platform is this machine's; to build for another, set BUFKIT_ARCH (x86_64, aarch64),
# BUFKIT_OS (linux, linux-musl, macos) and a CC for it: CC=aarch64-linux-gnu-gcc BUFKIT_ARCH=aarch64
# for an arm64 release from x86-64.
set -eu
app=$(cd "$(dirname "$0")/.." && pwd -P) # -P: a _checkouts symlink must not hide the checkout
cargo_build=false
[[ ${1:-} == --cargo ]] && cargo_build=true
arch=${BUFKIT_ARCH:-$(uname -m)}
[[ $arch == arm64 ]] && arch=aarch64
if [[ -n ${BUFKIT_OS:-} ]]; then
  os=$BUFKIT_OS
elif [[ $(uname -s) == Darwin ]]; then
  os=macos
elif ldd --version 2>&1 | grep -qi musl; then
  os=linux-musl
else
  os=linux
fi
if [[ -n ${BUFKIT_LIBDIR:-} ]]; then
  lib=$BUFKIT_LIBDIR include=${BUFKIT_INCLUDE:-$BUFKIT_LIBDIR/../include}
elif [[ -d $app/c_src/vendor ]]; then
  case $os in linux) platform=$arch ;; linux-musl) platform=$arch-musl ;; *) platform=$os-$arch ;; esac
  [[ -f $app/c_src/vendor/$platform/libbufkit.a ]] || {
    echo "bufkit: this application carries libbufkit.a for $(ls "$app/c_src/vendor" | grep -v '\.h$' | tr '\n' ' ')but not for $platform;" >&2
    echo "        set BUFKIT_LIBDIR to a directory holding one built for $platform" >&2
    exit 1
  }
  lib=$app/c_src/vendor/$platform include=$app/c_src/vendor
elif checkout=$(cd "$app/../.." && pwd -P) && [[ -f $checkout/crates/bufkit-ffi/Cargo.toml ]]; then
  lib=$checkout/target/release include=$checkout/include
  if $cargo_build; then
    command -v cargo >/dev/null || { echo "bufkit: building libbufkit.a needs cargo (https://rustup.rs) or BUFKIT_LIBDIR" >&2; exit 1; }
    (cd "$checkout" && cargo build --release -q -p bufkit-ffi)
  fi
else
  echo "bufkit: no libbufkit.a: set BUFKIT_LIBDIR to a directory holding it (an unpacked bufkit tarball's lib/)," >&2
  echo "        or use the rebar3 application that scripts/dist builds (it carries one in c_src/vendor/)" >&2
  exit 1
fi
if [[ ! -f $lib/libbufkit.a && -n ${BUFKIT_LIBDIR:-} && -z ${checkout:-} ]]; then
  echo "bufkit: BUFKIT_LIBDIR=$lib holds no libbufkit.a" >&2
  exit 1
elif [[ ! -f $lib/libbufkit.a ]]; then
  echo "bufkit: $lib/libbufkit.a is missing: run 'cargo build --release -p bufkit-ffi' in ${checkout:-the bufkit checkout}" >&2
  echo "        (or 'rebar3 compile', whose hook does it; or set BUFKIT_LIBDIR)" >&2
  exit 1
fi
[[ -f $include/bufkit.h ]] || { echo "bufkit: no bufkit.h in $include (set BUFKIT_INCLUDE)" >&2; exit 1; }
erts_include=$(erl -noshell -eval 'io:format("~s/erts-~s/include", [code:root_dir(), erlang:system_info(version)]), halt().')
nif_dir=${BUFKIT_NIF_DIR:-$app/priv} # build.sh puts it beside its ebin/, outside a checkout's sources
mkdir -p "$nif_dir"
# The link, by the OS the NIF is for: on macOS the BEAM's enif_* functions are found when it
# loads the NIF.
case $os in
  macos) link=(-undefined dynamic_lookup) ;;
  # musl: the unwinder is inside the libbufkit.a of bufkit's musl archives; the exports are cut
  # to nif_init by a version script (zig's linker, the one cross linker for musl here, has no
  # --exclude-libs)
  linux-musl)
    map=$(mktemp)
    trap 'rm -f "$map"' EXIT
    printf '{\n  global: nif_init;\n  local: *;\n};\n' >"$map"
    link=(-Wl,--version-script="$map" -Wl,--eh-frame-hdr -lpthread -lm -ldl -lc) ;;
  *) link=(-Wl,--exclude-libs,ALL -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc) ;;
esac
"${CC:-gcc}" -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
  -I"$erts_include" -I"$include" \
  "$app"/c_src/*.c "$lib/libbufkit.a" \
  "${link[@]}" \
  -o "$nif_dir/bufkit_nif.so"
