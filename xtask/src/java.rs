//! The Java binding's generated files: the statuses, every struct's Panama layout, Panama's
//! downcall table, the JNI front's `native` declarations (from its C glue), the records the
//! fronts fill, and the marshalling of the size-first extraction structs for both fronts.

use std::fmt::Write as _;

use crate::glue::JniMethod;
use crate::layout::{Place, places};
use crate::model::{Binding, CEnum, CStruct, CType, Description, Field};
use crate::text::{camel, constant, first_sentence, javadoc, javadoc_block, slash_banner, wrap};

/// `Status.java`.
pub fn status(d: &Description) -> String {
    let mut s = slash_banner();
    s.push_str("package dev.bufkit;\n\n/** The {@code bk_status} codes of bufkit.h; codes never change meaning. */\npublic enum Status {\n");
    for st in &d.statuses {
        s.push_str(&javadoc_block(&javadoc(&first_sentence(&st.doc)), "    "));
        writeln!(s, "    {}({}),", st.name.strip_prefix("BK_STATUS_").unwrap_or(&st.name), st.value).unwrap();
    }
    s.push_str(
        "    /** A code this version of the binding does not know. */
    UNKNOWN(-1);

    /** The C value. */
    public final int code;

    /** {@code values()} once: it copies the array on every call, and {@link #of} runs per stream. */
    private static final Status[] ALL = values();

    Status(int code) {
        this.code = code;
    }

    /** The status for a C code ({@link #UNKNOWN} for codes added after this binding). */
    public static Status of(int code) {
        for (Status s : ALL) {
            if (s.code == code) return s;
        }
        return UNKNOWN;
    }
}
",
    );
    s
}

/// The Java enum of a C enum a size-first struct's field takes (`ExtractMode.java`), its
/// constants the variants' names past their common prefix, each with its code.
pub fn enum_class(e: &CEnum, java: &str) -> String {
    let mut s = slash_banner();
    s.push_str("package dev.bufkit;\n\n");
    // The first paragraph: a table below it reads as nothing in Javadoc.
    let first = e.doc.split("\n\n").next().unwrap_or_default();
    let doc = format!("{} (C: {{@code {}}}; more in bufkit.h.)", javadoc(first), e.name);
    s.push_str(&javadoc_block(&doc, ""));
    writeln!(s, "public enum {java} {{").unwrap();
    let mut variants = e.variants.clone();
    variants.sort_by_key(|v| v.1);
    for (i, (name, code, doc)) in variants.iter().enumerate() {
        s.push_str(&javadoc_block(&javadoc(doc), "    "));
        let end = if i + 1 == variants.len() { ";" } else { "," };
        writeln!(s, "    {}({code}){end}", e.short(name)).unwrap();
    }
    writeln!(
        s,
        "
    private final int code;

    {java}(int code) {{
        this.code = code;
    }}

    /** The C value. */
    public int code() {{
        return code;
    }}
}}"
    )
    .unwrap();
    s
}

/// The Panama value layout of a C type, for struct fields and downcall descriptors.
fn value_layout(d: &Description, ty: &CType) -> Result<String, String> {
    Ok(match ty {
        CType::U8 | CType::Char => "JAVA_BYTE".into(),
        CType::U16 => "JAVA_SHORT".into(),
        CType::U32 | CType::I32 | CType::Int => "JAVA_INT".into(),
        CType::U64 | CType::I64 | CType::Usize => "JAVA_LONG".into(),
        CType::F64 => "JAVA_DOUBLE".into(),
        CType::Ptr { .. } | CType::Fn { .. } => "ADDRESS".into(),
        CType::Named(n) if d.is_enum(n) => "JAVA_INT".into(),
        CType::Named(n) if d.callbacks.iter().any(|c| &c.name == n) => "ADDRESS".into(),
        CType::Array(elem, n) => format!("MemoryLayout.sequenceLayout({n}, {})", value_layout(d, elem)?),
        other => return Err(format!("no Panama layout for {other:?}")),
    })
}

/// The `MemoryLayout.structLayout(..)` expression of `s`, padding included.
fn struct_layout(d: &Description, s: &CStruct, indent: &str) -> Result<String, String> {
    let (placed, size) = places(d, s)?;
    let mut parts = Vec::new();
    let mut at = 0;
    for (f, Place { offset, size }) in s.fields.iter().zip(placed) {
        if offset > at {
            parts.push(format!("MemoryLayout.paddingLayout({})", offset - at));
        }
        parts.push(format!("{}.withName(\"{}\")", value_layout(d, &f.ty)?, f.name));
        at = offset + size;
    }
    if size > at {
        parts.push(format!("MemoryLayout.paddingLayout({})", size - at));
    }
    let mut e = String::from("MemoryLayout.structLayout(\n");
    for (i, p) in parts.iter().enumerate() {
        let end = if i + 1 == parts.len() { format!(").withName(\"{}\")", s.name) } else { ",\n".into() };
        write!(e, "{indent}        {p}{end}").unwrap();
    }
    Ok(e)
}

/// `Layouts.java`: every struct of the header as a Panama layout.
pub fn layouts(d: &Description) -> Result<String, String> {
    let mut s = slash_banner();
    s.push_str(
        "package dev.bufkit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * Every struct of bufkit.h as a Panama layout, named as in C, field by field. The conformance
 * suite (ffi-tests/conformance) compares each with the C compiler's sizes and offsets. size_t is
 * 8 bytes: the platforms the jar carries are 64-bit.
 */
final class Layouts {
    private Layouts() {}
",
    );
    let mut names = Vec::new();
    for st in &d.structs {
        let name = constant(&st.name);
        s.push('\n');
        s.push_str(&javadoc_block(&format!("{}: {}", st.name, javadoc(&first_sentence(&st.doc))), "    "));
        writeln!(s, "    public static final StructLayout {name} = {};", struct_layout(d, st, "")?).unwrap();
        names.push(name);
    }
    s.push_str("\n    /** All of them, for the conformance check. */\n");
    s.push_str(&wrap(
        "    public static final List<StructLayout> ALL = List.of(",
        &format!("{});", names.join(", ")),
        "            ",
    ));
    s.push_str(
        "
    /** The byte offset of {@code field} in {@code layout}. */
    static long offset(StructLayout layout, String field) {
        return layout.byteOffset(PathElement.groupElement(field));
    }

    /** The long[] index of {@code field}, for structs read or passed as arrays of 8-byte words. */
    static int index(StructLayout layout, String field) {
        return (int) (offset(layout, field) / 8);
    }
}
",
    );
    Ok(s)
}

/// A function descriptor: `FunctionDescriptor.of(..)` or `.ofVoid(..)`.
fn descriptor(d: &Description, params: &[CType], ret: Option<&CType>) -> Result<String, String> {
    let args: Vec<String> = params.iter().map(|p| value_layout(d, p)).collect::<Result<_, _>>()?;
    Ok(match ret {
        None => format!("FunctionDescriptor.ofVoid({})", args.join(", ")),
        Some(r) => {
            let mut all = vec![value_layout(d, r)?];
            all.extend(args);
            format!("FunctionDescriptor.of({})", all.join(", "))
        }
    })
}

/// `BufkitLibrary.java`: one downcall handle per export, and a descriptor per callback type.
pub fn downcalls(d: &Description) -> Result<String, String> {
    let mut s = slash_banner();
    s.push_str(
        "package dev.bufkit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The downcalls of include/bufkit.h, one handle per function, named as in C without {@code bk_}.
 * A function marked short in its description ({@code #[export(short)]}: it neither blocks, or
 * only where a plain call made first says it will not, nor calls back) is linked {@code critical(true)}, so heap arrays pass without a copy; the others are
 * plain downcalls, during which the JVM may reach a safepoint.
 */
final class BufkitLibrary {
    private BufkitLibrary() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = lookup();
",
    );
    for e in &d.exports {
        let params: Vec<CType> = e.params.iter().map(|p| p.ty.clone()).collect();
        let descriptor = descriptor(d, &params, e.ret.as_ref())?;
        s.push('\n');
        s.push_str(&javadoc_block(&format!("{}: {}", e.name, javadoc(&first_sentence(&e.doc))), "    "));
        let link = if e.short { "critical" } else { "fn" };
        downcall(&mut s, &constant(&e.name), link, &e.name, &descriptor);
        if e.calls_back {
            // The same function, plain: for handles reading a caller's source, where it calls back.
            let doc = format!("{}, called plain: on a handle reading a caller's source it calls back.", e.name);
            s.push_str(&javadoc_block(&doc, "    "));
            downcall(&mut s, &format!("{}_CALLING_BACK", constant(&e.name)), "fn", &e.name, &descriptor);
        }
    }
    for c in &d.callbacks {
        let CType::Fn { params, ret } = &c.ty else { continue };
        writeln!(
            s,
            "\n    /** The signature of {{@code {}}}, for upcall stubs. */\n    static final FunctionDescriptor {} = {};",
            c.name,
            constant(&c.name),
            descriptor(d, params, ret.as_deref())?
        )
        .unwrap();
    }
    s.push_str(
        "
    /** The jar's own copy of the library, or the one -Ddev.bufkit.library names: see dev.bufkit.NativeLibrary. */
    private static SymbolLookup lookup() {
        return SymbolLookup.libraryLookup(dev.bufkit.NativeLibrary.path(), Arena.global());
    }

    private static MemorySegment symbol(String name) {
        return LIB.find(name).orElseThrow(() -> new UnsatisfiedLinkError(\"libbufkit has no symbol \" + name));
    }

    private static MethodHandle fn(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor);
    }

    /** Short calls that may take heap segments: no thread-state transition, arrays pinned not copied. */
    private static MethodHandle critical(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor, Linker.Option.critical(true));
    }

    /** An upcall stub of {@code target} with the C signature {@code descriptor}, living as long as {@code arena}. */
    static MemorySegment upcall(MethodHandle target, FunctionDescriptor descriptor, Arena arena) {
        return LINKER.upcallStub(target, descriptor, arena);
    }

    /** Reads a static NUL-terminated C string. */
    static String cString(MemorySegment zeroLength) {
        return zeroLength.reinterpret(Long.MAX_VALUE).getString(0);
    }
}
",
    );
    Ok(s)
}

/// `JniNative.java`: the `native` declaration of every function of the JNI glue.
pub fn jni_native(methods: &[JniMethod]) -> String {
    let mut s = slash_banner();
    s.push_str(
        "package dev.bufkit;

/**
 * The JNI glue's native methods, declared from its C functions (bindings/java/c_src/, a file per
 * object): each C function {@code Java_dev_bufkit_JniNative_NAME} is the one place its method
 * is written.
 */
final class JniNative {
    private JniNative() {}

    static {
        // The jar's own copy, -Ddev.bufkit.library, or on Android the app's: see dev.bufkit.NativeLibrary.
        dev.bufkit.NativeLibrary.loadForJni();
    }
",
    );
    for m in methods {
        s.push('\n');
        if !m.doc.is_empty() {
            s.push_str(&javadoc_block(&javadoc(&m.doc), "    "));
        }
        let params: Vec<String> = m.params.iter().map(|(t, n)| format!("{t} {}", camel(n))).collect();
        let line = format!("    static native {} {}({});", m.ret, m.name, params.join(", "));
        if line.len() <= 120 {
            s.push_str(&line);
            s.push('\n');
        } else {
            s.push_str(&wrap(
                &format!("    static native {} {}(", m.ret, m.name),
                &format!("{});", params.join(", ")),
                "            ",
            ));
        }
    }
    s.push_str("}\n");
    s
}

/// The Java records of the structs the fronts fill from a packed `long[]` (`#[binding(record)]`):
/// `(path, contents)` each.
pub fn records(d: &Description) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for st in d.structs.iter() {
        let Some(record) = &st.record else { continue };
        let mut s = slash_banner();
        s.push_str("package dev.bufkit;\n\n/**\n");
        s.push_str(&wrap(
            " *",
            &format!("{} ({{@code {}}}).", javadoc(&first_sentence(&st.doc)).trim_end_matches('.'), st.name),
            " *",
        ));
        s.push_str(" *\n");
        for f in &st.fields {
            s.push_str(&wrap(&format!(" * @param {}", camel(&f.name)), &javadoc(&f.doc), " *     "));
        }
        let components: Vec<String> = st.fields.iter().map(|f| format!("long {}", camel(&f.name))).collect();
        s.push_str(&wrap(
            &format!(" */\npublic record {record}("),
            &format!("{}) {{", components.join(", ")),
            "        ",
        ));
        let reads: Vec<String> = (0..st.fields.len()).map(|i| format!("packed[{i}]")).collect();
        writeln!(
            s,
            "    /** The number of fields, the length of the packed {{@code long[]}} the fronts fill. */\n    static final int FIELDS = {};\n",
            st.fields.len()
        )
        .unwrap();
        writeln!(s, "    /** The record of {{@code packed}}, the struct's fields in order. */\n    static {record} of(long[] packed) {{").unwrap();
        s.push_str(&wrap(
            &format!("        return new {record}("),
            &format!("{});", reads.join(", ")),
            "                ",
        ));
        s.push_str("    }\n}\n");
        out.push((format!("bindings/java/src/main/java/dev/bufkit/{record}.java"), s));
    }
    out
}

/// The JNI glue's packing of those structs into `long[]`s: `records.gen.h`.
pub fn jni_records(d: &Description) -> String {
    let mut s = crate::text::c_banner();
    s.push_str(
        "/* Included once, by glue.h: each record struct's fields, in order, as the Java record reads them. */\n",
    );
    for st in d.structs.iter().filter(|s| s.record.is_some()) {
        let n = st.fields.len();
        writeln!(s, "\n#define BK_JNI_{}_FIELDS {n}", constant(&st.name)).unwrap();
        writeln!(
            s,
            "static inline void bk_jni_pack_{}(jlong out[{n}], const {} *s) {{",
            st.name.trim_start_matches("bk_"),
            st.name
        )
        .unwrap();
        for (i, f) in st.fields.iter().enumerate() {
            writeln!(s, "  out[{i}] = (jlong)s->{};", f.name).unwrap();
        }
        s.push_str("}\n");
    }
    s
}

/// The fields a Java record of a boundary struct has: all but the size and the hand fields no
/// binding sees.
fn java_components(fields: &[Field]) -> Vec<&Field> {
    fields
        .iter()
        .filter(|f| match &f.binding {
            Some(Binding::Size) => false,
            Some(Binding::Hand { java, .. }) => !java.is_empty(),
            _ => true,
        })
        .collect()
}

/// The fields every binding carries as values (not the size, not the hand-carried pointers).
pub fn plain(fields: &[Field]) -> Vec<&Field> {
    fields.iter().filter(|f| !matches!(f.binding, Some(Binding::Size | Binding::Hand { .. }))).collect()
}

fn java_type(f: &Field) -> String {
    match &f.binding {
        Some(Binding::Flag) => "boolean".into(),
        Some(Binding::Plain) if f.ty == CType::U32 => "int".into(),
        Some(Binding::Plain) => "long".into(),
        Some(Binding::Float) => "double".into(),
        Some(Binding::Enum { java, .. }) | Some(Binding::Hand { java, .. }) => java.clone(),
        _ => unreachable!("the size is no component"),
    }
}

fn java_default(f: &Field) -> String {
    match &f.binding {
        Some(Binding::Flag) => "false".into(),
        Some(Binding::Plain | Binding::Float) => "0".into(),
        Some(Binding::Enum { java, atoms, .. }) => format!("{java}.{}", atoms[0].to_uppercase()),
        Some(Binding::Hand { java_default, .. }) => java_default.clone(),
        _ => unreachable!("the size is no component"),
    }
}

/// A field's doc for Javadoc; a flag's says what true means.
fn field_doc(f: &Field) -> String {
    let out = javadoc(&f.doc);
    if f.binding == Some(Binding::Flag) { format!("true: {}{}", out[..1].to_lowercase(), &out[1..]) } else { out }
}

/// `ExtractOptions.java`: the record of `bk_extract_options`.
pub fn options_record(st: &CStruct) -> String {
    let components = java_components(&st.fields);
    let mut s = slash_banner();
    s.push_str("package dev.bufkit;\n\n/**\n");
    s.push_str(" * How {@link Bufkit#extract} works: the fields of {@code bk_extract_options} in include/bufkit.h,\n");
    s.push_str(" * generated from it. Start from {@link #defaults()} and change what you need with the\n");
    s.push_str(" * {@code with} methods.\n *\n");
    for f in &components {
        s.push_str(&wrap(&format!(" * @param {}", camel(&f.name)), &field_doc(f), " *     "));
    }
    s.push_str(" */\npublic record ExtractOptions(");
    let params: Vec<String> = components.iter().map(|f| format!("{} {}", java_type(f), camel(&f.name))).collect();
    s.push_str(&params.join(", "));
    s.push_str(") {\n    /** Checks ranges and copies the lists. */\n    public ExtractOptions {\n");
    for f in &components {
        let n = camel(&f.name);
        match &f.binding {
            Some(Binding::Plain) => writeln!(
                s,
                "        if ({n} < 0) throw new IllegalArgumentException(\"{n} must be at least 0: \" + {n});"
            )
            .unwrap(),
            Some(Binding::Float) => writeln!(
                s,
                "        if (!({n} >= 0) || Double.isInfinite({n})) throw new IllegalArgumentException(\"{n} must be finite and at least 0: \" + {n});"
            )
            .unwrap(),
            Some(Binding::Enum { .. }) => writeln!(s, "        java.util.Objects.requireNonNull({n}, \"{n}\");").unwrap(),
            Some(Binding::Hand { java, .. }) if java.starts_with("java.util.List") => {
                writeln!(s, "        {n} = java.util.List.copyOf(java.util.Objects.requireNonNull({n}, \"{n}\"));").unwrap();
            }
            _ => {}
        }
    }
    s.push_str(
        "    }\n\n    /** The defaults: every field's zero in C. */\n    public static ExtractOptions defaults() {\n",
    );
    let defaults: Vec<String> = components.iter().map(|f| java_default(f)).collect();
    writeln!(s, "        return new ExtractOptions({});\n    }}", defaults.join(", ")).unwrap();
    for f in &components {
        let n = camel(&f.name);
        let cap = format!("{}{}", n[..1].to_uppercase(), &n[1..]);
        let args: Vec<String> = components.iter().map(|c| camel(&c.name)).collect();
        s.push('\n');
        s.push_str(&wrap(&format!("    /** With {{@link #{n}()}}:"), &format!("{} */", field_doc(f)), "     *  "));
        writeln!(s, "    public ExtractOptions with{cap}({} {n}) {{", java_type(f)).unwrap();
        writeln!(s, "        return new ExtractOptions({});\n    }}", args.join(", ")).unwrap();
    }
    s.push_str("}\n");
    s
}

/// `ExtractReport.java`: the record of `bk_extract_report`.
pub fn report_record(st: &CStruct) -> String {
    let components = java_components(&st.fields);
    let mut s = slash_banner();
    s.push_str("package dev.bufkit;\n\n/**\n * What an extraction did: the fields of {@code bk_extract_report} in include/bufkit.h,\n");
    s.push_str(" * generated from it.\n *\n");
    for f in &components {
        s.push_str(&wrap(&format!(" * @param {}", camel(&f.name)), &field_doc(f), " *     "));
    }
    let params: Vec<String> = components.iter().map(|f| format!("long {}", camel(&f.name))).collect();
    writeln!(s, " */\npublic record ExtractReport({}) {{}}", params.join(", ")).unwrap();
    s
}

/// `ExtractStructs.java`: the Panama front's marshalling of the options and the report.
pub fn extract_structs(d: &Description, options: &CStruct, report: &CStruct) -> Result<String, String> {
    let (option_places, _) = places(d, options)?;
    let (report_places, _) = places(d, report)?;
    let mut s = slash_banner();
    s.push_str("package dev.bufkit;\n\nimport static java.lang.foreign.ValueLayout.ADDRESS;\nimport static java.lang.foreign.ValueLayout.JAVA_DOUBLE;\n");
    s.push_str("import static java.lang.foreign.ValueLayout.JAVA_INT;\nimport static java.lang.foreign.ValueLayout.JAVA_LONG;\n\n");
    s.push_str("import java.lang.foreign.Arena;\n");
    s.push_str("import java.lang.foreign.MemorySegment;\nimport java.lang.foreign.StructLayout;\n\n");
    s.push_str("/** The size-first structs of extraction: the records written into and read from them. */\nfinal class ExtractStructs {\n");
    s.push_str("    private ExtractStructs() {}\n\n");
    s.push_str("    static final StructLayout OPTIONS = Layouts.EXTRACT_OPTIONS;\n    static final StructLayout REPORT = Layouts.EXTRACT_REPORT;\n");
    for (f, p) in options.fields.iter().zip(&option_places) {
        if matches!(f.binding, Some(Binding::Hand { .. })) {
            write!(
                s,
                "\n    /** The offset of {{@code bk_extract_options.{}}}, filled by the front. */\n    static final long OPTIONS_{} = {};\n",
                f.name,
                f.name.to_uppercase(),
                p.offset
            )
            .unwrap();
        }
    }
    s.push_str(
        "\n    /** New options in {@code arena}: the size and every plain field of {@code o}; the pointers (the\n",
    );
    s.push_str("     *  patterns, the callback, the cancellation flag) NULL, for the front to fill. */\n");
    s.push_str("    static MemorySegment options(Arena arena, ExtractOptions o) {\n        MemorySegment s = arena.allocate(OPTIONS);\n");
    for (f, p) in options.fields.iter().zip(&option_places) {
        let n = camel(&f.name);
        let wide = p.size == 8;
        let value = match &f.binding {
            Some(Binding::Size) => "OPTIONS.byteSize()".to_string(),
            Some(Binding::Flag) if wide => format!("o.{n}() ? 1L : 0L"),
            Some(Binding::Flag) => format!("o.{n}() ? 1 : 0"),
            Some(Binding::Enum { .. }) if wide => format!("(long) o.{n}().code()"),
            Some(Binding::Enum { .. }) => format!("o.{n}().code()"),
            Some(Binding::Hand { .. }) => continue,
            _ => format!("o.{n}()"),
        };
        writeln!(s, "        s.set({}, {}, {value}); // {}", value_layout(d, &f.ty)?, p.offset, f.name).unwrap();
    }
    s.push_str("        return s;\n    }\n\n");
    s.push_str(
        "    /** A new report in {@code arena}, its size set. */\n    static MemorySegment newReport(Arena arena) {\n",
    );
    s.push_str("        MemorySegment s = arena.allocate(REPORT);\n        s.set(JAVA_LONG, 0, REPORT.byteSize());\n        return s;\n    }\n\n");
    s.push_str("    /** The report the library filled in {@code s}. */\n    static ExtractReport report(MemorySegment s) {\n        return new ExtractReport(");
    let reads: Vec<String> = report
        .fields
        .iter()
        .zip(&report_places)
        .filter(|(f, _)| !matches!(f.binding, Some(Binding::Size | Binding::Hand { .. })))
        .map(|(_, p)| format!("s.get(JAVA_LONG, {})", p.offset))
        .collect();
    writeln!(s, "{});\n    }}\n}}", reads.join(", ")).unwrap();
    Ok(s)
}

/// The JNI glue's marshalling of the options and the report: `extract_structs.gen.h`.
pub fn jni_extract_structs(options: &CStruct, report: &CStruct) -> String {
    let mut s = crate::text::c_banner();
    s.push_str("/* Included once, by extract.c, after jni.h and bufkit.h (glue.h). */\n\n");
    s.push_str("/* The plain fields of the dev.bufkit.ExtractOptions record `record` in *o (zeroed first, its size\n");
    s.push_str(" * set); the pointers (patterns, callback, cancellation flag) are the caller's to fill. 0, or -1\n");
    s.push_str(" * with a Java exception pending. */\n");
    s.push_str("static int bk_jni_extract_options(JNIEnv *env, jobject record, bk_extract_options *o) {\n");
    s.push_str("  jclass type = (*env)->GetObjectClass(env, record);\n  jmethodID get;\n");
    s.push_str("  memset(o, 0, sizeof *o);\n  o->size = sizeof *o;\n");
    for f in plain(&options.fields) {
        let (n, c) = (camel(&f.name), &f.name);
        if let Some(Binding::Enum { java, .. }) = &f.binding {
            writeln!(s, "  {{ /* {c}: the enum's code() */").unwrap();
            writeln!(s, "    jobject value;\n    jmethodID code;").unwrap();
            writeln!(
                s,
                "    if (!(get = (*env)->GetMethodID(env, type, \"{n}\", \"()Ldev/bufkit/{java};\"))) return -1;"
            )
            .unwrap();
            writeln!(s, "    value = (*env)->CallObjectMethod(env, record, get);").unwrap();
            writeln!(s, "    if ((*env)->ExceptionCheck(env) || !value) return -1;").unwrap();
            writeln!(s, "    if (!(code = (*env)->GetMethodID(env, (*env)->GetObjectClass(env, value), \"code\", \"()I\"))) return -1;").unwrap();
            writeln!(s, "    o->{c} = (uint32_t)(*env)->CallIntMethod(env, value, code);\n    (*env)->DeleteLocalRef(env, value);").unwrap();
            writeln!(s, "    if ((*env)->ExceptionCheck(env)) return -1;\n  }}").unwrap();
            continue;
        }
        let (sig, call, conv) = match (&f.binding, &f.ty) {
            (Some(Binding::Flag), _) => ("()Z", "CallBooleanMethod", " ? 1 : 0"),
            (Some(Binding::Plain), CType::U32) => ("()I", "CallIntMethod", ""),
            (Some(Binding::Plain), _) => ("()J", "CallLongMethod", ""),
            (Some(Binding::Float), _) => ("()D", "CallDoubleMethod", ""),
            _ => unreachable!("plain fields only"),
        };
        writeln!(s, "  if (!(get = (*env)->GetMethodID(env, type, \"{n}\", \"{sig}\"))) return -1;").unwrap();
        writeln!(s, "  o->{c} = (*env)->{call}(env, record, get){conv};").unwrap();
        writeln!(s, "  if ((*env)->ExceptionCheck(env)) return -1;").unwrap();
    }
    s.push_str("  return 0;\n}\n\n");
    let fields = plain(&report.fields);
    s.push_str("/* A new dev.bufkit.ExtractReport of *r, or NULL with a Java exception pending. */\n");
    s.push_str("static jobject bk_jni_extract_report(JNIEnv *env, const bk_extract_report *r) {\n");
    s.push_str("  jclass type = (*env)->FindClass(env, \"dev/bufkit/ExtractReport\");\n  jmethodID init;\n");
    s.push_str("  if (!type) return NULL;\n");
    writeln!(
        s,
        "  if (!(init = (*env)->GetMethodID(env, type, \"<init>\", \"({})V\"))) return NULL;",
        "J".repeat(fields.len())
    )
    .unwrap();
    let args: Vec<String> = fields.iter().map(|f| format!("(jlong)r->{}", f.name)).collect();
    s.push_str(&wrap(
        "  return (*env)->NewObject(env, type, init,",
        &format!("{});", args.join(", ")),
        "                           ",
    ));
    s.push_str("}\n");
    s
}

/// One `static final MethodHandle NAME = link("symbol", descriptor);` line, wrapped past 120.
fn downcall(s: &mut String, constant: &str, link: &str, symbol: &str, descriptor: &str) {
    let line = format!("    static final MethodHandle {constant} = {link}(\"{symbol}\", {descriptor});");
    if line.len() <= 120 {
        s.push_str(&line);
        s.push('\n');
    } else {
        writeln!(s, "    static final MethodHandle {constant} = {link}(\"{symbol}\",\n            {descriptor});")
            .unwrap();
    }
}
