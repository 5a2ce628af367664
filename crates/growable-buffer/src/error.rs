//! The one error type of this crate.

#![forbid(unsafe_code)]

/// Why a buffer operation was refused. The buffer is unchanged when any of these is returned:
/// nothing already appended is lost.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The operation needs more capacity than the buffer's configured limit.
    #[error("capacity limit exceeded: {requested} bytes needed, the limit is {limit}")]
    CapacityExceeded {
        /// Bytes the buffer would have had to hold.
        requested: usize,
        /// The configured `max_capacity`.
        limit: usize,
    },
    /// The requested size does not fit in `usize` (or `isize` for an allocation).
    #[error("length overflow: {len} + {additional} bytes does not fit in memory")]
    LengthOverflow {
        /// Bytes already held.
        len: usize,
        /// Bytes asked for on top.
        additional: usize,
    },
    /// The system allocator (or `mmap`) refused the memory.
    #[error("allocation of {bytes} bytes failed")]
    AllocFailed {
        /// Size of the allocation that failed.
        bytes: usize,
    },
    /// A configuration value is out of its documented range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(&'static str),
    /// The bytes are held in several chunks; call [`GrowableBuffer::flatten`](crate::GrowableBuffer::flatten)
    /// or read them with [`GrowableBuffer::segments`](crate::GrowableBuffer::segments).
    #[error("buffer is segmented: its bytes are not contiguous")]
    NotContiguous,
    /// An offset past the end of the data.
    #[error("offset {offset} is past the end of the buffer ({len} bytes)")]
    OffsetOutOfRange {
        /// The offset asked for.
        offset: usize,
        /// The buffer's length.
        len: usize,
    },
}
