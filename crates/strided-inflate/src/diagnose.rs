//! Telling failures apart. libdeflate only says "bad data"; when that happens (rarely, and never
//! on the success path) the stream is decoded again by the crate's chunked decoder to say which
//! kind: truncated, checksum, size or corrupt. Memory stays bounded: the output is only counted.

#![forbid(unsafe_code)]

use crate::{ChunkedInflater, Error, Format};

/// Classifies why the stream at `input[offset..]` did not inflate to exactly `expected` bytes.
pub(crate) fn diagnose(format: Format, input: &[u8], offset: usize, expected: usize) -> Error {
    let mut inflater = ChunkedInflater::with_chunk_size(format, 32 << 10);
    inflater.start(&input[offset..]);
    let mut produced = 0usize;
    loop {
        match inflater.next_chunk() {
            Ok(Some(chunk)) => {
                produced += chunk.len();
                if produced > expected {
                    return Error::SizeMismatch { offset, expected, actual: None };
                }
            }
            // Decodes cleanly here: the fast engine disagreed. Report it rather than guess.
            Ok(None) if produced == expected => {
                return Error::Corrupt { offset, reason: "rejected by the decoder".into() };
            }
            Ok(None) => return Error::SizeMismatch { offset, expected, actual: Some(produced) },
            Err(e) => return e.at(offset),
        }
    }
}
