//! include/bufkit.h must be exactly what the pinned cbindgen generates from this crate.
//! Regenerate with `BUFKIT_BLESS_HEADER=1 cargo test -p bufkit-ffi --test header`.

use std::path::Path;

#[test]
#[cfg_attr(miri, ignore = "runs cbindgen and the C compiler, processes Miri cannot spawn")]
fn committed_header_is_fresh() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header_path = crate_dir.join("../../include/bufkit.h");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    if std::env::var_os("BUFKIT_BLESS_HEADER").is_some() {
        std::fs::write(&header_path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read(&header_path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/bufkit.h is stale: regenerate it with BUFKIT_BLESS_HEADER=1 cargo test -p bufkit-ffi --test header"
    );
}

#[test]
#[cfg_attr(miri, ignore = "runs cbindgen and the C compiler, processes Miri cannot spawn")]
fn header_version_macro_matches_cargo_toml() {
    let header = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include/bufkit.h")).unwrap();
    let expected = format!("#define BK_VERSION \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(header.contains(&expected), "bufkit.h must say {expected} (set it in cbindgen.toml)");
}
