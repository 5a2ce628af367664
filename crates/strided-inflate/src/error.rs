//! The one error type of this crate: what went wrong, and at which input offset.

#![forbid(unsafe_code)]

/// Why a stream could not be inflated. `offset` is where the stream starts in the input. On any
/// error the output buffer holds no valid data (it is zeroed): nothing is handed out before the
/// checksum verifies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The offset is past the end of the input.
    #[error("offset {offset} is past the end of the input ({len} bytes)")]
    OutOfRange {
        /// The offset asked for.
        offset: usize,
        /// The input's length.
        len: usize,
    },
    /// The input ends before the stream does.
    #[error("stream at offset {offset} is truncated: the input ends before the stream does")]
    Truncated {
        /// Where the stream starts.
        offset: usize,
    },
    /// The stream decodes but its Adler-32 trailer does not match the data.
    #[error("stream at offset {offset} fails its Adler-32 check")]
    Checksum {
        /// Where the stream starts.
        offset: usize,
    },
    /// The stream inflates to a different size than expected.
    #[error("stream at offset {offset} inflates to {} bytes, expected {expected}", match .actual { Some(n) => n.to_string(), None => "more than that".to_string() })]
    SizeMismatch {
        /// Where the stream starts.
        offset: usize,
        /// The size the caller expected.
        expected: usize,
        /// The real size, when it is smaller; `None` when the stream would write past `expected`.
        actual: Option<usize>,
    },
    /// Not a valid zlib or deflate stream (bad header, bad block, bad code).
    #[error("stream at offset {offset} is corrupt: {reason}")]
    Corrupt {
        /// Where the stream starts.
        offset: usize,
        /// What the decoder saw.
        reason: std::borrow::Cow<'static, str>,
    },
    /// The decoder could not be allocated.
    #[error("out of memory allocating a decoder")]
    AllocFailed,
}

impl Error {
    /// The input offset of the stream the error is about, if any.
    pub fn offset(&self) -> Option<usize> {
        match self {
            Error::OutOfRange { offset, .. }
            | Error::Truncated { offset }
            | Error::Checksum { offset }
            | Error::SizeMismatch { offset, .. }
            | Error::Corrupt { offset, .. } => Some(*offset),
            Error::AllocFailed => None,
        }
    }

    /// The same error about a stream at `offset` (the chunked decoder reports offsets relative to
    /// the stream's start).
    pub(crate) fn at(self, offset: usize) -> Error {
        match self {
            Error::Truncated { .. } => Error::Truncated { offset },
            Error::Checksum { .. } => Error::Checksum { offset },
            Error::Corrupt { reason, .. } => Error::Corrupt { offset, reason },
            Error::SizeMismatch { expected, actual, .. } => Error::SizeMismatch { offset, expected, actual },
            other => other,
        }
    }
}
