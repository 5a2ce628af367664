//! Replays every input of the fuzz corpus (`fuzz/corpus/`) through the same harnesses the fuzz
//! targets run, so a crash found once stays fixed.

use std::path::Path;

/// The inputs of fuzz target `target`'s corpus, each through `harness`.
fn replay(target: &str, harness: fn(&[u8])) -> usize {
    test_support::replay(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target), harness)
}

#[test]
fn inflate_at_corpus() {
    assert!(replay("inflate_at", test_support::deflate::inflate_at) >= 8);
}

#[test]
fn pack_walk_corpus() {
    assert!(replay("pack_walk", test_support::deflate::pack_walk) >= 3);
}

#[test]
fn chunked_corpus() {
    assert!(replay("chunked", test_support::deflate::chunked) >= 30);
}

#[test]
fn raw_differential_corpus() {
    assert!(replay("raw_differential", test_support::deflate::raw_differential) >= 900);
}

#[test]
fn seek_corpus() {
    assert!(replay("seek", test_support::deflate::seek) >= 11);
}

#[test]
fn checkpoint_import_corpus() {
    assert!(replay("checkpoint_import", test_support::deflate::checkpoint_import) >= 16);
}
