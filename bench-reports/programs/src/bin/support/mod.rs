//! What the extraction measurements share: their arguments and the median of their rounds.

use std::path::PathBuf;

/// ARCHIVE DEST_DIR [ROUNDS] from the command line: the archive's path and bytes, the directory to
/// extract under (created), and the rounds to run (default 5).
pub fn args() -> (PathBuf, Vec<u8>, PathBuf, usize) {
    let args: Vec<String> = std::env::args().collect();
    let (archive, root) = (PathBuf::from(&args[1]), PathBuf::from(&args[2]));
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    std::fs::create_dir_all(&root).unwrap();
    let data = std::fs::read(&archive).unwrap();
    (archive, data, root, rounds)
}

/// The median of `v`.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}
