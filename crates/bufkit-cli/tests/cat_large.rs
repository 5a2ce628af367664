//! `bufkit cat` of a selection larger than it holds (64 MiB): each entry inflated once and
//! written as it inflates, byte for byte; a CRC that fails at an entry's end gives a non-zero
//! exit. Works in a temporary directory of its own.

#[test]
fn a_large_entry_is_written_as_it_inflates_and_a_bad_crc_still_fails() {
    let tmp = tempfile::Builder::new().prefix("bufkit-cat-large-").tempdir().unwrap();
    let work = tmp.path();
    let data: Vec<u8> = (0..(80u32 << 20)).map(|i| (i / 4096 % 251) as u8).collect();
    let zip = test_support::zip::deflated_zip(&[("big.bin".to_string(), data.clone())]);
    let good = work.join("good.zip");
    std::fs::write(&good, &zip).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bufkit"))
        .args(["cat", good.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout == data, "{} bytes written, {} expected", out.stdout.len(), data.len());

    // The CRC-32 in both headers made wrong: the bytes go out, the command fails at the end.
    let mut bad = zip.clone();
    let patch = |bad: &mut Vec<u8>, sig: &[u8], crc_at: usize| {
        let at = bad.windows(4).position(|w| w == sig).unwrap();
        bad[at + crc_at] ^= 0xff;
    };
    patch(&mut bad, b"PK\x03\x04", 14);
    patch(&mut bad, b"PK\x01\x02", 16);
    let bad_path = work.join("bad.zip");
    std::fs::write(&bad_path, &bad).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bufkit"))
        .args(["cat", bad_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("CRC-32"), "{}", String::from_utf8_lossy(&out.stderr));
}
