//! Replays every input of the fuzz corpus (`fuzz/corpus/`) through the harnesses the fuzz targets
//! run, so what a fuzzer found once stays fixed.

use std::path::Path;

fn replay(target: &str, harness: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| harness(&data));
        assert!(outcome.is_ok(), "{} fails its harness", path.display());
        n += 1;
    }
    n
}

#[test]
fn parse_corpus() {
    assert!(replay("parse", asset_extract::fuzzing::parse) >= 5);
}

#[test]
fn structured_corpus() {
    assert!(replay("structured", asset_extract::fuzzing::structured) >= 5);
}

#[test]
fn methods_corpus() {
    assert!(replay("methods", asset_extract::fuzzing::methods) >= 5);
}

/// Every file under `dir` (relative path, bytes), sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
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

/// Extraction from a file checks each selected file's local header in the worker that reads its
/// data, from the same read; from memory, every header is checked at parse. Over every archive of
/// the corpus, both accept the same archives and write the same trees.
#[test]
fn extraction_from_a_file_agrees_with_extraction_from_memory() {
    let dir = std::env::temp_dir().join(format!("asset-extract-corpus-file-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/parse");
    let (mut accepted, mut refused) = (0, 0);
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let input = entry.unwrap().path();
        let data = std::fs::read(&input).unwrap();
        let zip = dir.join("archive.zip");
        std::fs::write(&zip, &data).unwrap();
        let options = asset_extract::Options { threads: 2, ..Default::default() };
        let (memory, file) = (dir.join("memory"), dir.join("file"));
        let from_memory = asset_extract::extract_bytes(&data, &memory, &options);
        let from_file = asset_extract::extract(&zip, &file, &options);
        match (&from_memory, &from_file) {
            (Ok(a), Ok(b)) => {
                assert_eq!((a.files, a.bytes), (b.files, b.bytes), "{}", input.display());
                assert!(tree(&memory) == tree(&file), "{}: other trees", input.display());
                accepted += 1;
            }
            (Err(_), Err(_)) => {
                assert!(!memory.exists() && !file.exists(), "{}: something left", input.display());
                refused += 1;
            }
            _ => panic!("{}: from memory {from_memory:?}, from a file {from_file:?}", input.display()),
        }
        for out in [&memory, &file] {
            let _ = std::fs::remove_dir_all(out);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(accepted >= 5 && refused >= 5, "{accepted} accepted, {refused} refused");
}
