//! Checkpoints: every slice read through them equals the same bytes of the whole inflated
//! stream, at every compression level (stored blocks included), from every kind of offset; and
//! what is not the stream they were made for is refused.

use std::io::Write;

use strided_inflate::{Checkpoints, ChunkedInflater, Format, SeekError};

/// Text with structure (for long matches) and variety (for dynamic blocks of every shape).
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(len + 64);
    let words =
        ["alpha", "beta", "gamma", "delta", "request", "GET /index.html", "200", "404", "\n", " ", "user=", "ms"];
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        match state % 7 {
            0 => out.extend_from_slice(format!("{}", state % 100_000).as_bytes()),
            1 => out.push((state >> 8) as u8),
            _ => out.extend_from_slice(words[(state >> 16) as usize % words.len()].as_bytes()),
        }
    }
    out.truncate(len);
    out
}

fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = flate2::write::DeflateEncoder::new(&mut out, flate2::Compression::new(level));
    e.write_all(data).unwrap();
    e.finish().unwrap();
    out
}

fn source(stream: &[u8]) -> impl FnMut(u64, &mut [u8]) -> std::io::Result<usize> + '_ {
    move |offset, buf| {
        let rest = stream.get(offset as usize..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    }
}

fn build(stream: &[u8], data: &[u8], span: u64) -> Checkpoints {
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 16 << 10);
    Checkpoints::build(
        stream.len() as u64,
        data.len() as u64,
        strided_inflate::crc32(data),
        span,
        &mut inflater,
        source(stream),
    )
    .unwrap()
}

#[test]
fn every_slice_equals_the_whole_streams_bytes_at_every_level() {
    let data = sample(2 << 20, 7);
    for level in [0, 1, 6, 9] {
        let stream = deflate(&data, level);
        let points = build(&stream, &data, 64 << 10);
        assert!(points.count() >= 20, "level {level}: only {} checkpoints", points.count());
        let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 8 << 10);
        let mut state = 99u64 + u64::from(level);
        for i in 0..200 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let offset = match i % 5 {
                0 => 0,
                1 => data.len() as u64 - 1 - (state >> 40) % 100,
                _ => (state >> 20) % data.len() as u64,
            };
            let len = [1usize, 100, 4096, 70_000, 300_000][(state >> 8) as usize % 5];
            let mut out = vec![0u8; len];
            let n = points.read_at(offset, &mut out, &mut inflater, source(&stream)).unwrap();
            let end = (offset as usize + len).min(data.len());
            assert_eq!(n, end - offset as usize, "level {level}: length at {offset}+{len}");
            assert!(out[..n] == data[offset as usize..end], "level {level}: bytes at {offset}+{len}");
        }
        // The end: nothing at the length, an error past it.
        let mut out = [0u8; 8];
        assert_eq!(points.read_at(data.len() as u64, &mut out, &mut inflater, source(&stream)).unwrap(), 0);
        assert!(matches!(
            points.read_at(data.len() as u64 + 1, &mut out, &mut inflater, source(&stream)),
            Err(SeekError::OutOfRange { .. })
        ));
    }
}

#[test]
fn short_reads_from_the_source_give_the_same_checkpoints_and_bytes() {
    // A source that returns at most 7 bytes a call: the decoder drops consumed input at every
    // position, the byte holding a block header's first bits among them.
    let data = sample(128 << 10, 13);
    let stream = deflate(&data, 6);
    let stingy = |offset: u64, buf: &mut [u8]| {
        let n = buf.len().min(7);
        source(&stream)(offset, &mut buf[..n])
    };
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 4 << 10);
    let crc = strided_inflate::crc32(&data);
    let points =
        Checkpoints::build(stream.len() as u64, data.len() as u64, crc, 32 << 10, &mut inflater, stingy).unwrap();
    assert!(points.count() >= 2);
    for offset in (0..data.len() as u64).step_by(9_999) {
        let mut out = [0u8; 500];
        let n = points.read_at(offset, &mut out, &mut inflater, stingy).unwrap();
        assert!(out[..n] == data[offset as usize..offset as usize + n], "at {offset}");
    }
    // The digests the pass kept, carried over input dropped 7 bytes at a time, are the stream's.
    let unread = |_: u64, _: &mut [u8]| -> std::io::Result<usize> { panic!("the export read the stream") };
    let kept = points.export(unread).unwrap();
    let imported = Checkpoints::import(&kept, stream.len() as u64, data.len() as u64, crc).unwrap();
    assert!(kept == imported.export(stingy).unwrap());
}

#[test]
fn a_read_inflates_at_most_about_a_span() {
    let data = sample(4 << 20, 3);
    let stream = deflate(&data, 6);
    let span = 256 << 10;
    let points = build(&stream, &data, span);
    let read = std::cell::Cell::new(0u64);
    let mut counting = |offset: u64, buf: &mut [u8]| {
        let n = source(&stream)(offset, buf)?;
        read.set(read.get() + n as u64);
        Ok::<usize, std::io::Error>(n)
    };
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 16 << 10);
    let mut out = [0u8; 4096];
    points.read_at(3_900_000, &mut out, &mut inflater, &mut counting).unwrap();
    // The compressed bytes of about one span, plus the decoder's read-ahead.
    let per_byte = stream.len() as f64 / data.len() as f64;
    assert!((read.get() as f64) < (span as f64 * 2.0 * per_byte) + 200_000.0, "read {} bytes", read.get());
    assert!(points.memory() < (data.len() / span as usize + 2) * 33_000 + 4096);
}

#[test]
fn a_stream_that_is_not_what_the_caller_said_keeps_no_checkpoints() {
    let data = sample(300_000, 5);
    let stream = deflate(&data, 6);
    let crc = strided_inflate::crc32(&data);
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 16 << 10);
    let mut try_build = |compressed: u64, len: u64, crc: u32, s: &[u8]| {
        Checkpoints::build(compressed, len, crc, 32 << 10, &mut inflater, source(s)).map(|_| ())
    };
    let n = stream.len() as u64;
    assert!(matches!(
        try_build(n, data.len() as u64 + 1, crc, &stream),
        Err(SeekError::Length { actual: Some(_), .. })
    ));
    assert!(matches!(try_build(n, data.len() as u64 - 1, crc, &stream), Err(SeekError::Length { actual: None, .. })));
    assert!(matches!(try_build(n, data.len() as u64, crc ^ 1, &stream), Err(SeekError::Crc { .. })));
    let mut longer = stream.clone();
    longer.extend_from_slice(b"junk");
    // Bytes after the stream are the caller's to judge (asset-extract reads past them).
    assert!(try_build(n + 4, data.len() as u64, crc, &longer).is_ok());
    assert!(try_build(n - 10, data.len() as u64, crc, &stream).is_err());
    let mut corrupt = stream.clone();
    corrupt[n as usize / 2] ^= 0x55;
    assert!(try_build(n, data.len() as u64, crc, &corrupt).is_err());
    assert!(try_build(n, data.len() as u64, crc, &stream).is_ok());
}

#[test]
fn exported_checkpoints_come_back_equal_and_altered_ones_are_refused() {
    let data = sample(1 << 20, 11);
    let stream = deflate(&data, 6);
    let points = build(&stream, &data, 64 << 10);
    let (n, len, crc) = (stream.len() as u64, data.len() as u64, strided_inflate::crc32(&data));
    let bytes = points.export(source(&stream)).unwrap();
    assert_eq!(Checkpoints::import(&bytes, n, len, crc).unwrap(), points);
    // Another stream's sizes or CRC.
    assert!(Checkpoints::import(&bytes, n + 1, len, crc).is_err());
    assert!(Checkpoints::import(&bytes, n, len - 1, crc).is_err());
    assert!(Checkpoints::import(&bytes, n, len, crc ^ 0x100).is_err());
    // Cut anywhere, or any byte altered.
    for cut in [0, 7, 20, bytes.len() / 2, bytes.len() - 1] {
        assert!(Checkpoints::import(&bytes[..cut], n, len, crc).is_err(), "cut at {cut}");
    }
    for at in (0..bytes.len()).step_by(997) {
        let mut altered = bytes.clone();
        altered[at] ^= 0x20;
        assert!(Checkpoints::import(&altered, n, len, crc).is_err(), "byte {at} altered");
    }
    // Altered with the checksum made again: inconsistent offsets and windows are still refused.
    let resum = |mut b: Vec<u8>| {
        let body = b.len() - 4;
        let sum = strided_inflate::crc32(&b[..body]);
        b[body..].copy_from_slice(&sum.to_le_bytes());
        b
    };
    let first_point = 8 + 8 + 8 + 4 + 8 + 8;
    let mut out_of_order = bytes.clone();
    out_of_order[first_point..first_point + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(Checkpoints::import(&resum(out_of_order), n, len, crc).is_err());
    let mut window_len = bytes.clone();
    window_len[first_point + 16] ^= 1;
    assert!(Checkpoints::import(&resum(window_len), n, len, crc).is_err());
}

/// Built checkpoints export without reading the stream again (their pass kept what the digests
/// need), and their digests are the ones an export that reads the stream computes: at every level
/// (stored blocks, whose checkpoints fall on byte boundaries, among them), with bytes after the
/// stream inside the last span.
#[test]
fn built_checkpoints_export_without_reading_the_stream_again() {
    let data = sample(3 << 20, 13);
    let unread = |_: u64, _: &mut [u8]| -> std::io::Result<usize> { panic!("the export read the stream") };
    for level in [0, 1, 6, 9] {
        let mut stream = deflate(&data, level);
        for trailing in [&b""[..], b"junk after the stream"] {
            stream.extend_from_slice(trailing);
            let points = build(&stream, &data, 64 << 10);
            assert!(points.count() >= 16, "level {level}: {} checkpoints", points.count());
            let kept = points.export(unread).expect("an export from what the pass kept");
            let (n, len, crc) = (stream.len() as u64, data.len() as u64, strided_inflate::crc32(&data));
            // Imported checkpoints keep no CRC of the stream: their export reads it.
            let imported = Checkpoints::import(&kept, n, len, crc).unwrap();
            assert_eq!(imported, points);
            assert!(kept == imported.export(source(&stream)).unwrap(), "level {level}: other digests");
        }
    }
}

#[test]
fn a_tiny_stream_needs_no_checkpoint_and_still_reads_anywhere() {
    let data = b"hello, checkpoints".to_vec();
    let stream = deflate(&data, 9);
    let points = build(&stream, &data, 32 << 10);
    assert_eq!(points.count(), 0);
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 16 << 10);
    let mut out = [0u8; 5];
    assert_eq!(points.read_at(7, &mut out, &mut inflater, source(&stream)).unwrap(), 5);
    assert_eq!(&out, b"check");
    let empty = deflate(b"", 6);
    let none = build(&empty, b"", 32 << 10);
    assert_eq!(none.read_at(0, &mut out, &mut inflater, source(&empty)).unwrap(), 0);
    // No checkpoint at all still exports and imports (the fuzz harness found the import refusing it).
    let crc = strided_inflate::crc32(b"");
    assert_eq!(Checkpoints::import(&none.export(source(&empty)).unwrap(), empty.len() as u64, 0, crc).unwrap(), none);
    assert_eq!(
        Checkpoints::import(
            &points.export(source(&stream)).unwrap(),
            stream.len() as u64,
            data.len() as u64,
            strided_inflate::crc32(&data)
        )
        .unwrap(),
        points
    );
}

/// Issue 38: checkpoints are bound to the compressed bytes they describe. Made for one stream and
/// imported for another of the same data, sizes and CRC-32 but split into blocks differently (the
/// export's header made to say so, its checksum made again), every read through them is refused;
/// none returns other bytes. Altered windows with the file's checksum made again are refused too.
#[test]
fn imported_checkpoints_read_right_or_are_refused() {
    let data = sample(1 << 20, 12);
    let (one, other) = (deflate(&data, 6), deflate(&data, 1));
    assert_ne!(one, other);
    let (len, crc) = (data.len() as u64, strided_inflate::crc32(&data));
    let points = build(&one, &data, 64 << 10);
    assert!(points.count() >= 8);
    let resum = |mut b: Vec<u8>| {
        let body = b.len() - 4;
        let sum = strided_inflate::crc32(&b[..body]);
        b[body..].copy_from_slice(&sum.to_le_bytes());
        b
    };
    let exported = points.export(source(&one)).unwrap();
    let mut foreign = exported.clone();
    foreign[8..16].copy_from_slice(&(other.len() as u64).to_le_bytes());
    let foreign = Checkpoints::import(&resum(foreign), other.len() as u64, len, crc).expect("consistent on its face");
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 16 << 10);
    let (mut refused, mut right) = (0, 0);
    for k in 0..64u64 {
        let offset = k * (len / 64) + 77;
        let mut slice = [0u8; 4096];
        match foreign.read_at(offset, &mut slice, &mut inflater, source(&other)) {
            Ok(n) => {
                assert!(slice[..n] == data[offset as usize..offset as usize + n], "other bytes with OK at {offset}");
                right += 1;
            }
            Err(SeekError::Unbound { .. }) => refused += 1,
            Err(e) => panic!("at {offset}: {e}"),
        }
    }
    // Slices before the first checkpoint are read from the stream's start, needing none.
    assert!(refused >= 56 && refused + right == 64, "{refused} refused, {right} right");
    // A window byte flipped, the file's checksum made again: refused where it is used.
    let window_at = 8 + 8 + 8 + 4 + 8 + 8 + 20 + 100;
    let mut flipped = exported.clone();
    flipped[window_at] ^= 0x40;
    let flipped = Checkpoints::import(&resum(flipped), one.len() as u64, len, crc).unwrap();
    let first = points.read_at(0, &mut [0u8; 1], &mut inflater, source(&one)).map(|_| ());
    assert!(first.is_ok());
    let offset_after_first = 64 << 10; // the first checkpoint is the first block boundary past 64 KiB
    let mut slice = [0u8; 64 << 10];
    let mut refused_one = false;
    for at in (offset_after_first..len).step_by(32 << 10).take(8) {
        match flipped.read_at(at, &mut slice, &mut inflater, source(&one)) {
            Ok(n) => assert!(slice[..n] == data[at as usize..at as usize + n], "other bytes with OK at {at}"),
            Err(SeekError::Unbound { checkpoint: 0 }) => refused_one = true,
            Err(e) => panic!("at {at}: {e}"),
        }
    }
    assert!(refused_one, "the altered checkpoint was never refused");
    // Their own stream, unaltered: every read right.
    let own = Checkpoints::import(&exported, one.len() as u64, len, crc).unwrap();
    for k in 0..32u64 {
        let offset = k * (len / 32) + 5;
        let n = own.read_at(offset, &mut slice, &mut inflater, source(&one)).unwrap();
        assert!(slice[..n] == data[offset as usize..offset as usize + n]);
    }
}

/// The checkpoint-import fuzz harness over every mode, briefly (the long run is `cargo +nightly
/// fuzz run checkpoint_import`, see fuzz/README.md).
#[test]
fn checkpoint_import_harness_over_every_mode() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..48u32 {
        let mut input = vec![[61u8, 16, 93, 19][i as usize % 4], (i % 8) as u8];
        for _ in 0..6 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            input.extend_from_slice(&(x as u16).to_le_bytes());
        }
        input.extend_from_slice(format!("entry {i}: assets/js/{} bytes {}", x % 97, x % 1013).as_bytes());
        test_support::deflate::checkpoint_import(&input);
    }
}

/// A stream that changes after its checkpoints were made (a file rewritten, a caller's source
/// that answers otherwise): every read gives an error or the stream's own bytes, never other
/// bytes with success, through built and imported checkpoints alike, wherever the change is.
#[test]
fn a_stream_changed_since_its_checkpoints_gives_an_error_never_other_bytes() {
    let data = sample(3 << 20, 21);
    let stream = deflate(&data, 6);
    let points = build(&stream, &data, 256 << 10);
    let (len, crc) = (data.len() as u64, strided_inflate::crc32(&data));
    let imported =
        Checkpoints::import(&points.export(source(&stream)).unwrap(), stream.len() as u64, len, crc).unwrap();
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 16 << 10);
    let mut slice = vec![0u8; 4096];
    let (mut changed, mut unchanged) = (0, 0);
    // A byte changed at many places; reads at many offsets, some of 300 KiB that cross spans.
    for (i, at) in (0..stream.len()).step_by(stream.len() / 37).enumerate() {
        let mut other = stream.clone();
        other[at] ^= 0x5a;
        for (k, offset) in (0..len).step_by(len as usize / 23).enumerate() {
            let want = if (i + k) % 5 == 0 { 300 << 10 } else { 4096 };
            slice.resize(want, 0);
            for (which, checkpoints) in [("built", &points), ("imported", &imported)] {
                match checkpoints.read_at(offset, &mut slice, &mut inflater, source(&other)) {
                    Ok(n) => {
                        assert!(
                            slice[..n] == data[offset as usize..offset as usize + n],
                            "{which}: other bytes with OK at {offset} after a change at byte {at}"
                        );
                        unchanged += 1;
                    }
                    Err(
                        SeekError::Changed { .. }
                        | SeekError::Stream(_)
                        | SeekError::Unbound { .. }
                        | SeekError::Length { .. },
                    ) => changed += 1,
                    Err(e) => panic!("{which} at {offset}: {e}"),
                }
            }
        }
    }
    // Both outcomes happen: the check is not a refusal of everything.
    assert!(changed > 50 && unchanged > 500, "{changed} refused, {unchanged} read");
    // A source that answers otherwise at every call: the same.
    let calls = std::cell::Cell::new(0u32);
    let mut flaky = |offset: u64, buf: &mut [u8]| {
        let n = source(&stream)(offset, buf)?;
        calls.set(calls.get() + 1);
        if calls.get().is_multiple_of(3) && n > 0 {
            buf[n / 2] ^= 1;
        }
        Ok::<usize, std::io::Error>(n)
    };
    for offset in (0..len).step_by(len as usize / 50) {
        slice.resize(4096, 0);
        if let Ok(n) = points.read_at(offset, &mut slice, &mut inflater, &mut flaky) {
            assert!(slice[..n] == data[offset as usize..offset as usize + n], "other bytes with OK at {offset}");
        }
    }
}
