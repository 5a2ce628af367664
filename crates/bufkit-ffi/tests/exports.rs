//! Every function of the C ABI is written with `#[export]`, so none can skip the panic boundary:
//! each `extern "C" fn` in the sources carries the attribute, nothing but the macro calls the
//! boundary, and every function the header declares is one of them.

use std::path::Path;

/// (file, function name, whether `#[export]` is among its attributes) for every `extern "C" fn`.
fn exports() -> Vec<(String, String, bool)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(at) = line.find("extern \"C\" fn ") else { continue };
            if line.trim_start().starts_with("//") {
                continue;
            }
            let name: String = line[at + 14..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            // The attributes right above it (doc comments and attributes, up to a blank line).
            let attributes = lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.trim_start().starts_with('#') || l.trim_start().starts_with("///"));
            let exported = attributes.into_iter().any(|l| l.trim_start().starts_with("#[export"));
            found.push((path.file_name().unwrap().to_string_lossy().into_owned(), name, exported));
        }
    }
    found
}

#[test]
fn every_extern_c_function_is_written_with_export() {
    let exports = exports();
    assert!(exports.len() > 50, "found only {} exports: is the scan broken?", exports.len());
    let bare: Vec<_> = exports.iter().filter(|(_, _, exported)| !exported).collect();
    assert!(bare.is_empty(), "extern \"C\" functions without #[export]: {bare:?}");
}

#[test]
fn only_the_export_macro_calls_the_boundary() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() == "macros.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for call in ["boundary(", "boundary_or("] {
            let found = text
                .lines()
                .any(|l| !l.trim_start().starts_with("//") && l.contains(call) && !l.contains("is_char_boundary("));
            assert!(!found, "{} calls {call}) by hand: write the function with #[export]", path.display());
        }
    }
}

#[test]
fn every_function_in_the_header_is_an_export() {
    let header = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include/bufkit.h")).unwrap();
    let exported: Vec<String> = exports().into_iter().map(|(_, name, _)| name).collect();
    let declared: Vec<&str> = header
        .lines()
        .filter(|l| {
            !l.starts_with(' ')
                && !l.starts_with('#')
                && !l.starts_with("typedef")
                && l.contains(" bk_")
                && l.contains('(')
        })
        .filter_map(|l| l.split('(').next()?.rsplit([' ', '*']).next())
        .collect();
    assert!(declared.len() > 50, "found only {} declarations", declared.len());
    for name in declared {
        assert!(exported.iter().any(|e| e == name), "{name} is declared in bufkit.h but not written with #[export]");
    }
}
