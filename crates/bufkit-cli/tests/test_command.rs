//! `bufkit test`: an archive verified without writing anything (issue 26, like `unzip -t`); each
//! failing entry named, JSON on request, a non-zero exit on any failure. Works in a temporary
//! directory of its own, and writes nothing else.

mod support;

fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let files: Vec<(String, Vec<u8>)> = files.iter().map(|(n, d)| (n.to_string(), d.to_vec())).collect();
    test_support::zip::stored_zip(&files)
}

#[test]
fn an_archive_is_verified_and_each_failure_named() {
    let tmp = tempfile::Builder::new().prefix("bufkit-test-cmd-").tempdir().unwrap();
    let work = tmp.path();
    let files: [(&str, &[u8]); 3] = [("assets/a.js", b"hello"), ("assets/b.css", b"body{}"), ("readme", b"r")];
    let good = work.join("good.apk");
    std::fs::write(&good, zip(&files)).unwrap();
    let (ok, out, _) = support::bufkit(&["test", good.to_str().unwrap()]);
    assert!(ok, "{out}");
    assert!(out.contains("OK") && out.contains("3 entries, 12 bytes verified"), "{out}");

    // The second file's bytes damaged: its CRC fails; the others still verify.
    let mut bytes = zip(&files);
    let at = bytes.windows(6).position(|w| w == b"body{}").unwrap();
    bytes[at] ^= 0x20;
    let bad = work.join("bad.apk");
    std::fs::write(&bad, &bytes).unwrap();
    let (ok, out, err) = support::bufkit(&["test", bad.to_str().unwrap()]);
    assert!(!ok, "a failure exits non-zero");
    assert!(out.contains("FAILED  assets/b.css") && out.contains("1 of 3 entries"), "{out}");
    assert!(err.contains("1 of 3 entries failed"), "{err}");
    let (ok, json, _) = support::bufkit(&["test", "--json", "--threads", "2", bad.to_str().unwrap()]);
    assert!(!ok);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((report["ok"].as_bool(), report["entries"].as_u64()), (Some(false), Some(3)));
    assert_eq!(report["failures"][0]["name"], "assets/b.css");
    assert_eq!(report["failures"][0]["index"], 1);

    // A structure that does not parse: refused as a whole, with the reason.
    let broken = work.join("broken.zip");
    std::fs::write(&broken, &bytes[..bytes.len() - 3]).unwrap();
    let (ok, json, _) = support::bufkit(&["test", "--json", broken.to_str().unwrap()]);
    assert!(!ok);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["ok"].as_bool(), Some(false));
    assert!(report["error"].as_str().unwrap().contains("malformed"), "{json}");
    let listing: Vec<_> = std::fs::read_dir(work).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(listing.len(), 3, "nothing written beside the archives: {listing:?}");
}
