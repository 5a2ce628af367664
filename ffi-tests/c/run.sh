#!/usr/bin/env bash
# Runs the C ABI tests against the release build of libbufkit: linked against the .so and the .a,
# under AddressSanitizer+UBSan and under valgrind, plus header and pkg-config checks.
# Usage: ffi-tests/c/run.sh [LIBDIR [ARCH]]   (default target/release, the host's architecture).
# With another ARCH (aarch64), the programs are built by Debian's cross gcc (ARCH-linux-gnu-gcc)
# and run under qemu-user: the plain variants, shared and static. With ARCH `musl`, they are built
# by musl-gcc against the x86-64 musl (Alpine) build's libbufkit.a and run here; with
# `aarch64-musl`, by zig's cc (PyPI's ziglang: Debian has no aarch64 musl gcc) against the aarch64
# musl build's, and run under qemu-user: the static variant alone (Rust builds no musl cdylib by
# default). The sanitizer and valgrind
# variants run on the native build only: under qemu-user AddressSanitizer needs its leak checker
# off and still reports memory that growable-buffer maps itself (placed where qemu's x86-64
# address layout puts it, outside the shadow aarch64 ASan reserves) as a wild pointer; valgrind
# does not emulate. Prints "N passed, N failed" last; each
# variant's log goes to build/c/ (build/c-ARCH/).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=${1:-$root/target/release}
arch=${2:-$(uname -m)}
if [[ $arch == "$(uname -m)" ]]; then
  cc=gcc cxx=g++ nm=nm emulate=() out=$root/build/c
elif [[ $arch == musl ]]; then
  cc=musl-gcc cxx=none nm=nm emulate=() out=$root/build/c-musl musl_triple=x86_64-unknown-linux-musl
elif [[ $arch == windows ]]; then
  # The x86-64 Windows build (mingw-w64), run under wine: the DLL beside the programs.
  cc=x86_64-w64-mingw32-gcc cxx=x86_64-w64-mingw32-g++ nm=x86_64-w64-mingw32-nm emulate=(wine)
  out=$root/build/c-windows
elif [[ $arch == aarch64-musl ]]; then
  out=$root/build/c-aarch64-musl musl_triple=aarch64-unknown-linux-musl cxx=none nm=nm emulate=(qemu-aarch64)
  mkdir -p "$out"
  printf '#!/bin/sh\nexec python3 -m ziglang cc -target aarch64-linux-musl "$@"\n' >"$out/cc"
  chmod +x "$out/cc"
  cc=$out/cc
else
  # The cross toolchain's libraries first (see scripts/aarch64-env).
  cc=$arch-linux-gnu-gcc cxx=$arch-linux-gnu-g++ nm=$arch-linux-gnu-nm
  emulate=(qemu-"$arch" -L /usr/"$arch"-linux-gnu -E LD_LIBRARY_PATH=/usr/"$arch"-linux-gnu/lib)
  out=$root/build/c-$arch
fi
mkdir -p "$out"
exe_suffix=; [[ $arch == windows ]] && exe_suffix=.exe # wine runs a program by its full name
abi=$(sed -nE 's/^#define BK_ABI_VERSION ([0-9]+)$/\1/p' "$root/include/bufkit.h")
[[ $arch == windows ]] || ln -sf libbufkit.so "$lib/libbufkit.so.$abi"
# A zip with a large deflated entry (4.8 MiB of log lines, level 6: two chunks for the parallel decoder) and a stored one, for the
# random-access tests; made here with Python's zipfile, so that nothing large is committed.
python3 - "$out/big.zip" <<'PY'
import sys, zipfile
lines = "".join(f"2026-12-02T13:{i % 60:02} GET /item/{i * 7919 % 5000} {i % 7}\n" for i in range(150_000))
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr(zipfile.ZipInfo("log.txt"), lines.encode(), compress_type=zipfile.ZIP_DEFLATED, compresslevel=6)
    z.writestr(zipfile.ZipInfo("raw.bin"), bytes(range(256)) * 1000, compress_type=zipfile.ZIP_STORED)
PY
# big.zip's log.txt again, compressed at another level (split into blocks otherwise) and padded
# to the same compressed size: the same data, sizes and CRC-32, other compressed bytes, for
# checkpoints imported where they do not belong.
python3 - "$out/big.zip" "$out/twin.zip" <<'PY'
import struct, sys, zipfile, zlib
with zipfile.ZipFile(sys.argv[1]) as z:
    info = z.getinfo("log.txt")
    data = z.read(info)
for level in (9, 8, 7, 5, 4, 3, 2, 1):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    stream = c.compress(data) + c.flush()
    if len(stream) < info.compress_size:
        break
stream += b"\0" * (info.compress_size - len(stream))
name, crc = b"log.txt", zlib.crc32(data)
local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0x21, crc, len(stream), len(data), len(name), 0) + name
central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 8, 0, 0x21, crc, len(stream), len(data),
                      len(name), 0, 0, 0, 0, 0, 0) + name
end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(central), len(local) + len(stream), 0)
open(sys.argv[2], "wb").write(local + stream + central + end)
PY
# methods.zip with every entry's stream cut to half its length (both headers saying so) and a
# deflated entry cut likewise: a cut entry of each method, for the statuses every read path gives.
python3 - "$root/crates/asset-extract/tests/data/methods.zip" "$out/cut.zip" <<'PY'
import io, struct, sys, zipfile
src = open(sys.argv[1], "rb").read()
deflated = io.BytesIO()
with zipfile.ZipFile(deflated, "w") as z:
    z.writestr(zipfile.ZipInfo("deflate.txt"), bytes(range(97, 123)) * 760, compress_type=zipfile.ZIP_DEFLATED)
# The deflated entry's local header and data before methods.zip's, its central record first.
d = deflated.getvalue()
d_cd = struct.unpack("<I", d[-6:-2])[0]
data = bytearray(d[:d_cd] + src)
cd = len(d) - 22 - d_cd + struct.unpack("<I", src[-6:-2])[0] + d_cd
central = bytearray(d[d_cd:-22])
rest = bytearray(src[struct.unpack("<I", src[-6:-2])[0]:-22])
at = 0
while at < len(rest):  # methods.zip's records, their offsets moved past the deflated entry
    struct.pack_into("<I", rest, at + 42, struct.unpack("<I", rest[at + 42:at + 46])[0] + d_cd)
    at += 46 + sum(struct.unpack("<HHH", rest[at + 28:at + 34]))
central += rest
at = 0
while at < len(central):  # each entry's compressed size halved, in both headers
    csize = struct.unpack("<I", central[at + 20:at + 24])[0]
    local = struct.unpack("<I", central[at + 42:at + 46])[0]
    struct.pack_into("<I", central, at + 20, csize // 2)
    struct.pack_into("<I", data, local + 18, csize // 2)
    at += 46 + sum(struct.unpack("<HHH", central[at + 28:at + 34]))
count = 1 + struct.unpack("<H", src[-12:-10])[0]
eocd = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, count, count, len(central), len(data), 0)
open(sys.argv[2], "wb").write(bytes(data) + bytes(central) + eocd)
PY
# methods.zip with 128 bytes after every entry's stream, inside its compressed size (both headers
# saying so, every offset moved): read past by every read path, refused by strict extraction.
python3 - "$root/crates/asset-extract/tests/data/methods.zip" "$out/junk.zip" <<'PY'
import struct, sys
src = open(sys.argv[1], "rb").read()
junk = bytes((i * 37 + 11) % 256 for i in range(128))
eocd = len(src) - 22
cd, count = struct.unpack("<I", src[eocd + 16:eocd + 20])[0], struct.unpack("<H", src[eocd + 10:eocd + 12])[0]
data, central, at = bytearray(), bytearray(), cd
for _ in range(count):
    record = bytearray(src[at:at + 46 + sum(struct.unpack("<HHH", src[at + 28:at + 34]))])
    csize, local = struct.unpack("<I", record[20:24])[0], struct.unpack("<I", record[42:46])[0]
    head = 30 + sum(struct.unpack("<HH", src[local + 26:local + 30]))
    entry = bytearray(src[local:local + head + csize])
    struct.pack_into("<I", entry, 18, csize + len(junk))
    struct.pack_into("<I", record, 20, csize + len(junk))
    struct.pack_into("<I", record, 42, len(data))
    data += entry + junk
    central += record
    at += len(record)
end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, count, count, len(central), len(data), 0)
open(sys.argv[2], "wb").write(bytes(data) + bytes(central) + end)
PY
# Windows programs see this machine's root as drive Z: under wine.
drive=; [[ $arch == windows ]] && drive=Z:
cflags=(-std=c11 -pthread -Wall -Wextra -Werror -pedantic -g -I"$root/include" -I"$root/ffi-tests/c"
  -DBUFKIT_METHODS_ZIP="\"$drive$root/crates/asset-extract/tests/data/methods.zip\"" -DBUFKIT_BIG_ZIP="\"$drive$out/big.zip\""
  -DBUFKIT_CUT_ZIP="\"$drive$out/cut.zip\"" -DBUFKIT_JUNK_ZIP="\"$drive$out/junk.zip\"" -DBUFKIT_TWIN_ZIP="\"$drive$out/twin.zip\"")
static_libs=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)
# musl: Rust's musl staticlib leaves the unwinder to the final link (rustc takes its own
# libunwind.a; gcc's libgcc_eh here is glibc's), so a C program links that libunwind.a too, and
# --eh-frame-hdr, which gcc leaves out of static links: without it a panic cannot unwind to the
# ABI's boundary and the process aborts ("failed to initiate panic").
[[ $arch == *musl ]] &&
  static_libs=("$(rustc --print sysroot)/lib/rustlib/$musl_triple/lib/self-contained/libunwind.a" -static
    -Wl,--eh-frame-hdr -lpthread -lm)
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
  if ! "$cc" "${cflags[@]}" "$src" "$@" -o "$exe" >"$exe.build.log" 2>&1; then
    failed=$((failed + 1)); echo "FAIL build $exe (see $exe.build.log)" >&2; return
  fi
  local line rc
  $runner "${emulate[@]}" "$exe$exe_suffix" >"$exe.out" 2>"$exe.log"
  rc=$?
  line=$(tail -n 1 "$exe.out" | tr -d '\r')
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
check header-c11-twice "$cc" "${cflags[@]}" -c "$out/twice.c" -o "$out/twice.o"
command -v "$cxx" >/dev/null &&
  check header-cxx "$cxx" -std=c++17 -Wall -Wextra -Werror -pedantic -I"$root/include" -c "$out/twice.cc" -o "$out/twicecc.o"
if [[ $arch == windows ]]; then
  # The DLL exports the C ABI's functions and nothing else (see scripts/windows/mingw-gcc).
  x86_64-w64-mingw32-objdump -p "$lib/bufkit.dll" | sed -n '/Ordinal\/Name Pointer/,/^$/p' | awk 'NR>1 && NF {print $NF}' \
    >"$out/exports.txt"
  check exports-only-bk bash -c "! grep -v '^bk_' '$out/exports.txt'"
  check exports-every-declared bash -c "diff <(sort '$out/exports.txt') \
    <(sed -nE 's/^[a-z].* \**(bk_[a-z0-9_]+)\(.*/\1/p' '$root/include/bufkit.h' | sort -u)"
  # Beside the programs, as an application ships them: the DLL, and mingw-w64's thread and
  # unwinder runtimes the test programs link (-pthread).
  cp "$lib/bufkit.dll" "$out/"
  for dll in libwinpthread-1.dll libgcc_s_seh-1.dll; do
    cp "$(x86_64-w64-mingw32-gcc -print-file-name="$dll")" "$out/" 2>/dev/null ||
      cp "$(find /usr/lib/gcc/x86_64-w64-mingw32 /usr/x86_64-w64-mingw32 -name "$dll" | head -n 1)" "$out/"
  done
  variant shared "" -L"$lib" -lbufkit
  variant static "" "$lib/libbufkit.a" -lkernel32 -lntdll -luserenv -lws2_32 -ldbghelp
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
fi
if [[ $arch == *musl ]]; then
  variant static "" "$lib/libbufkit.a" "${static_libs[@]}"
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
fi
check pkg-config-build bash -c "$cc \"$out/twice.c\" \$(PKG_CONFIG_PATH='$lib' pkg-config --cflags --libs bufkit) -Wl,-rpath,'$lib' -o '$out/pc' && ${emulate[*]} '$out/pc'"
# The library's exports are exactly the C ABI's functions, and every one the header declares.
check exports-only-bk bash -c "! $nm -D --defined-only '$lib/libbufkit.so' | awk 'NF==3{print \$3}' | grep -v '^bk_'"
check exports-every-declared bash -c "diff <($nm -D --defined-only '$lib/libbufkit.so' | awk 'NF==3{print \$3}' | sort) \
  <(sed -nE 's/^[a-z].* \**(bk_[a-z0-9_]+)\(.*/\1/p' '$root/include/bufkit.h' | sort -u)"

san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
variant shared "" -L"$lib" -lbufkit -Wl,-rpath,"$lib"
variant static "" "$lib/libbufkit.a" "${static_libs[@]}"
if [[ ${#emulate[@]} -gt 0 ]]; then
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
fi
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 variant asan-static "" "${san[@]}" "$lib/libbufkit.a" "${static_libs[@]}"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 variant asan-shared "" "${san[@]}" -L"$lib" -lbufkit -Wl,-rpath,"$lib"
# Allocations counted by wrapping the allocator: only a static link routes libbufkit's through it.
wrap=-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign,--wrap=aligned_alloc
program "$root/ffi-tests/c/alloc/test_no_allocation.c" static "" "$wrap" "$lib/libbufkit.a" "${static_libs[@]}"
variant valgrind "valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite" -L"$lib" -lbufkit -Wl,-rpath,"$lib"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
