//! The pack walker on real packs that git itself builds, checked against `git verify-pack` and the
//! `.idx`; and on damaged packs.

use std::path::{Path, PathBuf};
use std::process::Command;

use strided_inflate::pack::{self, Index, Kind, Object, PackError};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=bufkit", "-c", "user.email=bufkit@example.invalid", "-c", "init.defaultBranch=main"])
        // The default since git 2.41; said here so an older git writes the `.rev` too.
        .args(["-c", "pack.writeReverseIndex=true"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A repository of this project's real source files over several commits (so there are deltas
/// and many small trees), packed by `git gc --aggressive`, in a temporary directory removed when
/// the returned [`RealPack`] is dropped.
fn real_pack(name: &str) -> RealPack {
    let repo = tempfile::Builder::new().prefix(&format!("strided-inflate-{name}-")).tempdir().unwrap();
    let dir = repo.path();
    git(dir, &["init", "-q"]);
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut sources: Vec<PathBuf> = Vec::new();
    for krate in std::fs::read_dir(&crates).unwrap() {
        let src = krate.unwrap().path().join("src");
        if let Ok(entries) = std::fs::read_dir(&src) {
            sources.extend(entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "rs")));
        }
    }
    sources.sort();
    for round in 0..4 {
        for (i, path) in sources.iter().enumerate() {
            let mut text = std::fs::read_to_string(path).unwrap();
            text.push_str(&format!("\n// revision {round} of file {i}\n"));
            let target = dir.join(format!("d{}", i % 5)).join(path.file_name().unwrap());
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, text).unwrap();
        }
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", &format!("round {round}")]);
    }
    git(dir, &["gc", "-q", "--aggressive"]);
    let pack_dir = dir.join(".git/objects/pack");
    let pack = std::fs::read_dir(&pack_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "pack"))
        .expect("git gc wrote a pack");
    RealPack { idx: pack.with_extension("idx"), pack, _repo: repo }
}

/// A pack and its index, in a repository that lives as long as this does.
struct RealPack {
    pack: PathBuf,
    idx: PathBuf,
    _repo: tempfile::TempDir,
}

fn walk_all(bytes: &[u8]) -> Result<Vec<Object>, PackError> {
    let mut objects = Vec::new();
    pack::walk(bytes, true, |o, data| {
        assert_eq!(data.len(), o.size);
        objects.push(o.clone());
    })?;
    Ok(objects)
}

#[test]
fn a_real_pack_walks_exactly_and_matches_git() {
    let repo = real_pack("walk");
    let (pack_path, idx_path) = (&repo.pack, &repo.idx);
    let bytes = std::fs::read(pack_path).unwrap();
    let objects = walk_all(&bytes).unwrap();
    Index::parse(&std::fs::read(idx_path).unwrap()).unwrap().verify(&bytes, &objects).unwrap();
    assert!(objects.iter().any(|o| o.kind == Kind::OfsDelta), "the pack has deltas");
    assert!(objects.iter().filter(|o| o.kind == Kind::Tree).count() >= 4);

    // git verify-pack -v: "<id> <type> <size> <size-in-pack> <offset> [depth base]"
    let listing = git(pack_path.parent().unwrap(), &["verify-pack", "-v", idx_path.to_str().unwrap()]);
    let mut truth: Vec<(usize, String, usize)> = listing
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 5 && f[0].len() == 40).then(|| (f[4].parse().unwrap(), f[1].to_string(), f[3].parse().unwrap()))
        })
        .collect();
    truth.sort();
    let mine: Vec<(usize, usize)> = objects.iter().map(|o| (o.offset, o.packed_len())).collect();
    assert_eq!(mine, truth.iter().map(|(off, _, len)| (*off, *len)).collect::<Vec<_>>());
    for (o, (_, kind, _)) in objects.iter().zip(&truth) {
        if !matches!(o.kind, Kind::OfsDelta | Kind::RefDelta) {
            assert_eq!(o.kind.name(), kind);
        }
    }
}

#[test]
fn damaged_packs_name_the_offset_and_stop() {
    let repo = real_pack("damage");
    let (pack_path, idx_path) = (&repo.pack, &repo.idx);
    let good = std::fs::read(pack_path).unwrap();
    let objects = walk_all(&good).unwrap();
    let victim = &objects[objects.len() / 2];

    // A flipped byte inside one object's stream: that object's offset is named.
    let mut bad = good.clone();
    bad[victim.offset + victim.header_len + victim.compressed_len / 2] ^= 0xff;
    match pack::walk(&bad, false, |_, _| {}) {
        Err(PackError::Inflate { offset, .. }) => assert_eq!(offset, victim.offset),
        Err(PackError::Layout(_)) | Err(PackError::BadHeader { .. }) => {} // the damage made a stream end early
        other => panic!("damage not reported: {other:?}"),
    }
    assert_eq!(pack::walk(&bad, true, |_, _| {}), Err(PackError::Checksum));

    // Truncated: the walk fails cleanly.
    assert!(pack::walk(&good[..good.len() / 2], false, |_, _| {}).is_err());
    assert!(pack::walk(&good[..30], false, |_, _| {}).is_err());

    // A header claiming more objects than there are.
    let mut more = good.clone();
    more[11] = more[11].wrapping_add(1);
    assert!(matches!(
        pack::walk(&more, false, |_, _| {}),
        Err(PackError::Layout(_)) | Err(PackError::BadHeader { .. })
    ));

    // Not a pack at all.
    assert_eq!(
        pack::walk(b"PACX\0\0\0\x02\0\0\0\x01xxxxxxxxxxxxxxxxxxxxxxxx", false, |_, _| {}),
        Err(PackError::NotAPack("no PACK signature"))
    );

    // An index that disagrees.
    let mut idx = std::fs::read(idx_path).unwrap();
    let crc_table = 8 + 256 * 4 + objects.len() * 20;
    idx[crc_table] ^= 1;
    assert!(matches!(Index::parse(&idx).unwrap().verify(&good, &objects), Err(PackError::Index(_))));
}

/// The parallel walk over the index finds exactly what the sequential walk and `Index::verify`
/// find, with every object's bytes, on 1, 2 and 4 threads.
#[test]
fn the_indexed_walk_agrees_with_the_sequential_one() {
    let repo = real_pack("indexed");
    let (pack_path, idx_path) = (&repo.pack, &repo.idx);
    let bytes = std::fs::read(pack_path).unwrap();
    let index = Index::parse(&std::fs::read(idx_path).unwrap()).unwrap();
    let mut expected = Vec::new();
    pack::walk(&bytes, true, |o, data| expected.push((o.clone(), digest(data)))).unwrap();
    for threads in [1, 2, 4] {
        let seen = std::sync::Mutex::new(Vec::new());
        let objects = pack::walk_indexed(&bytes, &index, threads, |o, data| {
            assert_eq!(data.len(), o.size);
            seen.lock().unwrap().push((o.clone(), digest(data)));
        })
        .unwrap();
        assert_eq!(objects, expected.iter().map(|(o, _)| o.clone()).collect::<Vec<_>>(), "{threads} threads");
        let mut seen = seen.into_inner().unwrap();
        seen.sort_by_key(|(o, _)| o.offset);
        assert_eq!(seen, expected, "{threads} threads: the same bytes for every object");
    }
}

/// Damage the indexed walk must catch as the sequential one does: a flipped byte in a stream, a
/// wrong CRC in the index, a wrong object count, a bad trailer.
#[test]
fn the_indexed_walk_refuses_what_the_sequential_one_refuses() {
    let repo = real_pack("indexed-damage");
    let (pack_path, idx_path) = (&repo.pack, &repo.idx);
    let good = std::fs::read(pack_path).unwrap();
    let idx = std::fs::read(idx_path).unwrap();
    let index = Index::parse(&idx).unwrap();
    let objects = walk_all(&good).unwrap();
    let victim = &objects[objects.len() / 2];

    let mut bad = good.clone();
    bad[victim.offset + victim.header_len + victim.compressed_len / 2] ^= 0xff;
    match pack::walk_indexed(&bad, &index, 2, |_, _| {}) {
        Err(PackError::Inflate { offset, .. }) | Err(PackError::BadHeader { offset, .. }) => {
            assert_eq!(offset, victim.offset)
        }
        Err(PackError::Layout(_)) | Err(PackError::Index(_)) => {} // a stream that ends early, or a CRC that differs
        other => panic!("damage not reported: {other:?}"),
    }

    let mut trailer = good.clone();
    let last = trailer.len() - 1;
    trailer[last] ^= 1;
    assert_eq!(pack::walk_indexed(&trailer, &index, 2, |_, _| {}), Err(PackError::Checksum));

    let mut crc = idx.clone();
    crc[8 + 256 * 4 + objects.len() * 20] ^= 1;
    assert!(matches!(pack::walk_indexed(&good, &Index::parse(&crc).unwrap(), 2, |_, _| {}), Err(PackError::Index(_))));

    let mut fewer = index.clone();
    fewer.entries.pop();
    assert!(matches!(pack::walk_indexed(&good, &fewer, 2, |_, _| {}), Err(PackError::Index(_))));
    let mut shifted = index.clone();
    shifted.entries[1].0 += 1;
    assert!(pack::walk_indexed(&good, &shifted, 2, |_, _| {}).is_err());
    assert!(pack::walk_indexed(&good[..good.len() / 2], &index, 2, |_, _| {}).is_err());

    // The index from a closure, parsed while the hash runs: the same answers, its own error as is.
    let count = |pack: &[u8], idx: &[u8]| {
        pack::walk_indexed_from(pack, || Index::parse(idx), 2, || 0usize, |n, _, _, _| *n += 1)
            .map(|n| n.iter().sum::<usize>())
    };
    assert_eq!(count(&good, &idx), Ok(objects.len()));
    assert_eq!(count(&trailer, &idx), Err(PackError::Checksum));
    assert!(matches!(count(&good, &idx[..100]), Err(PackError::Index(_))), "a cut index");
    assert!(matches!(
        count(&bad, &idx),
        Err(PackError::Inflate { .. } | PackError::BadHeader { .. } | PackError::Layout(_) | PackError::Index(_))
    ));
    assert!(matches!(count(&good[..10], &idx), Err(PackError::NotAPack(_))));
    #[derive(Debug, PartialEq)]
    enum Mine {
        NoIndex,
        Pack(PackError),
    }
    impl From<PackError> for Mine {
        fn from(e: PackError) -> Mine {
            Mine::Pack(e)
        }
    }
    let none = pack::walk_indexed_from(&good, || Err::<Index, _>(Mine::NoIndex), 2, || (), |_, _, _, _| {});
    assert_eq!(none, Err(Mine::NoIndex));
    let damaged = pack::walk_indexed_from(&trailer, || Ok::<_, Mine>(&index), 2, || (), |_, _, _, _| {});
    assert_eq!(damaged, Err(Mine::Pack(PackError::Checksum)));
}

fn digest(data: &[u8]) -> u32 {
    // FNV-1a: a cheap fingerprint of the inflated bytes to compare the two walks by.
    data.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// With several bad objects, the parallel walk reports what a walk on one thread reports, the
/// lowest bad object's error, whichever thread finds which first: here one bad object near the
/// end of the first block of 256 and one at the start of the second, which a second thread
/// reaches first.
#[test]
fn several_bad_objects_give_the_lowest_ones_error_on_every_thread_count() {
    let repo = real_pack("several-bad");
    let (pack_path, idx_path) = (&repo.pack, &repo.idx);
    let good = std::fs::read(pack_path).unwrap();
    let index = Index::parse(&std::fs::read(idx_path).unwrap()).unwrap();
    let objects = walk_all(&good).unwrap();
    assert!(objects.len() > 260, "the test pack must span two blocks of 256 objects: {}", objects.len());
    // Objects whose stream, with one byte flipped mid-way, fails to inflate at their own offset.
    let damage = |pack: &mut Vec<u8>, o: &Object| pack[o.offset + o.header_len + o.compressed_len / 2] ^= 0xff;
    let fails_alone = |o: &Object| {
        let mut bad = good.clone();
        damage(&mut bad, o);
        matches!(pack::walk_indexed(&bad, &index, 1, |_, _| {}), Err(PackError::Inflate { offset, .. }) if offset == o.offset)
    };
    let early =
        objects[200..256].iter().rev().find(|o| o.compressed_len > 8 && fails_alone(o)).expect("an early victim");
    let late = objects[256..].iter().find(|o| o.compressed_len > 8 && fails_alone(o)).expect("a late victim");
    let mut bad = good.clone();
    damage(&mut bad, early);
    damage(&mut bad, late);
    let one_thread = pack::walk_indexed(&bad, &index, 1, |_, _| {});
    assert!(matches!(one_thread, Err(PackError::Inflate { offset, .. }) if offset == early.offset), "{one_thread:?}");
    for threads in [2, 3, 4, 8] {
        for round in 0..10 {
            // A slow first block lets the other threads find the late victim first.
            let walked = pack::walk_indexed(&bad, &index, threads, |o, _| {
                if o.offset < early.offset && round % 2 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(20));
                }
            });
            assert_eq!(walked, one_thread, "{threads} threads, round {round}");
        }
    }
    // The sequential walk without the index stops at the same object.
    assert!(
        matches!(pack::walk(&bad, false, |_, _| {}), Err(PackError::Inflate { offset, .. }) if offset == early.offset)
    );
}

#[test]
fn the_reverse_index_gives_the_sorted_index_and_a_wrong_one_is_refused() {
    let repo = real_pack("rev");
    let (pack_path, idx_path) = (&repo.pack, &repo.idx);
    let idx = std::fs::read(idx_path).unwrap();
    let rev = std::fs::read(pack_path.with_extension("rev")).expect("git wrote a .rev beside the .idx");
    let sorted = Index::parse(&idx).unwrap();
    assert_eq!(Index::parse_with_reverse(&idx, &rev).unwrap(), sorted);
    let bytes = std::fs::read(pack_path).unwrap();
    let from_rev = Index::parse_with_reverse(&idx, &rev).unwrap();
    assert_eq!(pack::walk_indexed(&bytes, &from_rev, 2, |_, _| {}).unwrap().len(), sorted.entries.len());

    let n = sorted.entries.len();
    assert!(n > 10);
    let position = |at: usize| 12 + 4 * at;
    type Damage = Box<dyn Fn(&mut Vec<u8>)>;
    let damaged: Vec<(&str, Damage)> = vec![
        ("magic", Box::new(|r| r[0] = b'X')),
        ("version", Box::new(|r| r[7] = 2)),
        ("SHA-256 names", Box::new(|r| r[11] = 2)),
        ("one position short", Box::new(move |r| drop(r.drain(position(3)..position(4))))),
        (
            "another pack",
            Box::new(|r| {
                let at = r.len() - 40;
                r[at] ^= 1
            }),
        ),
        (
            "two neighbours swapped",
            Box::new(move |r| {
                let (a, b) = (position(5), position(6));
                let first: [u8; 4] = r[a..a + 4].try_into().unwrap();
                r.copy_within(b..b + 4, a);
                r[b..b + 4].copy_from_slice(&first);
            }),
        ),
        ("one object twice", Box::new(move |r| r.copy_within(position(7)..position(8), position(8)))),
        (
            "an object past the last",
            Box::new(move |r| r[position(2)..position(3)].copy_from_slice(&(n as u32).to_be_bytes())),
        ),
    ];
    for (what, damage) in damaged {
        let mut bad = rev.clone();
        damage(&mut bad);
        let result = Index::parse_with_reverse(&idx, &bad);
        assert!(matches!(result, Err(PackError::Index(_))), "{what}: {:?}", result.map(|i| i.entries.len()));
    }
}

/// With two threads or more, the thread that checks the SHA-1 inflates too once it is done: every
/// thread's state comes back, their counts add up to the pack's, and more than one thread
/// counted objects. A panic in the caller's code (the index closure, or `visit` on any thread)
/// comes back as that panic, and never leaves the hashing thread waiting for a walk.
#[test]
fn every_walking_thread_returns_its_state_and_panics_come_back() {
    let repo = real_pack("helpers");
    let (pack_path, idx_path) = (&repo.pack, &repo.idx);
    let bytes = std::fs::read(pack_path).unwrap();
    let idx = std::fs::read(idx_path).unwrap();
    let objects = walk_all(&bytes).unwrap().len();
    assert!(objects > 270, "the test pack must span two blocks of 256 objects: {objects}");
    for threads in [1, 2, 3] {
        // Slow objects, so that the SHA-1 ends long before the walk and that thread takes blocks.
        let states = pack::walk_indexed_from(
            &bytes,
            || Index::parse(&idx),
            threads,
            || 0usize,
            |n, _, _, _| {
                std::thread::sleep(std::time::Duration::from_micros(30));
                *n += 1;
            },
        )
        .unwrap();
        assert_eq!(states.len(), threads, "one state per walking thread");
        assert_eq!(states.iter().sum::<usize>(), objects, "{threads} threads: {states:?}");
        if threads > 1 {
            assert!(states.iter().filter(|&&n| n > 0).count() > 1, "{threads} threads shared the objects: {states:?}");
        }
    }
    // Each case runs on a thread of its own, so that a walk left waiting fails the test instead
    // of hanging it.
    let within_a_minute = |case: Box<dyn FnOnce() -> bool + Send>| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(case)).is_err()));
        rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the walk returned")
    };
    for threads in [1, 2, 3] {
        let (pack, idx) = (bytes.clone(), idx.clone());
        let index_panics = within_a_minute(Box::new(move || {
            pack::walk_indexed_from(
                &pack,
                || -> Result<Index, PackError> { panic!("no index") },
                threads,
                || (),
                |_, _, _, _| {},
            )
            .is_ok()
        }));
        assert!(index_panics, "{threads} threads: the index closure's panic comes back");
        let pack = bytes.clone();
        let visit_panics = within_a_minute(Box::new(move || {
            pack::walk_indexed_from(
                &pack,
                || Index::parse(&idx),
                threads,
                || (),
                |_, i, _, _| assert!(i != 270, "object 270"),
            )
            .is_ok()
        }));
        assert!(visit_panics, "{threads} threads: a panic in visit comes back");
    }
}
