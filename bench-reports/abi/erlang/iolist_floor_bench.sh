#!/usr/bin/env bash
# Builds walk_floor_nif.so and runs iolist_floor_bench.erl against the NIF in bindings/erlang.
# Usage: bash bench-reports/abi/erlang/iolist_floor_bench.sh [ROUNDS] [binaries|chars] [gc|no_gc]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
rounds=${1:-15} kind=${2:-binaries} gc=${3:-no_gc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
erts_include=$(erl -noshell -eval 'io:format("~s", [filename:join([code:root_dir(), "usr", "include"])]), halt().')
gcc -O2 -fPIC -shared -I"$erts_include" "$here/walk_floor_nif.c" -o "$out/walk_floor_nif.so"
erlc -o "$out" "$here/seed_iolist.erl" "$here/walk_floor.erl" "$here/iolist_floor_bench.erl"
[[ -f $root/build/erlang/bufkit/priv/bufkit_nif.so ]] || bash "$root/bindings/erlang/build.sh"
erl -noshell -pa "$root/build/erlang/bufkit/ebin" -pa "$out" -eval "iolist_floor_bench:run($rounds, $kind, $gc), halt()."
