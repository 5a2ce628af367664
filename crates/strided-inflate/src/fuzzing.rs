//! The fuzz harnesses, shared by the cargo-fuzz targets (`fuzz/`) and the corpus replay that runs
//! in the test suite. Each checks invariants rather than just "no panic".

use flate2::{Decompress, FlushDecompress, Status};

use crate::{ChunkedInflater, Decoder, Format, pack};

/// `data` = format byte, offset (2 bytes LE), expected len (2 bytes LE), input. Checks: never
/// panics; on success the consumed count stays within the input, and flate2 agrees on the bytes
/// and the consumed count; on failure the output is all zeros.
pub fn inflate_at(data: &[u8]) {
    if data.len() < 5 {
        return;
    }
    let format = if data[0] & 1 == 0 { Format::Zlib } else { Format::Raw };
    let offset = usize::from(u16::from_le_bytes([data[1], data[2]]));
    let expected = usize::from(u16::from_le_bytes([data[3], data[4]]));
    let input = &data[5..];
    let mut out = vec![0xA5u8; expected];
    let mut decoder = Decoder::new(format).expect("decoder");
    match decoder.inflate_at(input, offset, &mut out) {
        Ok(consumed) => {
            assert!(offset + consumed <= input.len());
            let mut reference = vec![0u8; expected];
            let mut d = Decompress::new(format == Format::Zlib);
            let status = d.decompress(&input[offset..], &mut reference, FlushDecompress::Finish);
            assert!(matches!(status, Ok(Status::StreamEnd)), "flate2 disagrees: {status:?}");
            assert_eq!(d.total_in() as usize, consumed, "consumed differs from flate2");
            assert_eq!(d.total_out() as usize, expected);
            assert_eq!(reference, out);
        }
        Err(e) => {
            assert!(out.iter().all(|&b| b == 0), "output handed out with {e}");
            assert!(e.offset().is_some());
        }
    }
}

/// `data` is a pack (and, after a 0xFF 0x00 0xFF separator, optionally an idx). Checks: never
/// panics; a successful walk ends exactly at the trailer with consistent object sizes.
pub fn pack_walk(data: &[u8]) {
    let (pack_bytes, idx) = match data.windows(3).position(|w| w == [0xff, 0x00, 0xff]) {
        Some(at) => (&data[..at], Some(&data[at + 3..])),
        None => (data, None),
    };
    let mut objects = Vec::new();
    if pack::walk(pack_bytes, false, |o, bytes| {
        assert_eq!(bytes.len(), o.size);
        objects.push(o.clone());
    })
    .is_ok()
    {
        let end: usize = 12 + objects.iter().map(|o| o.packed_len()).sum::<usize>();
        assert_eq!(end + 20, pack_bytes.len());
        if let Some(idx) = idx
            && let Ok(index) = pack::Index::parse(idx)
        {
            let _ = index.verify(pack_bytes, &objects);
        }
    }
}

/// `data` = format byte, chunk size (2 bytes LE), input. Checks: never panics, never hands out
/// a chunk longer than its size plus the documented overrun; on success flate2 agrees on every
/// byte and on the consumed count; whatever flate2 decodes completely, the chunked decoder does
/// too, unless flate2 skipped a check (a zlib trailer it does not verify).
pub fn chunked(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let format = if data[0] & 1 == 0 { Format::Zlib } else { Format::Raw };
    let chunk_size = usize::from(u16::from_le_bytes([data[1], data[2]])).max(1);
    let input = &data[3..];
    let mut inflater = ChunkedInflater::with_chunk_size(format, chunk_size);
    inflater.start(input);
    let mut out = Vec::new();
    let outcome = loop {
        match inflater.next_chunk() {
            Ok(Some(chunk)) => {
                assert!(chunk.len() <= chunk_size + ChunkedInflater::MAX_OVERRUN);
                out.extend_from_slice(chunk);
                if out.len() > 1 << 24 {
                    return; // a bomb: fine to stop here, nothing to compare
                }
            }
            Ok(None) => break Ok(inflater.consumed()),
            Err(e) => break Err(e),
        }
    };
    let mut reference = Vec::new();
    let mut d = Decompress::new(format == Format::Zlib);
    let status = loop {
        let mut buf = vec![0u8; 1 << 16];
        let before = d.total_out();
        match d.decompress(&input[d.total_in() as usize..], &mut buf, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => {
                reference.extend_from_slice(&buf[..(d.total_out() - before) as usize]);
                break true;
            }
            Ok(_) if d.total_out() > before => {
                reference.extend_from_slice(&buf[..(d.total_out() - before) as usize]);
                if reference.len() > 1 << 24 {
                    return;
                }
            }
            _ => break false,
        }
    };
    match outcome {
        Ok(consumed) => {
            assert!(consumed <= input.len());
            assert!(status, "flate2 refuses what the chunked decoder accepts");
            assert_eq!(d.total_in() as usize, consumed, "consumed differs from flate2");
            assert!(reference == out, "bytes differ from flate2");
        }
        Err(e) => assert!(!status || matches!(e, crate::Error::Checksum { .. }), "flate2 accepts: {e}"),
    }
}
