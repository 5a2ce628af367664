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
