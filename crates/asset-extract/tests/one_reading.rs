//! One reading or none: layouts whose bytes other readers (Info-ZIP unzip, Python's `zipfile`,
//! bsdtar) read differently from the way bufkit read them before, each now refused or read the
//! way every reader reads it, the same through every path (memory, file, in place, mapped).

mod support;
mod zipwriter;

use asset_extract::{
    AssetArchive, Error, Holding, Kind, LocalHeaders, Options, extract, extract_bytes, extract_source, extract_stream,
    read_archive,
};
use support::{listing, workdir};
use test_support::zip::{Trickle, files_of};
use zipwriter::{Spec, build, put_u16, put_u32, with_zip64_record as zip64};

/// What every path makes of `archive`: the file entries it reads (name and bytes), or the error.
/// Every path must agree: extraction from memory and from a file, and reads in place, held each
/// way, with local headers checked at open.
fn reading(name: &str, archive: &[u8]) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let dir = workdir(name);
    let zip = dir.join("archive.zip");
    std::fs::write(&zip, archive).unwrap();
    let mut results = Vec::new();
    // From memory, from the file, from a stream (in pieces of 7 bytes, as a pipe may give them),
    // and from a caller's source.
    for k in 0..4 {
        let out = dir.join(format!("out{k}"));
        let options = Options::default();
        let done = match k {
            0 => extract_bytes(archive, &out, &options),
            1 => extract(&zip, &out, &options),
            2 => extract_stream(&mut Trickle { rest: archive, piece: 7 }, &out, &options),
            _ => extract_source(&archive, &out, &options),
        };
        results.push(done.map(|_| files_in(&out, &out)));
        if results.last().is_some_and(Result::is_err) {
            assert!(!out.exists(), "{name}: a refused extraction left {}", out.display());
        }
    }
    for holding in [Holding::Read, Holding::Map] {
        results.push(AssetArchive::open(&zip, holding).and_then(|a| files_of(&a)));
    }
    results.push(AssetArchive::from_bytes(archive.to_vec()).and_then(|a| files_of(&a)));
    results.push(AssetArchive::open_source(archive.to_vec()).and_then(|a| files_of(&a)));
    let first = results.remove(0);
    for (k, other) in results.iter().enumerate() {
        match (&first, other) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}: path {} reads other files", k + 1),
            (Err(a), Err(b)) => {
                assert_eq!(std::mem::discriminant(a), std::mem::discriminant(b), "{name}: {a} / {b}")
            }
            (a, b) => panic!("{name}: the paths disagree: {a:?} against path {}: {b:?}", k + 1),
        }
    }
    first
}

fn files_in(root: &std::path::Path, dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    for name in listing(dir) {
        let path = dir.join(&name);
        if path.is_dir() {
            found.extend(files_in(root, &path));
        } else {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            found.push((rel, std::fs::read(&path).unwrap()));
        }
    }
    found.sort();
    found
}

/// An archive placed after a complete archive of the same layout, its offsets left as they were:
/// the end record's offset lands on the first archive's directory (a complete reading), and the
/// directory right before the end records is the second's (the reading unzip, Python and bsdtar
/// take). Two complete readings: refused, strict or not.
#[test]
fn an_archive_after_a_copy_of_itself_with_unadjusted_offsets_is_ambiguous() {
    let visible = build(&[Spec::file("app.js", b"the code every reader runs")], b"").0;
    let hidden = build(&[Spec::file("app.js", b"the code one reader runs!!")], b"").0;
    assert_eq!(visible.len(), hidden.len());
    let both = [hidden.as_slice(), &visible].concat();
    let err = reading("prepended-copy", &both).unwrap_err();
    assert!(matches!(&err, Error::Ambiguous { reason } if reason.contains("just before the end records")), "{err}");
    let strict = extract_bytes(
        &both,
        &workdir("prepended-copy-strict").join("out"),
        &Options { strict: true, ..Options::default() },
    );
    assert!(matches!(strict, Err(Error::Ambiguous { .. })), "{strict:?}");

    // Where only one of the two places holds a directory that parses, that one is read: junk
    // before an archive whose offsets count from its own start is read past, as before.
    let mut stub = b"#!/bin/sh\nexit 0\n".to_vec();
    stub.extend_from_slice(&visible);
    assert_eq!(reading("stub", &stub).unwrap(), vec![("app.js".into(), b"the code every reader runs".to_vec())]);
}

/// The root of the wrong readings of issue 51: an archive beside an edited copy of itself, its
/// offsets left as they were, before it or after it (`cat a.zip b.zip`). The end record's offset
/// lands on the first copy's directory; the directory right before the end records is the
/// second's. Both are complete, so the archive is refused, whatever one of the two readings
/// would fail later (a name, a size, a disk number, an overlap): which reading is taken never
/// hangs on this library's own checks.
#[test]
fn two_complete_directories_are_refused_whatever_either_would_fail_later() {
    let (base, l) = build(&[Spec::file("sub/data.bin", &[7; 300]), Spec::file("readme.txt", b"hello")], b"");
    type Edit = fn(&mut Vec<u8>, &zipwriter::Layout);
    let edits: [(&str, Edit); 5] = [
        ("one name changed", |z, l| {
            z[l.local[0] + 30 + 1] = b':';
            z[l.central[0] + 46 + 1] = b':';
        }),
        ("a size of 2 GiB in both headers", |z, l| {
            put_u32(z, l.local[0] + 22, 0x8000_0000);
            put_u32(z, l.central[0] + 24, 0x8000_0000);
        }),
        ("a directory record's disk-start field", |z, l| put_u16(z, l.central[1] + 34, 1)),
        ("an overlapping compressed size", |z, l| {
            let grown = u32::from_le_bytes(z[l.central[0] + 20..][..4].try_into().unwrap()) + 40;
            put_u32(z, l.local[0] + 18, grown);
            put_u32(z, l.central[0] + 20, grown);
        }),
        ("another CRC-32", |z, l| {
            put_u32(z, l.local[1] + 14, 0x1234_5678);
            put_u32(z, l.central[1] + 16, 0x1234_5678);
        }),
    ];
    for (what, edit) in edits {
        let mut edited = base.clone();
        edit(&mut edited, &l);
        for (order, archive) in
            [("before", [edited.as_slice(), &base].concat()), ("after", [base.as_slice(), &edited].concat())]
        {
            let err = reading(&format!("two-directories-{order}"), &archive).unwrap_err();
            let Error::Ambiguous { reason } = &err else { panic!("{what}, the edited copy {order}: {err}") };
            // Which end record, both offsets, both directories' sizes.
            let (stated, shifted) = (l.central[0], base.len() + l.central[0]);
            let size = l.eocd - l.central[0];
            for said in [
                format!("end record at byte {}", base.len() + l.eocd),
                format!("{size} bytes at offset {stated}"),
                format!("{size} bytes at offset {shifted}"),
            ] {
                assert!(reason.contains(&said), "{what}, {order}: {reason:?} does not say {said:?}");
            }
        }
    }
}

/// Where only one of the two places holds a complete directory, that one is read, from every
/// path: the one right before the end records (as unzip and Python read it), its shift
/// reported as bytes prepended; or the stated one, when the other breaks off.
#[test]
fn where_only_one_directory_is_complete_it_is_read() {
    let (first, l) = build(&[Spec::file("first.txt", b"the first copy"), Spec::file("b", b"b")], b"");
    let (second, _) = build(&[Spec::file("later.txt", b"the later copy"), Spec::file("b", b"b")], b"");
    let later = vec![("b".to_string(), b"b".to_vec()), ("later.txt".to_string(), b"the later copy".to_vec())];
    let earlier = vec![("b".to_string(), b"b".to_vec()), ("first.txt".to_string(), b"the first copy".to_vec())];
    // The first copy's directory breaks off at its second record: the later one is read.
    let mut broken = first.clone();
    broken[l.central[1]] = b'X';
    let archive = [broken.as_slice(), &second].concat();
    assert_eq!(reading("shifted-only", &archive).unwrap(), later);
    let report = extract_bytes(&archive, &workdir("shifted-only-report").join("out"), &Options::default()).unwrap();
    assert_eq!(report.prepended, first.len() as u64);
    // The later copy's breaks off: the stated one is read.
    let mut broken = second.clone();
    broken[l.central[1]] = b'X';
    let archive = [first.as_slice(), &broken].concat();
    assert_eq!(reading("stated-only", &archive).unwrap(), earlier);
    // A directory right before the end records but earlier than the end record says (bytes
    // cut before it): refused, naming the shift, never read at a negative offset.
    let mut cut = first.clone();
    cut.drain(l.local[1]..l.local[1] + 3);
    let err = reading("bytes-missing", &cut).unwrap_err();
    assert!(matches!(&err, Error::Malformed { reason, .. } if reason.contains("bytes are missing")), "{err}");
}

/// CPython's `exe_with_z64`, rebuilt: a stub before an archive whose end record needs no ZIP64
/// record but has one, with a locator, and nothing adjusted. The ZIP64 record sits right before
/// the locator (not where the locator says), the directory right before it: read, every offset
/// shifted by the stub, as Python reads it.
#[test]
fn a_stub_before_a_zip64_archive_with_nothing_adjusted_is_read() {
    let stub: Vec<u8> = b"#!/bin/sh\necho a zip file\n".iter().copied().cycle().take(713).collect();
    let archive = [stub.as_slice(), &zip64(2, &[])].concat();
    assert_eq!(reading("stub-zip64", &archive).unwrap().len(), 2);
    let report = extract_bytes(&archive, &workdir("stub-zip64-report").join("out"), &Options::default()).unwrap();
    assert_eq!(report.prepended, 713);
}

/// A ZIP64 locator that points at one ZIP64 end record while another sits right before it
/// (where Python reads it): two readings when they differ, refused; one when they agree.
#[test]
fn a_zip64_locator_and_the_record_before_it_must_agree() {
    let plain = zip64(2, &[16]);
    let record = plain.len() - 22 - 20 - 56;
    // A stored entry whose data is a ZIP64 end record for the archive, saying `entries`; the real
    // one after the directory, and a locator pointing at the planted one.
    let planted = |entries: u64| {
        let record_saying = |entries: u64, cd: usize, size: usize| {
            let mut r = plain[record..record + 56].to_vec();
            r[24..40].copy_from_slice(&[entries.to_le_bytes(), entries.to_le_bytes()].concat());
            r[40..48].copy_from_slice(&(size as u64).to_le_bytes());
            r[48..56].copy_from_slice(&(cd as u64).to_le_bytes());
            r
        };
        // The layout does not hang on the planted bytes (a stored entry of 56 bytes).
        let (_, l) = build(&[Spec::stored("pad", &[0; 56]), Spec::file("a", b"abc")], b"");
        let (cd, size) = (l.central[0], l.eocd - l.central[0]);
        let (zip, _) = build(&[Spec::stored("pad", &record_saying(entries, cd, size)), Spec::file("a", b"abc")], b"");
        let mut locator = vec![0x50, 0x4b, 6, 7, 0, 0, 0, 0];
        locator.extend_from_slice(&((l.local[0] + 30 + 3) as u64).to_le_bytes());
        locator.extend_from_slice(&1u32.to_le_bytes());
        let mut out = [&zip[..l.eocd], &record_saying(2, cd, size), &locator, &zip[l.eocd..]].concat();
        // Every field of the end record saturated: only the ZIP64 records say anything.
        let eocd = out.len() - 22;
        put_u16(&mut out, eocd + 8, 0xffff);
        put_u16(&mut out, eocd + 10, 0xffff);
        put_u32(&mut out, eocd + 12, 0xffff_ffff);
        put_u32(&mut out, eocd + 16, 0xffff_ffff);
        out
    };
    // The planted record says 1 entry, the one before the locator 2.
    let err = reading("zip64-planted", &planted(1)).unwrap_err();
    assert!(matches!(&err, Error::Ambiguous { reason } if reason.contains("right before the locator")), "{err}");
    assert_eq!(reading("zip64-planted-agrees", &planted(2)).unwrap().len(), 2);
}

/// An empty archive whose end record's comment is shorter than the bytes after it (zip2's
/// `comment_garbage.zip` and `misaligned_comment.zip`): read as empty, as zip2 and Python read it.
#[test]
fn an_empty_archive_with_bytes_after_its_comment_is_read_as_empty() {
    let mut record = vec![0x50, 0x4b, 5, 6];
    record.extend_from_slice(&[0; 16]);
    record.extend_from_slice(&6u16.to_le_bytes());
    let garbage = [record.as_slice(), b"short.omment bla bla bla"].concat();
    let misaligned = [garbage.as_slice(), &[0; 467]].concat();
    for (name, archive) in [("comment-garbage", garbage), ("misaligned-comment", misaligned)] {
        assert_eq!(reading(name, &archive).unwrap(), vec![], "{name}");
        assert!(read_archive(&archive).unwrap().entries.is_empty());
    }
}

/// The last end record is the one unzip and Python read. One that this library refuses (another
/// disk) is not skipped for an earlier record whose comment reaches the end of the file: the
/// archive is refused, as it is when the last record is intact and disagrees.
#[test]
fn a_refused_last_end_record_is_not_skipped_for_an_earlier_one() {
    let (first, _) = build(&[Spec::file("first.txt", b"the first directory")], b"");
    let (second, l2) = build(&[Spec::file("second.txt", b"the second directory")], b"");
    // The second archive after the first's end record, which takes all of it as its comment;
    // the second's offsets moved to where its parts now lie.
    let mut archive = [first.as_slice(), &second].concat();
    put_u16(&mut archive, first.len() - 22 + 20, second.len() as u16);
    let (central2, eocd2) = (first.len() + l2.central[0], first.len() + l2.eocd);
    put_u32(&mut archive, central2 + 42, first.len() as u32);
    put_u32(&mut archive, eocd2 + 16, central2 as u32);
    // Intact, the two records describe two directories: ambiguous.
    let err = reading("two-records", &archive).unwrap_err();
    assert!(matches!(err, Error::Ambiguous { .. }), "{err}");
    // The last record's disk number made 0xFFFF: refused all the same, never read as the first.
    put_u16(&mut archive, eocd2 + 4, 0xffff);
    let err = reading("last-record-other-disk", &archive).unwrap_err();
    assert!(matches!(&err, Error::Ambiguous { .. } | Error::Malformed { .. }), "{err}");
}

/// A file's kind comes from its name: `readme.txt` with a directory's mode and 800 bytes of data
/// is a file of 800 bytes (as unzip and Python extract it), listed, read and extracted as one.
#[test]
fn a_file_named_as_a_file_is_a_file_whatever_its_mode_says() {
    let text: Vec<u8> = (0..800u32).map(|i| b'a' + (i % 26) as u8).collect();
    let spec = Spec { unix_mode: Some(0o040755), ..Spec::file("readme.txt", &text) };
    let (zip, _) = build(&[spec], b"");
    assert_eq!(read_archive(&zip).unwrap().entries[0].kind, Kind::File);
    assert_eq!(reading("dir-mode-file", &zip).unwrap(), vec![("readme.txt".into(), text)]);
    // A trailing slash still makes a directory, whatever the mode.
    let (zip, _) = build(&[Spec { unix_mode: Some(0o100644), ..Spec::dir("assets/") }], b"");
    assert_eq!(read_archive(&zip).unwrap().entries[0].kind, Kind::Directory);
}

/// Every field the local header and the central record both carry is compared: a data
/// descriptor flag cleared in the local header only (unzip then writes 0 bytes, Python the
/// data), the UTF-8 flag of a name that is not ASCII, the modification time, and the CRC and
/// sizes a local header with a descriptor carries.
#[test]
fn a_local_header_that_disagrees_with_its_central_record_is_refused() {
    let data = b"250 bytes of something ".repeat(11);
    let spec = Spec { descriptor: true, ..Spec::file("a.txt", &data) };
    let (zip, l) = build(&[spec.clone(), Spec::file("b.txt", b"second")], b"");
    let refused = |name: &str, patched: &[u8], says: &str| {
        let err = reading(name, patched).unwrap_err();
        assert!(matches!(&err, Error::Malformed { reason, .. } if reason.contains(says)), "{name}: {err}");
    };
    let mut no_descriptor = zip.clone();
    put_u16(&mut no_descriptor, l.local[0] + 6, 0x800);
    refused("descriptor-flag-central-only", &no_descriptor, "flags");
    let mut time = zip.clone();
    put_u16(&mut time, l.local[1] + 10, 0x1234);
    refused("local-time", &time, "modification time");
    let mut sizes = zip.clone();
    put_u32(&mut sizes, l.local[0] + 22, 7);
    refused("descriptor-local-size", &sizes, "CRC or sizes");
    // The descriptor's local CRC and sizes may be the right values rather than 0.
    let mut filled = zip.clone();
    put_u32(&mut filled, l.local[0] + 14, crc32fast::hash(&data));
    put_u32(&mut filled, l.local[0] + 22, data.len() as u32);
    assert_eq!(reading("descriptor-local-filled", &filled).unwrap().len(), 2);

    let (zip, l) = build(&[Spec::file("día.txt", b"hola")], b"");
    let mut utf8 = zip.clone();
    put_u16(&mut utf8, l.local[0] + 6, 0);
    refused("utf8-flag-local", &utf8, "flags");
    // For an ASCII name the flag changes nothing: read.
    let (zip, l) = build(&[Spec::file("dia.txt", b"hola")], b"");
    let mut ascii = zip.clone();
    put_u16(&mut ascii, l.local[0] + 6, 0);
    assert_eq!(reading("utf8-flag-ascii", &ascii).unwrap(), vec![("dia.txt".into(), b"hola".to_vec())]);
}

/// A ZIP64 end record is read only where every end-record field it replaces agrees with it:
/// with one field saturated, the others must say what ZIP64 says. And the locator's disk fields
/// are checked as the end record's are.
#[test]
fn zip64_values_never_override_end_record_fields_that_disagree() {
    // The directory's offset saturated, the entry counts left at 2 beside a ZIP64 record of 2.
    assert_eq!(reading("zip64-agrees", &zip64(2, &[16])).unwrap().len(), 2);
    // Every field saturated: ZIP64's values are the only ones.
    assert_eq!(reading("zip64-only", &zip64(2, &[4, 6, 8, 10, 12, 16])).unwrap().len(), 2);
    // The same with the ZIP64 record saying 1: two readings.
    for saturated in [&[16][..], &[12], &[10], &[8]] {
        let err = reading("zip64-disagrees", &zip64(1, saturated)).unwrap_err();
        assert!(matches!(err, Error::Ambiguous { .. }), "{saturated:?}: {err}");
    }
    // The locator says another disk holds the ZIP64 record, or that there are two disks.
    for (at, value) in [(4, 1u32), (16, 2)] {
        let mut archive = zip64(2, &[16]);
        let locator = archive.len() - 22 - 20;
        put_u32(&mut archive, locator + at, value);
        let err = reading("zip64-locator-disks", &archive).unwrap_err();
        assert!(matches!(&err, Error::Malformed { reason, .. } if reason.contains("multi-disk")), "{err}");
    }
    // Some writers put 0 for the number of disks.
    let mut zero_disks = zip64(2, &[16]);
    let locator = zero_disks.len() - 22 - 20;
    put_u32(&mut zero_disks, locator + 16, 0);
    assert_eq!(reading("zip64-zero-disks", &zero_disks).unwrap().len(), 2);
}

/// A file `a` beside an entry `a/b` cannot exist together: every path refuses the archive at
/// open, with one error, not only extraction.
#[test]
fn a_file_where_another_entry_needs_a_directory_is_refused_by_every_path() {
    let (zip, _) = build(&[Spec::file("a", b"1"), Spec::file("a/b", b"2")], b"");
    let err = reading("file-and-dir", &zip).unwrap_err();
    assert!(matches!(err, Error::UnsafeName { reason: "a file where another entry needs a directory", .. }));
    let dir = workdir("file-and-dir-lazy");
    std::fs::write(dir.join("a.zip"), &zip).unwrap();
    let lazy = AssetArchive::open_with(&dir.join("a.zip"), Holding::Read, LocalHeaders::OnFirstRead);
    assert!(matches!(lazy, Err(Error::UnsafeName { .. })));
}

/// Extraction of a selection checks the local headers of the entries it leaves out, and of
/// symlinks it skips, as every other reading does: an archive `ls` refuses is refused here too.
#[test]
fn a_selection_is_refused_where_an_entry_it_leaves_out_has_a_bad_local_header() {
    let link = Spec { unix_mode: Some(0o120777), ..Spec::stored("link", b"target") };
    let (zip, l) = build(&[Spec::file("keep.txt", b"kept"), Spec::file("other.txt", b"other"), link], b"");
    let dir = workdir("selection-locals");
    let path = dir.join("a.zip");
    let options = Options { only: vec!["keep.txt".into()], skip_symlinks: true, ..Options::default() };
    std::fs::write(&path, &zip).unwrap();
    extract(&path, &dir.join("ok"), &options).unwrap();
    for (k, local) in [l.local[1], l.local[2]].into_iter().enumerate() {
        let mut bad = zip.clone();
        put_u16(&mut bad, local + 8, 12); // the method: bzip2
        std::fs::write(&path, &bad).unwrap();
        let out = dir.join(format!("out{k}"));
        let err = extract(&path, &out, &options).unwrap_err();
        assert!(matches!(err, Error::Malformed { .. }), "{err}");
        assert!(!out.exists());
        assert!(extract_bytes(&bad, &out, &options).is_err());
        assert!(AssetArchive::open(&path, Holding::Read).is_err());
    }
}

/// An extended timestamp (0x5455) with its high bit set is read as unzip reads it: unsigned
/// (2038 to 2106) where the DOS date says 2038-01-18 or later; else passed over for the DOS
/// time, never read as a signed time before 1970 that no other reader shows.
#[test]
fn an_extended_timestamp_past_2038_is_read_as_unzip_reads_it() {
    let ut = |t: u32| [&[0x55u8, 0x54, 5, 0, 1][..], &t.to_le_bytes()].concat();
    let spec = |name: &str, t: u32, dos_date: u16| Spec {
        central_extra: ut(t),
        dos: (dos_date, 0),
        ..Spec::stored(name, b"x")
    };
    let date = |year: u16, month: u16, day: u16| (year - 1980) << 9 | month << 5 | day;
    let late = 0x8000_0000u32 + 1000; // 2038-01-19
    let (zip, _) = build(
        &[
            spec("late.txt", late, date(2038, 1, 19)),
            spec("odd.txt", late, date(2020, 5, 1)),
            spec("plain.txt", 1_600_000_000, date(2020, 9, 13)),
        ],
        b"",
    );
    let entries = read_archive(&zip).unwrap().entries;
    assert_eq!(entries[0].mtime, asset_extract::Mtime::Unix { secs: i64::from(late), nanos: 0 });
    assert_eq!(entries[1].mtime, asset_extract::Mtime::Dos(u32::from(date(2020, 5, 1)) << 16));
    assert_eq!(entries[2].mtime, asset_extract::Mtime::Unix { secs: 1_600_000_000, nanos: 0 });
}

/// A central record whose disk number is 0xFFFF defers to the ZIP64 extra field's disk number,
/// as the format says (writers that saturate every field write it so): read when that says disk
/// 0, refused as another disk otherwise.
#[test]
fn a_saturated_disk_number_defers_to_the_zip64_extra_field() {
    let with_disk = |disk: u32| {
        let extra = [&[1u8, 0, 4, 0][..], &disk.to_le_bytes()].concat();
        let (mut zip, l) = build(&[Spec { central_extra: extra, ..Spec::file("a.txt", b"abc") }], b"");
        put_u16(&mut zip, l.central[0] + 34, 0xffff);
        zip
    };
    assert_eq!(reading("disk-deferred", &with_disk(0)).unwrap(), vec![("a.txt".into(), b"abc".to_vec())]);
    let err = reading("disk-deferred-other", &with_disk(1)).unwrap_err();
    assert!(matches!(&err, Error::Malformed { reason, .. } if reason.contains("another disk")), "{err}");
    // Saturated with no ZIP64 field to defer to: refused.
    let (mut zip, l) = build(&[Spec::file("a.txt", b"abc")], b"");
    put_u16(&mut zip, l.central[0] + 34, 0xffff);
    assert!(reading("disk-saturated-alone", &zip).is_err());
}

/// A directory Python takes by its size though its count says more (the first record's comment
/// length made to cover the rest, and past the file's end): still a reading, so beside another
/// complete directory the archive is refused, not read as the other (found by differential.py,
/// seed 101).
#[test]
fn a_directory_python_walks_by_its_size_is_a_reading_too() {
    let (first, l) = build(&[Spec::file("a.txt", b"the first copy"), Spec::file("b.txt", b"b")], b"");
    let mut second = first.clone();
    put_u16(&mut second, l.central[0] + 32, 0xffff);
    let err = reading("size-walk", &[first.as_slice(), &second].concat()).unwrap_err();
    assert!(matches!(&err, Error::Ambiguous { reason } if reason.contains("just before the end records")), "{err}");
}
