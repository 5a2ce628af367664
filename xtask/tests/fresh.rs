//! The committed header and generated binding files are what `cargo xtask bindings` writes now:
//! an export, a status or a field changed without regenerating fails here.

#[test]
fn every_generated_file_is_fresh() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let stale = xtask::stale(&root).unwrap_or_else(|e| panic!("the description does not generate: {e}"));
    assert!(stale.is_empty(), "stale generated files {stale:?}: regenerate with `cargo xtask bindings`");
}
