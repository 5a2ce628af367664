#!/usr/bin/env bash
# Builds the bufkit OTP application in place, without rebar3: priv/bufkit_nif.so (c_src/build_nif.sh
# says where libbufkit.a comes from, and what to run when it is missing) and ebin/.
# Usage: bindings/erlang/build.sh [LIBDIR]   (LIBDIR holds libbufkit.a; default: the checkout's target/release)
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
if [[ $# -gt 0 ]]; then export BUFKIT_LIBDIR=$1; fi
if [[ -n ${BUFKIT_LIBDIR:-} && -z ${BUFKIT_INCLUDE:-} && -f $here/../../include/bufkit.h ]]; then
  export BUFKIT_INCLUDE=$here/../../include
fi
"$here/c_src/build_nif.sh"
mkdir -p "$here/ebin"
erlc -Werror +debug_info -o "$here/ebin" "$here"/src/*.erl
sed 's/{modules, \[\]}/{modules, [bufkit, bufkit_nif]}/' "$here/src/bufkit.app.src" >"$here/ebin/bufkit.app"
