#!/usr/bin/env bash
# The application's EUnit tests (test/*_tests.erl), run by rebar3 as any OTP application's are:
# the compile hook builds the NIF first (c_src/build_nif.sh; libbufkit.a from LIBDIR).
# Usage: bindings/erlang/run-tests.sh [LIBDIR]   (default: the checkout's target/release, built
# with cargo when missing). Prints "N passed, N failed" last; exits non-zero on any failure or if
# no test ran.
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
if [[ $# -gt 0 ]]; then
  BUFKIT_LIBDIR=$(cd "$1" && pwd -P) || { echo "0 passed, 1 failed"; exit 1; }
  export BUFKIT_LIBDIR BUFKIT_INCLUDE=$root/include
fi
log=$root/build/erlang/eunit.log
mkdir -p "$(dirname "$log")"
(cd "$here" && rebar3 eunit --verbose) 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$log"
rc=${PIPESTATUS[0]}
cat "$log"
# EUnit's summary, as rebar3 --verbose prints it.
if line=$(grep -E '^ *All [0-9]+ tests passed' "$log"); then
  p=$(echo "$line" | sed -E 's/[^0-9]*([0-9]+).*/\1/') f=0
elif line=$(grep -E 'Failed: [0-9]+\. +Skipped: [0-9]+\. +Passed: [0-9]+' "$log"); then
  f=$(echo "$line" | sed -E 's/.*Failed: ([0-9]+).*/\1/') p=$(echo "$line" | sed -E 's/.*Passed: ([0-9]+).*/\1/')
else
  p=0 f=1
fi
[[ $rc -ne 0 && $f -eq 0 ]] && f=1
echo "$p passed, $f failed"
[[ $f -eq 0 && $p -gt 0 ]]
