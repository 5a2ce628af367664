//! The thin C glue of the JNI front and of the Erlang NIF, read for the tables that register it:
//! each JNI function's signature (for `JniNative.java`'s `native` declarations) and each NIF's
//! `/* nif NAME(Args) [dirty_cpu|dirty_io] */` line (for the NIF table and `bufkit_nif.erl`). The
//! C function is the one place a binding method is written; its registration follows from it.

use std::path::Path;

/// One JNI function: `Java_dev_bufkit_JniNative_<name>`.
#[derive(Debug, Clone)]
pub struct JniMethod {
    pub name: String,
    /// The comment before it, if any, as one line of text.
    pub doc: String,
    /// Its Java return type and parameters (`(type, name)`), `JNIEnv *` and `jclass` left out.
    pub ret: String,
    pub params: Vec<(String, String)>,
}

/// One NIF: its Erlang name and parameters, the scheduler it runs on, and its C function
/// (`<name>_nif`).
#[derive(Debug, Clone)]
pub struct Nif {
    pub name: String,
    pub params: Vec<String>,
    /// `0`, `ERL_NIF_DIRTY_JOB_CPU_BOUND` or `ERL_NIF_DIRTY_JOB_IO_BOUND`.
    pub flags: &'static str,
}

/// The `.c` files of `dir`, in name order, with their text.
fn c_files(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("reading {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).map_err(|e| format!("reading {}: {e}", p.display()))?;
            Ok((p.file_name().unwrap_or_default().to_string_lossy().into_owned(), text))
        })
        .collect()
}

const JNI_PREFIX: &str = "Java_dev_bufkit_JniNative_";

/// Every JNI function in `dir` (bindings/java/c_src), in file and then source order.
pub fn jni_methods(dir: &Path) -> Result<Vec<JniMethod>, String> {
    let mut out = Vec::new();
    for (file, text) in c_files(dir)? {
        let mut rest = text.as_str();
        let mut consumed = 0;
        while let Some(at) = rest.find("JNIEXPORT ") {
            let before = &text[..consumed + at];
            let sig_start = &rest[at + "JNIEXPORT ".len()..];
            let open = sig_start.find('(').ok_or_else(|| format!("{file}: JNIEXPORT without a parameter list"))?;
            let close = sig_start.find(')').ok_or_else(|| format!("{file}: unclosed parameter list"))?;
            let head = sig_start[..open].split_whitespace().collect::<Vec<_>>().join(" ");
            let (ret, name) = head
                .split_once(" JNICALL ")
                .ok_or_else(|| format!("{file}: expected `JNIEXPORT <type> JNICALL <name>(`"))?;
            let name = name.strip_prefix(JNI_PREFIX).ok_or_else(|| format!("{file}: {name} is not JniNative's"))?;
            let params = parse_params(&sig_start[open + 1..close]).map_err(|e| format!("{file}: {name}: {e}"))?;
            let params = match params.as_slice() {
                [(env, _), (cls, _), rest @ ..] if env == "JNIEnv *" && cls == "jclass" => rest.to_vec(),
                _ => return Err(format!("{file}: {name}: the first parameters are `JNIEnv *env, jclass cls`")),
            };
            let params = params
                .into_iter()
                .map(|(c, n)| java_type(&c).map(|j| (j, n)))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("{file}: {name}: {e}"))?;
            out.push(JniMethod {
                name: name.to_string(),
                doc: comment_before(before),
                ret: java_type(ret).map_err(|e| format!("{file}: {name}: {e}"))?,
                params,
            });
            consumed += at + "JNIEXPORT ".len();
            rest = &text[consumed..];
        }
    }
    Ok(out)
}

/// `type name` pairs of a C parameter list; a `/* java.type */` comment after `jobject` (or
/// `jobjectArray`) gives the Java type JNI erases, kept in the type as `jobject /* .. */`.
fn parse_params(list: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for param in list.split(',') {
        let param = param.split_whitespace().collect::<Vec<_>>().join(" ");
        let (ty, name) = match param.rfind([' ', '*']) {
            Some(at) => (param[..=at].trim().to_string(), param[at + 1..].to_string()),
            None => return Err(format!("cannot read parameter `{param}`")),
        };
        let ty = if ty.ends_with('*') && !ty.ends_with(" *") { ty.replace('*', " *") } else { ty };
        out.push((ty, name));
    }
    Ok(out)
}

/// The Java type of a JNI C type.
fn java_type(c: &str) -> Result<String, String> {
    if let Some(rest) = c.strip_prefix("jobject /*").or_else(|| c.strip_prefix("jobjectArray /*")) {
        let java = rest.trim_end_matches("*/").trim();
        return Ok(java.to_string());
    }
    Ok(match c {
        "void" => "void",
        "jint" => "int",
        "jlong" => "long",
        "jboolean" => "boolean",
        "jdouble" => "double",
        "jbyte" => "byte",
        "jstring" => "String",
        "jbyteArray" => "byte[]",
        "jintArray" => "int[]",
        "jlongArray" => "long[]",
        "jobject" | "jobjectArray" => {
            return Err(format!("`{c}` needs its Java type in a comment: `{c} /* java.nio.ByteBuffer */ name`"));
        }
        other => return Err(format!("no Java type for `{other}`")),
    }
    .to_string())
}

/// The `/* .. */` comment that ends just before the end of `before` (blank lines aside), as one
/// line of text; empty if there is none.
fn comment_before(before: &str) -> String {
    let trimmed = before.trim_end();
    if !trimmed.ends_with("*/") {
        return String::new();
    }
    let Some(start) = trimmed.rfind("/*") else { return String::new() };
    trimmed[start + 2..trimmed.len() - 2]
        .lines()
        .map(|l| l.trim().trim_start_matches('*').trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every NIF in `dir` (bindings/erlang/c_src), in file and then source order.
pub fn nifs(dir: &Path) -> Result<Vec<Nif>, String> {
    let mut out = Vec::new();
    for (file, text) in c_files(dir)? {
        for line in text.lines() {
            let Some(spec) = line.trim().strip_prefix("/* nif ").and_then(|s| s.strip_suffix("*/")) else { continue };
            let spec = spec.trim();
            let open = spec.find('(').ok_or_else(|| format!("{file}: `/* nif {spec} */` needs (Args)"))?;
            let close = spec.find(')').ok_or_else(|| format!("{file}: `/* nif {spec} */`: unclosed"))?;
            let name = spec[..open].trim().to_string();
            let params: Vec<String> =
                spec[open + 1..close].split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
            let flags = match spec[close + 1..].trim() {
                "" => "0",
                "dirty_cpu" => "ERL_NIF_DIRTY_JOB_CPU_BOUND",
                "dirty_io" => "ERL_NIF_DIRTY_JOB_IO_BOUND",
                other => return Err(format!("{file}: {name}: `{other}`: expected dirty_cpu or dirty_io")),
            };
            if !text.contains(&format!("{name}_nif(")) && !text.contains(&format!("NIF({name},")) {
                return Err(format!("{file}: `/* nif {name}(..) */` but no function {name}_nif here"));
            }
            out.push(Nif { name, params, flags });
        }
    }
    Ok(out)
}
