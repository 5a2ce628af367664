//! `cargo xtask bindings`: every copy of a fact another language needs, generated from the one
//! description of the C ABI, the Rust code of `crates/bufkit-ffi` (see [`model`]), and from the
//! bindings' own thin C glue for what registers it (see [`glue`]):
//!
//! | what | written to |
//! |---|---|
//! | the header, with each handle's methods list | `include/bufkit.h` (the pinned cbindgen) |
//! | the statuses | `Status.java`, the NIF's `status_atoms.gen.h` |
//! | every struct's layout | Panama's `Layouts.java` |
//! | the downcall table | Panama's `BufkitLibrary.java` |
//! | the JNI registration | `JniNative.java`, from the JNI glue's C functions |
//! | the JNI archive's plain calls | `JniArchiveCalls.java`, from `AssetArchive`'s hooks and the JNI glue (see [`jni_calls`]) |
//! | the NIF table and atoms | `nif_table.gen.h` and `bufkit_nif.erl`, from the NIF glue's `/* nif .. */` lines |
//! | the records filled from packed arrays | `BufferStats.java`, `PoolStats.java`, the JNI and NIF `records.gen.h` |
//! | the extraction options and report | `ExtractOptions.java`, `ExtractReport.java`, `ExtractStructs.java`, both `extract_structs.gen.h`, `bufkit_extract.hrl` |
//! | the C enums the calls take | `ExtractMode.java`, `ParallelInflate.java`, `Growth.java`, `Format.java`, `ArchiveHolding.java`, `LocalHeaders.java`, the NIF's `enum_atoms.gen.h` |
//!
//! The conformance suite (ffi-tests/conformance) checks what these files say against the C
//! compiler; `cargo xtask bindings --check` (run by the test command) fails when one is stale.

// An internal tool, not a library anyone depends on: its items are documented where they are not
// obvious from their names.
#![allow(missing_docs)]

pub mod erlang;
pub mod glue;
pub mod header;
pub mod java;
pub mod jni_calls;
pub mod layout;
pub mod model;
pub mod text;

use std::path::{Path, PathBuf};

use model::{Binding, CStruct, Description};

/// The C enums other calls take as arguments (beside the extraction options' enums, which their
/// fields name), with their Java names: each becomes a Java enum and the NIF's atoms.
const ARGUMENT_ENUMS: [(&str, &str); 4] = [
    ("bk_growth", "Growth"),
    ("bk_format", "Format"),
    ("bk_archive_holding", "ArchiveHolding"),
    ("bk_archive_local_headers", "LocalHeaders"),
];

/// The text of `path` under the repository root.
fn read(root: &Path, path: &str) -> Result<String, String> {
    std::fs::read_to_string(root.join(path)).map_err(|e| format!("reading {path}: {e}"))
}

/// Every generated file: `(path under the repository root, contents)`.
pub fn generate(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let d = Description::read(&root.join("crates/bufkit-ffi/src"))?;
    check(&d)?;
    let jni = glue::jni_methods(&root.join("bindings/java/c_src"))?;
    let nifs = glue::nifs(&root.join("bindings/erlang/c_src"))?;
    let options = d.struct_named("bk_extract_options").ok_or("no bk_extract_options")?;
    let report = d.struct_named("bk_extract_report").ok_or("no bk_extract_report")?;
    let common = "bindings/java/src/main/java/dev/bufkit";
    let panama = "bindings/java/src/main/java22/dev/bufkit";
    let mut out: Vec<(String, String)> = vec![
        ("include/bufkit.h".into(), header::header(root, &d)?),
        (format!("{common}/Status.java"), java::status(&d)),
        (format!("{common}/ExtractOptions.java"), java::options_record(options)),
        (format!("{common}/ExtractReport.java"), java::report_record(report)),
        (format!("{panama}/Layouts.java"), java::layouts(&d)?),
        (format!("{panama}/BufkitLibrary.java"), java::downcalls(&d)?),
        (format!("{panama}/ExtractStructs.java"), java::extract_structs(&d, options, report)?),
        ("bindings/java/src/main/java/dev/bufkit/JniNative.java".into(), java::jni_native(&jni)),
        (
            format!("{common}/JniArchiveCalls.java"),
            jni_calls::jni_archive_calls(
                &read(root, &format!("{common}/AssetArchive.java"))?,
                &read(root, &format!("{common}/JniArchive.java"))?,
                &jni,
            )?,
        ),
        ("bindings/java/c_src/extract_structs.gen.h".into(), java::jni_extract_structs(options, report)),
        ("bindings/java/c_src/records.gen.h".into(), java::jni_records(&d)),
        ("bindings/erlang/c_src/extract_structs.gen.h".into(), erlang::nif_extract_structs(options, report)),
        ("bindings/erlang/c_src/status_atoms.gen.h".into(), erlang::status_atoms(&d)),
        ("bindings/erlang/c_src/nif_table.gen.h".into(), erlang::nif_table(&nifs)),
        ("bindings/erlang/c_src/records.gen.h".into(), erlang::nif_records(&d)),
        ("bindings/erlang/src/bufkit_extract.hrl".into(), erlang::extract_header(options, report)),
        ("bindings/erlang/src/bufkit_nif.erl".into(), erlang::nif_module(&nifs)),
    ];
    out.extend(java::records(&d));
    let mut enums = Vec::new();
    for (c, java) in options.fields.iter().filter_map(|f| match &f.binding {
        Some(Binding::Enum { c, java, .. }) => Some((c, java)),
        _ => None,
    }) {
        let e = d.enums.iter().find(|e| e.name == *c).ok_or_else(|| format!("no enum {c}"))?;
        out.push((format!("{common}/{java}.java"), java::enum_class(e, java)));
        enums.push(e);
    }
    for (c, java) in ARGUMENT_ENUMS {
        let e = d.enums.iter().find(|e| e.name == c).ok_or_else(|| format!("no enum {c}"))?;
        e.atoms().map_err(|why| format!("{c}: {why}"))?;
        out.push((format!("{common}/{java}.java"), java::enum_class(e, java)));
        enums.push(e);
    }
    out.push(("bindings/erlang/c_src/enum_atoms.gen.h".into(), erlang::enum_atoms(&enums)));
    Ok(out.into_iter().map(|(p, c)| (PathBuf::from(p), c)).collect())
}

/// The files of [`generate`] whose committed contents differ.
pub fn stale(root: &Path) -> Result<Vec<PathBuf>, String> {
    Ok(generate(root)?
        .into_iter()
        .filter(|(path, contents)| std::fs::read_to_string(root.join(path)).ok().as_deref() != Some(contents.as_str()))
        .map(|(path, _)| path)
        .collect())
}

/// Writes every generated file; returns those that changed.
pub fn write(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut changed = Vec::new();
    for (path, contents) in generate(root)? {
        let full = root.join(&path);
        if std::fs::read_to_string(&full).ok().as_deref() != Some(contents.as_str()) {
            std::fs::write(&full, contents).map_err(|e| format!("writing {}: {e}", full.display()))?;
            changed.push(path);
        }
    }
    Ok(changed)
}

/// What the description must say for the bindings to be generated from it.
fn check(d: &Description) -> Result<(), String> {
    let mut problems = Vec::new();
    for s in &d.statuses {
        if s.doc.is_empty() {
            problems.push(format!("{}: no doc (the bindings' docs come from it)", s.name));
        }
    }
    for e in &d.exports {
        if e.doc.is_empty() {
            problems.push(format!("{}: no doc", e.name));
        }
    }
    for s in d.structs.iter().filter(|s| s.boundary) {
        problems.extend(size_first(d, s));
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

/// A size-first struct: its size first, every field documented and carried by every binding or
/// saying why not; past its minimum size (the last ABI's) only 8-byte fields, unpadded, so a
/// newer caller's struct has no padding the library would read as a value.
fn size_first(d: &Description, s: &CStruct) -> Vec<String> {
    let mut problems = Vec::new();
    match s.fields.first() {
        Some(f) if f.name == "size" && f.binding == Some(Binding::Size) => {}
        _ => problems.push(format!("{}: its first field must be `size`, #[binding(size)]", s.name)),
    }
    for f in &s.fields {
        if f.doc.is_empty() {
            problems.push(format!("{}.{}: no doc (the bindings' docs come from it)", s.name, f.name));
        }
        if let Some(Binding::Hand { java, erlang, why, .. }) = &f.binding
            && (java.is_empty() || erlang.is_empty())
            && why.is_empty()
        {
            problems.push(format!("{}.{}: a field some binding does without must say why", s.name, f.name));
        }
    }
    let min_name = format!("{}_MIN_SIZE", s.name.to_uppercase());
    let Some(min) = d.constant(&min_name) else {
        problems.push(format!("{}: no `pub const {min_name}`", s.name));
        return problems;
    };
    let (places, size) = match layout::places(d, s) {
        Ok(p) => p,
        Err(e) => return vec![e],
    };
    let min = min as usize;
    if !places.iter().any(|p| p.offset + p.size == min) {
        problems.push(format!("{}: the minimum size {min} must end on a field", s.name));
    }
    let mut end = min;
    for (f, p) in s.fields.iter().zip(&places).filter(|(_, p)| p.offset >= min) {
        if (p.offset, p.size) != (end, 8) {
            problems.push(format!("{}.{}: fields after the minimum size are 8 bytes, unpadded", s.name, f.name));
        }
        end += 8;
    }
    if end != size {
        problems.push(format!("{}: padding at the end", s.name));
    }
    problems
}
