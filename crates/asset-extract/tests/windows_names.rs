//! Names Windows reads otherwise than they are stored: refused with `portable_names` (as on
//! Windows always), naming the entry and leaving nothing at DEST; extracted as they are by
//! default on Linux, where they are legal names. Works in temporary directories of its own.

#[allow(dead_code)] // the tests here use its workdir
mod support;
#[allow(dead_code)]
mod zipwriter;

use asset_extract::{Error, Options, extract_bytes};
use support::workdir;
use zipwriter::{Spec, build};

/// One archive per class, each with an ordinary file beside the hostile name.
fn classes() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("an alternate data stream", vec!["notes.txt:hidden"]),
        ("a colon in a file name", vec!["logs/12:00.log"]),
        ("a character Windows forbids", vec!["what?.txt"]),
        ("a trailing dot", vec!["config."]),
        ("a trailing space", vec!["dir /file.txt"]),
        ("a device name", vec!["CON"]),
        ("a device name with an extension", vec!["sub/nul.txt"]),
        ("a numbered device name", vec!["LPT1.log"]),
        ("an 8.3 short name", vec!["GIT~1/config"]),
        ("names that differ only in case", vec!["Readme.md", "README.md"]),
    ]
}

#[test]
fn names_windows_reads_otherwise_are_refused_with_portable_names() {
    for (class, names) in classes() {
        let mut specs: Vec<Spec> = names.iter().map(|n| Spec::file(n, b"hostile")).collect();
        specs.push(Spec::file("ok.txt", b"fine"));
        let (zip, _) = build(&specs, b"");
        let dir = workdir("windows-names");
        let dest = dir.join("out");
        let portable = Options { portable_names: true, ..Options::default() };
        match extract_bytes(&zip, &dest, &portable) {
            Err(Error::UnsafeName { entry, reason }) => {
                assert!(names.contains(&entry.as_str()), "{class}: named {entry} ({reason})");
            }
            other => panic!("{class}: {other:?}"),
        }
        assert!(!dest.exists(), "{class}: a refused extraction left {}", dest.display());
        let plain = extract_bytes(&zip, &dest, &Options::default());
        if cfg!(windows) {
            // On Windows they are refused always.
            assert!(matches!(plain, Err(Error::UnsafeName { .. })), "{class}: {plain:?}");
            assert!(!dest.exists(), "{class}");
            continue;
        }
        // On Linux these are legal names, extracted as they are.
        let report = plain.unwrap_or_else(|e| panic!("{class}: {e}"));
        assert_eq!(report.files as usize, names.len() + 1, "{class}");
        for name in &names {
            assert_eq!(std::fs::read(dest.join(name)).unwrap(), b"hostile", "{class}: {name}");
        }
    }
}

#[test]
fn ordinary_names_extract_with_portable_names() {
    let names = ["assets/app.js", "console.txt", "COM10.log", "backup~", "longname~1.txt", "café/ünï.txt"];
    let specs: Vec<Spec> = names.iter().map(|n| Spec::file(n, n.as_bytes())).collect();
    let (zip, _) = build(&specs, b"");
    let dir = workdir("windows-names-ok");
    let portable = Options { portable_names: true, ..Options::default() };
    let report = extract_bytes(&zip, &dir.join("out"), &portable).unwrap();
    assert_eq!(report.files as usize, names.len());
}

/// The classes refused everywhere, portable or not: `..\` and other backslashes from a Unix host
/// (snyk's zip-slip-win), and from a DOS or Windows host (where a backslash is a separator) the
/// paths that climb out, drive letters and UNC prefixes once converted.
#[test]
fn separators_drive_letters_and_unc_prefixes_are_refused_everywhere() {
    let from_unix = |name: &[u8]| Spec { name: name.to_vec(), ..Spec::file("x", b"hostile") };
    let from_dos = |name: &[u8]| Spec { name: name.to_vec(), unix_mode: None, ..Spec::file("x", b"hostile") };
    let cases = [
        ("`..\\` from a Unix host", from_unix(b"..\\evil.txt")),
        ("`..\\` from a DOS host", from_dos(b"..\\..\\evil.txt")),
        ("a drive-relative path", from_unix(b"C:evil.txt")),
        ("a drive letter from a DOS host", from_dos(b"C:\\Windows\\evil.dll")),
        ("a UNC prefix from a DOS host", from_dos(b"\\\\server\\share\\evil.txt")),
        ("a device path from a DOS host", from_dos(b"\\\\?\\C:\\evil.txt")),
    ];
    for (class, spec) in cases {
        let (zip, _) = build(&[spec, Spec::file("ok.txt", b"fine")], b"");
        for options in [Options::default(), Options { portable_names: true, ..Options::default() }] {
            let dir = workdir("windows-names-everywhere");
            let dest = dir.join("out");
            match extract_bytes(&zip, &dest, &options) {
                Err(Error::UnsafeName { .. }) => {}
                other => panic!("{class} (portable_names {}): {other:?}", options.portable_names),
            }
            let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert!(left.is_empty(), "{class}: a refused extraction left {left:?}");
        }
    }
}
