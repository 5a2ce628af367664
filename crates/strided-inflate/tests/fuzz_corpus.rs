//! Replays every input of the fuzz corpus (`fuzz/corpus/`) through the same harnesses the fuzz
//! targets run, so a crash found once stays fixed.

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
fn inflate_at_corpus() {
    assert!(replay("inflate_at", strided_inflate::fuzzing::inflate_at) >= 8);
}

#[test]
fn pack_walk_corpus() {
    assert!(replay("pack_walk", strided_inflate::fuzzing::pack_walk) >= 3);
}

#[test]
fn chunked_corpus() {
    assert!(replay("chunked", strided_inflate::fuzzing::chunked) >= 30);
}

#[test]
fn raw_differential_corpus() {
    assert!(replay("raw_differential", strided_inflate::fuzzing::raw_differential) >= 900);
}

#[test]
fn seek_corpus() {
    assert!(replay("seek", strided_inflate::fuzzing::seek) >= 11);
}

#[test]
fn checkpoint_import_corpus() {
    assert!(replay("checkpoint_import", strided_inflate::fuzzing::checkpoint_import) >= 16);
}
