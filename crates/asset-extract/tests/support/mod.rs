//! Helpers the test binaries share: a fresh temporary directory per test, its listing, and the
//! tree under a directory.

use std::path::{Path, PathBuf};

/// A fresh, empty directory for test `name` (in this process), under the system's temp dir.
pub fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asset-extract-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Every file and directory under `dir` (relative path, a file's bytes; a directory's path ends in
/// `/` with no bytes), sorted.
#[allow(dead_code)] // only the binaries that compare trees call it
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                out.push((rel + "/", Vec::new()));
                stack.push(path);
            } else {
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}
