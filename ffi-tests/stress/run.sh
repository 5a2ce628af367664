#!/usr/bin/env bash
# The concurrency stress suite (stress.c): the C ABI from many threads per object, misuse
# included, linked against the release libbufkit, plain and under AddressSanitizer+UBSan (as the
# C suite is; valgrind serialises threads, which hides what this looks for).
# Usage: ffi-tests/stress/run.sh [SECONDS_PER_SCENARIO [LIBDIR]]
#   (default 0.5 s per scenario and target/release: the brief run of scripts/test-all;
#    `ffi-tests/stress/run.sh 60` is the long one). Prints "N passed, N failed" last.
# ThreadSanitizer runs this suite too, from scripts/test-tsan (against a libbufkit and a standard
# library built with it).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-0.5}
lib=${2:-$root/target/release}
out=$root/build/stress
mkdir -p "$out"
cflags=(-std=c11 -pthread -Wall -Wextra -Werror -pedantic -g -O1 -I"$root/include" -I"$root/ffi-tests/c")
san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
passed=0 failed=0

run() { # variant name, compile flags...
  local name=$1; shift
  local exe=$out/stress-$name
  if ! gcc "${cflags[@]}" "$root/ffi-tests/stress/stress.c" "$@" -L"$lib" -lbufkit -Wl,-rpath,"$lib" -o "$exe" >"$exe.build.log" 2>&1; then
    failed=$((failed + 1)); echo "FAIL build $name (see $exe.build.log)"; return
  fi
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/bufkit-stress-$name.XXXXXX")
  "$exe" "$seconds" "$work/run" >"$exe.out" 2>"$exe.log"
  local rc=$? line
  rmdir "$work" 2>/dev/null
  sed "s/^/$name: /" "$exe.out"
  line=$(tail -n 1 "$exe.out")
  if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    [[ $rc -ne 0 && ${BASH_REMATCH[2]} -eq 0 ]] && { failed=$((failed + 1)); echo "FAIL $name exited $rc"; }
  else
    failed=$((failed + 1)); echo "FAIL $name printed no summary, exit $rc"
  fi
  [[ $rc -eq 0 ]] || head -n 30 "$exe.log"
}

run plain
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 run asan "${san[@]}"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
