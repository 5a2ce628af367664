#!/usr/bin/env bash
# Builds the Erlang binding against LIBDIR (default target/release) and runs its EUnit tests.
# Prints "N passed, N failed" last; exits non-zero on any failure or if no test ran.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=${1:-$root/target/release}
out=$root/build/erlang
mkdir -p "$out"
"$root/bindings/erlang/build.sh" "$lib" || { echo "0 passed, 1 failed"; exit 1; }
erlc -Werror -o "$out" "$root/ffi-tests/erlang/bufkit_tests.erl" || { echo "0 passed, 1 failed"; exit 1; }
# eunit:test/2 returns ok or error; `-s init stop` would exit 0 either way, so halt on the result.
BUFKIT_EXPECTED_ABI=$(sed -nE 's/^#define BK_ABI_VERSION ([0-9]+)$/\1/p' "$root/include/bufkit.h") \
BUFKIT_METHODS_ZIP=$root/crates/asset-extract/tests/data/methods.zip \
erl -noshell -pa "$root/build/erlang/bufkit/ebin" -pa "$out" \
  -eval 'case eunit:test(bufkit_tests, [verbose]) of ok -> halt(0); _ -> halt(1) end.' 2>&1 | tee "$out/eunit.log"
rc=${PIPESTATUS[0]}
if line=$(grep -E '^ *All [0-9]+ tests passed' "$out/eunit.log"); then
  n=$(echo "$line" | sed -E 's/[^0-9]*([0-9]+).*/\1/'); p=$n; f=0
elif line=$(grep -E 'Failed: [0-9]+\. +Skipped: [0-9]+\. +Passed: [0-9]+' "$out/eunit.log"); then
  f=$(echo "$line" | sed -E 's/.*Failed: ([0-9]+).*/\1/'); p=$(echo "$line" | sed -E 's/.*Passed: ([0-9]+).*/\1/')
elif grep -q '^ *Test passed' "$out/eunit.log"; then
  p=1; f=0
else
  p=0; f=1
fi
[[ $rc -ne 0 && $f -eq 0 ]] && f=1
echo "$p passed, $f failed"
[[ $f -eq 0 && $p -gt 0 ]]
