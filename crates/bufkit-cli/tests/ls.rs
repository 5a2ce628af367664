//! `bufkit ls`: every entry with its metadata, or those a pattern selects; a hostile archive is
//! refused with the reason. Works in a temporary directory of its own.

mod support;

fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let files: Vec<(String, Vec<u8>)> = files.iter().map(|(n, d)| (n.to_string(), d.to_vec())).collect();
    test_support::zip::stored_zip(&files)
}

fn ls(args: &[&str]) -> (bool, String, String) {
    support::bufkit(&[&["ls"], args].concat())
}

#[test]
fn entries_are_listed_as_a_table_and_as_json() {
    let tmp = tempfile::Builder::new().prefix("bufkit-ls-").tempdir().unwrap();
    let work = tmp.path();
    let good = work.join("app.apk");
    std::fs::write(&good, zip(&[("assets/a.js", b"hello"), ("assets/b.css", b"body{}"), ("readme", b"r")])).unwrap();
    let good = good.to_str().unwrap();

    let (ok, table, _) = ls(&[good]);
    assert!(ok);
    assert!(table.contains("5            5 stored    3610a686  assets/a.js"), "{table}");
    assert!(table.trim_end().ends_with("3 entries"), "{table}");

    let (ok, json, _) = ls(&["--json", good, "assets/*.js"]);
    assert!(ok);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1);
    assert_eq!(rows[0]["name"], "assets/a.js");
    assert_eq!((rows[0]["size"].as_u64(), rows[0]["crc32"].as_u64()), (Some(5), Some(0x3610a686)));

    let evil = work.join("evil.zip");
    std::fs::write(&evil, zip(&[("../escape", b"x")])).unwrap();
    let (ok, out, err) = ls(&[evil.to_str().unwrap()]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.contains("../escape"), "{err}");
}

/// Bytes before the archive (a stub, its offsets left counting from the archive's own start) are
/// read past, and said, as unzip warns of them: by `ls`, and by `test` in its lines and its JSON.
#[test]
fn bytes_before_the_archive_are_said() {
    let tmp = tempfile::Builder::new().prefix("bufkit-ls-").tempdir().unwrap();
    let stubbed = tmp.path().join("stubbed.zip");
    std::fs::write(&stubbed, [b"#!/bin/sh\nexit 0\n".as_slice(), &zip(&[("a.txt", b"hi")])].concat()).unwrap();
    let stubbed = stubbed.to_str().unwrap();
    let (ok, table, _) = ls(&[stubbed]);
    assert!(ok && table.contains("(17 bytes before the archive, read past)"), "{table}");
    let (ok, text, _) = support::bufkit(&["test", stubbed]);
    assert!(ok && text.contains("1 entries, 2 bytes verified (17 bytes before the archive, read past)"), "{text}");
    let (ok, json, _) = support::bufkit(&["test", "--json", stubbed]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(ok && report["prepended"] == 17, "{json}");
}
