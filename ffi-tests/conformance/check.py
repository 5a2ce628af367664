#!/usr/bin/env python3
"""The conformance check: every cross-language fact of bufkit.h, as each binding states it, against
the header and the C compiler. Fails when the Panama layouts, Status.java, the Erlang NIF's atoms,
the records filled from packed long[] arrays, the generated extraction marshalling, or the Rust
message table disagree with the header.

Usage: check.py HEADER LIBBUFKIT_A JDK22_HOME JAR NIF_SOURCE WORKDIR
Prints one line per check and "N passed, N failed" last."""
import pathlib
import re
import subprocess
import sys

header_path, static_lib, jdk, jar, nif_source, work = sys.argv[1:7]
header = pathlib.Path(header_path).read_text()
root = pathlib.Path(header_path).resolve().parent.parent  # include/bufkit.h is at the repo's root
work = pathlib.Path(work)
here = pathlib.Path(__file__).resolve().parent
results = []


def check(name, problems):
    results.append((name, problems))
    print(("ok   " if not problems else "FAIL ") + name + "".join("\n       " + p for p in problems))


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


code = strip_comments(header)
statuses = {m[0]: int(m[1]) for m in re.findall(r"\b(BK_STATUS_\w+) = (\d+)", code)}
structs = {}
for name, body in re.findall(r"typedef struct (bk_\w+) \{(.*?)\} \1;", code, flags=re.S):
    fields = []
    for decl in filter(None, (d.strip() for d in body.split(";"))):
        m = re.match(r"(.*?)(\w+)(\[\d+\])?$", decl)
        fields.append(m[2])
    structs[name] = fields

# --- the C side: sizes and offsets as the compiler lays them out, and Rust's messages --------------
facts_c = work / "facts.c"
lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "bufkit.h"', "int main(void) {"]
for name, fields in structs.items():
    lines.append(f'  printf("struct {name} %zu\\n", sizeof({name}));')
    for f in fields:
        lines.append(f'  printf("field {name} {f} %zu %zu\\n", offsetof({name}, {f}), sizeof((({name} *)0)->{f}));')
for name, value in statuses.items():
    lines.append(f'  printf("message {name} %s\\n", bk_status_message({value}));')
lines += ["  return 0;", "}"]
facts_c.write_text("\n".join(lines) + "\n")
include = str(pathlib.Path(header_path).resolve().parent)
build = subprocess.run(["gcc", "-std=c11", "-Wall", "-Werror", "-I", include, str(facts_c), static_lib, "-lgcc_s", "-lutil", "-lrt",
                        "-lpthread", "-lm", "-ldl", "-lc", "-o", str(work / "facts")], capture_output=True, text=True)
check("the header's structs compile with offsetof", [build.stderr.strip()] if build.returncode else [])
c_facts = subprocess.run([str(work / "facts")], capture_output=True, text=True, check=True).stdout.splitlines() if not build.returncode else []

# --- the Java side ----------------------------------------------------------------------------------
classes = work / "java"
javac = subprocess.run([f"{jdk}/bin/javac", "-Xlint:all", "-Werror", "-cp", jar, "-d", str(classes),
                        str(here / "dev/bufkit/Facts.java")], capture_output=True, text=True)
check("the Java facts program compiles against the jar", [javac.stderr.strip()] if javac.returncode else [])
# The Java enums that stand for C enums: the generated ones, which name theirs ("(C: {@code bk_..").
java_enums = sorted(p.stem for p in pathlib.Path(root, "bindings/java/src/main/java/dev/bufkit").glob("*.java")
                    if "public enum" in p.read_text() and re.search(r"\(C:[\s*]*\{@code[\s*]*bk_", p.read_text()))
java_facts = subprocess.run([f"{jdk}/bin/java", "-cp", f"{jar}:{classes}", "dev.bufkit.Facts", *java_enums], capture_output=True,
                            text=True).stdout.splitlines() if not javac.returncode else []


def table(lines, kind):
    return [line.split(" ", 1)[1] for line in lines if line.startswith(kind + " ")]


c_struct = dict(l.split() for l in table(c_facts, "struct"))
c_field = {(s, f): (o, n) for s, f, o, n in (l.split() for l in table(c_facts, "field"))}
j_struct = dict(l.split() for l in table(java_facts, "struct"))
j_field = {(s, f): (o, n) for s, f, o, n in (l.split() for l in table(java_facts, "field"))}

for name in structs:
    problems = []
    if name not in j_struct:
        problems.append(f"no Panama layout named {name} in dev.bufkit.Layouts")
    else:
        if j_struct[name] != c_struct.get(name):
            problems.append(f"size: Panama {j_struct[name]}, C {c_struct.get(name)}")
        for f in structs[name]:
            if (name, f) not in j_field:
                problems.append(f"field {f}: missing from the Panama layout")
            elif j_field[(name, f)] != c_field.get((name, f)):
                problems.append(f"field {f}: Panama offset/size {j_field[(name, f)]}, C {c_field.get((name, f))}")
        extra = sorted(f for (s, f) in j_field if s == name and f not in structs[name])
        problems += [f"field {f}: in the Panama layout, not in the header" for f in extra]
    check(f"Panama layout {name} matches the C compiler's", problems)
check("every Panama layout is a struct of the header", [f"{s} is not in bufkit.h" for s in j_struct if s not in structs])

header_abi = re.search(r"#define BK_ABI_VERSION (\d+)", header).group(1)
check("the Java binding speaks the header's ABI version",
      [] if table(java_facts, "abi") == [header_abi] else [f"Bufkit.BINDING_ABI_VERSION {table(java_facts, 'abi')}, header {header_abi}"])

java_status = dict((n, int(v)) for n, v in (l.split() for l in table(java_facts, "status")))
check("Status.java has every header status, with its code",
      [f"{n}: header {v}, Status.java {java_status.get(n)}" for n, v in statuses.items() if java_status.get(n) != v]
      + [f"{n}: in Status.java, not in the header" for n in java_status if n not in statuses])

# The NIF's sources: the status atoms (status_atoms.gen.h) and one file per object.
nif = "".join(p.read_text() for p in sorted(pathlib.Path(nif_source).glob("*.[ch]")))
atoms = dict(re.findall(r'\{(BK_STATUS_\w+), "(\w+)", 0\},', nif))
check("the Erlang NIF names every error status, as the header spells it",
      [f"{n}: no atom in status_atoms[]" for n in statuses if n != "BK_STATUS_OK" and n not in atoms]
      + [f"{n}: atom {a}, expected {n[len('BK_STATUS_'):].lower()}" for n, a in atoms.items() if a != n[len("BK_STATUS_"):].lower()]
      + [f"{n}: in the NIF, not in the header" for n in atoms if n not in statuses])

messages = dict(l.split(" ", 1) for l in table(c_facts, "message"))
check("Rust's message table has a message for every header status",
      [f"{n}: {messages.get(n)!r}" for n in statuses if messages.get(n, "unknown bk_status code") == "unknown bk_status code"])

def reported(struct):
    """A struct's fields as the bindings hand them out: all but a leading `size` (the caller's
    struct size, the convention that lets a struct grow)."""
    fields = structs.get(struct) or []
    return fields[1:] if fields[:1] == ["size"] else fields


for line in table(java_facts, "record"):
    struct, record, components = line.split()
    order = components.split(",")
    check(f"{record}'s components follow {struct}'s fields (packed long[] order)",
          [] if order == reported(struct) else [f"{record}: {order}", f"{struct}: {reported(struct)}"])

# The C enums the calls take (bk_growth, bk_format, the archive's and the extraction's options):
# each binding's constants are a header enum's, with its values. A Java enum's constants are the C
# names past their common prefix; an Erlang atom is that name in lower case.
header_enums = {}
for name, body in re.findall(r"enum (bk_\w+)\b[^{;]*\{(.*?)\}", code, flags=re.S):
    if name != "bk_status":
        header_enums[name] = [(n, int(v)) for n, v in re.findall(r"\b(BK_\w+) = (\d+)", body)]


def short(variants):
    """The variants' names past the prefix they share, up to its last `_`, with their values."""
    names = [n for n, _ in variants]
    common = len(names[0])
    for n in names:
        common = min(common, next((i for i, (a, b) in enumerate(zip(names[0], n)) if a != b), min(len(n), len(names[0]))))
    cut = names[0][:common].rfind("_") + 1
    return sorted((n[cut:], v) for n, v in variants)


header_short = {name: short(v) for name, v in header_enums.items()}
java_enum_constants = {}
for line in table(java_facts, "enum"):
    cls, constant, value = line.split(" ", 2)
    java_enum_constants.setdefault(cls, []).append((constant, int(value) if value.isdigit() else value))
problems = [f"{cls}: matches no header enum ({sorted(c)})" for cls, c in java_enum_constants.items()
            if sorted(c) not in header_short.values()]
problems += [f"{cls}: not read from the jar" for cls in java_enums if cls not in java_enum_constants]
check(f"every Java enum of a C enum ({len(java_enums)}) has that enum's constants and values", problems)
atoms_gen = pathlib.Path(nif_source, "enum_atoms.gen.h").read_text()
nif_enums = {}
for name, body in re.findall(r"static inline int (bk_\w+)_from_atom\(.*?\{(.*?)\n\}", atoms_gen, flags=re.S):
    nif_enums[name] = sorted((a, int(v)) for a, v in re.findall(r'enif_make_atom\(env, "(\w+)"\)\)\) return \*code = (\d+)', body))
problems = [f"{n}: no such header enum" for n in nif_enums if n not in header_short]
problems += [f"{n}: atoms {atoms}, header {header_short[n]}" for n, atoms in nif_enums.items()
             if n in header_short and atoms != sorted((s.lower(), v) for s, v in header_short[n])]
problems += [f"{n}: no atoms, though Java carries it" for n, v in header_short.items()
             if v in [sorted(c) for c in java_enum_constants.values()] and n not in nif_enums]
check(f"every C enum the NIF takes as atoms ({len(nif_enums)}) has the header's names and values", problems)

# The extraction report and options in the other bindings. Their marshalling is generated from
# the Rust structs (`cargo xtask bindings`; `--check` fails when stale); here the
# generated files are read back against the header as the C compiler sees it.
nif_gen = pathlib.Path(nif_source, "extract_structs.gen.h").read_text()
nif_keys = re.findall(r'keys\[\d+\] = enif_make_atom\(env, "(\w+)"\), values\[\d+\] = enif_make_uint64\(env, r->(\w+)\)', nif_gen)
check("the Erlang extract/3 report map has every bk_extract_report field, under its name",
      [] if [k for k, _ in nif_keys] == reported("bk_extract_report") and all(k == f for k, f in nif_keys)
      else [f"NIF: {nif_keys}", f"header: {reported('bk_extract_report')}"])
jni_gen = pathlib.Path(root, "bindings/java/c_src/extract_structs.gen.h").read_text()
jni_report = re.findall(r"\(jlong\)r->(\w+)", jni_gen)
check("the JNI glue builds ExtractReport from every bk_extract_report field, in order",
      [] if jni_report == reported("bk_extract_report") else [f"JNI: {jni_report}", f"header: {reported('bk_extract_report')}"])

# Every field of bk_extract_options reaches every binding: a component of Java's ExtractOptions,
# set by the JNI glue (generated) or the JNI front, by the Panama front, and a key of Erlang's
# extract/3 read by the NIF. The exceptions are the fields' own `#[binding(hand(why = ...))]` in Rust.
hand_only = {"size": "the struct's size, set by each front", "only_len": "the length of `only`",
             "progress_user_data": "the context of the callback each front makes"}
erlang_without = {"cancel": "an Erlang caller cancels by dying: the NIF watches it (killing_the_caller_cancels_the_extraction)"}
camel = lambda n: re.sub(r"_(\w)", lambda m: m.group(1).upper(), n)
java_components = dict(l.split(" ", 1) for l in table(java_facts, "options")).get("ExtractOptions", "").split(",")
panama = pathlib.Path(root, "bindings/java/src/main/java22/dev/bufkit/PanamaBufkit.java").read_text()
panama_gen = pathlib.Path(root, "bindings/java/src/main/java22/dev/bufkit/ExtractStructs.java").read_text()
jni_c = "\n".join(p.read_text() for p in sorted(pathlib.Path(root, "bindings/java/c_src").glob("*.c")))
nif_extract = pathlib.Path(nif_source, "extract.c").read_text()
hrl = pathlib.Path(root, "bindings/erlang/src/bufkit_extract.hrl").read_text()
known = re.search(r"-define\(EXTRACT_OPTION_KEYS,\s*\[([^\]]*)\]", hrl)
erlang_keys = {k.strip() for k in known.group(1).split(",")} if known else set()
missing = []
options = [f for f in structs.get("bk_extract_options", []) if f not in hand_only]
for o in options:
    if camel(o) not in java_components:
        missing.append(f"{o}: no ExtractOptions component {camel(o)}")
    if f"o->{o} = " not in jni_gen and f"opts.{o} = " not in jni_c:
        missing.append(f"{o}: not set by the JNI glue")
    if f"// {o}\n" not in panama_gen and f"OPTIONS_{o.upper()}" not in panama:
        missing.append(f"{o}: not set by the Panama front")
    if o in erlang_without:
        continue
    if o not in erlang_keys:
        missing.append(f"{o}: not a key extract/3 knows")
    if f"o->{o} = " not in nif_gen and f"opts.{o} = " not in nif_extract:
        missing.append(f"{o}: not set by the NIF")
check(f"every extraction option ({len(options)}) reaches Java (record, JNI, Panama) and Erlang", missing)

failed = sum(1 for _, p in results if p)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed or not results else 0)
