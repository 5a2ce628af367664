//! Telling failures apart. The fast engine only says "bad data"; when that happens (rarely, and
//! never on the success path) the stream is decoded again with a streaming decoder to say which
//! kind: truncated, checksum, size or corrupt. Memory stays bounded: output goes to a scratch
//! buffer and is only counted.

#![forbid(unsafe_code)]

use flate2::{Decompress, FlushDecompress, Status};

use crate::{Error, Format};

/// Classifies why the stream at `input[offset..]` did not inflate to exactly `expected` bytes.
pub(crate) fn diagnose(format: Format, input: &[u8], offset: usize, expected: usize) -> Error {
    let src = &input[offset..];
    let mut d = Decompress::new(format == Format::Zlib);
    let mut scratch = vec![0u8; 32 * 1024];
    loop {
        let (in_before, out_before) = (d.total_in() as usize, d.total_out() as usize);
        if out_before > expected {
            return Error::SizeMismatch { offset, expected, actual: None };
        }
        let result = d.decompress(&src[in_before..], &mut scratch, FlushDecompress::None);
        let (in_now, out_now) = (d.total_in() as usize, d.total_out() as usize);
        match result {
            Ok(Status::StreamEnd) => {
                return match out_now.cmp(&expected) {
                    // Decodes cleanly here: the fast engine disagreed. Report it rather than guess.
                    std::cmp::Ordering::Equal => Error::Corrupt { offset, reason: "rejected by the decoder".into() },
                    std::cmp::Ordering::Greater => Error::SizeMismatch { offset, expected, actual: None },
                    std::cmp::Ordering::Less => Error::SizeMismatch { offset, expected, actual: Some(out_now) },
                };
            }
            Ok(_) if in_now == src.len() && out_now == out_before => return Error::Truncated { offset },
            Ok(_) if in_now == in_before && out_now == out_before => return Error::Truncated { offset },
            Ok(_) => {}
            Err(e) => {
                let reason = e.message().unwrap_or("invalid deflate data").to_string();
                return if reason.contains("data check") {
                    Error::Checksum { offset }
                } else {
                    Error::Corrupt { offset, reason }
                };
            }
        }
    }
}
