//! `AssetArchive::read_at`: any slice of any entry equals the same bytes of the whole entry, for
//! every holding and method; offsets past the end are refused; the checkpoints stay within their
//! budget, survive export and import, and are refused when they are another entry's.

#[allow(dead_code)] // shared with the other test binaries
mod support;
#[allow(dead_code)]
mod zipwriter;

use asset_extract::{AssetArchive, Error, Holding};
use zipwriter::{Spec, build};

fn text(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(len + 32);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(
            format!("2026-12-02T13:{:02} GET /item/{} {}\n", state % 60, state % 5000, state % 7).as_bytes(),
        );
    }
    out.truncate(len);
    out
}

/// An archive with a large deflated entry, a stored one, a small deflated one and an empty one.
fn archive() -> (Vec<u8>, Vec<Vec<u8>>) {
    let entries = vec![text(3 << 20, 1), text(200_000, 2), b"tiny".to_vec(), Vec::new()];
    let specs = vec![
        Spec::file("log.txt", &entries[0]),
        Spec::stored("raw.bin", &entries[1]),
        Spec::file("tiny.txt", &entries[2]),
        Spec::file("empty.txt", &entries[3]),
    ];
    (build(&specs, b"").0, entries)
}

fn check_slices(archive: &AssetArchive, entries: &[Vec<u8>]) {
    let mut state = 5u64;
    for (index, data) in entries.iter().enumerate() {
        for i in 0..60 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = [0usize, 1, 4096, 100_000][(state >> 10) as usize % 4];
            let offset = match i % 4 {
                0 => 0,
                1 => data.len() as u64,
                2 => (data.len() as u64).saturating_sub(10),
                _ => (state >> 24) % (data.len() as u64 + 1),
            };
            let mut out = vec![0xa5u8; len];
            let n = archive.read_at(index, offset, &mut out).unwrap();
            let end = (offset as usize + len).min(data.len());
            assert_eq!(n, end - offset as usize, "entry {index} at {offset}+{len}");
            assert!(out[..n] == data[offset as usize..end], "entry {index} at {offset}+{len}");
        }
        let past = archive.read_at(index, data.len() as u64 + 1, &mut [0u8; 4]);
        assert!(matches!(past, Err(Error::OutOfRange { .. })), "entry {index}: {past:?}");
    }
}

#[test]
fn every_slice_equals_the_entry_in_memory_mapped_and_read() {
    let (zip, entries) = archive();
    let dir = support::workdir("read-at");
    let path = dir.join("a.zip");
    std::fs::write(&path, &zip).unwrap();
    check_slices(&AssetArchive::from_bytes(zip).unwrap(), &entries);
    check_slices(&AssetArchive::open(&path, Holding::Map).unwrap(), &entries);
    let read = AssetArchive::open(&path, Holding::Read).unwrap();
    check_slices(&read, &entries);
    assert!(read.checkpoint_memory() > 0 && read.checkpoint_memory() < 4 << 20);
}

#[test]
fn checkpoints_stay_within_the_budget_and_reads_stay_right() {
    let (zip, entries) = archive();
    let archive = AssetArchive::from_bytes(zip).unwrap();
    // Room for about four checkpoints: the 3 MiB entry gets a span of about 800 KiB.
    archive.set_checkpoint_limits(64 << 10, 4 * (33 << 10));
    check_slices(&archive, &entries);
    assert!(archive.checkpoint_memory() <= 4 * (33 << 10), "{}", archive.checkpoint_memory());
    // No room at all: every read decodes from the entry's start, and is still right.
    archive.set_checkpoint_limits(64 << 10, 0);
    assert_eq!(archive.checkpoint_memory(), 0);
    check_slices(&archive, &entries[..1]);
}

#[test]
fn exported_checkpoints_serve_another_open_and_are_refused_for_another_entry() {
    let (zip, entries) = archive();
    let first = AssetArchive::from_bytes(zip.clone()).unwrap();
    let exported = first.export_checkpoints(0).unwrap();
    let second = AssetArchive::from_bytes(zip.clone()).unwrap();
    second.import_checkpoints(0, &exported).unwrap();
    let mut out = [0u8; 64];
    assert_eq!(second.read_at(0, 2_500_000, &mut out).unwrap(), 64);
    assert_eq!(&out[..], &entries[0][2_500_000..2_500_064]);
    // Another entry's, a stored entry, altered bytes: refused, and reads still right.
    let tiny = second.import_checkpoints(2, &exported);
    assert!(matches!(tiny, Err(Error::CheckpointsRefused { .. })), "{tiny:?}");
    assert!(matches!(second.import_checkpoints(1, &exported), Err(Error::CheckpointsRefused { .. })));
    let mut altered = exported.clone();
    altered[exported.len() / 2] ^= 1;
    assert!(matches!(second.import_checkpoints(0, &altered), Err(Error::CheckpointsRefused { .. })));
    // An archive whose entry changed (same name, other bytes) refuses the old checkpoints.
    let changed = build(&[Spec::file("log.txt", &text(3 << 20, 9))], b"").0;
    let third = AssetArchive::from_bytes(changed).unwrap();
    assert!(matches!(third.import_checkpoints(0, &exported), Err(Error::CheckpointsRefused { .. })));
}

#[test]
fn reading_an_entry_through_makes_its_checkpoints_on_the_way() {
    let (zip, entries) = archive();
    let archive = AssetArchive::from_bytes(zip).unwrap();
    assert_eq!(archive.checkpoint_memory(), 0);
    let mut whole = Vec::new();
    std::io::Read::read_to_end(&mut archive.reader(0).unwrap(), &mut whole).unwrap();
    assert!(whole == entries[0]);
    let kept = archive.checkpoint_memory();
    assert!(kept > 32 << 10, "no checkpoints kept by the full read: {kept}");
    // read_at uses them: no new pass, the same memory, the right bytes.
    let mut out = [0u8; 100];
    assert_eq!(archive.read_at(0, 2_000_000, &mut out).unwrap(), 100);
    assert_eq!(&out[..], &entries[0][2_000_000..2_000_100]);
    assert_eq!(archive.checkpoint_memory(), kept);
    // A read stopped before the end keeps nothing (the entry is not checked).
    let other = AssetArchive::from_bytes(build(&[Spec::file("log.txt", &entries[0])], b"").0).unwrap();
    let mut part = vec![0u8; 1 << 20];
    std::io::Read::read_exact(&mut other.reader(0).unwrap(), &mut part).unwrap();
    assert_eq!(other.checkpoint_memory(), 0);
}

#[test]
fn a_damaged_entry_fails_its_first_slice_with_the_reason() {
    let (mut zip, _) = archive();
    // Flip a byte in the middle of the large deflated entry's data.
    zip[1 << 18] ^= 0x40;
    let archive = AssetArchive::from_bytes(zip).unwrap();
    let failed = archive.read_at(0, 10, &mut [0u8; 10]);
    assert!(matches!(failed, Err(Error::Data { .. } | Error::Crc { .. })), "{failed:?}");
}

/// An archive served by a source that counts the bytes it reads.
struct Counted {
    bytes: Vec<u8>,
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl asset_extract::Source for Counted {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = self.bytes.get(offset as usize..).unwrap_or(&[]);
        let n = buf.len().min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.read.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Exporting an entry's checkpoints reads its compressed bytes once (the pass that builds them
/// keeps what the export's digests need), and after a whole read made them, not at all.
#[test]
fn exporting_checkpoints_reads_the_entry_once_or_not_at_all() {
    use std::sync::atomic::Ordering::Relaxed;
    let (zip, entries) = archive();
    let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let open = || {
        read.store(0, Relaxed);
        let archive = AssetArchive::open_source(Counted { bytes: zip.clone(), read: read.clone() }).unwrap();
        (archive, read.swap(0, Relaxed))
    };
    let (archive, _) = open();
    let compressed = archive.entries()[0].compressed_size;
    let exported = archive.export_checkpoints(0).unwrap();
    let once = read.load(Relaxed);
    assert!(once >= compressed && once < compressed + (64 << 10), "{once} bytes read for an entry of {compressed}");
    let (archive, _) = open();
    let mut whole = Vec::new();
    std::io::Read::read_to_end(&mut archive.reader(0).unwrap(), &mut whole).unwrap();
    assert!(whole == entries[0]);
    read.store(0, Relaxed);
    let after_read = archive.export_checkpoints(0).unwrap();
    assert_eq!(read.load(Relaxed), 0, "the export after a whole read read the archive");
    // Both exports' digests are the stream's: every read through each checks them, and passes.
    for bytes in [exported, after_read] {
        let (fresh, _) = open();
        fresh.import_checkpoints(0, &bytes).unwrap();
        for offset in (0..entries[0].len()).step_by(97_001) {
            let mut out = [0u8; 100];
            let n = fresh.read_at(0, offset as u64, &mut out).unwrap();
            assert!(out[..n] == entries[0][offset..offset + n], "at {offset}");
        }
    }
}

/// Slices of a source whose bytes change after the entry was checked: an error, or the entry's
/// own bytes where the change is outside what the slice reads, never other bytes with success;
/// for deflated entries (through their checkpoints) and stored ones (block by block).
#[test]
fn slices_of_a_source_that_changes_are_an_error_never_other_bytes() {
    let (zip, entries) = archive();
    let central = zip.windows(4).rposition(|w| w == b"PK\x01\x02").unwrap();
    let (mut refused, mut read) = (0, 0);
    for flipped in (0..central).step_by(37 << 10) {
        let changed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let source = support::Changing { bytes: zip.clone(), flipped, changed: changed.clone() };
        let archive = AssetArchive::open_source(source).unwrap();
        let mut slice = vec![0u8; 4096];
        for index in 0..2 {
            archive.read_at(index, 0, &mut slice).unwrap(); // the first pass: checkpoints, or blocks
        }
        changed.store(true, std::sync::atomic::Ordering::Relaxed);
        for (index, data) in entries.iter().enumerate().take(2) {
            for k in 0..40u64 {
                let offset = k * (data.len() as u64 / 40) + 11;
                match archive.read_at(index, offset, &mut slice) {
                    Ok(n) => {
                        assert!(
                            slice[..n] == data[offset as usize..offset as usize + n],
                            "entry {index}: other bytes with OK at {offset}, a byte flipped at {flipped}"
                        );
                        read += 1;
                    }
                    Err(Error::Crc { .. } | Error::Data { .. }) => refused += 1,
                    Err(err) => panic!("entry {index} at {offset}: {err}"),
                }
            }
        }
    }
    assert!(refused > 20 && read > 100, "{refused} refused, {read} read");
}
