//! `JniArchiveCalls.java`: the JNI front's plain archive calls, one per hook of `AssetArchive`
//! (`abstract R nativeName(...)`) that `JniArchive.java` does not write by hand, each calling the
//! JNI glue's `archiveName` with the archive's handle first (when the glue takes one) and
//! `callsBack` last (when it takes that), the hook's parameters between, by position and type.

use crate::glue::JniMethod;
use crate::text::slash_banner;

/// One hook: its return type, name and `(type, name)` parameters.
struct Hook {
    ret: String,
    name: String,
    params: Vec<(String, String)>,
}

/// The package-private abstract hooks named `native*` in `archive` (AssetArchive.java's text),
/// each written on one line.
fn hooks(archive: &str) -> Result<Vec<Hook>, String> {
    let mut out = Vec::new();
    for line in archive.lines() {
        let Some(decl) = line.trim().strip_prefix("abstract ") else { continue };
        let Some(decl) = decl.strip_suffix(");") else { continue };
        let (head, params) = decl.split_once('(').ok_or_else(|| format!("AssetArchive.java: cannot read `{line}`"))?;
        let (ret, name) = head.rsplit_once(' ').ok_or_else(|| format!("AssetArchive.java: cannot read `{line}`"))?;
        if !name.starts_with("native") {
            continue;
        }
        let params = params
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.rsplit_once(' ')
                    .map(|(t, n)| (t.trim().to_string(), n.to_string()))
                    .ok_or_else(|| format!("AssetArchive.java: {name}: cannot read `{p}`"))
            })
            .collect::<Result<_, _>>()?;
        out.push(Hook { ret: ret.trim().to_string(), name: name.to_string(), params });
    }
    Ok(out)
}

/// A Java type as both sides spell it (the glue names `java.nio.ByteBuffer` whole).
fn same_type(a: &str, b: &str) -> bool {
    a.trim_start_matches("java.nio.") == b.trim_start_matches("java.nio.")
}

/// The call of `m` for `hook`: its arguments.
fn arguments(hook: &Hook, m: &JniMethod) -> Result<Vec<String>, String> {
    let mut glue: &[(String, String)] = &m.params;
    let mut args = Vec::new();
    if let [(t, n), rest @ ..] = glue
        && t == "long"
        && n == "handle"
    {
        args.push("handle".to_string());
        glue = rest;
    }
    let calls_back = matches!(glue, [.., (t, n)] if t == "boolean" && n == "calls_back");
    if calls_back {
        glue = &glue[..glue.len() - 1];
    }
    let fits = glue.len() == hook.params.len() && glue.iter().zip(&hook.params).all(|((a, _), (b, _))| same_type(a, b));
    if !fits || !same_type(&m.ret, &hook.ret) {
        return Err(format!(
            "AssetArchive.{}({}) does not fit JniNative.{}: write it in JniArchive.java, or give the glue its \
             parameters (a handle first, calls_back last)",
            hook.name,
            hook.params.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(", "),
            m.name
        ));
    }
    args.extend(hook.params.iter().map(|(_, n)| n.clone()));
    if calls_back {
        args.push("callsBack".to_string());
    }
    Ok(args)
}

/// The generated class, from AssetArchive.java's text (`archive`), JniArchive.java's (`by_hand`)
/// and the glue's methods.
pub fn jni_archive_calls(archive: &str, by_hand: &str, jni: &[JniMethod]) -> Result<String, String> {
    let mut s = slash_banner();
    s.push_str(
        "package dev.bufkit;

import java.nio.ByteBuffer;

/**
 * The JNI front's plain archive calls: each hook of {@link AssetArchive} that {@link JniArchive}
 * does not write by hand is one native method of {@link JniNative}, over the archive's handle.
 */
abstract class JniArchiveCalls extends AssetArchive {
    /** The archive's handle. */
    final long handle;
    /** Read from a channel: reads call back into Java, so they pin nothing. */
    final boolean callsBack;

    JniArchiveCalls(long handle, boolean callsBack, Runnable free) {
        super(free);
        this.handle = handle;
        this.callsBack = callsBack;
    }
",
    );
    for hook in hooks(archive)? {
        if by_hand.contains(&format!(" {}(", hook.name)) {
            continue;
        }
        let glue_name = format!("archive{}", &hook.name["native".len()..]);
        let m = jni
            .iter()
            .find(|m| m.name == glue_name)
            .ok_or_else(|| format!("AssetArchive.{}: no JniNative.{glue_name} in the JNI glue", hook.name))?;
        let args = arguments(&hook, m)?;
        let params: Vec<String> = hook.params.iter().map(|(t, n)| format!("{t} {n}")).collect();
        let ret = if hook.ret == "void" { "" } else { "return " };
        s.push_str(&format!(
            "\n    @Override\n    {} {}({}) {{\n        {ret}JniNative.{glue_name}({});\n    }}\n",
            hook.ret,
            hook.name,
            params.join(", "),
            args.join(", ")
        ));
    }
    s.push_str("}\n");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glue(name: &str, ret: &str, params: &[(&str, &str)]) -> JniMethod {
        JniMethod {
            name: name.into(),
            doc: String::new(),
            ret: ret.into(),
            params: params.iter().map(|&(t, n)| (t.into(), n.into())).collect(),
        }
    }

    const ARCHIVE: &str = "
    abstract int nativeCount();
    abstract long nativeRead(int index, byte[] out, int offset, int len);
    abstract void nativeReaderFree(long reader);
    abstract String statusMessage(int code);
    abstract ByteBuffer nativeView(int index, int[] status, Runnable whenUnreachable);
";

    #[test]
    fn each_plain_hook_calls_its_glue_with_the_handle_and_calls_back() {
        let jni = [
            glue("archiveCount", "int", &[("long", "handle")]),
            glue(
                "archiveRead",
                "long",
                &[
                    ("long", "handle"),
                    ("int", "index"),
                    ("byte[]", "out"),
                    ("int", "offset"),
                    ("int", "len"),
                    ("boolean", "calls_back"),
                ],
            ),
            glue("archiveReaderFree", "void", &[("long", "reader")]),
        ];
        let by_hand = "    ByteBuffer nativeView(int index, int[] status, Runnable whenUnreachable) {";
        let text = jni_archive_calls(ARCHIVE, by_hand, &jni).unwrap();
        assert!(text.contains("return JniNative.archiveCount(handle);"), "{text}");
        assert!(text.contains("return JniNative.archiveRead(handle, index, out, offset, len, callsBack);"), "{text}");
        assert!(text.contains("        JniNative.archiveReaderFree(reader);\n"), "{text}");
        assert!(!text.contains("nativeView") && !text.contains("statusMessage"), "{text}");
    }

    #[test]
    fn a_hook_the_glue_does_not_fit_is_refused_by_name() {
        let jni = [
            glue("archiveCount", "int", &[("long", "handle")]),
            glue("archiveRead", "long", &[("long", "handle"), ("int", "index"), ("long", "out")]),
            glue("archiveReaderFree", "void", &[("long", "reader")]),
        ];
        let by_hand = " nativeView(";
        let err = jni_archive_calls(ARCHIVE, by_hand, &jni).unwrap_err();
        assert!(
            err.contains("AssetArchive.nativeRead(int, byte[], int, int) does not fit JniNative.archiveRead"),
            "{err}"
        );
        let err = jni_archive_calls(ARCHIVE, by_hand, &jni[..1]).unwrap_err();
        assert!(err.contains("no JniNative.archiveRead"), "{err}");
    }
}
