//! `include/bufkit.h`: what the pinned cbindgen writes from crates/bufkit-ffi, with each handle
//! type's list of methods (every function that takes the handle first) written in where its doc
//! says `Methods: (listed in include/bufkit.h)`.

use std::path::Path;

use crate::model::Description;
use crate::text::wrap;

/// The marker a handle type's doc carries where its methods are to be listed.
pub const METHODS_MARKER: &str = "Methods: (listed in include/bufkit.h)";

/// The header, as it must be committed.
pub fn header(root: &Path, d: &Description) -> Result<String, String> {
    let crate_dir = root.join("crates/bufkit-ffi");
    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).map_err(|e| e.to_string())?;
    // Every type of the description, whether a function names it or not (a field's enum, a
    // struct a caller fills): the description decides what the header holds, not a list.
    config.export.include = std::iter::once("bk_status".to_string())
        .chain(d.enums.iter().map(|e| e.name.clone()))
        .chain(d.structs.iter().map(|s| s.name.clone()))
        .collect();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .map_err(|e| format!("cbindgen: {e}"))?
        .write(&mut generated);
    let text = String::from_utf8(generated).map_err(|e| e.to_string())?;
    with_methods(&text, d)
}

/// `text` with each handle type's methods listed at its marker, in the order the header declares
/// them. A handle without the marker, or a marker before anything but a handle, is an error.
fn with_methods(text: &str, d: &Description) -> Result<String, String> {
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(at) = line.find(METHODS_MARKER) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        // The typedef this doc comment belongs to follows its end.
        let ty = lines[i..]
            .iter()
            .find_map(|l| l.strip_prefix("typedef struct ").and_then(|r| r.split_whitespace().next()))
            .ok_or("a methods marker before no typedef")?;
        if !d.handles.iter().any(|h| h.name == ty) {
            return Err(format!("a methods marker on {ty}, which is not a handle type"));
        }
        let mut methods: Vec<(usize, &str)> = d
            .exports
            .iter()
            .filter(|e| d.handle_of(e) == Some(ty) && !e.name.ends_with("_new"))
            .map(|e| (declared_at(text, &e.name), e.name.as_str()))
            .collect();
        methods.sort();
        let list: Vec<String> = methods.iter().map(|(_, n)| format!("`{n}`")).collect();
        let indent = &line[..at];
        out.push_str(&wrap(&format!("{indent}Methods:"), &format!("{}.", list.join(", ")), indent));
    }
    for h in &d.handles {
        let marked = lines.iter().enumerate().any(|(i, l)| {
            l.contains(METHODS_MARKER)
                && lines[i..]
                    .iter()
                    .find_map(|l| l.strip_prefix("typedef struct "))
                    .is_some_and(|r| r.split_whitespace().next() == Some(h.name.as_str()))
        });
        if !marked {
            return Err(format!("{}: its doc needs the line `{METHODS_MARKER}`", h.name));
        }
    }
    Ok(out)
}

/// Where the header declares function `name`.
fn declared_at(text: &str, name: &str) -> usize {
    text.find(&format!(" {name}(")).unwrap_or(usize::MAX)
}
