#!/usr/bin/env bash
# One 256 MiB deflated entry (bench-reports/assets-in-place/log_archive.py, rewritten without ZIP64
# records, which OTP 25's zip refuses) read from Erlang: bufkit's streaming reader and
# archive_read/2 against OTP's zip:zip_get.
# Usage: bench-reports/assets-in-place/erlang/stream.sh [ROUNDS]
set -euo pipefail
rounds=${1:-5}
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# (not named bufkit-*: code:priv_dir(bufkit) would take such a directory for the application's)
work=$(mktemp -d /dev/shm/erlang-stream.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import sys, zipfile
sys.path.insert(0, "bench-reports/assets-in-place")
import log_archive
work = sys.argv[1]
log_archive.make(f"{work}/log256.zip")
data = zipfile.ZipFile(f"{work}/log256.zip").read("app.log")
with zipfile.ZipFile(f"{work}/log256-plain.zip", "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as out:
    out.writestr("app.log", data)
PY
cargo build --release -q -p bufkit-ffi
bash bindings/erlang/build.sh target/release >/dev/null
erlc -o "$work" bench-reports/assets-in-place/erlang/stream_bench.erl
erl -noshell -pa build/erlang/bufkit/ebin -pa "$work" -eval "stream_bench:run(\"$work/log256-plain.zip\", \"app.log\", $rounds), halt()."
