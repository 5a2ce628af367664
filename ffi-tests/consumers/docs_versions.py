#!/usr/bin/env python3
"""Every version, ABI and soname the docs state is the one the header defines: the docs quote
include/bufkit.h (BK_VERSION, BK_ABI_VERSION), so one that disagrees has gone stale. Reads every
Markdown file of the tree but the vendored libdeflate's, and the Java and Erlang docs' sources.

Usage: docs_versions.py ROOT   Prints what it checked; exits 1 on a stale one.
"""
import pathlib, re, sys


def main():
    root = pathlib.Path(sys.argv[1])
    header = (root / "include/bufkit.h").read_text()
    version = re.search(r'#define BK_VERSION "([^"]+)"', header).group(1)
    abi = re.search(r"#define BK_ABI_VERSION (\d+)", header).group(1)
    docs = [p for p in root.rglob("*.md") if not any(part in ("libdeflate", "target", "build", "dist", "_build", ".git") for part in p.parts)]
    docs += [root / "bindings/erlang/src/bufkit.erl", root / "bindings/java/src/main/java/dev/bufkit/Bufkit.java"]
    checks = [
        # libbufkit.so.3, libbufkit.so.3.1.0: the soname's number is the ABI, the rest the version's.
        (re.compile(r"libbufkit\.so\.(\d+)((?:\.\d+){2})?"), lambda m: m.group(1) == abi and (not m.group(2) or m.group(2) == "." + ".".join(version.split(".")[1:]))),
        # "ABI 3", "ABI version 3", "BK_ABI_VERSION 3"
        (re.compile(r"\bABI(?: version|_VERSION)? (\d+)\b"), lambda m: m.group(1) == abi),
        # bufkit-0.1.0.jar, bufkit 0.1.0; "e.g. 0.1.0" in the version calls' docs
        (re.compile(r"\bbufkit(?:-erlang)?[- ](\d+\.\d+\.\d+)\b"), lambda m: m.group(1) == version),
        (re.compile(r"e\.g\. [`<\"]*(\d+\.\d+\.\d+)"), lambda m: m.group(1) == version),
    ]
    # The Erlang application's own version.
    app = (root / "bindings/erlang/src/bufkit.app.src").read_text()
    vsn = re.search(r'\{vsn, "([^"]+)"\}', app).group(1)
    seen, stale = 1, [] if vsn == version else [f"bindings/erlang/src/bufkit.app.src: vsn {vsn}, the header says {version}"]
    # The Java project's own version (the <version> after its <artifactId>, also the published POM's).
    pom = (root / "bindings/java/pom.xml").read_text()
    pom_version = re.search(r"\n  <artifactId>bufkit</artifactId>\n  <version>([^<]+)</version>", pom).group(1)
    seen += 1
    if pom_version != version:
        stale.append(f"bindings/java/pom.xml: version {pom_version}, the header says {version}")
    for path in docs:
        text = path.read_text(errors="replace")
        for pattern, ok in checks:
            for m in pattern.finditer(text):
                seen += 1
                if not ok(m):
                    line = text.count("\n", 0, m.start()) + 1
                    stale.append(f"{path.relative_to(root)}:{line}: '{m.group(0)}', the header says version {version}, ABI {abi}")
    for s in stale:
        print(f"stale: {s}", file=sys.stderr)
    print(f"{len(docs)} documents, {seen - len(stale)} of {seen} versions, ABIs and sonames agree with the header")
    sys.exit(1 if stale else 0)


if __name__ == "__main__":
    main()
