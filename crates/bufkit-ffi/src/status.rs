//! `bk_status`: what every fallible export returns.

use bufkit_ffi_macros::export;
use std::ffi::c_char;

/// The result of every fallible `bk_` call. `BK_STATUS_OK` is 0. Codes come in families
/// (1–99 any call, 100–199 buffers, 200–299 pools, 300–399 inflate, 400–499 extract) and are never renumbered; new codes may be added, so treat an
/// unknown code as a failure and show `bk_status_message(code)`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum bk_status {
    /// Success.
    BK_STATUS_OK = 0,
    /// A required pointer argument was NULL.
    BK_STATUS_NULL_POINTER = 1,
    /// An argument was outside its documented range (an unknown enum value, a bad growth parameter).
    BK_STATUS_INVALID_ARGUMENT = 2,
    /// A length or sum of lengths does not fit in memory.
    BK_STATUS_LENGTH_OVERFLOW = 3,
    /// An offset or index past the end of the data.
    BK_STATUS_OUT_OF_RANGE = 4,
    /// The system refused to allocate memory; nothing was changed.
    BK_STATUS_ALLOC_FAILED = 5,
    /// A system call on a caller's file descriptor failed.
    BK_STATUS_IO_ERROR = 6,
    /// No entry by that name (`bk_archive_find`).
    BK_STATUS_NOT_FOUND = 7,
    /// Rust panicked inside the call (a bug in bufkit); the panic was caught at the boundary.
    BK_STATUS_PANIC = 99,
    /// The operation would take the buffer past its `max_capacity`; nothing was changed.
    BK_STATUS_CAPACITY_EXCEEDED = 100,
    /// The buffer is segmented: call `bk_buffer_flatten` first, or read it with `bk_buffer_segment`.
    BK_STATUS_NOT_CONTIGUOUS = 101,
    /// The lease is not one this pool has out: already released, or never lent. Nothing was touched.
    BK_STATUS_LEASE_INVALID = 200,
    /// The lease belongs to another pool. Nothing was touched.
    BK_STATUS_WRONG_POOL = 201,
    /// The pool still has leases out, so it was not freed: release them first.
    BK_STATUS_LEASES_OUTSTANDING = 202,
    /// The input ends before the stream does.
    BK_STATUS_TRUNCATED = 300,
    /// The stream decodes but fails its Adler-32 check; no output was handed out.
    BK_STATUS_CHECKSUM = 301,
    /// The stream inflates to a different size than expected (or would exceed it).
    BK_STATUS_SIZE_MISMATCH = 302,
    /// Not a valid zlib/deflate stream.
    BK_STATUS_CORRUPT = 303,
    /// The archive's structure is invalid or inconsistent (see the detail text).
    BK_STATUS_ARCHIVE_MALFORMED = 400,
    /// An entry's name is not a safe relative path, or collides with another entry's.
    BK_STATUS_UNSAFE_NAME = 401,
    /// An entry is a symlink, device, FIFO or socket, or uses an unsupported compression method.
    BK_STATUS_UNSUPPORTED_ENTRY = 402,
    /// An entry is encrypted.
    BK_STATUS_ENCRYPTED = 403,
    /// An entry's CRC-32 does not match its data.
    BK_STATUS_CRC_MISMATCH = 404,
    /// The byte quota or the compression-ratio limit would be exceeded.
    BK_STATUS_LIMIT_EXCEEDED = 405,
    /// The extraction was cancelled.
    BK_STATUS_CANCELLED = 406,
    /// The destination cannot be used in the chosen `bk_extract_mode` (exists and is not empty,
    /// not a directory, a symlink, protected from replacement, or changed meanwhile); it was not
    /// touched. The detail text names the path and the reason.
    BK_STATUS_DESTINATION_REFUSED = 407,
    /// The `only` patterns matched no entry; nothing was touched.
    BK_STATUS_NOTHING_SELECTED = 408,
    /// The archive's bytes admit two readings that disagree (two end records describing different
    /// central directories, one hidden in the other's comment, say): no reading is picked, and
    /// nothing was extracted. The detail text names both.
    BK_STATUS_ARCHIVE_AMBIGUOUS = 409,
    /// Checkpoints imported for an entry were made for other data, or are damaged or altered;
    /// they were not kept.
    BK_STATUS_CHECKPOINTS_REFUSED = 410,
}

impl bk_status {
    fn message(code: u32) -> &'static [u8] {
        use bk_status::*;
        let known = [
            (BK_STATUS_OK, &b"ok\0"[..]),
            (BK_STATUS_NULL_POINTER, b"a required pointer argument was NULL\0"),
            (BK_STATUS_INVALID_ARGUMENT, b"an argument was outside its documented range\0"),
            (BK_STATUS_LENGTH_OVERFLOW, b"a length does not fit in memory\0"),
            (BK_STATUS_OUT_OF_RANGE, b"an offset or index is past the end of the data\0"),
            (BK_STATUS_ALLOC_FAILED, b"memory allocation failed; nothing was changed\0"),
            (BK_STATUS_IO_ERROR, b"a system call on the file descriptor failed\0"),
            (BK_STATUS_NOT_FOUND, b"no entry by that name\0"),
            (BK_STATUS_PANIC, b"internal error: Rust panicked inside bufkit (caught at the C boundary)\0"),
            (BK_STATUS_CAPACITY_EXCEEDED, b"the buffer's capacity limit would be exceeded; nothing was changed\0"),
            (BK_STATUS_NOT_CONTIGUOUS, b"the buffer is segmented: flatten it or read its segments\0"),
            (BK_STATUS_LEASE_INVALID, b"not a lease this pool has out (already released, or never lent)\0"),
            (BK_STATUS_WRONG_POOL, b"the lease belongs to another pool\0"),
            (BK_STATUS_LEASES_OUTSTANDING, b"the pool still has leases out and was not freed\0"),
            (BK_STATUS_TRUNCATED, b"the input ends before the stream does\0"),
            (BK_STATUS_CHECKSUM, b"the stream fails its Adler-32 check; no output was handed out\0"),
            (BK_STATUS_SIZE_MISMATCH, b"the stream does not inflate to the expected size\0"),
            (BK_STATUS_CORRUPT, b"not a valid zlib/deflate stream\0"),
            (BK_STATUS_ARCHIVE_MALFORMED, b"the archive is malformed; nothing was extracted\0"),
            (BK_STATUS_UNSAFE_NAME, b"an entry name is unsafe or collides with another; nothing was extracted\0"),
            (
                BK_STATUS_UNSUPPORTED_ENTRY,
                b"an entry is of a kind or method that is not extracted; nothing was extracted\0",
            ),
            (BK_STATUS_ENCRYPTED, b"an entry is encrypted; nothing was extracted\0"),
            (BK_STATUS_CRC_MISMATCH, b"an entry fails its CRC-32 check; nothing was extracted\0"),
            (
                BK_STATUS_LIMIT_EXCEEDED,
                b"the quota or compression-ratio limit would be exceeded; nothing was extracted\0",
            ),
            (BK_STATUS_CANCELLED, b"the extraction was cancelled; nothing was extracted\0"),
            (
                BK_STATUS_DESTINATION_REFUSED,
                b"the destination cannot be used in this extract mode; it was not touched\0",
            ),
            (BK_STATUS_NOTHING_SELECTED, b"no entry matches the patterns given; nothing was touched\0"),
            (BK_STATUS_ARCHIVE_AMBIGUOUS, b"the archive admits two readings that disagree; nothing was extracted\0"),
            (
                BK_STATUS_CHECKPOINTS_REFUSED,
                b"the checkpoints are not this entry's, or are damaged; they were not kept\0",
            ),
        ];
        known.iter().find(|(s, _)| *s as u32 == code).map_or(b"unknown bk_status code\0", |(_, m)| m)
    }
}

impl From<growable_buffer::Error> for bk_status {
    fn from(e: growable_buffer::Error) -> Self {
        use growable_buffer::Error as E;
        match e {
            E::CapacityExceeded { .. } => bk_status::BK_STATUS_CAPACITY_EXCEEDED,
            E::LengthOverflow { .. } => bk_status::BK_STATUS_LENGTH_OVERFLOW,
            E::AllocFailed { .. } => bk_status::BK_STATUS_ALLOC_FAILED,
            E::InvalidConfig(_) => bk_status::BK_STATUS_INVALID_ARGUMENT,
            E::NotContiguous => bk_status::BK_STATUS_NOT_CONTIGUOUS,
            E::OffsetOutOfRange { .. } => bk_status::BK_STATUS_OUT_OF_RANGE,
            _ => bk_status::BK_STATUS_INVALID_ARGUMENT,
        }
    }
}

impl From<buffer_pool::Error> for bk_status {
    fn from(e: buffer_pool::Error) -> Self {
        use buffer_pool::Error as E;
        match e {
            E::ZeroSize | E::InvalidConfig(_) => bk_status::BK_STATUS_INVALID_ARGUMENT,
            E::TooLarge(_) => bk_status::BK_STATUS_LENGTH_OVERFLOW,
            E::AllocFailed(_) => bk_status::BK_STATUS_ALLOC_FAILED,
            E::NotLent => bk_status::BK_STATUS_LEASE_INVALID,
        }
    }
}

impl From<strided_inflate::Error> for bk_status {
    fn from(e: strided_inflate::Error) -> Self {
        use strided_inflate::Error as E;
        match e {
            E::OutOfRange { .. } => bk_status::BK_STATUS_OUT_OF_RANGE,
            E::Truncated { .. } => bk_status::BK_STATUS_TRUNCATED,
            E::Checksum { .. } => bk_status::BK_STATUS_CHECKSUM,
            E::SizeMismatch { .. } => bk_status::BK_STATUS_SIZE_MISMATCH,
            E::Corrupt { .. } => bk_status::BK_STATUS_CORRUPT,
            E::AllocFailed => bk_status::BK_STATUS_ALLOC_FAILED,
            _ => bk_status::BK_STATUS_CORRUPT,
        }
    }
}

/// A static, NUL-terminated English description of `code` (any value, known or not). Never NULL;
/// the caller must not free it.
#[export(on_panic = c"unknown bk_status code".as_ptr())]
#[unsafe(no_mangle)]
pub extern "C" fn bk_status_message(code: u32) -> *const c_char {
    bk_status::message(code).as_ptr().cast()
}

/// Panics inside Rust on purpose and returns `BK_STATUS_PANIC`: lets bindings and tests check
/// that a Rust panic comes back as a status instead of aborting the host process.
#[export]
#[unsafe(no_mangle)]
pub extern "C" fn bk_test_panic() -> bk_status {
    panic!("bk_test_panic: deliberate panic to exercise the C boundary")
}
