//! Assets read in place: every entry of a real-shaped archive, stored and deflated, read by name
//! from a file (read and mapped), and a file changed after opening in the read mode.

#[allow(dead_code)] // shared with the other test binaries, which use all of it
mod support;
#[allow(dead_code)]
mod zipwriter;

use asset_extract::{AssetArchive, Error, Holding, LocalHeaders};
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
            let viewable = name.ends_with(".png") && holding == Holding::Map;
            assert_eq!(
                archive.view(index).unwrap().is_some(),
                viewable,
                "{name}: a view only of a stored entry, mapped"
            );
            let mut streamed = Vec::new();
            std::io::Read::read_to_end(&mut archive.reader(index).unwrap(), &mut streamed).unwrap();
            assert_eq!(streamed, spec.data, "{name} streamed ({holding:?})");
        }
        assert!(archive.read(archive.find("assets").unwrap()).is_err(), "a directory has no data");
    }
}

/// The read mode reads the file as it goes: rewritten after opening, a read is a clean error
/// (never a crash, never wrong bytes), whole or streamed; replaced by a rename (how an update
/// lands), the open archive goes on reading the file it opened.
#[test]
fn the_read_mode_survives_the_file_changing() {
    let dir = workdir("in-place-changed");
    let (zip, _) = build(&specs(), b"");
    let path = dir.join("app.apk");
    std::fs::write(&path, &zip).unwrap();
    let js = b"function main() { return 42; }\n".repeat(2000);

    let archive = AssetArchive::open(&path, Holding::Read).unwrap();
    let index = archive.find("assets/app.js").unwrap();
    assert_eq!(archive.read(index).unwrap(), js);
    std::fs::write(&path, b"truncated").unwrap();
    assert!(archive.read(index).is_err(), "truncated: a read after the change");
    assert!(archive.read(archive.find("res/strings.xml").unwrap()).is_err(), "truncated: an entry not read before");
    let mut rest = Vec::new();
    assert!(std::io::Read::read_to_end(&mut archive.reader(index).unwrap(), &mut rest).is_err(), "truncated: streamed");
    assert!(matches!(AssetArchive::open(&path, Holding::Read), Err(Error::Malformed { .. })));

    // The same size, other bytes: every read checks its CRC.
    std::fs::write(&path, &zip).unwrap();
    let archive = AssetArchive::open(&path, Holding::Read).unwrap();
    assert_eq!(archive.read(index).unwrap(), js);
    let mut scrambled = zip.clone();
    let at = scrambled.windows(4).position(|w| w == b"<str").unwrap_or(100);
    for b in &mut scrambled[..at] {
        *b = b.wrapping_add(1);
    }
    std::fs::write(&path, &scrambled).unwrap();
    assert!(archive.read(index).is_err(), "rewritten in place: the CRC check catches it");

    // An update by rename: the open archive keeps its file. On Windows, replacing a file another
    // handle holds open needs POSIX rename semantics (Windows 10 1607 and later, on NTFS), which
    // wine lacks: not checked there.
    if !cfg!(unix) {
        return;
    }
    std::fs::write(&path, &zip).unwrap();
    let archive = AssetArchive::open(&path, Holding::Read).unwrap();
    let next = dir.join("next.apk");
    std::fs::write(&next, b"the next version").unwrap();
    std::fs::rename(&next, &path).unwrap();
    assert_eq!(archive.read(index).unwrap(), js);
}

/// The read mode reads only the end of the file at open, and more when the central directory or
/// the end records are further back: a directory larger than the first read, data appended after
/// the archive, data prepended before it. Each opens and reads as the mapped mode does.
#[test]
fn the_read_mode_finds_what_the_first_read_misses() {
    let dir = workdir("in-place-far");
    let many: Vec<Spec> = (0..3000)
        .map(|i| Spec::file(&format!("assets/module-with-a-long-name-{i:05}.js"), format!("m{i}").as_bytes()))
        .collect();
    let (big_directory, _) = build(&many, b"");
    let (small, _) = build(&specs(), b"");
    let mut appended = small.clone();
    appended.extend(std::iter::repeat_n(0x5a, 200_000));
    let (prepended, _) = build(&specs(), &vec![0x7f; 100_000]);
    for (what, zip) in
        [("a 300 KB directory", big_directory), ("200 KB appended", appended), ("100 KB prepended", prepended)]
    {
        let path = dir.join("far.apk");
        std::fs::write(&path, &zip).unwrap();
        let read = AssetArchive::open(&path, Holding::Read).unwrap_or_else(|e| panic!("{what}: {e}"));
        let mapped = AssetArchive::open(&path, Holding::Map).unwrap();
        assert_eq!(read.len(), mapped.len(), "{what}");
        for i in (0..read.len()).filter(|&i| !read.entries()[i].path.ends_with("assets")) {
            assert_eq!(read.read(i).unwrap(), mapped.read(i).unwrap(), "{what}: entry {i}");
        }
    }
}

/// A large entry, several of the reader's chunks long, that compresses poorly enough to need many
/// deflate blocks.
fn large_text() -> Vec<u8> {
    let mut state = 0x2545_f491_u32;
    (0..3_000_000)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            if i % 61 == 60 { b'\n' } else { b"etaoin shrdlu"[(state % 13) as usize] }
        })
        .collect()
}

#[test]
fn every_entry_streams_through_a_reader_in_any_stride() {
    use std::io::Read;
    let mut specs = specs();
    specs.push(Spec::file("assets/large.txt", &large_text()));
    let (zip, _) = build(&specs, b"");
    let archive = AssetArchive::from_bytes(zip).unwrap();
    for spec in specs.iter().filter(|s| !s.name.ends_with(b"/")) {
        let name = std::str::from_utf8(&spec.name).unwrap();
        let index = archive.find(name).unwrap();
        for stride in [1usize, 7, 4096, 1 << 20] {
            if stride == 1 && spec.data.len() > 100_000 {
                continue;
            }
            let mut reader = archive.reader(index).unwrap();
            let (mut out, mut buf) = (Vec::new(), vec![0u8; stride]);
            loop {
                let n = reader.read(&mut buf).unwrap_or_else(|e| panic!("{name}, stride {stride}: {e}"));
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            assert!(out == spec.data, "{name}, stride {stride}");
            assert_eq!(reader.read(&mut buf).unwrap(), 0, "{name}: stays at its end");
        }
    }
    assert!(archive.reader(archive.find("assets").unwrap()).is_err(), "a directory has no data");
}

/// A CRC that does not match: the bytes go out, and the read that would end the entry fails
/// instead, with the CRC error as its source; so does every read after it.
#[test]
fn a_reader_reports_a_bad_crc_at_the_end() {
    use std::io::Read;
    let specs = [Spec::file("a.txt", &b"abcdefgh".repeat(10_000)), Spec::stored("b.bin", b"stored bytes")];
    let (mut zip, layout) = build(&specs, b"");
    for i in 0..2 {
        for at in [layout.local[i] + 14, layout.central[i] + 16] {
            zip[at] ^= 0xff; // the same wrong CRC in both headers
        }
    }
    let archive = AssetArchive::from_bytes(zip).unwrap();
    for (i, spec) in specs.iter().enumerate() {
        let mut reader = archive.reader(i).unwrap();
        let mut out = vec![0u8; spec.data.len()];
        reader.read_exact(&mut out).unwrap();
        assert_eq!(out, spec.data, "the bytes themselves are intact");
        let err = reader.read(&mut [0u8; 16]).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        let source = err.get_ref().and_then(|s| s.downcast_ref::<Error>());
        assert!(matches!(source, Some(Error::Crc { .. })), "{err}");
        assert!(reader.read(&mut [0u8; 16]).is_err(), "and stays failed");
        assert!(matches!(archive.read(i), Err(Error::Crc { .. })), "a whole read says the same");
    }
}

#[test]
fn entries_are_listed_by_prefix_and_by_pattern() {
    let (zip, _) = build(&specs(), b"");
    let archive = AssetArchive::from_bytes(zip).unwrap();
    let names = |indexes: Vec<usize>| -> Vec<String> {
        indexes.into_iter().map(|i| archive.entries()[i].path.clone()).collect()
    };
    assert_eq!(names(archive.list_matching("assets/*.js")), ["assets/app.js"]);
    assert_eq!(names(archive.list_matching("*.png")), ["assets/logo.png"]);
    assert_eq!(names(archive.list_matching("assets/")), ["assets", "assets/app.js", "assets/logo.png"]);
    assert_eq!(names(archive.list_matching("res/strings.xm?")), ["res/strings.xml"]);
    assert!(archive.list_matching("nothing*").is_empty());
}

/// Pooled reads: the entry in a lent buffer, and the buffers come back and are reused.
#[test]
fn pooled_reads_reuse_the_pool_buffers() {
    use buffer_pool::{BufferPool, PoolConfig};
    let (zip, _) = build(&specs(), b"");
    let archive = AssetArchive::from_bytes(zip).unwrap();
    let pool = BufferPool::new(PoolConfig::default()).unwrap();
    for _ in 0..3 {
        for spec in specs().iter().filter(|s| !s.name.ends_with(b"/")) {
            let index = archive.find(std::str::from_utf8(&spec.name).unwrap()).unwrap();
            let lease = archive.read_pooled(index, &pool).unwrap();
            assert_eq!(&lease[..spec.data.len()], spec.data.as_slice());
        }
    }
    let stats = pool.stats();
    assert_eq!(stats.returns(), stats.hits() + stats.misses(), "every lease came back");
    assert!(stats.hits() >= 4 * 2, "later rounds reuse the buffers: {stats:?}");
}

/// By default a bad local header refuses the archive at open, with extraction's error; with
/// `LocalHeaders::OnFirstRead`, opening checks the central directory only, and one bad local
/// header refuses that entry (read, viewed or streamed), every time, and no other.
#[test]
fn a_bad_local_header_refuses_the_archive_or_its_entry() {
    let dir = workdir("in-place-local");
    let path = dir.join("bad.apk");
    let specs = [Spec::file("a.js", b"let a = 1;"), Spec::stored("b.png", b"PNG bytes"), Spec::file("c.js", b"let c;")];
    for (what, at_of) in [
        ("its name", (|l: &zipwriter::Layout| l.local[1] + 30) as fn(&zipwriter::Layout) -> usize),
        ("its extra length, which makes it run into the next entry", |l| l.local[1] + 28),
        ("its signature", |l| l.local[1]),
    ] {
        let (mut zip, layout) = build(&specs, b"");
        zip[at_of(&layout)] ^= 0x41;
        std::fs::write(&path, &zip).unwrap();
        assert!(
            matches!(asset_extract::read_entries(&zip), Err(Error::Malformed { .. })),
            "{what}: extraction refuses it"
        );
        assert!(matches!(AssetArchive::from_bytes(zip.clone()), Err(Error::Malformed { .. })), "{what}: in memory");
        for holding in [Holding::Read, Holding::Map] {
            let refused = AssetArchive::open(&path, holding);
            assert!(matches!(refused, Err(Error::Malformed { .. })), "{what}, {holding:?}: refused at open");
            let archive = AssetArchive::open_with(&path, holding, LocalHeaders::OnFirstRead)
                .unwrap_or_else(|e| panic!("{what}, {holding:?}: refused at open: {e}"));
            let b = archive.find("b.png").unwrap();
            for _ in 0..2 {
                assert!(matches!(archive.read(b), Err(Error::Malformed { .. })), "{what}: read");
                if holding == Holding::Map {
                    assert!(matches!(archive.view(b), Err(Error::Malformed { .. })), "{what}: view");
                }
                assert!(archive.reader(b).is_err(), "{what}: reader");
            }
            assert_eq!(archive.read(archive.find("a.js").unwrap()).unwrap(), b"let a = 1;");
            assert_eq!(archive.read(archive.find("c.js").unwrap()).unwrap(), b"let c;");
        }
    }
}

/// Every archive of the fuzz corpora (hostile, truncated, odd), opened from a file with `pread`
/// and mapped, and handed over in memory: the three agree on whether it opens, on its entries, and
/// on what each entry reads (its bytes, or an error).
#[test]
fn the_holdings_agree_on_the_fuzz_corpora() {
    let dir = workdir("in-place-corpus");
    let path = dir.join("case.zip");
    let mut compared = 0;
    for corpus in ["parse", "structured"] {
        let corpus_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(corpus);
        for case in std::fs::read_dir(corpus_dir).unwrap() {
            let data = std::fs::read(case.unwrap().path()).unwrap();
            // The structured corpus holds the fuzzer's choices, not archives: most fail to open.
            std::fs::write(&path, &data).unwrap();
            let memory = AssetArchive::from_bytes(data.clone());
            for holding in [Holding::Read, Holding::Map] {
                let file = AssetArchive::open(&path, holding);
                if let (Ok(m), Ok(lazy)) = (&memory, AssetArchive::open_with(&path, holding, LocalHeaders::OnFirstRead))
                {
                    for i in 0..m.len() {
                        assert_eq!(m.read(i).ok(), lazy.read(i).ok(), "{holding:?}, on first read: entry {i}");
                    }
                }
                match (&memory, &file) {
                    (Ok(m), Ok(f)) => {
                        assert_eq!(m.entries(), f.entries(), "{holding:?}");
                        for i in 0..m.len() {
                            assert_eq!(m.read(i).ok(), f.read(i).ok(), "{holding:?}: entry {i}");
                        }
                        compared += 1;
                    }
                    (Err(_), Err(_)) => {}
                    (m, f) => panic!("{holding:?}: in memory {:?}, from the file {:?}", m.is_ok(), f.is_ok()),
                }
            }
        }
    }
    assert!(compared > 50, "only {compared} archives opened");
}

/// Verifying without writing (issue 26, `unzip -t`): every entry checked, every failure reported
/// by index, the others counted; the same whatever the holding and thread count.
#[test]
fn verify_checks_every_entry_and_reports_every_failure() {
    let dir = workdir("verify");
    let path = dir.join("v.apk");
    let (zip, _) = build(&specs(), b"");
    std::fs::write(&path, &zip).unwrap();
    let total: u64 = specs().iter().map(|s| s.data.len() as u64).sum();
    for holding in [Holding::Read, Holding::Map] {
        for threads in [1, 2, 0] {
            let verified = AssetArchive::open(&path, holding).unwrap().verify(threads);
            assert!(verified.is_ok(), "{:?}", verified.failures);
            assert_eq!((verified.entries, verified.bytes), (5, total));
        }
    }
    // Two of three entries damaged: a CRC (in both headers) and a local header's name.
    let specs = [
        Spec::file("a.js", &b"let a = 1;".repeat(5000)),
        Spec::stored("b.png", b"PNG bytes"),
        Spec::file("c.js", b"c"),
    ];
    let (mut zip, layout) = build(&specs, b"");
    for at in [layout.local[0] + 14, layout.central[0] + 16] {
        zip[at] ^= 0xff;
    }
    zip[layout.local[2] + 30] ^= 0x41;
    std::fs::write(&path, &zip).unwrap();
    for holding in [Holding::Read, Holding::Map] {
        let archive = AssetArchive::open_with(&path, holding, LocalHeaders::OnFirstRead).unwrap();
        for threads in [1, 3] {
            let verified = archive.verify(threads);
            let failed: Vec<usize> = verified.failures.iter().map(|&(i, _)| i).collect();
            assert_eq!(failed, vec![0, 2], "{holding:?}, {threads} threads");
            assert!(matches!(verified.failures[0].1, Error::Crc { .. }));
            assert!(matches!(verified.failures[1].1, Error::Malformed { .. }));
            assert_eq!((verified.entries, verified.bytes), (3, 9));
        }
    }
}
