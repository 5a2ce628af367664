//! AssetArchive's unit tests: finding, listing, reading and viewing entries.

use super::*;

fn stored_zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let files: Vec<(String, Vec<u8>)> = files.iter().map(|(n, d)| (n.to_string(), d.to_vec())).collect();
    test_support::zip::stored_zip(&files)
}

#[test]
fn entries_are_found_listed_read_and_viewed() {
    let archive =
        AssetArchive::from_bytes(stored_zip(&[("assets/a.js", b"aaa"), ("assets/b.js", b"bb"), ("readme", b"r")]))
            .unwrap();
    assert_eq!(archive.len(), 3);
    assert_eq!(archive.list("assets/"), [0, 1]);
    let b = archive.find("assets/b.js").unwrap();
    assert_eq!(archive.read(b).unwrap(), b"bb");
    assert_eq!(archive.view(b).unwrap(), Some(&b"bb"[..]));
    let mut wrong = [0u8; 3];
    assert!(archive.read_into(b, &mut wrong).is_err(), "a buffer of the wrong size");
    assert_eq!(archive.find("assets/c.js"), None);
    assert!(archive.read(99).is_err());
}

#[test]
fn a_bad_crc_is_found_on_the_first_read_and_zeroes_the_output() {
    let mut zip = stored_zip(&[("x", b"hello")]);
    let at = zip.windows(5).position(|w| w == b"hello").unwrap();
    zip[at] = b'j';
    let archive = AssetArchive::from_bytes(zip).unwrap();
    let mut out = [1u8; 5];
    assert!(matches!(archive.read_into(0, &mut out), Err(Error::Crc { .. })));
    assert_eq!(out, [0; 5]);
    assert!(matches!(archive.view(0), Err(Error::Crc { .. })));
}

#[test]
fn hostile_archives_are_refused_at_open() {
    assert!(AssetArchive::from_bytes(b"not a zip".to_vec()).is_err());
    assert!(AssetArchive::from_bytes(stored_zip(&[("../escape", b"x")])).is_err());
}

#[test]
fn the_archive_is_shared_by_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<AssetArchive>();
    let archive = AssetArchive::from_bytes(stored_zip(&[("a", b"1"), ("b", b"22")])).unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..1000 {
                    assert_eq!(archive.read(archive.find("b").unwrap()).unwrap(), b"22");
                }
            });
        }
    });
}
