#!/usr/bin/env bash
# Runs the C ABI tests against the release build of libbufkit: linked against the .so and the .a,
# under AddressSanitizer+UBSan and under valgrind, plus header and pkg-config checks.
# Usage: ffi-tests/c/run.sh [LIBDIR]   (default target/release). Prints "N passed, N failed" last;
# each variant's log goes to build/c/.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=${1:-$root/target/release}
out=$root/build/c
mkdir -p "$out"
abi=$(sed -nE 's/^#define BK_ABI_VERSION ([0-9]+)$/\1/p' "$root/include/bufkit.h")
ln -sf libbufkit.so "$lib/libbufkit.so.$abi"
# A zip with a large deflated entry (4 MiB of log lines, level 6) and a stored one, for the
# random-access tests; made here with Python's zipfile, so that nothing large is committed.
python3 - "$out/big.zip" <<'PY'
import sys, zipfile
lines = "".join(f"2026-12-02T13:{i % 60:02} GET /item/{i * 7919 % 5000} {i % 7}\n" for i in range(120_000))
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr(zipfile.ZipInfo("log.txt"), lines.encode(), compress_type=zipfile.ZIP_DEFLATED, compresslevel=6)
    z.writestr(zipfile.ZipInfo("raw.bin"), bytes(range(256)) * 1000, compress_type=zipfile.ZIP_STORED)
PY
cflags=(-std=c11 -pthread -Wall -Wextra -Werror -pedantic -g -I"$root/include" -I"$root/ffi-tests/c"
  -DBUFKIT_METHODS_ZIP="\"$root/crates/asset-extract/tests/data/methods.zip\"" -DBUFKIT_BIG_ZIP="\"$out/big.zip\"")
static_libs=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)
passed=0 failed=0

# One check that is not a test program: counted as one test.
check() { # name, command...
  local name=$1; shift
  if "$@" >"$out/$name.log" 2>&1; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $name (see $out/$name.log)" >&2; fi
}

# Builds and runs one test program; adds its own counts.
program() { # source, variant name, runner-prefix (may be empty), compile flags...
  local src=$1 name=$2 runner=$3; shift 3
  local exe="$out/$(basename "$src" .c)-$name"
  if ! gcc "${cflags[@]}" "$src" "$@" -o "$exe" >"$exe.build.log" 2>&1; then
    failed=$((failed + 1)); echo "FAIL build $exe (see $exe.build.log)" >&2; return
  fi
  local line rc
  $runner "$exe" >"$exe.out" 2>"$exe.log"
  rc=$?
  line=$(tail -n 1 "$exe.out")
  if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    if [[ $rc -ne 0 && ${BASH_REMATCH[2]} -eq 0 ]]; then failed=$((failed + 1)); echo "FAIL $exe exited $rc (see $exe.log)" >&2; fi
  else
    failed=$((failed + 1)); echo "FAIL $exe printed no summary, exit $rc (see $exe.log)" >&2
  fi
  [[ ${BASH_REMATCH[2]:-1} -eq 0 && $rc -eq 0 ]] || grep -E "FAIL|CHECK|ERROR|runtime error" "$exe.log" | head -20 >&2
}

# Builds and runs one variant of every test program.
variant() { # name, runner-prefix (may be empty), compile flags...
  local name=$1 runner=$2; shift 2
  for src in "$root"/ffi-tests/c/test_*.c; do
    program "$src" "$name" "$runner" "$@"
  done
}

# The header: C11 pedantic included twice, and C++.
printf '#include "bufkit.h"\n#include "bufkit.h"\nint main(void){return bk_abi_version() == BK_ABI_VERSION ? 0 : 1;}\n' >"$out/twice.c"
cp "$out/twice.c" "$out/twice.cc"
check header-c11-twice gcc "${cflags[@]}" -c "$out/twice.c" -o "$out/twice.o"
check header-cxx g++ -std=c++17 -Wall -Wextra -Werror -pedantic -I"$root/include" -c "$out/twice.cc" -o "$out/twicecc.o"
check pkg-config-build bash -c "gcc \"$out/twice.c\" \$(PKG_CONFIG_PATH='$lib' pkg-config --cflags --libs bufkit) -Wl,-rpath,'$lib' -o '$out/pc' && '$out/pc'"
check exports-only-bk bash -c "! nm -D --defined-only '$lib/libbufkit.so' | awk 'NF==3{print \$3}' | grep -v '^bk_'"

san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
variant shared "" -L"$lib" -lbufkit -Wl,-rpath,"$lib"
variant static "" "$lib/libbufkit.a" "${static_libs[@]}"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 variant asan-static "" "${san[@]}" "$lib/libbufkit.a" "${static_libs[@]}"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 variant asan-shared "" "${san[@]}" -L"$lib" -lbufkit -Wl,-rpath,"$lib"
# Allocations counted by wrapping the allocator: only a static link routes libbufkit's through it.
wrap=-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign,--wrap=aligned_alloc
program "$root/ffi-tests/c/alloc/test_no_allocation.c" static "" "$wrap" "$lib/libbufkit.a" "${static_libs[@]}"
variant valgrind "valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite" -L"$lib" -lbufkit -Wl,-rpath,"$lib"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
