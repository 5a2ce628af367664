#!/usr/bin/env bash
# Random 4 KiB reads inside a 256 MiB deflated entry from Erlang (issue 28): bufkit's
# archive_read_at/4 against OTP's zip (zip_open, zip_get, binary:part). The entry is
# bench-reports/assets-in-place/read_at.py's, rewritten without ZIP64 records, which OTP 25's zip refuses.
# Usage: bench-reports/assets-in-place/erlang/read_at.sh [READS]
set -euo pipefail
reads=${1:-1000}
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
work=/tmp/bufkit-read-at
[[ -f $work/log256.zip ]] || python3 bench-reports/assets-in-place/read_at.py 1 >/dev/null
if [[ ! -f $work/log256-plain.zip ]]; then
  python3 - "$work" <<'PY'
import sys, zipfile
work = sys.argv[1]
data = zipfile.ZipFile(f"{work}/log256.zip").read("app.log")
with zipfile.ZipFile(f"{work}/log256-plain.zip", "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as out:
    out.writestr("app.log", data)
PY
fi
cargo build --release -q -p bufkit-ffi
bash bindings/erlang/build.sh target/release >/dev/null
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
erlc -o "$classes" bench-reports/assets-in-place/erlang/read_at_bench.erl
erl -noshell -pa build/erlang/bufkit/ebin -pa "$classes" -eval "read_at_bench:run(\"$work/log256-plain.zip\", \"app.log\", $reads), halt()."
