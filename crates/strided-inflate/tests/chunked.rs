//! The chunked inflater against flate2 (zlib-rs): the same bytes and consumed counts on every kind
//! of data, level and chunk size; every truncation and many corruptions refused, never a panic.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::write::{DeflateEncoder, ZlibEncoder};
use proptest::prelude::*;
use strided_inflate::{ChunkedInflater, Error, Format};

fn compress(format: Format, data: &[u8], level: u32) -> Vec<u8> {
    match format {
        Format::Raw => {
            let mut e = DeflateEncoder::new(Vec::new(), Compression::new(level));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Format::Zlib => {
            let mut e = ZlibEncoder::new(Vec::new(), Compression::new(level));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

/// What flate2 makes of `stream`: the data and the bytes consumed, or an error.
fn reference(format: Format, stream: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let consumed = match format {
        Format::Raw => {
            let mut d = flate2::bufread::DeflateDecoder::new(stream);
            d.read_to_end(&mut out).ok()?;
            d.total_in() as usize
        }
        Format::Zlib => {
            let mut d = flate2::bufread::ZlibDecoder::new(stream);
            d.read_to_end(&mut out).ok()?;
            d.total_in() as usize
        }
    };
    Some((out, consumed))
}

/// Everything the chunked inflater hands out for `stream`, and its consumed count.
fn chunked(format: Format, stream: &[u8], chunk_size: usize) -> Result<(Vec<u8>, usize), Error> {
    let mut inflater = ChunkedInflater::with_chunk_size(format, chunk_size);
    inflater.start(stream);
    let mut out = Vec::new();
    while let Some(chunk) = inflater.next_chunk()? {
        assert!(
            chunk.len() <= chunk_size + ChunkedInflater::MAX_OVERRUN,
            "a chunk runs at most MAX_OVERRUN past its size"
        );
        out.extend_from_slice(chunk);
    }
    assert_eq!(inflater.total_out(), out.len() as u64);
    Ok((out, inflater.consumed()))
}

/// Data of several shapes: text with long matches, short-distance runs, incompressible bytes.
fn shaped(kind: u8, n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    match kind % 4 {
        0 => {
            let text = b"fn main() { let x = vec![1, 2, 3]; }\n";
            (0..n).map(|i| text[(i + (next() % 3) as usize) % text.len()]).collect()
        }
        1 => {
            let mut v = Vec::with_capacity(n);
            while v.len() < n {
                let byte = (next() % 4) as u8;
                let run = 1 + (next() % 300) as usize;
                let period = 1 + (next() % 7) as usize;
                for i in 0..run {
                    v.push(byte.wrapping_add((i % period) as u8));
                }
            }
            v.truncate(n);
            v
        }
        2 => (0..n).map(|_| next() as u8).collect(),
        _ => (0..n).map(|i| if next() % 5 == 0 { next() as u8 } else { (i / 3) as u8 }).collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]
    #[test]
    fn matches_flate2_on_every_shape_level_and_chunk_size(
        kind in 0u8..4,
        n in 0usize..200_000,
        seed in any::<u64>(),
        level in 0u32..10,
        chunk_size in prop_oneof![Just(1usize), 2usize..100, 1000usize..70_000, Just(1 << 20)],
        zlib in any::<bool>(),
        trailer in proptest::collection::vec(any::<u8>(), 0..16),
    ) {
        let format = if zlib { Format::Zlib } else { Format::Raw };
        let data = shaped(kind, n, seed);
        let stream = compress(format, &data, level);
        let input = [stream.as_slice(), &trailer].concat();
        let (out, consumed) = chunked(format, &input, chunk_size).unwrap();
        prop_assert_eq!(consumed, stream.len(), "bytes after the stream are not part of it");
        prop_assert!(out == data, "output differs");
    }

    #[test]
    fn corrupt_streams_fail_cleanly_or_decode_as_flate2_does(
        kind in 0u8..4,
        n in 1usize..20_000,
        seed in any::<u64>(),
        level in 1u32..10,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        zlib in any::<bool>(),
    ) {
        let format = if zlib { Format::Zlib } else { Format::Raw };
        let mut stream = compress(format, &shaped(kind, n, seed), level);
        for (at, mask) in flips {
            let i = at.index(stream.len());
            stream[i] ^= mask;
        }
        match (chunked(format, &stream, 4096), reference(format, &stream)) {
            (Ok((ours, consumed)), Some((theirs, their_consumed))) => {
                prop_assert!(ours == theirs, "both accept, different data");
                prop_assert_eq!(consumed, their_consumed);
            }
            (Ok(_), None) => prop_assert!(false, "accepted what zlib refuses"),
            (Err(_), _) => {} // zlib-rs may read corrupt data more leniently (e.g. a flipped Adler-32 it skips): refusing is safe
        }
    }
}

#[test]
fn every_truncation_is_refused() {
    for format in [Format::Raw, Format::Zlib] {
        for kind in 0..4 {
            let data = shaped(kind, 5000, 42);
            let stream = compress(format, &data, 6);
            for cut in 0..stream.len() {
                match chunked(format, &stream[..cut], 512) {
                    Err(Error::Truncated { .. } | Error::Corrupt { .. } | Error::Checksum { .. }) => {}
                    other => panic!("{format:?} kind {kind} cut at {cut} of {}: {other:?}", stream.len()),
                }
            }
        }
    }
}

#[test]
fn a_large_stream_is_handed_out_in_bounded_chunks() {
    let data = shaped(0, 5 << 20, 7);
    let stream = compress(Format::Raw, &data, 6);
    let mut inflater = ChunkedInflater::new(Format::Raw);
    inflater.start(&stream);
    let mut at = 0;
    let mut chunks = 0;
    while let Some(chunk) = inflater.next_chunk().unwrap() {
        assert!(chunk.len() <= (1 << 20) + ChunkedInflater::MAX_OVERRUN);
        assert_eq!(chunk, &data[at..at + chunk.len()]);
        at += chunk.len();
        chunks += 1;
    }
    assert_eq!((at, inflater.consumed()), (data.len(), stream.len()));
    assert!(chunks >= 5);
    // Reused for a second stream.
    let small = compress(Format::Raw, b"again", 9);
    inflater.start(&small);
    assert_eq!(inflater.next_chunk().unwrap(), Some(&b"again"[..]));
    assert_eq!(inflater.next_chunk().unwrap(), None);
}

#[test]
fn bad_input_gets_its_own_error() {
    let stream = compress(Format::Zlib, &shaped(0, 10_000, 1), 6);
    let mut bad_adler = stream.clone();
    *bad_adler.last_mut().unwrap() ^= 1;
    assert!(matches!(chunked(Format::Zlib, &bad_adler, 4096), Err(Error::Checksum { .. })));
    assert!(matches!(chunked(Format::Zlib, &[0x78, 0x9c], 4096), Err(Error::Truncated { .. })));
    assert!(matches!(chunked(Format::Zlib, &[0x12, 0x34, 0, 0], 4096), Err(Error::Corrupt { .. })));
    // Block type 3 is reserved.
    assert!(matches!(chunked(Format::Raw, &[0x07, 0, 0, 0], 4096), Err(Error::Corrupt { .. })));
    // A stored block whose length and complement disagree.
    assert!(matches!(chunked(Format::Raw, &[0x01, 0x05, 0x00, 0x00, 0x00, b'x'], 4096), Err(Error::Corrupt { .. })));
    // A match reaching before the start: fixed block, length 3 (code 257), distance 1 (code 0).
    assert!(matches!(chunked(Format::Raw, &[0x03, 0x02, 0x00], 4096), Err(Error::Corrupt { .. })));
}

#[test]
fn handing_the_window_over_after_any_chunk_changes_nothing() {
    // `swap_window` after every chunk, or every third, with windows reused as a writer would give
    // them back: the same bytes as flate2 for each kind of data, chunk size and framing, fed or
    // whole.
    for kind in 0..4u8 {
        let data = shaped(kind, 300_000, 17 + u64::from(kind));
        for format in [Format::Raw, Format::Zlib] {
            let stream = compress(format, &data, 6);
            let (expected, consumed) = reference(format, &stream).unwrap();
            for chunk_size in [1, 700, 4096, 40_000, 1 << 20] {
                for every in [1, 3] {
                    for fed in [false, true] {
                        let mut inflater = ChunkedInflater::with_chunk_size(format, chunk_size);
                        let mut fed_to = 0;
                        if fed {
                            inflater.start_fed();
                        } else {
                            inflater.start(&stream);
                        }
                        let mut spares: Vec<Box<[u8]>> = Vec::new();
                        let mut out = Vec::new();
                        for n in 0.. {
                            while fed && inflater.wants_input() {
                                if fed_to == stream.len() {
                                    inflater.end_input();
                                    break;
                                }
                                let piece = (stream.len() - fed_to).min(5000);
                                let from = fed_to;
                                fed_to += inflater
                                    .feed_with(piece, |room| {
                                        room[..piece].copy_from_slice(&stream[from..from + piece]);
                                        Ok::<_, Error>(piece)
                                    })
                                    .unwrap();
                            }
                            if inflater.next_chunk().unwrap().is_none() {
                                break;
                            }
                            if n % every == 0 {
                                let len = inflater.window_len();
                                let spare = spares.pop().unwrap_or_else(|| vec![0xa5; len].into_boxed_slice());
                                let (window, range) = inflater.swap_window(spare);
                                out.extend_from_slice(&window[range]);
                                assert!(inflater.last_chunk().is_empty());
                                spares.push(window);
                            } else {
                                out.extend_from_slice(inflater.last_chunk());
                            }
                        }
                        assert!(
                            out == expected,
                            "kind {kind} {format:?} chunk {chunk_size} every {every} fed {fed}: output differs"
                        );
                        assert_eq!(inflater.consumed(), consumed);
                    }
                }
            }
        }
    }
}
