#!/usr/bin/env bash
# Builds the bufkit OTP application in place: ebin/ (erlc) and priv/bufkit_nif.so (the NIF, with
# libbufkit.a linked in statically and its symbols kept private).
# Usage: bindings/erlang/build.sh [LIBDIR]   (LIBDIR holds libbufkit.a; default target/release)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=${1:-$root/target/release}
erts_include=$(erl -noshell -eval 'io:format("~s/erts-~s/include", [code:root_dir(), erlang:system_info(version)]), halt().')
mkdir -p "$here/ebin" "$here/priv"
gcc -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared \
  -I"$erts_include" -I"$root/include" \
  "$here/c_src/bufkit_nif.c" "$lib/libbufkit.a" \
  -Wl,--exclude-libs,ALL -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc \
  -o "$here/priv/bufkit_nif.so"
erlc -Werror +debug_info -o "$here/ebin" "$here"/src/*.erl
cp "$here/src/bufkit.app.src" "$here/ebin/bufkit.app"
