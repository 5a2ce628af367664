#!/usr/bin/env bash
# Speed before and after a change: the same benchmarks with two builds, alternating rounds.
# - extraction: bench-reports/asset-extract/ab.py on the asset, many-file, large-entry and 256 MiB log
#   archives, to tmpfs and to disk;
# - inflate: `bufkit inflate-pack` over the standard-library pack (make-pack.sh), both cores;
# - in-place reads from C: bench-reports/assets-in-place/in_place_bench.c linked with each libbufkit.a,
#   on the APK-shaped archive;
# - random reads from C: bench-reports/assets-in-place/read_at_bench.c linked with each, 4 KiB slices of
#   the 256 MiB log entry;
# - cat and streams: `bufkit cat` of the 256 MiB log entry and of every entry of the APK-shaped
#   archive, and `bufkit extract -` of each from a pipe, to tmpfs.
# Medians, and after / before; 1.00 is unchanged, below is faster.
# Usage: bench-reports/before-after/run.sh BEFORE_COMMIT [ROUNDS [PART...]]   (quiet machine)
# PART: extract, pack, in-place, read-at, cat-stream (default: all of them). Needs libzip-dev.
set -euo pipefail
before=$1 rounds=${2:-9}
parts=${*:3}
parts=${parts:-extract pack in-place read-at cat-stream}
want() { [[ " $parts " == *" $1 "* ]]; }
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_WORK:-/tmp/bufkit-before-after}
mkdir -p "$work"
cd "$root"
tree=$work/before
[[ -d $tree ]] || git worktree add -q --detach "$tree" "$before"
(cd "$tree" && git checkout -q --detach "$before" && cargo build --release -q -p bufkit-cli -p bufkit-ffi --target-dir "$work/before-target")
cargo build --release -q -p bufkit-cli -p bufkit-ffi
old=$work/before-target/release new=$root/target/release

if want extract; then
echo "## extraction (2 threads)"
python3 bench-reports/asset-extract/ab.py "$old/bufkit" "$new/bufkit" "$rounds" assets stdlib big log256

fi

if want pack; then
echo "## inflate-pack (objects over both cores, each checked against the index)"
pack=$(bash bench-reports/strided-inflate/make-pack.sh "$work/repo" | tail -n 1)
idx=${pack%.pack}.idx
python3 - "$old/bufkit" "$new/bufkit" "$pack" "$idx" "$rounds" <<'PY'
import statistics, subprocess, sys, time
old, new, pack, idx, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
times = {"before": [], "after": []}
for _ in range(rounds):
    for k, b in (("before", old), ("after", new)):
        t = time.perf_counter()
        subprocess.run([b, "inflate-pack", pack, "--idx", idx], check=True, stdout=subprocess.DEVNULL)
        times[k].append(time.perf_counter() - t)
b, a = statistics.median(times["before"]), statistics.median(times["after"])
print(f"| pack | before {b * 1000:.1f} ms | after {a * 1000:.1f} ms | {a / b:.3f}× |")
PY

fi

if want in-place; then
echo "## in-place reads from C (bk_archive_*: first start, then every file read again)"
python3 bench-reports/assets-in-place/make-apk.py "$work/app.apk"
for side in before after; do
  lib=$old; [[ $side == after ]] && lib=$new
  gcc -O2 -std=c11 -DROUNDS=5 -Iinclude bench-reports/assets-in-place/in_place_bench.c -o "$work/in_place_$side" \
    "$lib/libbufkit.a" -lzip -lpthread -ldl -lm
done
shm=$(mktemp -d /dev/shm/bufkit-x86-ab.XXXXXX)
trap 'rm -rf "$shm"' EXIT
for ((r = 0; r < rounds; r++)); do
  for side in before after; do "$work/in_place_$side" "$work/app.apk" "$side" "$shm"; done
done | python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin if l.startswith("{")]
keys = [k for k, v in rows[0].items() if isinstance(v, (int, float)) and "libzip" not in k and k not in ("entries", "files")]
for k in keys:
    b = statistics.median(r[k] for r in rows if r["archive"] == "before")
    a = statistics.median(r[k] for r in rows if r["archive"] == "after")
    print(f"| {k} | before {b:.4g} | after {a:.4g} | {a / b:.3f}× |")
'
fi

if want read-at; then
echo "## random reads from C (bk_archive_read_at: 4 KiB slices of a 256 MiB deflated entry)"
python3 -c "import sys; sys.path.insert(0, 'bench-reports/assets-in-place'); import log_archive, os; os.path.exists('$work/log256.zip') or log_archive.make('$work/log256.zip')"
for side in before after; do
  lib=$old; [[ $side == after ]] && lib=$new
  gcc -O2 -Iinclude bench-reports/assets-in-place/read_at_bench.c "$lib/libbufkit.a" -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc \
    -o "$work/read_at_$side"
done
for ((r = 0; r < rounds; r++)); do
  for side in before after; do "$work/read_at_$side" "$work/log256.zip" app.log 300 4096 | sed "s/^{/{\"side\": \"$side\", /"; done
done | python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin if l.startswith("{")]
keys = [k for k, v in rows[0].items() if isinstance(v, (int, float)) and k not in ("entry_bytes", "slice", "reads")]
for k in keys:
    b = statistics.median(r[k] for r in rows if r["side"] == "before")
    a = statistics.median(r[k] for r in rows if r["side"] == "after")
    print(f"| read_at {k} | before {b:.4g} | after {a:.4g} | {a / b:.3f}× |")
'
fi

if want cat-stream; then
echo "## cat and streams (the two bufkit binaries, alternating)"
python3 bench-reports/assets-in-place/make-apk.py "$work/app.apk"
python3 -c "import sys; sys.path.insert(0, 'bench-reports/assets-in-place'); import log_archive, os; os.path.exists('$work/log256.zip') or log_archive.make('$work/log256.zip')"
python3 - "$old/bufkit" "$new/bufkit" "$work/log256.zip" "$work/app.apk" "$rounds" <<'PY'
import shutil, statistics, subprocess, sys, tempfile, time
old, new, log, apk, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
def cat(b, archive):
    subprocess.run([b, "cat", archive], check=True, stdout=subprocess.DEVNULL)
def stream(b, archive):
    out = tempfile.mkdtemp(dir="/dev/shm")
    try:
        with open(archive, "rb") as f:
            feed = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE)
            subprocess.run([b, "extract", "-", out + "/x"], check=True, stdin=feed.stdout, stdout=subprocess.DEVNULL)
            feed.stdout.close()
            feed.wait()
    finally:
        shutil.rmtree(out)
jobs = [("cat, the 256 MiB entry", cat, log), ("cat, every entry of the APK", cat, apk),
        ("extract -, the APK, tmpfs", stream, apk), ("extract -, the 256 MiB entry, tmpfs", stream, log)]
for name, job, archive in jobs:
    times = {old: [], new: []}
    for _ in range(rounds):
        for b in (old, new):
            t = time.perf_counter()
            job(b, archive)
            times[b].append(time.perf_counter() - t)
    b, a = statistics.median(times[old]), statistics.median(times[new])
    print(f"| {name} | before {b * 1000:.2f} ms | after {a * 1000:.2f} ms | {a / b:.3f}× |")
PY
fi
