#!/usr/bin/env bash
# Every zip-format archive the host carries (jars, jmods, wheels, zips, APKs in its Java,
# Python, Node and SDK trees), read by bufkit and by Info-ZIP unzip: the same bytes in the same
# order (`bufkit cat ARCHIVE` against `unzip -p ARCHIVE`, and again with every deflated entry
# inflated on several cores), or refused by both (`unzip -t` fails too). One test per archive; prints "N passed, N failed" last, and fails if the machine carries
# fewer archives than make the check mean something. Then ambiguous.py's generated layouts,
# methods.py's bzip2 and LZMA archives, and differential.py's mutants against Python's zipfile.
# Usage: ffi-tests/corpus/run.sh [BUFKIT]   (default target/release/bufkit)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bufkit=${1:-$root/target/release/bufkit}
roots=(/usr/share/java /usr/lib/jvm /usr/share/python-wheels /usr/lib/python3 /usr/local/lib /usr/lib/node_modules
       /usr/lib/google-cloud-sdk /root/.pyenv /opt)
work=$(mktemp -d /dev/shm/bufkit-corpus.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 both_refuse=0
existing=()
for r in "${roots[@]}"; do [[ -d $r ]] && existing+=("$r"); done
while IFS= read -r -d '' archive; do
  if "$bufkit" cat "$archive" >"$work/bufkit" 2>"$work/err"; then
    unzip -p "$archive" >"$work/unzip" 2>/dev/null
    urc=$?
    if [[ $urc -le 1 ]] && cmp -s "$work/bufkit" "$work/unzip"; then
      # Every deflated entry cut into chunks on several cores: the same bytes.
      if "$bufkit" cat --parallel-inflate always "$archive" 2>"$work/err" | cmp -s - "$work/bufkit"; then
        passed=$((passed + 1))
      else
        failed=$((failed + 1)); echo "FAIL $archive: other bytes with --parallel-inflate always" >&2
      fi
    else
      failed=$((failed + 1)); echo "FAIL $archive: bytes differ from unzip -p (unzip exit $urc)" >&2
    fi
  elif ! unzip -tqq "$archive" >/dev/null 2>&1; then
    if "$bufkit" cat --parallel-inflate always "$archive" >/dev/null 2>&1; then
      failed=$((failed + 1)); echo "FAIL $archive: refused on one core, read with --parallel-inflate always" >&2
    else
      passed=$((passed + 1)); both_refuse=$((both_refuse + 1))
    fi
  else
    failed=$((failed + 1)); echo "FAIL $archive: refused, but unzip -t finds no error: $(cat "$work/err")" >&2
  fi
done < <(find "${existing[@]}" -xdev -type f \( -name '*.jar' -o -name '*.zip' -o -name '*.whl' -o -name '*.apk' -o -name '*.jmod' \) -print0 2>/dev/null | sort -z)
echo "corpus: $((passed + failed)) archives from ${existing[*]}; $both_refuse refused by both bufkit and unzip" >&2
# Generated layouts that admit more than one reading, against Python's zipfile and unzip: one
# reading or none (issue 26). One test per layout.
if line=$(python3 "$root/ffi-tests/corpus/ambiguous.py" "$bufkit" 2>&1 | tee "$work/ambiguous" | tail -n 1) &&
   [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
  passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
  grep '^FAIL' "$work/ambiguous" >&2
else
  failed=$((failed + 1)); echo "FAIL ambiguous layouts: $(tail -n 5 "$work/ambiguous")" >&2
fi
# bzip2 and LZMA archives Python's zipfile writes, read as zipfile reads them (issue 26).
if line=$(python3 "$root/ffi-tests/corpus/methods.py" "$bufkit" 2>&1 | tee "$work/methods" | tail -n 1) &&
   [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
  passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
  grep '^FAIL' "$work/methods" >&2
else
  failed=$((failed + 1)); echo "FAIL methods: $(tail -n 5 "$work/methods")" >&2
fi
# Structure-aware mutants of small archives read by bufkit and by Python's zipfile: the same
# files or a refusal, never another reading, never a crash (one test; the long run is in
# differential.py's usage).
if python3 "$root/ffi-tests/corpus/differential.py" "$bufkit" --mutants 300 >"$work/differential" 2>&1; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAIL differential: $(grep -E '^FAIL|failed' "$work/differential" | head -n 5)" >&2
fi
if [[ $((passed + failed)) -lt 20 ]]; then
  echo "FAIL only $((passed + failed)) archives found: the check means nothing" >&2; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
