//! Streams staged as they arrive (`arrivals.rs`, `follower.rs`, `prestaged.rs`), end to end: what
//! is staged ahead, what is kept, and what an extraction then finds.

use std::path::Path;

use super::arrivals::*;
use super::follower::Wanted;
use super::prestaged::Prestaged;
use crate::Error;
use crate::extract::options::Options;
use crate::read::bytes::CENTRAL_SIG;
use test_support::zip::{Spec, build};

fn spec(name: &str, data: &[u8], deflate: bool, descriptor: bool) -> Spec {
    Spec { name: name.into(), data: data.to_vec(), deflate, descriptor, unix_mode: 0o100644, packed: None }
}

/// A new directory of this test's own under the system's temporary directory, removed when
/// dropped.
fn workdir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("bufkit-arrivals-{name}-")).tempdir().unwrap()
}

/// Follows `zip` fed in pieces of `piece` bytes for an extraction into `dest`.
fn follow(zip: &[u8], piece: usize, dest: &Path, options: &Options<'_>) -> Prestaged {
    let wanted = Wanted::of(options).expect("stageable");
    let mut arrivals = Arrivals::beside(dest, wanted);
    arrivals.stage_everything();
    for p in zip.chunks(piece) {
        arrivals.feed(p);
    }
    arrivals.finish().expect("a staging directory")
}

/// The files staged following `zip`, and those of them its central directory keeps.
fn staged_and_kept(zip: &[u8], piece: usize, dest: &Path, options: &Options<'_>) -> (usize, usize) {
    let mut prestaged = follow(zip, piece, dest, options);
    let (opened, layout, locals) = crate::entry::opened::Opened::open(Box::new(zip), Path::new("zip")).unwrap();
    prestaged.keep(&opened, &layout.entries, &locals.entries).unwrap();
    (prestaged.files.len(), prestaged.claimed.len())
}

#[test]
fn entries_are_staged_as_they_arrive_and_kept_where_the_archive_agrees() {
    let base = workdir("staged");
    let base = base.path();
    let text = b"staged ahead, then kept; ".repeat(300);
    for descriptor in [false, true] {
        let specs = vec![
            spec("a.txt", &text, true, descriptor),
            spec("dir/b.bin", &text[..1000], false, false),
            spec("dir/sub/c.txt", &text[5..], true, descriptor),
            spec("d.txt", b"PK\x03\x04PK\x01\x02 inside the data", true, descriptor),
        ];
        let zip = build(&specs, b"");
        for piece in [1, 7, 4096, zip.len()] {
            let dest = base.join(format!("out-{descriptor}-{piece}"));
            assert_eq!(staged_and_kept(&zip, piece, &dest, &Options::default()), (4, 4), "{descriptor} {piece}");
            let prestaged = follow(&zip, piece, &dest, &Options::default());
            crate::extract::extract_spool(&zip, &dest, &Options::default(), Some(prestaged)).unwrap();
            for s in &specs {
                let path = dest.join(std::str::from_utf8(&s.name).unwrap());
                assert_eq!(std::fs::read(&path).unwrap(), s.data, "{path:?}");
            }
            // Nothing left beside the destination.
            assert_eq!(std::fs::read_dir(base).unwrap().filter(|e| e.as_ref().unwrap().path() == dest).count(), 1);
        }
        // Only what `only` selects is staged.
        let dest = base.join(format!("only-{descriptor}"));
        let options = Options { only: vec!["dir/".into()], ..Options::default() };
        assert_eq!(staged_and_kept(&zip, 1000, &dest, &options).0, 2);
        // Data before the first header: nothing is followed, everything comes from the spool.
        let dest = base.join(format!("prefixed-{descriptor}"));
        let prefixed = build(&specs, b"#!/bin/sh\nexit 0\n");
        assert_eq!(staged_and_kept(&prefixed, 1000, &dest, &Options::default()), (0, 0));
    }
    assert_eq!(std::fs::read_dir(base).unwrap().count(), 8, "only the destinations");
}

#[cfg(unix)]
#[test]
fn a_file_staged_ahead_ends_with_the_mode_and_time_of_a_file_written_from_the_spool() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let base = workdir("finished");
    let base = base.path();
    let text = b"staged with 0644 and the local header's time; ".repeat(40);
    let mut run = spec("bin/run.sh", &text, true, false);
    run.unix_mode = 0o100755;
    let mut private = spec("etc/private.txt", &text[3..], false, true);
    private.unix_mode = 0o100600;
    let specs = vec![run, private, spec("plain.txt", &text[9..], true, true)];
    let zip = build(&specs, b"");
    let finished = |dest: &Path| -> Vec<(u32, i64)> {
        specs
            .iter()
            .map(|s| {
                let meta = std::fs::metadata(dest.join(std::str::from_utf8(&s.name).unwrap())).unwrap();
                (meta.permissions().mode() & 0o7777, meta.mtime())
            })
            .collect()
    };
    let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 - 1;
    for no_mtime in [false, true] {
        let options = Options { no_mtime, ..Options::default() };
        let plain = base.join(format!("plain-{no_mtime}"));
        crate::extract::extract_spool(&zip, &plain, &options, None).unwrap();
        let expected = finished(&plain);
        assert_eq!(expected.iter().map(|f| f.0 & 0o111 != 0).collect::<Vec<_>>(), [true, false, false]);
        for piece in [7, zip.len()] {
            let dest = base.join(format!("staged-{no_mtime}-{piece}"));
            assert_eq!(staged_and_kept(&zip, piece, &dest, &options), (3, 3));
            let prestaged = follow(&zip, piece, &dest, &options);
            crate::extract::extract_spool(&zip, &dest, &options, Some(prestaged)).unwrap();
            let got = finished(&dest);
            for (g, e) in got.iter().zip(&expected) {
                assert_eq!(g.0, e.0, "mode, piece {piece}");
                // The archive's time (1980), or, without it, the extraction's.
                assert!(g.1 == e.1 || (no_mtime && g.1 >= started && e.1 >= started), "time, piece {piece}");
            }
        }
    }
}

/// `n` bytes no compressor shrinks (xorshift).
fn noise(n: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The files under the staging directory made beside `dest`, with their lengths.
fn staged_beside(dest: &Path) -> Vec<(String, u64)> {
    let prefix = format!(".{}.bufkit-tmp-", dest.file_name().unwrap().to_string_lossy());
    let mut found = Vec::new();
    for dir in std::fs::read_dir(dest.parent().unwrap()).unwrap().flatten() {
        if dir.file_name().to_string_lossy().starts_with(&prefix) && dir.path().is_dir() {
            for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
                found.push((file.file_name().to_string_lossy().into_owned(), file.metadata().unwrap().len()));
            }
        }
    }
    found
}

/// A stream of a large entry (10 MiB, past the 8 MiB held in memory), then a small one; and
/// the large entry's data.
fn large_then_small() -> (Vec<u8>, Vec<u8>) {
    let large = noise(10 << 20);
    let zip = build(&[spec("large.bin", &large, true, false), spec("small.txt", b"small", true, false)], b"");
    (zip, large)
}

#[test]
fn a_large_entry_is_inflated_while_it_arrives() {
    use std::io::Write;
    let base = workdir("arriving");
    let dest = base.path().join("out");
    let (zip, large) = large_then_small();
    let mut incoming = crate::StreamedArchive::beside(&dest).unwrap();
    incoming.stage_everything();
    // All but the last MiB of the large entry.
    let (arrived, rest) = zip.split_at(9 << 20);
    for piece in arrived.chunks(64 << 10) {
        incoming.write_all(piece).unwrap();
    }
    // What has arrived is inflated before the rest comes: at least 8 MiB of it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !staged_beside(&dest).iter().any(|(name, len)| name == "large.bin" && *len >= 8 << 20) {
        assert!(std::time::Instant::now() < deadline, "not inflated as it arrived: {:?}", staged_beside(&dest));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    for piece in rest.chunks(64 << 10) {
        incoming.write_all(piece).unwrap();
    }
    let report = incoming.extract(&dest, &Options::default()).unwrap();
    assert_eq!(report.files, 2);
    assert_eq!(std::fs::read(dest.join("large.bin")).unwrap(), large);
    assert_eq!(std::fs::read(dest.join("small.txt")).unwrap(), b"small");
    assert_eq!(std::fs::read_dir(base.path()).unwrap().count(), 1, "only the destination");
}

#[test]
fn a_stream_that_stops_inside_a_large_entry_leaves_nothing_and_never_waits() {
    use std::io::Write;
    let base = workdir("stopped");
    let root = base.path().to_path_buf();
    // On a thread of its own: a worker left waiting for bytes that will not come would hang
    // the test, where this fails it.
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (zip, _) = large_then_small();
        // Abandoned while a worker waits for the rest of the large entry.
        let dest = root.join("dropped");
        let mut incoming = crate::StreamedArchive::beside(&dest).unwrap();
        incoming.stage_everything();
        incoming.write_all(&zip[..9 << 20]).unwrap();
        drop(incoming);
        // Ended there: refused as the file cut there is.
        let dest = root.join("cut");
        let mut incoming = crate::StreamedArchive::beside(&dest).unwrap();
        incoming.stage_everything();
        incoming.write_all(&zip[..9 << 20]).unwrap();
        let refused = incoming.extract(&dest, &Options::default()).is_err();
        done.send(refused).unwrap();
    });
    let refused = finished.recv_timeout(std::time::Duration::from_secs(60)).expect("a worker waited for ever");
    assert!(refused, "a cut stream was extracted");
    assert_eq!(std::fs::read_dir(base.path()).unwrap().count(), 0, "nothing left");
}

#[test]
fn an_entry_too_long_to_hold_is_followed_past() {
    let base = workdir("long");
    let base = base.path();
    let long: Vec<u8> = (0..(5u32 << 20)).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let specs = vec![spec("long.bin", &long, true, true), spec("after.txt", b"after", true, true)];
    let zip = build(&specs, b"");
    let dest = base.join("out");
    // The long entry's descriptor is found past 4 MiB though its data is not held; the
    // entry after it is staged (the spool is in memory here, so the long one is not).
    assert_eq!(staged_and_kept(&zip, 65_536, &dest, &Options::default()), (1, 1));
}

#[test]
fn limits_hold_while_staging_and_a_refusal_leaves_nothing() {
    let base = workdir("limits");
    let base = base.path();
    let specs: Vec<Spec> = (0..10).map(|i| spec(&format!("f{i}.bin"), &[i as u8; 10_000], true, i % 2 == 0)).collect();
    let zip = build(&specs, b"");
    // A quota of three files' bytes: no more than three staged, and the archive refused.
    let options = Options { quota: Some(30_000), ..Options::default() };
    let dest = base.join("quota");
    let (staged, _) = staged_and_kept(&zip, 777, &dest, &options);
    assert!(staged <= 3, "{staged} staged past the quota");
    let prestaged = follow(&zip, 777, &dest, &options);
    let refused = crate::extract::extract_spool(&zip, &dest, &options, Some(prestaged));
    assert!(matches!(refused, Err(Error::Limit { .. })), "{refused:?}");
    // A ratio limit every entry passes (their deflate streams are stored blocks): none staged.
    let options = Options { max_ratio: Some(0.5), ..Options::default() };
    assert_eq!(staged_and_kept(&zip, 777, &base.join("ratio"), &options).0, 0);
    assert_eq!(std::fs::read_dir(base).unwrap().count(), 0, "nothing left behind");
}

#[test]
fn a_file_the_central_directory_does_not_describe_is_removed_with_its_directories() {
    let base = workdir("hidden");
    let base = base.path();
    let zip =
        build(&[spec("hidden/deep/x.txt", b"not listed", false, false), spec("y.txt", b"listed", false, false)], b"");
    // The central directory lists only its second entry: the first is a hidden local entry.
    let central = zip.windows(4).position(|w| w == CENTRAL_SIG.to_le_bytes()).unwrap();
    let second = central + zip[central + 1..].windows(4).position(|w| w == CENTRAL_SIG.to_le_bytes()).unwrap() + 1;
    let end = zip.windows(4).rposition(|w| w == *b"PK\x05\x06").unwrap();
    let mut hidden = zip[..central].to_vec();
    hidden.extend_from_slice(&zip[second..end]);
    let mut eocd = zip[end..].to_vec();
    let cd_len = (end - second) as u32;
    eocd[8..10].copy_from_slice(&1u16.to_le_bytes());
    eocd[10..12].copy_from_slice(&1u16.to_le_bytes());
    eocd[12..16].copy_from_slice(&cd_len.to_le_bytes());
    hidden.extend_from_slice(&eocd);
    let dest = base.join("out");
    let from_file = crate::extract::extract_bytes(&hidden, &base.join("file"), &Options::default());
    let prestaged = follow(&hidden, 5, &dest, &Options::default());
    assert_eq!(prestaged.files.len(), 2, "both staged");
    let from_stream = crate::extract::extract_spool(&hidden, &dest, &Options::default(), Some(prestaged));
    match (from_file, from_stream) {
        (Ok(_), Ok(_)) => {
            let names: Vec<_> = std::fs::read_dir(&dest).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(names, ["y.txt"], "the hidden entry and its directories removed");
        }
        // A gap between entries is read past, as unzip does: the case this test is for.
        (a, b) => panic!("from a file {a:?}, from a stream {b:?}"),
    }
}
