#!/usr/bin/env bash
# Prints the benchmarks' default packs, one path a line, building them first if missing:
# make-pack.sh's stdlib pack and make-history-pack.py's history pack.
set -euo pipefail
here=$(dirname "$0")
[[ -d /tmp/bufkit-bench-repo ]] || "$here/make-pack.sh" >/dev/null
[[ -d /tmp/bufkit-history-repo ]] || python3 "$here/make-history-pack.py" >/dev/null
ls /tmp/bufkit-bench-repo/.git/objects/pack/*.pack /tmp/bufkit-history-repo/.git/objects/pack/*.pack
