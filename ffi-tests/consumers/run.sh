#!/usr/bin/env bash
# Consumer projects: each outside the workspace, in a temporary directory, using only an artifact
# of scripts/dist. So far the C one: a program built with pkg-config against the unpacked
# tarball, linked shared (run with only the prefix's lib on the loader path) and static, and built
# again after the prefix is moved (the .pc is relocatable). Prints "N passed, N failed" last.
# Usage: ffi-tests/consumers/run.sh TARBALL
set -u
root=$(cd "$(dirname "$0")/../.." && pwd -P)
tarball=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() { # name, command...
  local name=$1; shift
  if "$@" >"$work/$name.log" 2>&1; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $name:" >&2; cat "$work/$name.log" >&2; fi
}
tar -C "$work" -xzf "$tarball"
prefix=$(echo "$work"/bufkit-*)
cp "$root/ffi-tests/consumers/consumer.c" "$work/"
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
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
