//! Assets read in place: every entry of a real-shaped archive, stored and deflated, read by name
//! from a file (read and mapped), and a file changed after opening in the read mode.

#[allow(dead_code)] // shared with the other test binaries, which use all of it
mod support;
#[allow(dead_code)]
mod zipwriter;

use asset_extract::{AssetArchive, Error, Holding};
use support::workdir;
use zipwriter::{Spec, build};

fn specs() -> Vec<Spec> {
    vec![
        Spec::dir("assets/"),
        Spec::file("assets/app.js", &b"function main() { return 42; }\n".repeat(2000)),
        Spec::stored("assets/logo.png", &[0x89, b'P', b'N', b'G', 1, 2, 3]),
        Spec::file("res/strings.xml", &b"<string>hello</string>\n".repeat(50)),
        Spec::file("empty.txt", b""),
    ]
}

#[test]
fn every_entry_reads_back_by_name_read_and_mapped() {
    let dir = workdir("in-place");
    let (zip, _) = build(&specs(), b"");
    let path = dir.join("app.apk");
    std::fs::write(&path, &zip).unwrap();
    for holding in [Holding::Read, Holding::Map] {
        let archive = AssetArchive::open(&path, holding).unwrap();
        assert_eq!(archive.len(), 5);
        assert_eq!(archive.list("assets/").len(), 2, "the two files under it (the directory itself is \"assets\")");
        for spec in specs().iter().filter(|s| !s.name.ends_with(b"/")) {
            let name = std::str::from_utf8(&spec.name).unwrap();
            let index = archive.find(name).unwrap_or_else(|| panic!("{name} not found"));
            assert_eq!(archive.read(index).unwrap(), spec.data, "{name} ({holding:?})");
            assert_eq!(archive.read(index).unwrap(), spec.data, "{name} again (CRC already checked)");
            let stored = name.ends_with(".png");
            assert_eq!(archive.view(index).unwrap().is_some(), stored, "{name}: a view only of a stored entry");
        }
        assert!(archive.read(archive.find("assets").unwrap()).is_err(), "a directory has no data");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The read mode holds its own copy: the file truncated or rewritten after opening changes nothing.
#[test]
fn the_read_mode_survives_the_file_changing() {
    let dir = workdir("in-place-changed");
    let (zip, _) = build(&specs(), b"");
    let path = dir.join("app.apk");
    std::fs::write(&path, &zip).unwrap();
    let archive = AssetArchive::open(&path, Holding::Read).unwrap();
    std::fs::write(&path, b"truncated").unwrap();
    let index = archive.find("assets/app.js").unwrap();
    assert_eq!(archive.read(index).unwrap(), b"function main() { return 42; }\n".repeat(2000));
    assert!(matches!(AssetArchive::open(&path, Holding::Read), Err(Error::Malformed { .. })));
    std::fs::remove_dir_all(dir).unwrap();
}
