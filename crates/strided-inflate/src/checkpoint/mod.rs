//! Any byte of a raw deflate stream without inflating it from the start: checkpoints, as zlib's
//! `zran.c` keeps them. A checkpoint is a block boundary (its bit offset in the stream) with the 32
//! KiB of output before it, all a decoder needs to go on from there. [`Checkpoints::build`] makes
//! them in one full pass that also checks the stream's length and CRC-32, one every `span` output
//! bytes; [`Checkpoints::read_at`] then inflates from the last checkpoint before the offset asked
//! for, at most about `span` bytes, whatever the stream's size.
//!
//! What checks a slice: a CRC-32 covers a whole stream, never a slice. The checkpoints come from
//! a pass whose CRC-32 and length matched what the caller expected, and that pass noted the
//! CRC-32 of the compressed bytes from the stream's start at every 64 KiB mark. A read decodes
//! from one checkpoint with the same strict decoder, then checks the compressed bytes it fed the
//! decoder, read on to the next mark, against those CRC-32s: a stream changed since gives
//! [`SeekError::Changed`] (or the decoder's error), never its new bytes, at the cost of a CRC-32
//! over what the read took and at most 64 KiB more.
//!
//! [`Checkpoints::import`] takes checkpoints kept from an earlier run (an app's first start
//! computes them once): they must match the stream's sizes and CRC-32 and their own checksum, and
//! are refused otherwise. Each checkpoint is also bound to the compressed bytes it describes: the
//! export carries, per checkpoint, a CRC-32 of the checkpoint itself (offsets, window, block
//! state) and of the stream's bytes from it to the next one (and one of the bytes before the
//! first), and a read through an imported checkpoint checks it the first time it is used
//! ([`SeekError::Unbound`]), at the cost of reading that span's compressed bytes once; that read
//! also notes the span's CRC-32s at each mark, which later reads are checked against as above. So checkpoints made for another stream (the same
//! data compressed otherwise, the same sizes and CRC-32), or damaged, are refused, never read
//! from. A checksum is no signature: whoever can write the file and recompute its checksums can
//! still choose a window, so that reads through it return other bytes (never out of bounds:
//! every slice is decoded by the strict decoder), as whoever can write the archive can. Keep the
//! file where the archive is kept.
//!
//! ```
//! use strided_inflate::{Checkpoints, ChunkedInflater, Format};
//!
//! // 4 MiB of varied text, deflated.
//! let text: Vec<u8> = (0..200_000u32).flat_map(|i| format!("line {i} {}\n", i * 7919 % 1000).into_bytes()).collect();
//! let mut deflated = Vec::new();
//! let mut encoder = flate2::write::DeflateEncoder::new(&mut deflated, flate2::Compression::default());
//! std::io::Write::write_all(&mut encoder, &text)?;
//! encoder.finish()?;
//!
//! let source = |offset: u64, buf: &mut [u8]| -> std::io::Result<usize> {
//!     let rest = deflated.get(offset as usize..).unwrap_or(&[]);
//!     let n = rest.len().min(buf.len());
//!     buf[..n].copy_from_slice(&rest[..n]);
//!     Ok(n)
//! };
//! let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 64 << 10);
//! let crc = strided_inflate::crc32(&text);
//! let points = Checkpoints::build(deflated.len() as u64, text.len() as u64, crc, 256 << 10, &mut inflater, source)?;
//! let mut slice = [0u8; 100];
//! let n = points.read_at(3_000_000, &mut slice, &mut inflater, source)?;
//! assert_eq!(&slice[..n], &text[3_000_000..3_000_100]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

use crate::checksum::{crc32_between, crc32_concat};
use crate::{ChunkedInflater, Crc32, Error};

mod format;

/// Output a checkpoint keeps: deflate's window.
const WINDOW: usize = 32 << 10;
/// Input read from the source at a time.
const FEED: usize = 64 << 10;
/// Compressed bytes between two marks: a slice's compressed bytes are checked from where its
/// decoding starts to the next mark after the last byte it fed the decoder.
pub(crate) const STREAM_MARK: u64 = 64 << 10;

/// A block boundary of a raw deflate stream and the output before it: where a decoder can
/// resume ([`ChunkedInflater::resume_fed`]).
#[derive(Clone)]
pub struct Checkpoint {
    /// Bits of the stream before the block.
    pub bit_offset: u64,
    /// Output bytes before the block.
    pub out_offset: u64,
    /// The last `min(out_offset, 32 KiB)` output bytes.
    pub window: Box<[u8]>,
    /// Where in its block the checkpoint is.
    pub(crate) inside: Inside,
    /// Recorded on a pass from the stream's start: the CRC-32s of the stream's bytes before the
    /// byte holding the checkpoint's first bit, and through it. The digests an export writes
    /// come from them, not from reading the stream again.
    pub(crate) stream_crc: Option<StreamCrc>,
}

/// The CRC-32s of the compressed bytes before a checkpoint's first byte and through it (equal
/// when the checkpoint is on a byte boundary).
#[derive(Debug, Clone, Copy)]
pub(crate) struct StreamCrc {
    pub(crate) before: u32,
    pub(crate) through: u32,
}

/// Two checkpoints are equal when they resume the same stream at the same place, however they
/// were made (the CRC-32s of a pass are not part of what a checkpoint is).
impl PartialEq for Checkpoint {
    fn eq(&self, other: &Self) -> bool {
        (self.bit_offset, self.out_offset, &self.window, &self.inside)
            == (other.bit_offset, other.out_offset, &other.window, &other.inside)
    }
}

impl Eq for Checkpoint {}

/// Where a checkpoint is in its block: blocks can be megabytes long, so checkpoints are also
/// kept inside them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Inside {
    /// At a block boundary.
    Nothing,
    /// Inside a stored block, with `left` bytes of it to go; `last` if it is the final block.
    Stored { left: u64, last: bool },
    /// Inside a Huffman block whose header is `header` (from the byte holding its first bit,
    /// after `skip` bits of that byte): re-read to rebuild the block's tables.
    Codes { header: Box<[u8]>, skip: u8 },
}

/// The longest a dynamic block header can be: 17 bits, 19 3-bit code length codes and 316 code
/// lengths of at most 7 + 7 bits, in whole bytes with the first byte's skipped bits.
const MAX_HEADER: usize = (17 + 19 * 3 + 316 * 14) / 8 + 2;

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint")
            .field("bit_offset", &self.bit_offset)
            .field("out_offset", &self.out_offset)
            .field("window", &self.window.len())
            .finish()
    }
}

/// Why a checkpointed read or build failed.
#[derive(Debug, thiserror::Error)]
pub enum SeekError<E> {
    /// Reading the stream's bytes failed.
    #[error("reading the stream: {0}")]
    Source(E),
    /// The stream does not decode.
    #[error(transparent)]
    Stream(Error),
    /// The stream decodes, but not to the length the caller said (`actual` is `None` when it
    /// goes on past it).
    #[error("the stream inflates to {} bytes, not {expected}", match .actual { Some(n) => n.to_string(), None => "more".to_string() })]
    Length {
        /// The length the caller said.
        expected: u64,
        /// The real one, when shorter.
        actual: Option<u64>,
    },
    /// The stream decodes to the right length, but not to the CRC-32 the caller said.
    #[error("the stream has CRC-32 {actual:08x}, not {expected:08x}")]
    Crc {
        /// The CRC-32 the caller said.
        expected: u32,
        /// The data's.
        actual: u32,
    },
    /// The stream ends before its last compressed byte (bytes after it that are not its own).
    #[error("the stream ends after {consumed} of its {compressed_len} bytes")]
    Trailing {
        /// Bytes the stream took.
        consumed: u64,
        /// Bytes the caller said it has.
        compressed_len: u64,
    },
    /// An imported checkpoint does not describe the stream's bytes: its digest of itself and of
    /// the compressed bytes up to the next one does not match (made for another stream, or
    /// altered). Nothing was read through it.
    #[error(
        "imported checkpoint {checkpoint} does not describe these compressed bytes (made for another stream, or altered)"
    )]
    Unbound {
        /// Which checkpoint, from 0.
        checkpoint: usize,
    },
    /// The compressed bytes a read decoded are not those the checkpoints were made from: the
    /// stream changed since (a file rewritten, a source that answers otherwise). What the read
    /// wrote is not the stream's.
    #[error("the stream's bytes from {from} to {to} are not those its checkpoints were made from (changed since)")]
    Changed {
        /// The first compressed byte checked.
        from: u64,
        /// The byte after the last.
        to: u64,
    },
    /// The offset asked for is past the stream's end.
    #[error("offset {offset} is past the end of the {len}-byte stream")]
    OutOfRange {
        /// The offset asked for.
        offset: u64,
        /// The stream's inflated length.
        len: u64,
    },
}

/// Why [`Checkpoints::import`] refused its bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("checkpoints refused: {0}")]
pub struct ImportError(pub String);

/// The checkpoints of one raw deflate stream, and what they were checked against. Two sets are
/// equal when they hold the same checkpoints for the same stream, built or imported.
#[derive(Clone)]
pub struct Checkpoints {
    compressed_len: u64,
    len: u64,
    crc32: u32,
    span: u64,
    points: Vec<Checkpoint>,
    /// Built in one pass over the whole stream: the CRC-32 of all its compressed bytes, which
    /// with the CRC-32s each checkpoint keeps gives every digest an export writes.
    stream_crc: Option<u32>,
    /// What binds the checkpoints to the stream's compressed bytes, and every slice too.
    checks: Checks,
}

impl PartialEq for Checkpoints {
    fn eq(&self, other: &Self) -> bool {
        (self.compressed_len, self.len, self.crc32, self.span)
            == (other.compressed_len, other.len, other.crc32, other.span)
            && self.points == other.points
    }
}

impl Eq for Checkpoints {}

/// What a read's compressed bytes are checked against. The stream is cut into regions, each
/// decoded from its own start: region 0 from the stream's start, region `k + 1` from checkpoint
/// `k`'s first byte, each to where the next begins. A read checks the CRC-32 of the bytes it fed
/// the decoder in each region, from the region's start to the region's end or to the next mark
/// (a multiple of [`STREAM_MARK`]) past the last byte fed, reading those few more bytes: so no
/// read returns bytes other than the stream's with success, at the cost of a CRC-32 over what it
/// read and at most one mark's worth more.
enum Checks {
    /// From a pass over the whole stream: the CRC-32 of its first `(i + 1) × STREAM_MARK` bytes
    /// at `i`. With the CRC-32 each checkpoint kept of the bytes before it and the whole stream's,
    /// any region's CRC-32 to any mark follows.
    Stream {
        marks: Box<[u32]>,
        /// How far the pass saw the stream's bytes (its end, or the end of what it needed).
        reach: u64,
        /// The CRC-32 of the first `reach` bytes.
        at_reach: u32,
    },
    /// Imported: each region's digest (region 0's is the CRC-32 of its bytes; checkpoint `k`'s,
    /// region `k + 1`'s, covers its exported record and its bytes through the byte holding the
    /// next checkpoint's first bit), and once a read first goes through a region and its digest
    /// matched, the region's CRC-32s from its start to each mark inside it and to its end.
    Imported { digests: Box<[u32]>, regions: Box<[std::sync::OnceLock<Box<[u32]>>]> },
    /// Made by a pass that did not keep the stream's CRC-32s: reads are not checked.
    Unchecked,
}

impl Clone for Checks {
    fn clone(&self) -> Self {
        match self {
            Checks::Stream { marks, reach, at_reach } => {
                Checks::Stream { marks: marks.clone(), reach: *reach, at_reach: *at_reach }
            }
            Checks::Imported { digests, regions } => {
                Checks::Imported { digests: digests.clone(), regions: regions.iter().cloned().collect() }
            }
            Checks::Unchecked => Checks::Unchecked,
        }
    }
}

/// Where region `j` starts: 0, or the byte holding checkpoint `j - 1`'s first bit.
fn region_start(points: &[Checkpoint], j: usize) -> u64 {
    j.checked_sub(1).map_or(0, |k| points[k].bit_offset / 8)
}

/// Where region `j` ends: where the next begins, or the stream's end.
fn region_end(points: &[Checkpoint], j: usize, compressed_len: u64) -> u64 {
    points.get(j).map_or(compressed_len, |next| (next.bit_offset / 8).min(compressed_len))
}

/// The compressed bytes checkpoint `k` of `points` describes, for its digest: from the byte
/// holding its first bit to the byte holding the next checkpoint's (or the stream's end).
fn span_bytes(points: &[Checkpoint], k: usize, compressed_len: u64) -> std::ops::Range<u64> {
    let end = points.get(k + 1).map_or(compressed_len, |next| next.bit_offset.div_ceil(8).min(compressed_len));
    points[k].bit_offset / 8..end
}

/// Region `j`'s digest, read through `source`, with its CRC-32s from its start to each mark
/// inside it and to its end (see [`Checks::Imported`]). Region 0's digest is the CRC-32 of its
/// bytes; checkpoint `k`'s (region `k + 1`) a CRC-32 of its exported record and of
/// [`span_bytes`].
fn digest<E>(
    points: &[Checkpoint],
    j: usize,
    compressed_len: u64,
    source: &mut (impl FnMut(u64, &mut [u8]) -> Result<usize, E> + ?Sized),
) -> Result<(u32, Box<[u32]>), SeekError<E>> {
    let (start, end) = (region_start(points, j), region_end(points, j, compressed_len));
    let through = match j.checked_sub(1) {
        Some(k) => span_bytes(points, k, compressed_len).end,
        None => end,
    };
    let mut buf = vec![0u8; FEED.min((through - start) as usize).max(1)];
    let mut crc = Crc32::new();
    let mut crcs = Vec::new();
    let mut at = start;
    while at < through {
        // Pieces stop at each mark and at the region's end, where a CRC-32 is noted.
        let next_mark = ((at / STREAM_MARK + 1) * STREAM_MARK).min(end);
        let stop = if at < end { next_mark } else { through };
        let want = ((stop - at) as usize).min(buf.len());
        let n = source(at, &mut buf[..want]).map_err(SeekError::Source)?;
        if n == 0 {
            // The stream is shorter than the checkpoint says: it cannot describe it.
            return Err(SeekError::Unbound { checkpoint: j.saturating_sub(1) });
        }
        crc.update(&buf[..n]);
        at += n as u64;
        if at <= end && (at == end || at.is_multiple_of(STREAM_MARK)) {
            crcs.push(crc.finalize());
        }
    }
    if start == end {
        crcs.push(0);
    }
    let digest = match j.checked_sub(1) {
        Some(k) => {
            let mut record = Vec::with_capacity(32 + points[k].window.len() + MAX_HEADER);
            encode(&points[k], &mut record);
            crc32_concat(crate::crc32(&record), crc.finalize(), through - start)
        }
        None => crc.finalize(),
    };
    Ok((digest, crcs.into()))
}

/// Region `j`'s digest (as [`digest`] computes it) from the CRC-32s a pass from the stream's
/// start kept, `stream_crc` being the whole stream's: `None` where they were not kept.
fn digest_kept(points: &[Checkpoint], j: usize, compressed_len: u64, stream_crc: Option<u32>) -> Option<u32> {
    let Some(k) = j.checked_sub(1) else {
        // Region 0: the bytes before the first checkpoint, or the whole stream.
        return match points.first() {
            Some(first) => first.stream_crc.map(|c| c.before),
            None => stream_crc,
        };
    };
    let range = span_bytes(points, k, compressed_len);
    let before = points[k].stream_crc?.before;
    let through = match points.get(k + 1) {
        Some(next) if next.bit_offset.div_ceil(8) <= compressed_len => next.stream_crc?.through,
        _ => stream_crc?,
    };
    let len = range.end - range.start;
    let mut record = Vec::with_capacity(32 + points[k].window.len() + MAX_HEADER);
    encode(&points[k], &mut record);
    Some(crc32_concat(crate::crc32(&record), crc32_between(before, through, len), len))
}

/// A checkpoint as the export format writes it.
fn encode(p: &Checkpoint, out: &mut Vec<u8>) {
    out.extend_from_slice(&p.bit_offset.to_le_bytes());
    out.extend_from_slice(&p.out_offset.to_le_bytes());
    out.extend_from_slice(&(p.window.len() as u32).to_le_bytes());
    out.extend_from_slice(&p.window);
    match &p.inside {
        Inside::Nothing => out.push(0),
        Inside::Stored { left, last } => {
            out.push(1 + u8::from(*last));
            out.extend_from_slice(&left.to_le_bytes());
        }
        Inside::Codes { header, skip } => {
            out.push(3);
            out.push(*skip);
            out.extend_from_slice(&(header.len() as u16).to_le_bytes());
            out.extend_from_slice(header);
        }
    }
}

impl std::fmt::Debug for Checkpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoints")
            .field("len", &self.len)
            .field("span", &self.span)
            .field("points", &self.points.len())
            .finish_non_exhaustive()
    }
}

/// Feeds `inflater` from `source` while it wants input; `at` is the next stream byte to read.
pub(crate) fn feed<E>(
    inflater: &mut ChunkedInflater<'_>,
    at: &mut u64,
    end: u64,
    source: &mut (impl FnMut(u64, &mut [u8]) -> Result<usize, E> + ?Sized),
) -> Result<(), SeekError<E>> {
    while inflater.wants_input() {
        let want = (end.saturating_sub(*at)).min(FEED as u64) as usize;
        if want == 0 {
            inflater.end_input();
            break;
        }
        let offset = *at;
        let n = inflater.feed_with(want, |room| source(offset, room)).map_err(SeekError::Source)?;
        if n == 0 {
            inflater.end_input();
            break;
        }
        *at += n as u64;
    }
    Ok(())
}

impl Checkpoints {
    /// The span [`build`](Self::build)'s callers use when they have no reason to choose: a read
    /// then inflates at most about 1 MiB, about a millisecond, and the checkpoints take 32 KiB
    /// per MiB of output (3%).
    pub const DEFAULT_SPAN: u64 = 1 << 20;

    /// Inflates the whole raw deflate stream of `compressed_len` bytes, read through `source`
    /// (`source(offset, buf)` fills the front of `buf` with the stream's bytes from `offset` and
    /// says how many), and keeps a checkpoint at the first block boundary past every `span`
    /// output bytes (at least 32 KiB). The stream must inflate to exactly `len` bytes with
    /// CRC-32 `crc32` and end at or before `compressed_len` (bytes after its end are the
    /// caller's to judge), else nothing is kept. Memory: the decoder's, plus 32 KiB a checkpoint.
    pub fn build<E>(
        compressed_len: u64,
        len: u64,
        crc32: u32,
        span: u64,
        inflater: &mut ChunkedInflater<'_>,
        mut source: impl FnMut(u64, &mut [u8]) -> Result<usize, E>,
    ) -> Result<Checkpoints, SeekError<E>> {
        let span = span.max(WINDOW as u64);
        inflater.set_checkpoint_span(span);
        inflater.start_fed();
        let mut at = 0u64;
        let mut crc = Crc32::new();
        let mut out = 0u64;
        let result = loop {
            if let Err(e) = feed(inflater, &mut at, compressed_len, &mut source) {
                break Err(e);
            }
            match inflater.next_chunk() {
                Ok(Some(chunk)) => {
                    out += chunk.len() as u64;
                    if out > len {
                        break Err(SeekError::Length { expected: len, actual: None });
                    }
                    crc.update(chunk);
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(SeekError::Stream(e)),
            }
        };
        inflater.set_checkpoint_span(0);
        let points = inflater.take_checkpoints();
        result?;
        let (checks, stream_crc) = Checks::of_pass(inflater, compressed_len);
        if out != len {
            return Err(SeekError::Length { expected: len, actual: Some(out) });
        }
        let actual = crc.finalize();
        if actual != crc32 {
            return Err(SeekError::Crc { expected: crc32, actual });
        }
        Ok(Checkpoints { compressed_len, len, crc32, span, points, stream_crc, checks })
    }

    /// The checkpoints `inflater` recorded ([`ChunkedInflater::set_checkpoint_span`]) on a pass
    /// over a whole stream of `compressed_len` bytes that the caller has checked: it inflated to
    /// `len` bytes with CRC-32 `crc32` and ended exactly at its last byte. For a full read that
    /// makes them as a by-product (the checks are the caller's, as [`build`](Self::build) makes
    /// them itself). Takes them from `inflater`
    /// ([`take_checkpoints`](ChunkedInflater::take_checkpoints)), with what their export and
    /// the checks of every later read need. `None` where the pass did not record them from the
    /// stream's start (the span set after decoding began): reads through such checkpoints could
    /// not be checked against the bytes the pass saw.
    pub fn from_checked_pass(
        compressed_len: u64,
        len: u64,
        crc32: u32,
        span: u64,
        inflater: &mut ChunkedInflater<'_>,
    ) -> Option<Checkpoints> {
        let points = inflater.take_checkpoints();
        let (checks, stream_crc) = Checks::of_pass(inflater, compressed_len);
        if matches!(checks, Checks::Unchecked) {
            return None;
        }
        Some(Checkpoints { compressed_len, len, crc32, span, points, stream_crc, checks })
    }

    /// Reads up to `out.len()` bytes of the stream's output from `offset` into `out`, inflating
    /// from the last checkpoint at or before `offset` (at most about `span` bytes before it);
    /// returns how many: fewer only at the end of the stream. `offset` equal to the length reads
    /// nothing; past it is [`SeekError::OutOfRange`]. `source` is as for [`build`](Self::build).
    pub fn read_at<E>(
        &self,
        offset: u64,
        out: &mut [u8],
        inflater: &mut ChunkedInflater<'_>,
        mut source: impl FnMut(u64, &mut [u8]) -> Result<usize, E>,
    ) -> Result<usize, SeekError<E>> {
        if offset > self.len {
            return Err(SeekError::OutOfRange { offset, len: self.len });
        }
        let want = out.len().min((self.len - offset).min(usize::MAX as u64) as usize);
        if want == 0 {
            return Ok(0);
        }
        let from = self.points.partition_point(|p| p.out_offset <= offset);
        // The region decoding starts in: `from` (0 from the stream's start, `k + 1` from
        // checkpoint `k`); an imported checkpoint is checked before its window is used.
        self.region_crcs(from, &mut source)?;
        let mut at = match from.checked_sub(1).map(|i| &self.points[i]) {
            Some(point) => inflater.resume_fed(point).map_err(SeekError::Stream)?,
            None => {
                inflater.start_fed();
                0
            }
        };
        let mut fed = Fed::new(&self.points, from, self.reach(), self.compressed_len);
        let mut filled = 0usize;
        {
            let mut tallied = |offset: u64, buf: &mut [u8]| {
                let n = source(offset, buf)?;
                fed.add(&self.points, &buf[..n.min(buf.len())]);
                Ok(n)
            };
            while filled < want {
                feed(inflater, &mut at, self.compressed_len, &mut tallied)?;
                let chunk_end = inflater.total_out();
                let Some(chunk) = inflater.next_chunk().map_err(SeekError::Stream)? else {
                    return Err(SeekError::Length { expected: self.len, actual: Some(inflater.total_out()) });
                };
                // The chunk covers [chunk_end, chunk_end + chunk.len()) of the output.
                let (start, end) = (chunk_end, chunk_end + chunk.len() as u64);
                let need_from = offset + filled as u64;
                if end <= need_from {
                    continue;
                }
                let skip = (need_from - start) as usize;
                let n = (chunk.len() - skip).min(want - filled);
                out[filled..filled + n].copy_from_slice(&chunk[skip..skip + n]);
                filled += n;
            }
        }
        self.check_fed(fed, &mut source)?;
        Ok(filled)
    }

    /// How far the checks reach into the stream: its end, or for checkpoints from a pass over a
    /// stream that ended before its last compressed byte, what that pass saw (which holds the
    /// stream's end: bytes past it never change a read's output).
    fn reach(&self) -> u64 {
        match self.checks {
            Checks::Stream { reach, .. } => reach,
            _ => self.compressed_len,
        }
    }

    /// Region `j`'s CRC-32s from its start to each mark inside it and to its end, for imported
    /// checkpoints (its digest checked against the stream's bytes the first time: `Unbound` if it
    /// does not match); `None` for checkpoints from a pass, which need none.
    fn region_crcs<E>(
        &self,
        j: usize,
        source: &mut (impl FnMut(u64, &mut [u8]) -> Result<usize, E> + ?Sized),
    ) -> Result<Option<&[u32]>, SeekError<E>> {
        let Checks::Imported { digests, regions } = &self.checks else { return Ok(None) };
        if let Some(crcs) = regions[j].get() {
            return Ok(Some(crcs));
        }
        let (digest, crcs) = digest(&self.points, j, self.compressed_len, source)?;
        if digest != digests[j] {
            return Err(SeekError::Unbound { checkpoint: j.saturating_sub(1) });
        }
        Ok(Some(regions[j].get_or_init(|| crcs)))
    }

    /// What region `j`'s bytes from its start to `to` (a mark inside it, or its end) must have as
    /// their CRC-32; `None` where that is not known.
    fn expected_crc<E>(
        &self,
        j: usize,
        to: u64,
        source: &mut (impl FnMut(u64, &mut [u8]) -> Result<usize, E> + ?Sized),
    ) -> Result<Option<u32>, SeekError<E>> {
        let (start, end) = (region_start(&self.points, j), region_end(&self.points, j, self.compressed_len));
        Ok(match &self.checks {
            Checks::Stream { marks, reach, at_reach } => {
                // The CRC-32 of the stream's first `x` bytes, at the places the pass noted it.
                let prefix = |x: u64| -> Option<u32> {
                    if x == 0 {
                        Some(0)
                    } else if x == *reach {
                        Some(*at_reach)
                    } else if x.is_multiple_of(STREAM_MARK) {
                        marks.get((x / STREAM_MARK - 1) as usize).copied()
                    } else {
                        // A region's bounds: the bytes before a checkpoint's first byte.
                        let k = self.points.partition_point(|p| p.bit_offset / 8 < x);
                        self.points.get(k).filter(|p| p.bit_offset / 8 == x)?.stream_crc.map(|c| c.before)
                    }
                };
                prefix(start).zip(prefix(to)).map(|(before, through)| crc32_between(before, through, to - start))
            }
            Checks::Imported { .. } => {
                let crcs = self.region_crcs(j, source)?.expect("imported");
                if to >= end {
                    crcs.last().copied()
                } else {
                    crcs.get((to / STREAM_MARK - start / STREAM_MARK - 1) as usize).copied()
                }
            }
            Checks::Unchecked => None,
        })
    }

    /// Checks the compressed bytes a read fed its decoder, region by region, reading on to the
    /// next mark (or its region's end) after the last: [`SeekError::Changed`] where they are not
    /// the bytes the checkpoints were made from.
    fn check_fed<E>(
        &self,
        mut fed: Fed,
        source: &mut (impl FnMut(u64, &mut [u8]) -> Result<usize, E> + ?Sized),
    ) -> Result<(), SeekError<E>> {
        if matches!(self.checks, Checks::Unchecked) {
            return Ok(());
        }
        if fed.pos > fed.start {
            let to = fed.pos.next_multiple_of(STREAM_MARK).min(fed.end);
            let mut buf = vec![0u8; (to - fed.pos) as usize];
            let mut at = 0;
            while at < buf.len() {
                let n = source(fed.pos + at as u64, &mut buf[at..]).map_err(SeekError::Source)?;
                if n == 0 {
                    return Err(SeekError::Changed { from: fed.start, to });
                }
                at += n.min(buf.len() - at);
            }
            fed.crc.update(&buf);
            fed.done.push((fed.region, fed.start, to, fed.crc.finalize()));
        }
        for (j, from, to, crc) in fed.done {
            if self.expected_crc(j, to, source)? != Some(crc) {
                return Err(SeekError::Changed { from, to });
            }
        }
        Ok(())
    }

    /// The stream's inflated length.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the stream inflates to nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The span they were built with.
    pub fn span(&self) -> u64 {
        self.span
    }

    /// How many checkpoints there are (the stream's start is not one: it needs none).
    pub fn count(&self) -> usize {
        self.points.len()
    }

    /// The memory they hold, in bytes.
    pub fn memory(&self) -> usize {
        self.points
            .iter()
            .map(|p| {
                let header = if let Inside::Codes { header, .. } = &p.inside { header.len() } else { 0 };
                p.window.len() + header + std::mem::size_of::<Checkpoint>()
            })
            .sum::<usize>()
            + std::mem::size_of::<Self>()
    }
}

impl Checks {
    /// The checks a pass that recorded checkpoints leaves (see
    /// [`ChunkedInflater::take_stream_marks`]), and the CRC-32 of the whole stream when the pass
    /// saw it all (what an export's digests need).
    fn of_pass(inflater: &mut ChunkedInflater<'_>, compressed_len: u64) -> (Checks, Option<u32>) {
        match inflater.take_stream_marks(compressed_len) {
            Some((marks, reach, at_reach)) => {
                let whole = (reach == compressed_len).then_some(at_reach);
                (Checks::Stream { marks: marks.into(), reach, at_reach }, whole)
            }
            None => (Checks::Unchecked, None),
        }
    }
}

/// The compressed bytes a read fed its decoder, as CRC-32s region by region: the regions it
/// went through whole, and the one it is in.
struct Fed {
    region: usize,
    start: u64,
    /// Where the region ends (or the checks' reach, if sooner).
    end: u64,
    /// The next byte to come.
    pos: u64,
    reach: u64,
    compressed_len: u64,
    crc: Crc32,
    /// (region, from, to, CRC-32) of each region gone through.
    done: Vec<(usize, u64, u64, u32)>,
}

impl Fed {
    fn new(points: &[Checkpoint], region: usize, reach: u64, compressed_len: u64) -> Fed {
        let start = region_start(points, region);
        let end = region_end(points, region, compressed_len).min(reach);
        Fed { region, start, end, pos: start, reach, compressed_len, crc: Crc32::new(), done: Vec::new() }
    }

    /// The next `bytes` fed (each piece follows the last: the decoder is fed in order).
    fn add(&mut self, points: &[Checkpoint], mut bytes: &[u8]) {
        while !bytes.is_empty() && self.pos < self.reach {
            if self.pos == self.end {
                let done = std::mem::take(&mut self.done);
                let mut next = Fed::new(points, self.region + 1, self.reach, self.compressed_len);
                next.done = done;
                next.done.push((self.region, self.start, self.end, self.crc.finalize()));
                *self = next;
                continue;
            }
            let take = ((self.end - self.pos) as usize).min(bytes.len());
            self.crc.update(&bytes[..take]);
            self.pos += take as u64;
            bytes = &bytes[take..];
        }
    }
}
