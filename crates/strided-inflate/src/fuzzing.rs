//! The fuzz harnesses, shared by the cargo-fuzz targets (`fuzz/`) and the corpus replay that runs
//! in the test suite. Each checks invariants rather than just "no panic".

use flate2::{Decompress, FlushDecompress, Status};

use crate::{Decoder, Format, pack};

/// `data` = [format byte][offset (2 bytes LE)][expected len (2 bytes LE)][input…]. Checks: never
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
