//! The harnesses strided-inflate's fuzz targets and corpus replay share, with zlib (through
//! flate2) as the reference every decoding path is compared with. Each checks invariants rather than just "no panic".

#![forbid(unsafe_code)]

use flate2::{Decompress, FlushDecompress, Status};

use strided_inflate::{ChunkedInflater, Decoder, Format, pack};

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

/// `data` is a pack (and, after a 0xFF 0x00 0xFF separator, optionally an idx, and after another,
/// a reverse index). Checks: never panics; a successful walk ends exactly at the trailer with
/// consistent object sizes; a reverse index accepted with an idx gives what sorting the idx does.
pub fn pack_walk(data: &[u8]) {
    let (pack_bytes, rest) = split_at_separator(data);
    let (idx, rev) = match rest.map(split_at_separator) {
        Some((idx, rev)) => (Some(idx), rev),
        None => (None, None),
    };
    if let (Some(idx), Some(rev)) = (idx, rev)
        && let Ok(from_rev) = pack::Index::parse_with_reverse(idx, rev)
    {
        assert_eq!(Some(from_rev), pack::Index::parse(idx).ok(), "the reverse index and the sort disagree");
    }
    let mut objects = Vec::new();
    let walked = pack::walk(pack_bytes, false, |o, bytes| {
        assert_eq!(bytes.len(), o.size);
        objects.push(o.clone());
    });
    let index = idx.and_then(|idx| pack::Index::parse(idx).ok());
    let mut verified = false;
    if walked.is_ok() {
        let end: usize = 12 + objects.iter().map(|o| o.packed_len()).sum::<usize>();
        assert_eq!(end + 20, pack_bytes.len());
        if let Some(index) = &index {
            verified = index.verify(pack_bytes, &objects).is_ok();
        }
    }
    // The parallel walk over the same index, on two threads (the one checking the SHA-1 joins
    // in): whatever it accepts, the sequential walk and the index check accepted too, with the
    // same objects.
    if let Some(index) = &index
        && let Ok(found) = pack::walk_indexed(pack_bytes, index, 2, |o, bytes| assert_eq!(bytes.len(), o.size))
    {
        assert!(verified, "the indexed walk accepted a pack the sequential walk or the index check refused");
        assert_eq!(found, objects, "the two walks found different objects");
    }
}

/// `bytes` up to the first 0xFF 0x00 0xFF, and what follows it (if there is one).
fn split_at_separator(bytes: &[u8]) -> (&[u8], Option<&[u8]>) {
    match bytes.windows(3).position(|w| w == [0xff, 0x00, 0xff]) {
        Some(at) => (&bytes[..at], Some(&bytes[at + 3..])),
        None => (bytes, None),
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
        Err(e) => assert!(!status || matches!(e, strided_inflate::Error::Checksum { .. }), "flate2 accepts: {e}"),
    }
}

/// What zlib (flate2 on zlib-rs) makes of a raw deflate stream: its bytes and the input it
/// occupied, or `None` when it refuses it (corrupt, or ending before the stream does). Also
/// `None`, with `too_large` set, past `cap` bytes of output.
struct ZlibVerdict {
    outcome: Option<(Vec<u8>, usize)>,
    /// Bytes zlib produced before it stopped.
    produced: usize,
    too_large: bool,
}

fn zlib_raw(input: &[u8], cap: usize) -> ZlibVerdict {
    let mut d = Decompress::new(false);
    let mut out = Vec::new();
    loop {
        let mut buf = vec![0u8; 1 << 16];
        let (in_before, out_before) = (d.total_in() as usize, d.total_out());
        let status = d.decompress(&input[in_before..], &mut buf, FlushDecompress::Finish);
        let made = (d.total_out() - out_before) as usize;
        out.extend_from_slice(&buf[..made]);
        let too_large = out.len() > cap;
        match status {
            Ok(Status::StreamEnd) if !too_large => {
                return ZlibVerdict { produced: out.len(), outcome: Some((out, d.total_in() as usize)), too_large };
            }
            Ok(_) if made > 0 && !too_large => {}
            _ => return ZlibVerdict { produced: out.len(), outcome: None, too_large },
        }
    }
}

/// `data` = chunk size (2 bytes LE), stride, then a raw deflate stream. Differential against
/// zlib on every decoding path: the whole-buffer [`Decoder`] (single and batch), the
/// [`ChunkedInflater`] and the [`StreamInflater`](strided_inflate::StreamInflater) fed in strides. Where
/// zlib inflates the stream to `n` bytes, each path with an output of `n` bytes gives the same
/// bytes and consumed count; where zlib refuses it, each path refuses it too, at zlib's length and
/// at any length the whole-buffer decoder would otherwise be content with.
pub fn raw_differential(data: &[u8]) {
    const CAP: usize = 1 << 20;
    if data.len() < 3 {
        return;
    }
    let chunk_size = usize::from(u16::from_le_bytes([data[0], data[1]])).max(1);
    let stride = usize::from(data[2]).max(1);
    let input = &data[3..];
    let zlib = zlib_raw(input, CAP);
    if zlib.too_large {
        return; // a bomb: nothing to compare within bounded memory
    }
    let mut decoder = Decoder::new(Format::Raw).expect("decoder");
    match &zlib.outcome {
        Some((bytes, consumed)) => {
            let agree = |path: &str, outcome: Result<(Vec<u8>, usize), strided_inflate::Error>| match outcome {
                Ok((out, used)) => {
                    assert_eq!(used, *consumed, "{path}: consumed differs from zlib");
                    assert!(out == *bytes, "{path}: bytes differ from zlib");
                }
                Err(e) => panic!("{path} refuses what zlib inflates: {e}"),
            };
            agree("inflate_at", whole(&mut decoder, input, bytes.len()));
            agree("inflate_batch", batch(&mut decoder, input, bytes.len()));
            agree("chunked", chunked_all(input, chunk_size));
            agree("stream", streamed(input, bytes.len(), stride));
        }
        None => {
            // The lengths to try: zlib's, and whatever length the whole-buffer decoder would
            // inflate the stream to if given room (its "size mismatch, actual n").
            let mut lengths = vec![zlib.produced, zlib.produced + 1];
            let roomy = strided_inflate::max_inflated_len(input.len()).min(CAP);
            if let Err(strided_inflate::Error::SizeMismatch { actual: Some(n), .. }) = whole(&mut decoder, input, roomy)
            {
                lengths.push(n);
            }
            for len in lengths {
                let refuse = |path: &str, outcome: Result<(Vec<u8>, usize), strided_inflate::Error>| {
                    assert!(outcome.is_err(), "{path} inflates to {len} bytes what zlib refuses");
                };
                refuse("inflate_at", whole(&mut decoder, input, len));
                refuse("inflate_batch", batch(&mut decoder, input, len));
                refuse("stream", streamed(input, len, stride));
            }
            assert!(chunked_all(input, chunk_size).is_err(), "chunked inflates what zlib refuses");
        }
    }
}

fn whole(decoder: &mut Decoder, input: &[u8], len: usize) -> Result<(Vec<u8>, usize), strided_inflate::Error> {
    let mut out = vec![0xA5u8; len];
    let consumed = decoder.inflate_at(input, 0, &mut out)?;
    Ok((out, consumed))
}

/// The stream twice in one batch: both outcomes must match.
fn batch(decoder: &mut Decoder, input: &[u8], len: usize) -> Result<(Vec<u8>, usize), strided_inflate::Error> {
    let request = strided_inflate::Request { offset: 0, expected_len: len };
    let mut out = vec![0xA5u8; 2 * len];
    let mut results = [Ok(0), Ok(0)];
    decoder.inflate_batch(input, &[request, request], &mut out, &mut results);
    assert_eq!(results[0], results[1], "one batch, the same stream twice, two outcomes");
    let consumed = results[0].clone()?;
    assert!(out[..len] == out[len..], "one batch, the same stream twice, two outputs");
    out.truncate(len);
    Ok((out, consumed))
}

fn chunked_all(input: &[u8], chunk_size: usize) -> Result<(Vec<u8>, usize), strided_inflate::Error> {
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, chunk_size);
    inflater.start(input);
    let mut out = Vec::new();
    while let Some(chunk) = inflater.next_chunk()? {
        out.extend_from_slice(chunk);
        assert!(out.len() <= (1 << 20) + ChunkedInflater::MAX_OVERRUN, "chunked outgrew zlib's output");
    }
    Ok((out, inflater.consumed()))
}

fn streamed(input: &[u8], len: usize, stride: usize) -> Result<(Vec<u8>, usize), strided_inflate::Error> {
    let mut s = strided_inflate::StreamInflater::new(Format::Raw);
    let mut out = vec![0xA5u8; len];
    let mut fed = 0;
    loop {
        let step = s.feed(&input[fed..(fed + stride).min(input.len())], &mut out)?;
        fed += step.used;
        if let Some(total) = step.finished {
            assert_eq!(total, fed, "stream: finished at {total} after being fed {fed}");
            return Ok((out, total));
        }
    }
}

/// `data` = threads, chunk output (a power of two from 1 KiB), three read offsets (2 bytes each),
/// then a raw deflate stream. Differential against serial decoding for the two ways of reading
/// it other than from its start:
/// - [`inflate_parallel`](strided_inflate::inflate_parallel), waiting for every speculation: the same bytes
///   where serial decoding succeeds and the stream fills the input exactly; an error wherever
///   serial decoding fails (the same text for a damaged stream) or leaves input unread;
/// - [`Checkpoints`](strided_inflate::Checkpoints): built from a stream serial decoding accepts, every
///   slice read through them equals serial decoding's bytes, before and after an export and
///   import.
pub fn seek(data: &[u8]) {
    use strided_inflate::{Checkpoints, Parallel, SeekError, inflate_parallel};
    if data.len() < 8 {
        return;
    }
    let threads = usize::from(data[0] % 4) + 1;
    let chunk_out = 1024u64 << (data[1] % 8);
    let offsets = [
        u16::from_le_bytes([data[2], data[3]]),
        u16::from_le_bytes([data[4], data[5]]),
        u16::from_le_bytes([data[6], data[7]]),
    ];
    let input = &data[8..];
    // Serial decoding, within bounded memory.
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 1 << 14);
    inflater.start(input);
    let mut serial = Vec::new();
    let verdict = loop {
        match inflater.next_chunk() {
            Ok(Some(chunk)) => {
                serial.extend_from_slice(chunk);
                if serial.len() > 1 << 22 {
                    return; // a bomb: nothing to compare within bounded memory
                }
            }
            Ok(None) => break Ok(inflater.consumed()),
            Err(e) => break Err(e),
        }
    };
    let source = |offset: u64, buf: &mut [u8]| -> std::io::Result<usize> {
        let rest = input.get(offset as usize..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    };
    let mut out = Vec::new();
    let mut sink = |bytes: &[u8]| -> std::io::Result<()> {
        out.extend_from_slice(bytes);
        Ok(())
    };
    let how = Parallel { threads, chunk_out, patient: true, keep_speculating: false };
    let parallel = inflate_parallel(input.len() as u64, Some(serial.len() as u64), how, &source, &mut sink);
    match (&verdict, &parallel) {
        (Ok(consumed), Ok(report)) => {
            assert_eq!(*consumed, input.len(), "parallel accepted input serial decoding leaves unread");
            assert!(out == serial, "parallel bytes differ from serial");
            assert_eq!(report.consumed as usize, *consumed);
        }
        (Ok(consumed), Err(e)) => {
            assert!(*consumed < input.len(), "parallel refused what serial decoding accepts: {e}");
        }
        (Err(e), Err(SeekError::Stream(p))) => assert_eq!(e.to_string(), p.to_string(), "errors differ"),
        (Err(e), other) => panic!("serial fails with {e}, parallel gives {:?}", other.as_ref().map(|r| r.total_out)),
    }
    let Ok(consumed) = verdict else { return };
    let stream = &input[..consumed];
    let crc = strided_inflate::crc32(&serial);
    let mut decoder = ChunkedInflater::with_chunk_size(Format::Raw, 1 << 10);
    let points = Checkpoints::build(stream.len() as u64, serial.len() as u64, crc, 0, &mut decoder, source)
        .expect("checkpoints of a stream serial decoding accepts");
    let again =
        Checkpoints::import(&points.export(source).expect("an export"), stream.len() as u64, serial.len() as u64, crc)
            .expect("its own export");
    assert!(again == points);
    for (i, &at) in offsets.iter().enumerate() {
        let offset = (u64::from(at) * 131) % (serial.len() as u64 + 1);
        let mut slice = vec![0u8; 1 + (usize::from(at) % 3000)];
        let n = points.read_at(offset, &mut slice, &mut decoder, source).expect("a slice of an accepted stream");
        let end = (offset as usize + slice.len()).min(serial.len());
        assert_eq!(n, end - offset as usize, "slice {i} length");
        assert!(slice[..n] == serial[offset as usize..end], "slice {i} bytes");
    }
}

/// `data` = two deflate levels, a mode byte, three export positions (2 bytes each) and three
/// slice offsets (2 bytes each), then text that is repeated into a stream of ~200 KB. The text is
/// deflated twice (the two levels split it into blocks differently); checkpoints built and
/// exported for the first stream are altered at the three positions (mode bit 0), their header
/// made to claim the second stream's compressed size (bit 1) and their checksum made again
/// (bit 2), then imported for the second stream (bit 1) or the first. Oracle: every slice read
/// through the imported checkpoints is the data's own bytes, or an error; never other bytes.
pub fn checkpoint_import(data: &[u8]) {
    use std::io::Write;
    use strided_inflate::Checkpoints;
    if data.len() < 16 {
        return;
    }
    let (levels, mode) = (data[0], data[1]);
    let word = |i: usize| u16::from_le_bytes([data[2 + 2 * i], data[3 + 2 * i]]);
    let (positions, offsets) = ([word(0), word(1), word(2)], [word(3), word(4), word(5)]);
    let seed = &data[14..];
    let mut plain = Vec::with_capacity(200_000);
    let mut round = 0u32;
    while plain.len() < 200_000 {
        plain.extend_from_slice(seed);
        plain.extend_from_slice(format!(" {round}\n").as_bytes());
        round += 1;
    }
    let deflate = |level: u8| {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(u32::from(level % 10)));
        e.write_all(&plain).expect("in memory");
        e.finish().expect("in memory")
    };
    let (first, second) = (deflate(levels), deflate(levels / 10));
    let crc = strided_inflate::crc32(&plain);
    let len = plain.len() as u64;
    let source = |stream: &[u8]| {
        let stream = stream.to_vec();
        move |offset: u64, buf: &mut [u8]| -> Result<usize, std::convert::Infallible> {
            let rest = stream.get(offset as usize..).unwrap_or(&[]);
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            Ok(n)
        }
    };
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 1 << 14);
    let built = Checkpoints::build(first.len() as u64, len, crc, 32 << 10, &mut inflater, source(&first))
        .expect("checkpoints of a stream flate2 wrote");
    let mut bytes = built.export(source(&first)).expect("an export");
    if mode & 1 != 0 {
        for p in positions {
            let at = usize::from(p) % bytes.len();
            bytes[at] ^= 1 << (p % 8);
        }
    }
    let target = if mode & 2 != 0 { &second } else { &first };
    if mode & 2 != 0 {
        bytes[8..16].copy_from_slice(&(second.len() as u64).to_le_bytes());
    }
    if mode & 4 != 0 {
        let body = bytes.len() - 4;
        let sum = strided_inflate::crc32(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
    let Ok(imported) = Checkpoints::import(&bytes, target.len() as u64, len, crc) else { return };
    let mut read = source(target);
    for (i, at) in offsets.into_iter().enumerate() {
        let offset = u64::from(at) * 3 % (len + 1);
        let mut slice = vec![0u8; 1 + usize::from(at) % 5000];
        if let Ok(n) = imported.read_at(offset, &mut slice, &mut inflater, &mut read) {
            let end = offset as usize + n;
            assert!(slice[..n] == plain[offset as usize..end], "slice {i} at {offset}: other bytes with OK");
        }
    }
}
