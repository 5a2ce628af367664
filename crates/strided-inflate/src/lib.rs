//! zlib and raw deflate streams inflated at an offset of a larger buffer, at a cost set by the
//! bytes the stream really occupies, reporting exactly how many it consumed.
//!
//! A git pack is hundreds of thousands of zlib streams back to back; nobody knows their
//! compressed lengths, and the end of one is where the next object's header starts. JGit once
//! handed `Inflater.setInput` the whole rest of a megabyte buffer per object, and the JDK copied
//! it every time. Here the input is never copied: [`Decoder::inflate_at`] reads from `offset` to
//! the end of the buffer only as far as the stream goes, writes an output of the known size, and
//! returns the exact consumed count (header and Adler-32 included), so the next stream starts at
//! `offset + consumed`. A reused decoder sets up a stream without allocating.
//!
//! Also here: [`Decoder::inflate_batch`] (many streams, one call), [`StreamInflater`] (input in
//! bounded strides for sources not in memory), [`ChunkedInflater`] (one large stream held in
//! memory, handed out in bounded chunks at close to libdeflate's speed), and [`pack`] (a git pack
//! walker, verified against the `.idx`). Every failure names its kind and offset; no output is
//! handed out before the checksum verifies, except by [`ChunkedInflater`], whose chunks go out as
//! they are decoded: its output is provisional until it reports the end. Engines: libdeflate's
//! whole-buffer decoder via its `_ex` calls, for a stream in memory into an output of its size;
//! the crate's own chunked decoder for everything else (chunks, strides, checkpoints, diagnosis).
//! zlib (through flate2) is only the differential reference of the tests and fuzz targets.
//!
//! ```
//! let stream = [0x78, 0xda, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x06, 0x2c, 0x02, 0x15];
//! let mut input = stream.to_vec();
//! input.extend_from_slice(b"garbage that is not part of the stream");
//! let (data, consumed) = strided_inflate::inflate_at(&input, 0, 5)?;
//! assert_eq!((data.as_slice(), consumed), (&b"hello"[..], stream.len()));
//! # Ok::<(), strided_inflate::Error>(())
//! ```
#![deny(missing_docs)]

mod checkpoint;
mod checksum;
mod chunked;
mod decoder;
mod diagnose;
mod error;
mod fan_out;
mod marked;
pub mod pack;
mod parallel;
mod stream;

pub use checkpoint::{Checkpoint, Checkpoints, ImportError, SeekError};
pub use checksum::{Crc32, crc32, crc32_update};
pub use chunked::ChunkedInflater;
pub use decoder::{Decoder, Request};
pub use error::Error;
#[cfg(feature = "observe")]
pub use parallel::{Observer, Task, inflate_parallel_observed};
pub use parallel::{Parallel, ParallelReport, Source, inflate_parallel};
pub use stream::{Step, StreamInflater};

/// The stream framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// RFC 1950: 2-byte header, deflate data, Adler-32 trailer (git objects, PNG, most protocols).
    Zlib,
    /// RFC 1951: bare deflate data (zip entries).
    Raw,
}

/// The most bytes that `compressed` bytes of deflate data can inflate to: deflate's ceiling of
/// about 1032:1 (a 258-byte match per 2 bits), plus room for a tiny stream. A size claimed above
/// this can never be met, so a caller can refuse it before allocating for it.
///
/// ```
/// assert_eq!(strided_inflate::max_inflated_len(1000), 1_032_064);
/// ```
pub const fn max_inflated_len(compressed: usize) -> usize {
    compressed.saturating_mul(1032).saturating_add(64)
}

/// Inflates the zlib stream at `input[offset..]` to exactly `expected_len` bytes with a fresh
/// decoder; returns the data and the input bytes the stream occupied. For many streams, reuse a
/// [`Decoder`].
pub fn inflate_at(input: &[u8], offset: usize, expected_len: usize) -> Result<(Vec<u8>, usize), Error> {
    let mut decoder = Decoder::new(Format::Zlib)?;
    if let Some(refusal) = decoder.refuse_unreachable(input, offset, expected_len) {
        return Err(refusal);
    }
    let mut out = vec![0u8; expected_len];
    let consumed = decoder.inflate_at(input, offset, &mut out)?;
    Ok((out, consumed))
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
