//! Every compression method bufkit reads, through the CLI: `ls` names them, `cat` writes each
//! entry's bytes, `test` verifies them, `extract` writes them. Reads the fixture the library's
//! tests check (`crates/asset-extract/tests/data/methods.zip`: one text once per method).

mod support;

use std::path::Path;

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../asset-extract/tests/data/methods.zip").to_str().unwrap().to_string()
}

const NAMES: [(&str, &str); 5] = [
    ("deflate64.txt", "deflate64"),
    ("bzip2.txt", "bzip2"),
    ("lzma.txt", "lzma"),
    ("zstd.txt", "zstd"),
    ("xz.txt", "xz"),
];

#[test]
fn ls_cat_test_and_extract_read_every_method() {
    let zip = fixture();
    let (ok, table, err) = support::bufkit(&["ls", &zip]);
    assert!(ok, "{err}");
    for (name, method) in NAMES {
        let row =
            table.lines().find(|line| line.ends_with(name)).unwrap_or_else(|| panic!("{name} not listed: {table}"));
        assert!(row.contains(&format!(" {method} ")), "{row}");
    }
    let (ok, first, err) = support::bufkit(&["cat", &zip, NAMES[0].0]);
    assert!(ok && first.len() == 19744, "{err}");
    for (name, _) in NAMES {
        let (ok, text, err) = support::bufkit(&["cat", &zip, name]);
        assert!(ok && text == first, "{name}: {err}");
    }
    let (ok, all, _) = support::bufkit(&["cat", &zip]);
    assert!(ok && all == first.repeat(5));
    let (ok, report, err) = support::bufkit(&["test", &zip]);
    assert!(ok, "{report} {err}");
    let tmp = tempfile::Builder::new().prefix("bufkit-cli-methods-").tempdir().unwrap();
    let dest = tmp.path().join("out");
    let (ok, _, err) = support::bufkit(&["extract", &zip, dest.to_str().unwrap()]);
    assert!(ok, "{err}");
    for (name, _) in NAMES {
        assert_eq!(std::fs::read_to_string(dest.join(name)).unwrap(), first, "{name}");
    }
}
