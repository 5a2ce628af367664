//! Helpers the test binaries share: a fresh temporary directory per test, and its listing.

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
