//! `bufkit extract --portable-names`: a name Windows reads otherwise is refused, naming the
//! entry, with nothing left at DEST; without the flag, on Linux, it is extracted as it is (on
//! Windows, refused as well). Works in a temporary directory of its own.

#[allow(dead_code)] // the range server is for the URL tests
mod support;

#[test]
fn portable_names_refuses_what_windows_reads_otherwise() {
    let tmp = tempfile::Builder::new().prefix("bufkit-portable-").tempdir().unwrap();
    let zip = tmp.path().join("app.zip");
    let files = [("assets/app.js".to_string(), b"ok".to_vec()), ("assets/con.txt".to_string(), b"device".to_vec())];
    std::fs::write(&zip, test_support::zip::stored_zip(&files)).unwrap();
    let (zip, dest) = (zip.to_str().unwrap(), tmp.path().join("out"));
    let (ok, _, err) = support::bufkit(&["extract", "--portable-names", zip, dest.to_str().unwrap()]);
    assert!(!ok && err.contains("assets/con.txt") && err.contains("device name"), "{err}");
    assert!(!dest.exists());
    let (ok, _, err) = support::bufkit(&["extract", zip, dest.to_str().unwrap()]);
    if cfg!(windows) {
        // There, the name is refused with or without the flag.
        assert!(!ok && err.contains("assets/con.txt"), "{err}");
        assert!(!dest.exists());
        return;
    }
    assert!(ok, "{err}");
    assert_eq!(std::fs::read(dest.join("assets/con.txt")).unwrap(), b"device");
}
