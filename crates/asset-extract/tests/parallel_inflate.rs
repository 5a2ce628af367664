//! Inflating on several cores changes nothing but the time. Entries of several chunks (more than
//! 4 MiB of output each), extracted and read with `ParallelInflate::Always` and with `Never`: the
//! same files and bytes when whole; when corrupt, truncated, lying about their size or CRC-32,
//! with data after their stream, past a quota or a ratio limit, or cancelled, the same error and
//! nothing left at the destination.

mod support;
#[allow(dead_code)]
mod zipwriter;

use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use asset_extract::{AssetArchive, Error, Holding, Mode, Options, ParallelInflate, extract, extract_bytes};
use support::{listing, workdir};
use zipwriter::{Spec, build, put_u32};

/// Log lines that compress about 5:1, with stretches of noise, as a server's log does.
fn log_text(len: usize, seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 128);
    let mut x = seed | 1;
    let mut line = 0u64;
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if line % 40 == 39 {
            out.extend((0..200).map(|i| (x >> (i % 56)) as u8));
        }
        writeln!(out, "{line:08} GET /assets/js/chunk-{}.js {} {}ms", x % 211, 200 + x % 5, x % 997).unwrap();
        line += 1;
    }
    out.truncate(len);
    out
}

/// `data` deflated fast (the test's time goes to decoding, not to making its input).
fn deflate_fast(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// The archive the tests break: a small file, then two entries of 3 and 2 chunks.
struct Sample {
    big: Vec<u8>,
    other: Vec<u8>,
    big_body: Vec<u8>,
}

fn sample() -> &'static Sample {
    static SAMPLE: std::sync::OnceLock<Sample> = std::sync::OnceLock::new();
    SAMPLE.get_or_init(|| {
        let big = log_text(9 << 20, 7);
        let other = log_text(5 << 20, 11);
        Sample { big_body: deflate_fast(&big), big, other }
    })
}

/// The archive with `big.log`'s compressed bytes as given (its data the sample's, for the
/// headers' CRC-32 and size).
fn archive_with(big_body: Vec<u8>) -> (Vec<u8>, zipwriter::Layout) {
    let s = sample();
    build(
        &[
            Spec::file("readme.txt", b"three entries, two of several chunks\n"),
            Spec::packed("big.log", &s.big, 8, big_body),
            Spec::packed("other.log", &s.other, 8, deflate_fast(&s.other)),
        ],
        b"",
    )
}

fn options(mode: ParallelInflate) -> Options<'static> {
    Options { parallel_inflate: mode, threads: 4, mode: Mode::Replace, ..Options::default() }
}

/// Every file under `dir` (relative path, bytes), sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        out.push((path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap()));
    }
    out.sort();
    out
}

/// Extracts `zip` (from memory and from a file) into a destination holding one file, on several
/// cores and on one, with `base`'s options: both agree, as files or as the same error with the
/// destination as it was. The outcome on one core.
fn both_ways(name: &str, zip: &[u8], base: Options<'_>) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let dir = workdir(&format!("parallel-{name}"));
    let path = dir.join("archive.zip");
    std::fs::write(&path, zip).unwrap();
    let mut outcomes = Vec::new();
    for mode in [ParallelInflate::Always, ParallelInflate::Never] {
        for from_file in [true, false] {
            let dest = dir.join("out");
            let _ = std::fs::remove_dir_all(&dest);
            std::fs::create_dir(&dest).unwrap();
            std::fs::write(dest.join("keep.txt"), b"existing data").unwrap();
            let options = Options { parallel_inflate: mode, only: base.only.clone(), ..base };
            let result = if from_file { extract(&path, &dest, &options) } else { extract_bytes(zip, &dest, &options) };
            let outcome = match result {
                Ok(_) => Ok(tree(&dest)),
                Err(e) => {
                    assert_eq!(listing(&dir), ["archive.zip", "out"], "{name} {mode:?}: something left beside it");
                    assert_eq!(listing(&dest), ["keep.txt"], "{name} {mode:?}: the destination changed: {e}");
                    Err(e)
                }
            };
            outcomes.push((mode, from_file, outcome));
        }
    }
    let (_, _, serial) = outcomes.pop().unwrap();
    for (mode, from_file, outcome) in &outcomes {
        match (outcome, &serial) {
            (Ok(a), Ok(b)) => assert!(a == b, "{name} {mode:?} (from a file: {from_file}): other files"),
            (Err(a), Err(b)) => assert_eq!(same_error(a), same_error(b), "{name} {mode:?}: {a} / {b}"),
            (a, b) => {
                panic!("{name} {mode:?} (from a file: {from_file}): {:?} / {:?}", a.as_ref().err(), b.as_ref().err())
            }
        }
    }
    serial
}

/// What two errors must share to be the same to a caller: the variant (the C status), and for
/// a decoding error, the decoder's.
fn same_error(e: &Error) -> String {
    match e {
        Error::Data { source, .. } => format!("Data({:?})", std::mem::discriminant(source)),
        e => format!("{:?}", std::mem::discriminant(e)),
    }
}

#[test]
fn whole_entries_come_out_the_same_on_several_cores() {
    let s = sample();
    let (zip, _) = archive_with(s.big_body.clone());
    let files = both_ways("whole", &zip, options(ParallelInflate::Never)).expect("a sound archive");
    assert_eq!(files.len(), 3, "replaced: the file that was there is gone");
    assert!(files.iter().any(|(name, bytes)| name == "big.log" && *bytes == s.big));
}

#[test]
fn a_corrupt_stream_fails_the_same_wherever_the_damage() {
    let s = sample();
    // In the first chunk, in a later one, and in the last bytes.
    for at in [s.big_body.len() / 10, s.big_body.len() * 6 / 10, s.big_body.len() - 3] {
        let mut body = s.big_body.clone();
        body[at] ^= 0x5a;
        let (zip, _) = archive_with(body);
        both_ways(&format!("flipped-{at}"), &zip, options(ParallelInflate::Never)).expect_err("a corrupt stream");
    }
}

#[test]
fn a_truncated_stream_fails_the_same() {
    let s = sample();
    for keep in [s.big_body.len() / 3, s.big_body.len() - 1] {
        let (zip, _) = archive_with(s.big_body[..keep].to_vec());
        both_ways(&format!("cut-{keep}"), &zip, options(ParallelInflate::Never)).expect_err("a truncated stream");
    }
}

#[test]
fn headers_that_lie_about_the_crc_or_the_size_fail_the_same() {
    let s = sample();
    let (zip, layout) = archive_with(s.big_body.clone());
    let patched = |field: usize, value: u32| {
        let mut zip = zip.clone();
        put_u32(&mut zip, layout.local[1] + 14 + field, value);
        put_u32(&mut zip, layout.central[1] + 16 + field, value);
        zip
    };
    let crc = both_ways("crc", &patched(0, 0x1234_5678), options(ParallelInflate::Never)).unwrap_err();
    assert!(matches!(crc, Error::Crc { .. }), "{crc}");
    for size in [s.big.len() as u32 - 1, s.big.len() as u32 + 1, 5 << 20] {
        let e = both_ways(&format!("size-{size}"), &patched(8, size), options(ParallelInflate::Never)).unwrap_err();
        assert!(matches!(e, Error::Data { source: strided_inflate::Error::SizeMismatch { .. }, .. }), "{e}");
    }
}

#[test]
fn data_after_the_stream_is_read_past_or_refused_the_same() {
    let s = sample();
    let mut body = s.big_body.clone();
    body.extend_from_slice(b"bytes after the stream, inside the compressed size");
    let (zip, _) = archive_with(body);
    both_ways("trailing", &zip, options(ParallelInflate::Never)).expect("read past by default");
    let strict = Options { strict: true, ..options(ParallelInflate::Never) };
    both_ways("trailing-strict", &zip, strict).expect_err("refused when strict");
}

#[test]
fn quotas_and_ratio_limits_refuse_the_same() {
    let (zip, _) = archive_with(sample().big_body.clone());
    let quota = Options { quota: Some(12 << 20), ..options(ParallelInflate::Never) };
    assert!(matches!(both_ways("quota", &zip, quota), Err(Error::Limit { .. })));
    let ratio = Options { max_ratio: Some(2.0), ..options(ParallelInflate::Never) };
    assert!(matches!(both_ways("ratio", &zip, ratio), Err(Error::Limit { .. })));
}

#[test]
fn cancelling_during_a_parallel_entry_leaves_nothing() {
    let (zip, _) = archive_with(sample().big_body.clone());
    let dir = workdir("parallel-cancel");
    let dest = dir.join("out");
    let cancel = AtomicBool::new(false);
    // The first entry done (the small one) cancels: the large ones are then under way, or not begun.
    let progress = |_: asset_extract::Progress| cancel.store(true, Ordering::Relaxed);
    let options = Options {
        cancel: Some(&cancel),
        progress: Some(&progress),
        parallel_inflate: ParallelInflate::Always,
        threads: 2,
        ..Options::default()
    };
    let err = extract_bytes(&zip, &dest, &options).unwrap_err();
    assert!(matches!(err, Error::Cancelled), "{err}");
    assert!(listing(&dir).is_empty(), "left behind: {:?}", listing(&dir));
}

/// Whole reads, copies and streams of an archive opened in place, on several cores, against a
/// stream on one: the same bytes, or the same error (the stream's at its end).
fn reads_agree(name: &str, zip: &[u8]) {
    let mut file = tempfile::Builder::new()
        .prefix(&format!("asset-extract-parallel-read-{name}-"))
        .suffix(".zip")
        .tempfile()
        .unwrap();
    std::io::Write::write_all(&mut file, zip).unwrap();
    let path = file.into_temp_path();
    for archive in [AssetArchive::from_bytes(zip.to_vec()).unwrap(), AssetArchive::open(&path, Holding::Read).unwrap()]
    {
        let archive = Arc::new(archive);
        let index = archive.find("big.log").unwrap();
        archive.set_parallel_inflate(ParallelInflate::Never);
        assert!(archive.parallel_reader(index).unwrap().is_none(), "never means never");
        let mut one = Vec::new();
        let serial = archive.reader(index).unwrap().read_to_end(&mut one).map(|_| one);
        archive.set_parallel_inflate(ParallelInflate::Always);
        let whole = archive.read(index);
        let mut copied = Vec::new();
        let copy = archive
            .copy_to(index, &mut |bytes| {
                copied.extend_from_slice(bytes);
                Ok(())
            })
            .map(|()| copied);
        let mut reader = archive.parallel_reader(index).unwrap().expect("always means always");
        assert!(reader.cores() >= 1);
        let mut streamed = Vec::new();
        let stream = reader.read_to_end(&mut streamed).map(|_| streamed);
        match &serial {
            Ok(bytes) => {
                assert!(whole.as_ref().is_ok_and(|w| w == bytes), "{name}: a whole read");
                assert!(copy.as_ref().is_ok_and(|c| c == bytes), "{name}: a copy");
                assert!(stream.as_ref().is_ok_and(|s| s == bytes), "{name}: a stream");
            }
            Err(_) => {
                let (whole, copy) = (whole.unwrap_err(), copy.unwrap_err());
                assert_eq!(same_error(&whole), same_error(&copy), "{name}: {whole} / {copy}");
                assert!(stream.is_err(), "{name}: the stream ends in its error");
                assert!(reader.read(&mut [0u8; 16]).is_err(), "{name}: and stays failed");
            }
        }
    }
}

#[test]
fn reads_in_place_agree_on_several_cores() {
    let s = sample();
    reads_agree("whole", &archive_with(s.big_body.clone()).0);
    let mut body = s.big_body.clone();
    let at = body.len() * 7 / 10;
    body[at] ^= 0x33;
    reads_agree("flipped", &archive_with(body).0);
    reads_agree("cut", &archive_with(s.big_body[..s.big_body.len() / 2].to_vec()).0);
}

#[test]
fn a_stream_dropped_half_read_stops_its_threads() {
    let archive = Arc::new(AssetArchive::from_bytes(archive_with(sample().big_body.clone()).0).unwrap());
    archive.set_parallel_inflate(ParallelInflate::Always);
    let index = archive.find("big.log").unwrap();
    let mut reader = archive.parallel_reader(index).unwrap().unwrap();
    let mut first = vec![0u8; 100_000];
    reader.read_exact(&mut first).unwrap();
    assert_eq!(first, sample().big[..100_000]);
    drop(reader); // joins the decoding thread: returns only once it has stopped
    assert_eq!(Arc::strong_count(&archive), 1, "the decoding thread let go of the archive");
}
