//! Extraction end to end, and every hostile archive refused with its own error, nothing left behind.

mod support;
mod zipwriter;

#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use asset_extract::{Error, Mode, Options, extract, extract_bytes};
use support::{listing, workdir};
use zipwriter::{Spec, build, put_u16, put_u32, with_zip64_record};

/// Extracting must fail as `check` says, leaving the parent exactly as it was, even when told to
/// replace the destination.
fn refused(name: &str, archive: &[u8], check: impl Fn(&Error) -> bool) {
    refused_with(name, archive, Options { mode: Mode::Replace, ..Options::default() }, check)
}

/// The same from memory and from a file (where each selected file's local header is checked by
/// the worker that reads its data).
fn refused_with(name: &str, archive: &[u8], options: Options<'_>, check: impl Fn(&Error) -> bool) {
    let dir = workdir(name);
    let mut file =
        tempfile::Builder::new().prefix(&format!("asset-extract-{name}-")).suffix(".zip").tempfile().unwrap();
    std::io::Write::write_all(&mut file, archive).unwrap();
    let zip = file.into_temp_path();
    std::fs::create_dir(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/keep.txt"), b"existing data").unwrap();
    for from_file in [false, true] {
        let err = if from_file {
            extract(&zip, &dir.join("out"), &options).expect_err("must be refused from a file")
        } else {
            extract_bytes(archive, &dir.join("out"), &options).expect_err("must be refused")
        };
        assert!(check(&err), "{name} (from a file: {from_file}): unexpected error {err:?}");
        assert_eq!(listing(&dir), vec!["out"], "{name}: something was left beside the destination");
        assert_eq!(listing(&dir.join("out")), vec!["keep.txt"], "{name}: the destination changed");
        assert_eq!(std::fs::read(dir.join("out/keep.txt")).unwrap(), b"existing data");
    }
}

fn sample() -> Vec<Spec> {
    vec![
        Spec::dir("assets/"),
        Spec::file("assets/app.js", &b"function main() { return 42; }\n".repeat(200)),
        Spec::stored("assets/logo.png", &[0x89, b'P', b'N', b'G', 1, 2, 3]),
        Spec { unix_mode: Some(0o104755), ..Spec::file("bin/tool", b"#!/bin/sh\necho hi\n") }, // setuid asked for
        Spec::file("nested/inner.zip", &build(&[Spec::file("x", b"y")], b"").0),
        Spec::file("empty.txt", b""),
    ]
}

#[test]
fn a_valid_archive_extracts_exactly_and_replaces_the_destination() {
    let dir = workdir("valid");
    let (zip, _) = build(&sample(), b"a comment");
    let archive = dir.join("a.zip");
    std::fs::write(&archive, &zip).unwrap();
    std::fs::create_dir(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/stale.txt"), b"old").unwrap();
    let done = AtomicU64::new(0);
    let progress = |_p: asset_extract::Progress| {
        done.fetch_add(1, Ordering::Relaxed);
    };
    let options = Options { mode: Mode::Replace, threads: 2, progress: Some(&progress), ..Options::default() };
    let report = extract(&archive, &dir.join("out"), &options).unwrap();
    assert_eq!((report.files, report.directories), (5, 3));
    assert_eq!(done.load(Ordering::Relaxed), 5);
    for spec in sample().iter().filter(|s| !s.name.ends_with(b"/")) {
        let path = dir.join("out").join(std::str::from_utf8(&spec.name).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), spec.data, "{}", path.display());
    }
    assert!(!dir.join("out/stale.txt").exists(), "the old destination was replaced as a whole");
    if let Some(mode) = support::mode_bits(&dir.join("out/bin/tool")) {
        assert_eq!(mode, 0o755, "setuid stripped, executable kept");
        assert_eq!(support::mode_bits(&dir.join("out/empty.txt")), Some(0o644));
    }
    assert_eq!(listing(&dir), vec!["a.zip", "out"], "no staging directory left");
}

#[test]
fn only_patterns_select_entries() {
    let dir = workdir("only");
    let (zip, _) = build(&sample(), b"");
    let report = extract_bytes(
        &zip,
        &dir.join("out"),
        &Options { only: vec!["assets/".into(), "*.txt".into()], ..Options::default() },
    )
    .unwrap();
    assert_eq!((report.files, report.skipped), (3, 2));
    assert!(
        dir.join("out/assets/app.js").exists() && dir.join("out/empty.txt").exists() && !dir.join("out/bin").exists()
    );
}

#[test]
#[cfg(unix)] // python3 is the host's, not the Windows build's under wine
fn an_archive_made_by_python_zipfile_with_zip64_and_descriptors_extracts() {
    let dir = workdir("python");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let archive = dir.join("py.zip");
    // Every file under src/, in subdirectories too, each as `src/` and its path there.
    let script = "import zipfile,os,sys\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\nfor root,dirs,files in sorted(os.walk(sys.argv[2])):\n    for f in sorted(files):\n        p=os.path.join(root,f)\n        d=open(p,'rb').read()\n        with z.open('src/'+os.path.relpath(p,sys.argv[2]).replace(os.sep,'/'),'w',force_zip64=True) as w: w.write(d)\nz.writestr('stored.bin', bytes(range(256))*10, compress_type=zipfile.ZIP_STORED)\nz.close()\n";
    let ok = std::process::Command::new("python3")
        .args(["-c", script, archive.to_str().unwrap(), src.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(ok.success());
    let report = extract(&archive, &dir.join("out"), &Options::default()).unwrap();
    assert!(report.files >= 5);
    let mut pending = vec![src.clone()];
    let mut files = 0;
    while let Some(dir_here) = pending.pop() {
        for f in std::fs::read_dir(&dir_here).unwrap() {
            let path = f.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let extracted = dir.join("out/src").join(path.strip_prefix(&src).unwrap());
            assert_eq!(std::fs::read(&extracted).unwrap(), std::fs::read(&path).unwrap(), "{}", path.display());
            files += 1;
        }
    }
    assert_eq!(report.files, files + 1, "every file under src/, and stored.bin");
}

#[test]
fn unsafe_names_are_refused() {
    let cases: [(&[u8], &str); 10] = [
        (b"../evil", "dotdot"),
        (b"a/../../evil", "dotdot-inner"),
        (b"/etc/passwd", "absolute"),
        (b"a\\..\\evil", "backslash"),
        (b"C:/evil", "drive"),
        (b"a\0b", "nul"),
        (b"\xff\xfe", "utf8"),
        (b"a//b", "empty-component"),
        (b"./a", "dot"),
        (b"", "empty"),
    ];
    for (name, label) in cases {
        let spec = Spec { name: name.to_vec(), ..Spec::file("x", b"data") };
        refused(&format!("name-{label}"), &build(&[spec], b"").0, |e| matches!(e, Error::UnsafeName { .. }));
    }
    let long = Spec::file(&"a".repeat(300), b"data");
    refused("name-long", &build(&[long], b"").0, |e| matches!(e, Error::UnsafeName { .. }));
}

#[test]
fn collisions_are_refused() {
    refused("dup", &build(&[Spec::file("a.txt", b"1"), Spec::file("a.txt", b"2")], b"").0, |e| {
        matches!(e, Error::UnsafeName { reason: "duplicate name", .. })
    });
    let case_twins = build(&[Spec::file("A.txt", b"1"), Spec::file("a.TXT", b"2")], b"").0;
    let fold = Options { mode: Mode::Replace, fold_case: true, ..Options::default() };
    refused_with("dup-case", &case_twins, fold, |e| matches!(e, Error::UnsafeName { .. }));
    refused("file-dir", &build(&[Spec::file("a", b"1"), Spec::file("a/b", b"2")], b"").0, |e| {
        matches!(e, Error::UnsafeName { .. })
    });
}

#[test]
fn special_kinds_are_refused() {
    for (mode, kind) in [(0o120777, "symlink"), (0o020644, "device"), (0o060644, "device"), (0o140644, "socket")] {
        let spec = Spec { unix_mode: Some(mode), ..Spec::file("x", b"/etc/passwd") };
        refused(
            &format!("kind-{kind}-{mode:o}"),
            &build(&[spec], b"").0,
            |e| matches!(e, Error::UnsupportedKind { kind: k, .. } if *k == kind),
        );
    }
}

#[test]
fn encrypted_and_unknown_methods_are_refused_before_writing() {
    let enc = Spec { flags: 1, ..Spec::file("secret", b"data") };
    refused("encrypted", &build(&[Spec::file("first", b"ok"), enc], b"").0, |e| matches!(e, Error::Encrypted { .. }));
    let (mut zip, layout) = build(&[Spec::stored("a", b"data")], b"");
    // PPMd (98): bufkit reads every method of APPNOTE's list that zip tools write today but this.
    put_u16(&mut zip, layout.local[0] + 8, 98);
    put_u16(&mut zip, layout.central[0] + 10, 98);
    refused("method", &zip, |e| matches!(e, Error::UnsupportedMethod { method: 98, .. }));
}

#[test]
fn overlapping_entries_are_refused() {
    // Fifield's construction: entry "b"'s local header and data sit inside entry "a"'s data, so
    // the archive's bytes are counted twice. Everything else about both entries is valid.
    let (inner, inner_layout) = build(&[Spec::stored("b", b"xyz")], b"");
    let b_local = inner[..inner_layout.central[0]].to_vec(); // b's local header and data
    let (mut zip, layout) = build(&[Spec::stored("a", &b_local), Spec::stored("b", b"xyz")], b"");
    let inside_a = (layout.local[0] + 30 + 1) as u32; // a's data starts after its header and name
    put_u32(&mut zip, layout.central[1] + 42, inside_a);
    refused("overlap", &zip, |e| matches!(e, Error::Malformed { reason, .. } if reason.contains("overlap")));
}

#[test]
fn crc_mismatch_leaves_nothing() {
    let (mut zip, layout) = build(&[Spec::file("good", b"fine"), Spec::file("bad", &b"payload".repeat(100))], b"");
    put_u32(&mut zip, layout.local[1] + 14, 0xdead_beef);
    put_u32(&mut zip, layout.central[1] + 16, 0xdead_beef);
    refused("crc", &zip, |e| matches!(e, Error::Crc { entry } if entry == "bad"));
    let (mut zip, layout) = build(&[Spec::stored("s", b"stored data")], b"");
    put_u32(&mut zip, layout.local[0] + 14, 1);
    put_u32(&mut zip, layout.central[0] + 16, 1);
    refused("crc-stored", &zip, |e| matches!(e, Error::Crc { .. }));
}

#[test]
fn headers_that_disagree_are_refused() {
    let base = || build(&[Spec::file("name.txt", &b"text ".repeat(50))], b"");
    let (mut z, l) = base();
    z[l.local[0] + 30] = b'N';
    refused("local-name", &z, |e| matches!(e, Error::Malformed { .. }));
    let (mut z, l) = base();
    put_u16(&mut z, l.local[0] + 8, 0);
    refused("local-method", &z, |e| matches!(e, Error::Malformed { .. }));
    let (mut z, l) = base();
    put_u32(&mut z, l.local[0] + 22, 1);
    refused("local-size", &z, |e| matches!(e, Error::Malformed { .. }));
    let desc = Spec { descriptor: true, ..Spec::file("d", &b"descriptor ".repeat(20)) };
    let (mut z, l) = build(&[desc], b"");
    let crc_in_descriptor = l.central[0] - 12 + 4 - 4; // signature, crc, csize, usize: crc is 12 bytes before the end
    put_u32(&mut z, crc_in_descriptor, 7);
    refused("descriptor", &z, |e| matches!(e, Error::Malformed { .. }));
}

#[test]
fn wrong_and_huge_declared_sizes_are_errors_not_allocations() {
    let (mut z, l) = build(&[Spec::file("a", &b"abc".repeat(100))], b"");
    put_u32(&mut z, l.local[0] + 22, 301);
    put_u32(&mut z, l.central[0] + 24, 301);
    refused("size-wrong", &z, |e| matches!(e, Error::Data { .. }));
    let (mut z, l) = build(&[Spec::file("a", &b"abc".repeat(100))], b"");
    put_u32(&mut z, l.local[0] + 22, 0xffff_fffe);
    put_u32(&mut z, l.central[0] + 24, 0xffff_fffe);
    refused("size-huge", &z, |e| matches!(e, Error::Malformed { .. }));
    let (mut z, l) = build(&[Spec::file("a", b"abc")], b"");
    put_u32(&mut z, l.local[0] + 18, 5000);
    put_u32(&mut z, l.central[0] + 20, 5000);
    refused("data-into-cd", &z, |e| matches!(e, Error::Malformed { .. }));
}

#[test]
fn end_records_are_strict() {
    let (zip, _) = build(&[Spec::file("a", b"abc")], b"");
    refused("truncated", &zip[..zip.len() / 2], |e| matches!(e, Error::Malformed { .. }));
    // A second, fake end record inside the comment, fitting the file exactly.
    let (inner, _) = build(&[Spec::file("fake", b"x")], b"");
    let fake_eocd = inner[inner.len() - 22..].to_vec();
    let (zip, _) = build(&[Spec::file("real", b"abc")], &fake_eocd);
    refused("fake-eocd", &zip, |e| matches!(e, Error::Ambiguous { reason } if reason.contains("the one at byte")));
    // A comment cut short by the end of the file: one reading (unzip's and Python's), read past
    // unless strict.
    let (mut zip, l) = build(&[Spec::file("a", b"abc")], b"");
    put_u16(&mut zip, l.eocd + 20, 10);
    let dir = workdir("comment-past-eof");
    let layout = asset_extract::read_archive(&zip).unwrap();
    assert!(layout.comment_truncated && layout.entries.len() == 1);
    extract_bytes(&zip, &dir.join("out"), &Options::default()).unwrap();
    assert_eq!(std::fs::read(dir.join("out/a")).unwrap(), b"abc");
    let strict = Options { mode: Mode::Replace, strict: true, ..Options::default() };
    refused_with(
        "comment-past-eof",
        &zip,
        strict,
        |e| matches!(e, Error::Malformed { reason, .. } if reason.contains("comment")),
    );
    let (zip, _) = build(&[Spec::file("a", b"abc")], b"");
    // Prepended data is read past by default (see below); `strict` refuses it.
    let strict = Options { mode: Mode::Replace, strict: true, ..Options::default() };
    let prepended = [b"#!/bin/sh\nexit 0\n".as_slice(), &zip].concat();
    refused_with("prepended", &prepended, strict, |e| matches!(e, Error::Malformed { .. }));
}

/// Issue 26: a comment cut short by the end of the file, holding a second end record that reads an
/// archive embedded in the first one's data. Readers that read past the cut comment see the outer
/// archive; readers that take the last end record see the inner one. Refused, naming both.
#[test]
fn a_truncated_comment_holding_another_end_record_is_ambiguous() {
    let (inner, inner_layout) = build(&[Spec::file("inner.txt", b"hidden")], b"");
    // The comment: the inner archive's central directory and end record, then cut short.
    let inner_end = &inner[inner_layout.central[0]..];
    let (mut outer, l) = build(&[Spec::stored("outer.bin", &inner)], inner_end);
    put_u16(&mut outer, l.eocd + 20, (inner_end.len() + 10) as u16);
    let err = asset_extract::read_archive(&outer).unwrap_err();
    assert!(matches!(&err, Error::Ambiguous { reason } if reason.contains("reads 1 entries")), "{err}");
    refused("truncated-comment-ambiguous", &outer, |e| matches!(e, Error::Ambiguous { .. }));
    // Without the second record, the cut comment alone is one reading: read past.
    let (mut alone, l) = build(&[Spec::stored("outer.bin", &inner)], b"");
    put_u16(&mut alone, l.eocd + 20, 10);
    assert_eq!(asset_extract::read_archive(&alone).unwrap().entries[0].path, "outer.bin");
}

/// Issue 26: a ZIP64 end record beside a 32-bit one that needs none. Python follows it whenever
/// its locator is there, Go and unzip only for saturated fields: when they disagree, refused.
#[test]
fn a_zip64_record_that_disagrees_with_the_32_bit_one_is_ambiguous() {
    let agrees = with_zip64_record(2, &[]);
    assert_eq!(asset_extract::read_archive(&agrees).unwrap().entries.len(), 2);
    let disagrees = with_zip64_record(1, &[]);
    refused(
        "zip64-disagrees",
        &disagrees,
        |e| matches!(e, Error::Ambiguous { reason } if reason.contains("ZIP64 record")),
    );
}

/// Issue 26: layouts that mainstream readers read one way, and so does bufkit: a 32-bit end
/// record of all 0xFFFF (disk numbers included) beside a valid ZIP64 one; a stub before a ZIP64
/// archive; junk after the end record's comment; bytes between an entry's data and the next
/// header. Each extracts exactly; the lenient ones are refused with `strict`.
#[test]
fn layouts_with_one_mainstream_reading_are_read() {
    let check = |name: &str, archive: &[u8], strict_refuses: bool| {
        let dir = workdir(name);
        extract_bytes(archive, &dir.join("out"), &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(std::fs::read(dir.join("out/a")).unwrap(), b"abc", "{name}");
        assert_eq!(std::fs::read(dir.join("out/b")).unwrap(), b"def", "{name}");
        let strict = extract_bytes(archive, &dir.join("strict"), &Options { strict: true, ..Options::default() });
        assert_eq!(strict.is_err(), strict_refuses, "{name}: strict");
    };
    let zip64 = with_zip64_record(2, &[]);
    let mut saturated = zip64.clone();
    let eocd = saturated.len() - 22;
    for at in [4, 6, 8, 10] {
        put_u16(&mut saturated, eocd + at, 0xffff);
    }
    put_u32(&mut saturated, eocd + 12, 0xffff_ffff);
    put_u32(&mut saturated, eocd + 16, 0xffff_ffff);
    check("all-ones-beside-zip64", &saturated, false);
    check("stub-before-zip64", &[b"#!/bin/sh\nexit 0\n".as_slice(), &saturated].concat(), true);
    check("junk-after-comment", &[zip64.as_slice(), b"junk after the end"].concat(), true);
    // Bytes between the first entry's data and the second header: offsets say where each is.
    let (zip, l) = build(&[Spec::file("a", b"abc"), Spec::file("b", b"def")], b"");
    let gap = b"GAPGAPGAP";
    let mut spaced = [&zip[..l.local[1]], gap, &zip[l.local[1]..]].concat();
    let (central_b, eocd) = (l.central[1] + gap.len(), l.eocd + gap.len());
    let offset_b = u32::from_le_bytes(spaced[central_b + 42..central_b + 46].try_into().unwrap());
    put_u32(&mut spaced, central_b + 42, offset_b + gap.len() as u32);
    let cd = u32::from_le_bytes(spaced[eocd + 16..eocd + 20].try_into().unwrap());
    put_u32(&mut spaced, eocd + 16, cd + gap.len() as u32);
    check("gap-between-entries", &spaced, false);
}

#[test]
fn zip64_records_are_checked() {
    let (zip, l) = build(&[Spec::file("a", b"abc")], b"");
    // Mark the entry count as ZIP64 with no locator: refused.
    let mut no_locator = zip.clone();
    put_u16(&mut no_locator, l.eocd + 8, 0xffff);
    put_u16(&mut no_locator, l.eocd + 10, 0xffff);
    refused("zip64-missing", &no_locator, |e| matches!(e, Error::Malformed { .. }));
    // A ZIP64 end record claiming 2^62 entries: refused without allocating for them.
    let cd = l.central[0];
    let mut z = zip[..l.eocd].to_vec();
    let record = z.len() as u64;
    z.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
    z.extend_from_slice(&44u64.to_le_bytes());
    z.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    z.extend_from_slice(&(1u64 << 62).to_le_bytes());
    z.extend_from_slice(&(1u64 << 62).to_le_bytes());
    z.extend_from_slice(&((l.eocd - cd) as u64).to_le_bytes());
    z.extend_from_slice(&(cd as u64).to_le_bytes());
    z.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
    z.extend_from_slice(&0u32.to_le_bytes());
    z.extend_from_slice(&record.to_le_bytes());
    z.extend_from_slice(&1u32.to_le_bytes());
    let mut eocd = zip[l.eocd..].to_vec();
    put_u16(&mut eocd, 8, 0xffff);
    put_u16(&mut eocd, 10, 0xffff);
    let absurd = [z.clone(), eocd.clone()].concat();
    refused(
        "zip64-absurd-count",
        &absurd,
        |e| matches!(e, Error::Malformed { reason, .. } if reason.contains("more than the limit of 4194304")),
    );
    // Tens of millions of entries, in a directory that could hold them: refused by the stated
    // limit (asset_extract::MAX_ENTRIES), before anything is allocated or read for them.
    let mut many = absurd.clone();
    let at = record as usize;
    many[at + 24..at + 32].copy_from_slice(&30_000_000u64.to_le_bytes());
    many[at + 32..at + 40].copy_from_slice(&30_000_000u64.to_le_bytes());
    refused(
        "zip64-thirty-million",
        &many,
        |e| matches!(e, Error::Malformed { reason, .. } if reason.contains("30000000 entries declared: more than the limit")),
    );
    // The locator pointing past the end.
    let mut past = [z, eocd].concat();
    let locator = past.len() - 22 - 20;
    put_u32(&mut past, locator + 8, 0x7fff_ffff);
    refused("zip64-locator-past-eof", &past, |e| matches!(e, Error::Malformed { .. }));
}

#[test]
fn limits_and_cancellation() {
    let (zip, _) = build(&[Spec::file("zeros", &vec![0u8; 1 << 20])], b"");
    let dir = workdir("limits");
    let quota = extract_bytes(&zip, &dir.join("out"), &Options { quota: Some(1000), ..Options::default() });
    assert!(matches!(quota, Err(Error::Limit { .. })));
    let ratio = extract_bytes(&zip, &dir.join("out"), &Options { max_ratio: Some(100.0), ..Options::default() });
    assert!(matches!(ratio, Err(Error::Limit { .. })));
    let cancel = AtomicBool::new(true);
    assert!(matches!(
        extract_bytes(&zip, &dir.join("out"), &Options { cancel: Some(&cancel), ..Options::default() }),
        Err(Error::Cancelled)
    ));
    assert!(listing(&dir).is_empty(), "nothing left behind");
}

#[cfg(unix)]
#[test]
fn a_destination_that_is_a_symlink_is_refused_in_every_mode_and_never_written_through() {
    let dir = workdir("symlink-dest");
    std::fs::create_dir(dir.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("out")).unwrap();
    let (zip, _) = build(&[Spec::file("a", b"abc")], b"");
    for mode in [Mode::Create, Mode::Replace, Mode::Merge] {
        let err = extract_bytes(&zip, &dir.join("out"), &Options { mode, ..Options::default() }).unwrap_err();
        assert!(matches!(err, Error::Destination { .. }), "{mode:?}: {err}");
        assert!(listing(&dir.join("elsewhere")).is_empty(), "{mode:?}: nothing written through the link");
        assert!(std::fs::symlink_metadata(dir.join("out")).unwrap().file_type().is_symlink(), "{mode:?}");
        assert_eq!(listing(&dir), vec!["elsewhere", "out"], "{mode:?}: nothing left beside");
    }
}

#[test]
fn large_entries_stream_and_verify() {
    let big: Vec<u8> = (0..6u32 << 20).map(|i| (i % 251) as u8 ^ (i >> 16) as u8).collect();
    let (zip, l) = build(&[Spec::file("big.bin", &big)], b"");
    let dir = workdir("large");
    extract_bytes(&zip, &dir.join("out"), &Options::default()).unwrap();
    assert_eq!(std::fs::read(dir.join("out/big.bin")).unwrap(), big);
    let mut bad = zip.clone();
    put_u32(&mut bad, l.local[0] + 14, 3);
    put_u32(&mut bad, l.central[0] + 16, 3);
    refused("large-crc", &bad, |e| matches!(e, Error::Crc { .. }));
    // Garbage in the middle of the deflate data: a data error or a CRC error, never a file.
    let mut bad = zip.clone();
    let middle = l.local[0] + (l.central[0] - l.local[0]) / 2; // well inside the compressed data
    bad[middle..middle + 64].fill(0xff);
    refused("large-garbage", &bad, |e| matches!(e, Error::Data { .. } | Error::Malformed { .. } | Error::Crc { .. }));
}

#[test]
fn several_large_entries_are_written_behind_by_any_worker_at_any_thread_count() {
    let blob = |seed: u32| -> Vec<u8> {
        (0..(5u32 << 20) + seed).map(|i| ((i * seed) % 253) as u8 ^ (i >> 12) as u8).collect()
    };
    let specs = [
        Spec::file("a/one.bin", &blob(7)),
        Spec::file("small-1", b"between the large ones"),
        Spec::file("b/two.bin", &blob(11)),
        Spec::file("c/three.bin", &blob(13)),
        Spec::file("small-2", b"after them"),
    ];
    let (zip, _) = build(&specs, b"");
    let dir = workdir("write-behind");
    for threads in [1, 2, 3, 8] {
        for durable in [false, true] {
            let out = dir.join(format!("out-{threads}-{durable}"));
            let report = extract_bytes(&zip, &out, &Options { threads, durable, ..Options::default() }).unwrap();
            assert_eq!(report.files, 5);
            for spec in &specs {
                let name = std::str::from_utf8(&spec.name).unwrap();
                assert_eq!(std::fs::read(out.join(name)).unwrap(), spec.data, "{name} at {threads} threads");
            }
        }
    }
}

#[test]
fn a_very_deep_name_extracts_on_a_small_stack() {
    // 1,500 nested directories: nothing on the calling thread may recurse per path component (a
    // BEAM dirty scheduler or a JVM thread can have a small stack). 300 on Windows, which resolves
    // every name from the tree's path (no openat): 1,500 take minutes there (under wine).
    let name = format!("{}deep.txt", "d/".repeat(if cfg!(windows) { 300 } else { 1500 }));
    let (zip, _) = build(&[Spec::file(&name, b"at the bottom")], b"");
    let dir = workdir("deep");
    let out = dir.join("out");
    let (zip2, out2) = (zip.clone(), out.clone());
    std::thread::Builder::new()
        .stack_size(128 << 10)
        .spawn(move || extract_bytes(&zip2, &out2, &Options { threads: 2, ..Options::default() }).unwrap())
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(std::fs::read(out.join(&name)).unwrap(), b"at the bottom");
}

#[test]
fn a_merge_makes_the_next_incremental_run_write_everything_afresh() {
    let dir = workdir("merge-then-incremental");
    let dest = dir.join("out");
    let a = build(&[Spec::file("app.js", b"version A"), Spec::file("lib.js", b"library A")], b"").0;
    let b = build(&[Spec::file("app.js", b"version B"), Spec::file("lib.js", b"library B")], b"").0;
    let inc = Options { mode: Mode::Replace, incremental: true, ..Options::default() };
    assert_eq!(extract_bytes(&a, &dest, &inc).unwrap().reused, 0);
    extract_bytes(&b, &dest, &Options { mode: Mode::Merge, ..Options::default() }).unwrap();
    assert!(!dest.join(".bufkit-manifest").exists(), "the merge left the manifest of files it replaced");
    let after = extract_bytes(&a, &dest, &inc).unwrap();
    assert_eq!((after.files, after.reused), (2, 0));
    assert_eq!(std::fs::read(dest.join("app.js")).unwrap(), b"version A");
    assert_eq!(std::fs::read(dest.join("lib.js")).unwrap(), b"library A");
    assert_eq!(extract_bytes(&a, &dest, &inc).unwrap().reused, 2, "with nothing merged since, kept again");
}

#[cfg(unix)]
#[test]
fn incremental_extraction_keeps_what_did_not_change() {
    use std::os::unix::fs::MetadataExt;
    let dir = workdir("incremental");
    let dest = dir.join("out");
    let v1 = build(
        &[
            Spec::file("same.js", &b"unchanged ".repeat(500)),
            Spec::file("edit.js", b"version 1"),
            Spec::file("gone.js", b"old"),
        ],
        b"",
    )
    .0;
    let inc = || Options { mode: Mode::Replace, incremental: true, ..Options::default() };
    let first = extract_bytes(&v1, &dest, &inc()).unwrap();
    assert_eq!((first.files, first.reused), (3, 0));
    let inode = std::fs::metadata(dest.join("same.js")).unwrap().ino();
    let v2 = build(
        &[
            Spec::file("same.js", &b"unchanged ".repeat(500)),
            Spec::file("edit.js", b"version 2"),
            Spec::file("new.js", b"added"),
        ],
        b"",
    )
    .0;
    let second = extract_bytes(&v2, &dest, &inc()).unwrap();
    assert_eq!((second.files, second.reused), (3, 1));
    assert_eq!(std::fs::metadata(dest.join("same.js")).unwrap().ino(), inode, "kept by hard link, not rewritten");
    assert_eq!(std::fs::read(dest.join("edit.js")).unwrap(), b"version 2");
    assert!(!dest.join("gone.js").exists() && dest.join("new.js").exists());
    // A failing upgrade leaves the previous version exactly as it was.
    let (mut bad, l) =
        build(&[Spec::file("same.js", &b"unchanged ".repeat(500)), Spec::file("edit.js", b"version 3")], b"");
    put_u32(&mut bad, l.local[1] + 14, 9);
    put_u32(&mut bad, l.central[1] + 16, 9);
    assert!(matches!(extract_bytes(&bad, &dest, &inc()), Err(Error::Crc { .. })));
    assert_eq!(std::fs::read(dest.join("edit.js")).unwrap(), b"version 2");
    assert!(dest.join("new.js").exists());
    // A file swapped for a symlink is rewritten, never followed or kept.
    std::fs::remove_file(dest.join("same.js")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dest.join("same.js")).unwrap();
    let third = extract_bytes(&v2, &dest, &inc()).unwrap();
    assert_eq!(third.reused, 2);
    assert!(std::fs::symlink_metadata(dest.join("same.js")).unwrap().file_type().is_file());
    assert_eq!(std::fs::read(dest.join("same.js")).unwrap(), b"unchanged ".repeat(500));
    // The manifest's name cannot be smuggled in by an archive.
    refused("manifest-name", &build(&[Spec::file(".bufkit-manifest", b"x")], b"").0, |e| {
        matches!(e, Error::UnsafeName { .. })
    });
}

#[cfg(unix)]
#[test]
fn incremental_reuse_never_reaches_through_a_symlinked_directory() {
    use std::os::unix::fs::MetadataExt;
    let dir = workdir("incremental-symlinked-dir");
    let (dest, outside) = (dir.join("out"), dir.join("outside"));
    let content = b"kept content".repeat(50);
    let v1 = build(&[Spec::file("lib/keep.bin", &content), Spec::file("other.txt", b"1")], b"").0;
    let inc = || Options { mode: Mode::Replace, incremental: true, ..Options::default() };
    extract_bytes(&v1, &dest, &inc()).unwrap();
    // Someone swaps the directory for a symlink to a place holding a file of the same name and
    // size (a different file, unrelated to the extraction).
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.bin"), vec![b'!'; content.len()]).unwrap();
    std::fs::remove_dir_all(dest.join("lib")).unwrap();
    std::os::unix::fs::symlink(&outside, dest.join("lib")).unwrap();
    let outside_inode = std::fs::metadata(outside.join("keep.bin")).unwrap().ino();
    let report = extract_bytes(&v1, &dest, &inc()).unwrap();
    assert_eq!(report.reused, 1, "only other.txt is kept");
    assert!(std::fs::symlink_metadata(dest.join("lib")).unwrap().is_dir(), "a real directory again");
    assert_eq!(std::fs::read(dest.join("lib/keep.bin")).unwrap(), content, "written from the archive");
    assert_ne!(std::fs::metadata(dest.join("lib/keep.bin")).unwrap().ino(), outside_inode, "not linked from outside");
    assert_eq!(std::fs::read(outside.join("keep.bin")).unwrap(), vec![b'!'; content.len()], "outside untouched");
    // The destination itself replaced by a symlink: refused, nothing reached through it.
    let elsewhere = dir.join("elsewhere");
    std::fs::rename(&dest, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &dest).unwrap();
    assert!(matches!(extract_bytes(&v1, &dest, &inc()), Err(Error::Destination { .. })));
    assert!(std::fs::symlink_metadata(&dest).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(elsewhere.join("lib/keep.bin")).unwrap(), content);
}

#[test]
fn extracting_to_memory_applies_the_same_rules() {
    let (zip, _) = build(&sample(), b"");
    let files = asset_extract::extract_to_memory(&zip, &Options::default()).unwrap();
    let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names, ["assets/app.js", "assets/logo.png", "bin/tool", "nested/inner.zip", "empty.txt"]);
    assert_eq!(files[0].1, b"function main() { return 42; }\n".repeat(200));
    let only =
        asset_extract::extract_to_memory(&zip, &Options { only: vec!["*.png".into()], ..Options::default() }).unwrap();
    assert_eq!(only.len(), 1);
    let (mut bad, l) = build(&[Spec::file("a", b"abc")], b"");
    put_u32(&mut bad, l.local[0] + 14, 1);
    put_u32(&mut bad, l.central[0] + 16, 1);
    assert!(matches!(asset_extract::extract_to_memory(&bad, &Options::default()), Err(Error::Crc { .. })));
    let (mut lie, l) = build(&[Spec::file("a", &b"abc".repeat(10))], b"");
    put_u32(&mut lie, l.local[0] + 22, 0xffff_fff0);
    put_u32(&mut lie, l.central[0] + 24, 0xffff_fff0);
    assert!(matches!(asset_extract::extract_to_memory(&lie, &Options::default()), Err(Error::Malformed { .. })));
    assert!(matches!(
        asset_extract::extract_to_memory(&build(&[Spec::file("../x", b"1")], b"").0, &Options::default()),
        Err(Error::UnsafeName { .. })
    ));
}

#[test]
fn an_archive_truncated_while_it_is_extracted_is_an_error_or_a_snapshot_never_a_crash() {
    // With the archive mapped, truncating it underneath killed the process with SIGBUS (and a
    // JVM or BEAM with it). Now it is read: whatever moment the truncation lands, the result is
    // a clean error or the archive as it was, and nothing is left behind.
    let dir = workdir("truncate-during");
    let specs: Vec<Spec> = (0..40).map(|i| Spec::stored(&format!("f{i}.bin"), &vec![i as u8; 512 << 10])).collect();
    let (zip, _) = build(&specs, b"");
    let archive = dir.join("a.zip");
    let (mut errors, mut whole) = (0, 0);
    for round in 0..20u64 {
        std::fs::write(&archive, &zip).unwrap();
        let dest = dir.join(format!("out{round}"));
        let cutter = {
            let archive = archive.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_micros(200 * round));
                std::fs::OpenOptions::new().write(true).open(&archive).unwrap().set_len(1000).unwrap();
            })
        };
        let result = extract(&archive, &dest, &Options { threads: 2, ..Options::default() });
        cutter.join().unwrap();
        match result {
            Ok(report) => {
                whole += 1;
                assert_eq!(report.files, 40);
                assert_eq!(std::fs::read(dest.join("f39.bin")).unwrap(), vec![39u8; 512 << 10]);
            }
            Err(e) => {
                errors += 1;
                assert!(matches!(e, Error::Io { .. } | Error::Malformed { .. }), "round {round}: {e}");
                assert!(!dest.exists(), "round {round}: nothing left behind");
            }
        }
    }
    assert_eq!(errors + whole, 20);
    assert!(listing(&dir).iter().all(|n| n == "a.zip" || n.starts_with("out")), "no staging left: {:?}", listing(&dir));
}

#[test]
fn data_prepended_to_an_archive_is_read_past_when_every_offset_agrees() {
    // A .jmod's "JM\1\0" header, a shell script before an executable jar: unzip and the JDK read
    // past them, with every offset shifted by their length.
    let (zip, _) = build(&sample(), b"");
    for stub in [&b"JM\x01\x00"[..], &b"#!/bin/sh\nexec java -jar \"$0\" \"$@\"\n"[..]] {
        let archive = [stub, &zip].concat();
        let layout = asset_extract::read_archive(&archive).unwrap();
        assert_eq!(layout.prepended, stub.len() as u64);
        let dir = workdir("prepended");
        let report = extract_bytes(&archive, &dir.join("out"), &Options::default()).unwrap();
        assert_eq!((report.files, report.prepended), (5, stub.len() as u64));
        assert_eq!(std::fs::read(dir.join("out/bin/tool")).unwrap(), b"#!/bin/sh\necho hi\n");
        let strict = Options { strict: true, ..Options::default() };
        assert!(matches!(extract_bytes(&archive, &dir.join("out2"), &strict), Err(Error::Malformed { .. })));
    }
    // One offset that does not agree with the shift: no consistent reading, refused.
    let (mut zip, layout) = build(&sample(), b"");
    put_u32(&mut zip, layout.central[1] + 42, 7);
    let archive = [&b"JM\x01\x00"[..], &zip].concat();
    refused("prepended-inconsistent", &archive, |e| matches!(e, Error::Malformed { .. }));
}

#[test]
fn names_without_the_utf8_flag_are_code_page_437_and_dos_backslashes_are_separators() {
    // Python's test archive zip_cp437_header.zip: "filename_with_æoå.txt" in CP437, no UTF-8 flag,
    // made on MS-DOS (host 0, which the writer uses when no Unix mode is given).
    let cp437 = Spec { name: b"filename_with_\x91o\x86.txt".to_vec(), unix_mode: None, ..Spec::file("x", b"hello") };
    let dos = Spec { name: b"docs\\readme.txt".to_vec(), unix_mode: None, ..Spec::file("x", b"read me") };
    let (mut zip, layout) = build(&[cp437.clone(), dos], b"");
    for at in [layout.local[0] + 6, layout.central[0] + 8] {
        put_u16(&mut zip, at, 0); // clear the UTF-8 flag
    }
    let dir = workdir("cp437");
    extract_bytes(&zip, &dir.join("out"), &Options::default()).unwrap();
    assert_eq!(std::fs::read(dir.join("out/filename_with_æoå.txt")).unwrap(), b"hello");
    assert_eq!(std::fs::read(dir.join("out/docs/readme.txt")).unwrap(), b"read me");
    // With the UTF-8 flag, invalid UTF-8 is refused; backslashes from a Unix host are refused;
    // a DOS backslash path that climbs out is refused after conversion.
    refused("cp437-flagged", &build(&[cp437], b"").0, |e| matches!(e, Error::UnsafeName { .. }));
    refused("unix-backslash", &build(&[Spec::file("a\\b", b"1")], b"").0, |e| matches!(e, Error::UnsafeName { .. }));
    let climb = Spec { name: b"..\\..\\evil.txt".to_vec(), unix_mode: None, ..Spec::file("x", b"1") };
    refused("dos-climb", &build(&[climb], b"").0, |e| matches!(e, Error::UnsafeName { .. }));
}

#[cfg(unix)]
#[test]
fn a_pipe_zip_read_is_a_regular_file_and_symlinks_are_refused_or_skipped_never_created() {
    // `echo hi | zip out.zip -` records the entry "-" with the pipe's mode (FIFO, 0600): unzip
    // extracts its data as a regular file, and so does bufkit (0644, never a FIFO).
    let pipe = Spec { unix_mode: Some(0o010600), ..Spec::file("-", b"hello from a pipe\n") };
    let link = Spec { unix_mode: Some(0o120777), ..Spec::stored("docs/latest", b"/etc/passwd") };
    let dir = workdir("pipe-and-link");
    let report =
        extract_bytes(&build(std::slice::from_ref(&pipe), b"").0, &dir.join("pipe"), &Options::default()).unwrap();
    assert_eq!(report.files, 1);
    let meta = std::fs::symlink_metadata(dir.join("pipe/-")).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!(meta.permissions().mode() & 0o7777, 0o644);
    assert_eq!(std::fs::read(dir.join("pipe/-")).unwrap(), b"hello from a pipe\n");
    let both = build(&[pipe, link], b"").0;
    let err = extract_bytes(&both, &dir.join("refused"), &Options::default()).unwrap_err();
    assert!(matches!(&err, Error::UnsupportedKind { kind: "symlink", entry } if entry == "docs/latest"), "{err}");
    let skip = Options { skip_symlinks: true, ..Options::default() };
    let report = extract_bytes(&both, &dir.join("skipped"), &skip).unwrap();
    assert_eq!((report.files, report.symlinks_skipped), (1, 1));
    assert!(std::fs::symlink_metadata(dir.join("skipped/docs/latest")).is_err(), "no link, no file");
    assert_eq!(listing(&dir), vec!["pipe", "skipped"]);
}

/// One deflated entry the way streaming writers (.NET, some Java tools) write it: a ZIP64 extra
/// field in the local header with unknown (zero) sizes and all-ones 32-bit sizes, then an 8-byte
/// data descriptor; with `zip64_end`, an end record whose fields are all ones, pointing to a
/// ZIP64 end record.
fn streamed_zip64(name: &str, data: &[u8], zip64_end: bool) -> Vec<u8> {
    let body = zipwriter::deflate(data);
    let crc = crc32fast::hash(data);
    let mut z = Vec::new();
    let le16 = |z: &mut Vec<u8>, v: u16| z.extend_from_slice(&v.to_le_bytes());
    let le32 = |z: &mut Vec<u8>, v: u32| z.extend_from_slice(&v.to_le_bytes());
    le32(&mut z, 0x0403_4b50);
    le16(&mut z, 45);
    le16(&mut z, 0x0808);
    le16(&mut z, 8);
    le32(&mut z, 0x0021_0000);
    le32(&mut z, 0);
    le32(&mut z, 0xffff_ffff);
    le32(&mut z, 0xffff_ffff);
    le16(&mut z, name.len() as u16);
    le16(&mut z, 20);
    z.extend_from_slice(name.as_bytes());
    le16(&mut z, 1);
    le16(&mut z, 16);
    z.extend_from_slice(&[0; 16]);
    z.extend_from_slice(&body);
    le32(&mut z, 0x0807_4b50);
    le32(&mut z, crc);
    z.extend_from_slice(&(body.len() as u64).to_le_bytes());
    z.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let cd = z.len();
    le32(&mut z, 0x0201_4b50);
    le16(&mut z, 3 << 8 | 45);
    le16(&mut z, 45);
    le16(&mut z, 0x0808);
    le16(&mut z, 8);
    le32(&mut z, 0x0021_0000);
    le32(&mut z, crc);
    le32(&mut z, body.len() as u32);
    le32(&mut z, data.len() as u32);
    le16(&mut z, name.len() as u16);
    z.extend_from_slice(&[0; 8]);
    le32(&mut z, 0o100644 << 16);
    le32(&mut z, 0);
    z.extend_from_slice(name.as_bytes());
    let cd_size = z.len() - cd;
    if zip64_end {
        let record = z.len();
        le32(&mut z, 0x0606_4b50);
        z.extend_from_slice(&44u64.to_le_bytes());
        le16(&mut z, 45);
        le16(&mut z, 45);
        le32(&mut z, 0);
        le32(&mut z, 0);
        z.extend_from_slice(&1u64.to_le_bytes());
        z.extend_from_slice(&1u64.to_le_bytes());
        z.extend_from_slice(&(cd_size as u64).to_le_bytes());
        z.extend_from_slice(&(cd as u64).to_le_bytes());
        le32(&mut z, 0x0706_4b50);
        le32(&mut z, 0);
        z.extend_from_slice(&(record as u64).to_le_bytes());
        le32(&mut z, 1);
    }
    le32(&mut z, 0x0605_4b50);
    le32(&mut z, 0);
    let (count, size, offset) =
        if zip64_end { (0xffff, 0xffff_ffff, 0xffff_ffff) } else { (1, cd_size as u32, cd as u32) };
    le16(&mut z, count);
    le16(&mut z, count);
    le32(&mut z, size);
    le32(&mut z, offset);
    le16(&mut z, 0);
    z
}

#[test]
fn zip64_descriptors_and_all_ones_end_records_extract() {
    let data = b"streamed with a ZIP64 descriptor ".repeat(100);
    let dir = workdir("zip64-streamed");
    for (i, zip64_end) in [false, true].into_iter().enumerate() {
        let zip = streamed_zip64("s.txt", &data, zip64_end);
        let out = dir.join(format!("out{i}"));
        extract_bytes(&zip, &out, &Options::default()).unwrap_or_else(|e| panic!("zip64 end {zip64_end}: {e}"));
        assert_eq!(std::fs::read(out.join("s.txt")).unwrap(), data);
    }
}

#[test]
fn data_appended_after_an_archive_is_read_past_when_one_end_record_fits() {
    let (zip, layout) = build(&sample(), b"");
    let appended = b"APPENDED SIGNATURE BLOCK\x00\x01\x02".repeat(10);
    let archive = [&zip[..], &appended].concat();
    assert_eq!(asset_extract::read_archive(&archive).unwrap().appended, appended.len() as u64);
    let dir = workdir("appended");
    let report = extract_bytes(&archive, &dir.join("out"), &Options::default()).unwrap();
    assert_eq!((report.files, report.appended), (5, appended.len() as u64));
    let strict = Options { strict: true, ..Options::default() };
    assert!(matches!(extract_bytes(&archive, &dir.join("strict"), &strict), Err(Error::Malformed { .. })));
    // A second directory and end record in the appended data: two readings, refused.
    let copy = &zip[layout.central[0]..];
    let ambiguous = [&zip[..], b"junk", copy, b"more junk"].concat();
    refused("appended-ambiguous", &ambiguous, |e| matches!(e, Error::Ambiguous { .. }));
}

#[test]
fn a_central_extra_field_that_disagrees_with_its_own_length_is_refused() {
    let (zip, layout) = build(&[Spec::file("a.txt", b"hello")], b"");
    let at = layout.central[0] + 46 + "a.txt".len();
    // One extra record that claims 8 bytes of data where 4 follow: the area ends mid-record.
    let bad_extra = [0x34, 0x12, 8, 0, 1, 2, 3, 4];
    let mut spliced = [&zip[..at], &bad_extra, &zip[at..]].concat();
    put_u16(&mut spliced, layout.central[0] + 30, bad_extra.len() as u16);
    let eocd = layout.eocd + bad_extra.len();
    let cd_size = u32::from_le_bytes(spliced[eocd + 12..eocd + 16].try_into().unwrap());
    put_u32(&mut spliced, eocd + 12, cd_size + bad_extra.len() as u32);
    refused("bad-extra", &spliced, |e| matches!(e, Error::Malformed { reason, .. } if reason.contains("extra field")));
    // The same area with a record that fits is fine.
    let good_extra = [0x34, 0x12, 4, 0, 1, 2, 3, 4];
    let mut fine = [&zip[..at], &good_extra, &zip[at..]].concat();
    put_u16(&mut fine, layout.central[0] + 30, good_extra.len() as u16);
    put_u32(&mut fine, eocd + 12, cd_size + good_extra.len() as u32);
    let dir = workdir("good-extra");
    extract_bytes(&fine, &dir.join("out"), &Options::default()).unwrap();
}

/// A stored "a.txt" whose local header carries `extra`.
fn with_local_extra(extra: &[u8]) -> Vec<u8> {
    let (zip, l) = build(&[Spec::stored("a.txt", b"hello")], b"");
    let at = l.local[0] + 30 + "a.txt".len();
    let mut spliced = [&zip[..at], extra, &zip[at..]].concat();
    put_u16(&mut spliced, l.local[0] + 28, extra.len() as u16);
    let eocd = l.eocd + extra.len();
    let cd_offset = u32::from_le_bytes(spliced[eocd + 16..eocd + 20].try_into().unwrap());
    put_u32(&mut spliced, eocd + 16, cd_offset + extra.len() as u32);
    spliced
}

/// Issue 26: a local extra block whose length runs past the extra area is refused, as in the
/// central directory; 1 to 3 zero bytes after the last whole block (zipalign's padding) are not.
#[test]
fn local_extra_fields_are_checked_and_zipalign_padding_is_accepted() {
    let past = with_local_extra(&[0x34, 0x12, 8, 0, 1, 2, 3, 4]);
    refused(
        "local-extra-past",
        &past,
        |e| matches!(e, Error::Malformed { reason, .. } if reason.contains("local extra")),
    );
    let junk = with_local_extra(&[0x34, 0x12, 0, 0, 0, 0, 1]);
    refused(
        "local-extra-junk",
        &junk,
        |e| matches!(e, Error::Malformed { reason, .. } if reason.contains("local extra")),
    );
    for padding in [&[0u8][..], &[0, 0], &[0, 0, 0]] {
        let padded = with_local_extra(&[&[0x34, 0x12, 2, 0, 9, 9][..], padding].concat());
        let dir = workdir("zipalign");
        extract_bytes(&padded, &dir.join("out"), &Options::default()).unwrap();
        assert_eq!(std::fs::read(dir.join("out/a.txt")).unwrap(), b"hello");
    }
}

/// Issue 26: modification times restored, from the extended timestamp, from NTFS, or from the DOS
/// date and time read as local time (as unzip does); for files, streamed large files and
/// directories; `no_mtime` leaves the time of the extraction.
#[cfg(unix)]
#[test]
fn modification_times_are_restored_unless_told_not_to() {
    use std::os::unix::fs::MetadataExt;
    let ut = |t: u32| [&[0x55, 0x54, 5, 0, 1][..], &t.to_le_bytes()].concat();
    let ntfs = |ticks: u64| {
        let mut x = vec![0x0a, 0, 32, 0, 0, 0, 0, 0, 1, 0, 24, 0];
        x.extend_from_slice(&ticks.to_le_bytes());
        x.extend_from_slice(&[0; 16]);
        x
    };
    let big = b"a large entry, streamed and written behind ".repeat(200_000); // 8.8 MB
    let (zip, _) = build(
        &[
            Spec { central_extra: ut(1_600_000_000), ..Spec::file("ut.txt", b"ut") },
            Spec { central_extra: ntfs(132_000_000_000_000_000), ..Spec::file("ntfs.txt", b"ntfs") },
            // 2020-06-15 13:45:30 (DOS: date (40 << 9) | (6 << 5) | 15, time (13 << 11) | (45 << 5) | 15)
            Spec { dos: ((40 << 9) | (6 << 5) | 15, (13 << 11) | (45 << 5) | 15), ..Spec::file("dos.txt", b"dos") },
            Spec { central_extra: ut(1_500_000_000), ..Spec::dir("d/") },
            Spec { central_extra: ut(1_400_000_000), ..Spec::file("d/big.txt", &big) },
        ],
        b"",
    );
    let dir = workdir("mtimes");
    extract_bytes(&zip, &dir.join("out"), &Options { threads: 2, ..Options::default() }).unwrap();
    let mtime = |p: &str| std::fs::metadata(dir.join("out").join(p)).unwrap().mtime();
    assert_eq!(mtime("ut.txt"), 1_600_000_000);
    assert_eq!(mtime("ntfs.txt"), 132_000_000_000_000_000 / 10_000_000 - 11_644_473_600);
    let dos = asset_extract::Mtime::Dos(((40 << 9) | (6 << 5) | 15) << 16 | ((13 << 11) | (45 << 5) | 15));
    assert_eq!(mtime("dos.txt"), dos.unix().unwrap().0, "local time, as unzip reads it");
    assert_eq!(mtime("d/big.txt"), 1_400_000_000, "a file written behind, in chunks");
    assert_eq!(mtime("d"), 1_500_000_000, "a directory, after its files");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    extract_bytes(&zip, &dir.join("now"), &Options { no_mtime: true, ..Options::default() }).unwrap();
    let fresh = std::fs::metadata(dir.join("now/ut.txt")).unwrap().mtime();
    assert!((fresh - now).abs() < 60, "no_mtime: the time of the extraction");
}

#[test]
fn a_name_ending_in_a_slash_is_a_directory_whatever_its_mode() {
    // Found by the structured fuzzer: a FIFO-mode entry named "x/" was extracted as a file "x".
    for mode in [0o010600, 0o100644] {
        let spec = Spec { unix_mode: Some(mode), ..Spec::stored("x/", b"") };
        let entries = asset_extract::read_entries(&build(&[spec], b"").0).unwrap();
        assert_eq!((entries[0].path.as_str(), entries[0].kind), ("x", asset_extract::Kind::Directory), "{mode:o}");
    }
}
