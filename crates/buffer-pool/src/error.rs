//! The one error type of this crate.

#![forbid(unsafe_code)]

/// Why the pool refused a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A buffer of 0 bytes was asked for.
    #[error("a buffer of 0 bytes was requested")]
    ZeroSize,
    /// More than `isize::MAX` bytes were asked for.
    #[error("a buffer of {0} bytes cannot exist")]
    TooLarge(usize),
    /// The allocator refused memory on a miss.
    #[error("allocation of {0} bytes failed")]
    AllocFailed(usize),
    /// A configuration value is out of its documented range.
    #[error("invalid pool configuration: {0}")]
    InvalidConfig(&'static str),
    /// A lease handed back that the pool has not lent: released already, never lent, or its
    /// data, length or id not the ones lent.
    #[error("not a live lease of this pool (released already, or not the data, length and id it lent)")]
    NotLent,
}
