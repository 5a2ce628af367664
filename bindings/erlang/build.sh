#!/usr/bin/env bash
# Builds the bufkit OTP application without rebar3: priv/bufkit_nif.so (c_src/build_nif.sh says
# where libbufkit.a comes from, and what to run when it is missing) and ebin/. Inside a bufkit
# checkout they go to build/erlang/bufkit/ (nothing is written into the source tree: put
# build/erlang/bufkit/ebin on the code path); in the application scripts/dist packs, into the
# application's own directory, as OTP expects. BUFKIT_ERLANG_OUT chooses another directory.
# Usage: bindings/erlang/build.sh [LIBDIR]   (LIBDIR holds libbufkit.a; default: the checkout's target/release)
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
if [[ $# -gt 0 ]]; then export BUFKIT_LIBDIR=$1; fi
if [[ -n ${BUFKIT_LIBDIR:-} && -z ${BUFKIT_INCLUDE:-} && -f $here/../../include/bufkit.h ]]; then
  export BUFKIT_INCLUDE=$here/../../include
fi
if [[ -n ${BUFKIT_ERLANG_OUT:-} ]]; then
  out=$BUFKIT_ERLANG_OUT
elif [[ -f $here/../../crates/bufkit-ffi/Cargo.toml ]]; then
  out=$(cd "$here/../.." && pwd -P)/build/erlang/bufkit
else
  out=$here
fi
mkdir -p "$out/ebin" "$out/priv"
BUFKIT_NIF_DIR=$out/priv "$here/c_src/build_nif.sh"
erlc -Werror +debug_info -o "$out/ebin" "$here"/src/*.erl
sed 's/{modules, \[\]}/{modules, [bufkit, bufkit_nif]}/' "$here/src/bufkit.app.src" >"$out/ebin/bufkit.app"
