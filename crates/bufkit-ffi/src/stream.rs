//! `bk_stream` and `bk_extract_stream`: extraction of an archive that arrives as a stream (a pipe,
//! a socket, a host's messages), with every check a file gets.

use bufkit_ffi_macros::export;
use std::ffi::{c_char, c_void};
use std::io::{self, Read, Write};
use std::path::Path;

use asset_extract::StreamedArchive;

use crate::extract::{Archive, bk_extract_failure, bk_extract_options, bk_extract_report, extract_described};
use crate::macros::{handle_free, handle_new};
use crate::status::bk_status;

/// Reads the next bytes of a stream into `buf` (room for `len`): returns how many, 0 at the
/// stream's end, or a negative value on failure (`-errno`, or any other negative value). Called
/// from the thread that called `bk_extract_stream`, until it returns.
pub type bk_stream_read_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, buf: *mut u8, len: usize) -> i64>;

/// An archive arriving in pieces: `bk_stream_new`, `bk_stream_feed` as each piece arrives, then
/// `bk_stream_extract` once it has all arrived. The bytes are spooled beside the destination (in
/// memory up to 8 MiB, beyond that in an unnamed file on its file system: nothing is left behind
/// whatever happens) and extracted on the same path as a file, so the same checks, refusals and
/// statuses apply: the central directory, which comes last, must agree with every entry. Not
/// thread-safe: one thread at a time. Freed by `bk_stream_free`.
///
/// Methods: (listed in include/bufkit.h)
pub struct bk_stream {
    /// The spool; taken by `bk_stream_extract`.
    incoming: Option<StreamedArchive>,
}

/// Starts receiving an archive to be extracted into `dest_path` (NUL-terminated UTF-8; the
/// directory it will be created in decides where the spool goes) and stores the handle in
/// `*stream_out` (NULL on failure).
///
/// # Safety
/// `dest_path` is NUL-terminated; `stream_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_stream_new(
    #[c_str] dest_path: *const c_char,
    #[out = std::ptr::null_mut()] stream_out: *mut *mut bk_stream,
) -> bk_status {
    let dest = dest_path.to_str().map_err(|_| bk_status::BK_STATUS_INVALID_ARGUMENT)?;
    let incoming = StreamedArchive::beside(Path::new(dest)).map_err(|e| crate::extract::status_of(&e))?;
    handle_new(stream_out, bk_stream { incoming: Some(incoming) })
}

/// Appends `bytes[0..len)`, the next piece of the archive. `BK_STATUS_IO_ERROR` if the spool
/// cannot take it (its file system is full); `BK_STATUS_INVALID_ARGUMENT` after
/// `bk_stream_extract`.
///
/// # Safety
/// `stream` is live; `bytes` is readable for `len` bytes (or NULL with `len` 0).
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_stream_feed(
    #[live] stream: *mut bk_stream,
    #[bytes(len)] bytes: *const u8,
    len: usize,
) -> bk_status {
    let incoming = stream.incoming.as_mut().ok_or(bk_status::BK_STATUS_INVALID_ARGUMENT)?;
    incoming.write_all(bytes).map_err(|_| bk_status::BK_STATUS_IO_ERROR)
}

/// Extracts the archive fed so far, which must be whole, into `dest_path`, as
/// `bk_extract_detailed` extracts a file: the same options, report, failure description and
/// statuses. The stream is spent afterwards, whatever the status (free it).
///
/// # Safety
/// `stream` is NULL or live; `dest_path` is a NUL-terminated string; `options` is NULL, or its
/// `size` is set and `size` bytes from it are readable, and its pointers are as its fields' docs
/// say; `report_out` is NULL, or its `size` is set and `size` bytes from it are writable;
/// `failure_out` is NULL or valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_stream_extract(
    #[raw] stream: *mut bk_stream,
    #[raw] dest_path: *const c_char,
    #[raw] options: *const bk_extract_options,
    #[raw] report_out: *mut bk_extract_report,
    #[raw] failure_out: *mut bk_extract_failure,
) -> bk_status {
    // SAFETY: NULL or live, per the `# Safety` section.
    let incoming = unsafe { stream.as_mut() }.map(|s| s.incoming.take());
    let archive = match incoming {
        Some(Some(incoming)) => Ok(Archive::Stream(incoming)),
        Some(None) => Err(bk_status::BK_STATUS_INVALID_ARGUMENT),
        None => Err(bk_status::BK_STATUS_NULL_POINTER),
    };
    // SAFETY: as the `# Safety` section says of each.
    unsafe { extract_described(archive, dest_path, options, report_out, failure_out) }
}

/// Frees a stream and its spool. NULL does nothing.
///
/// # Safety
/// `stream` is NULL or came from `bk_stream_new` and is not used again.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_stream_free(#[raw] stream: *mut bk_stream) {
    // SAFETY: NULL, or from bk_stream_new (handle_new), freed once per the contract.
    unsafe { handle_free(stream) }
}

/// Extracts the archive `read` returns, to its end, into `dest_path`, as `bk_extract_detailed`
/// extracts a file (see `bk_stream` for how it is held meanwhile). A read that fails is
/// `BK_STATUS_IO_ERROR`; cancellation (`bk_extract_options.cancel`) is honoured while the stream
/// is read, too. Nothing is left at `dest_path` on any failure.
///
/// # Safety
/// `read` is NULL (an error) or as `bk_stream_read_fn` says, with `ctx`; `dest_path`, `options`,
/// `report_out` and `failure_out` as for `bk_stream_extract`.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_extract_stream(
    read: bk_stream_read_fn,
    #[raw] ctx: *mut c_void,
    #[raw] dest_path: *const c_char,
    #[raw] options: *const bk_extract_options,
    #[raw] report_out: *mut bk_extract_report,
    #[raw] failure_out: *mut bk_extract_failure,
) -> bk_status {
    let mut reader = read.map(|read| CallbackReader { read, ctx });
    let archive = match reader.as_mut() {
        Some(reader) => Ok(Archive::Reader(reader)),
        None => Err(bk_status::BK_STATUS_NULL_POINTER),
    };
    // SAFETY: as the `# Safety` section says of each.
    unsafe { extract_described(archive, dest_path, options, report_out, failure_out) }
}

/// A `bk_stream_read_fn` as a [`Read`].
struct CallbackReader {
    read: unsafe extern "C" fn(ctx: *mut c_void, buf: *mut u8, len: usize) -> i64,
    ctx: *mut c_void,
}

impl Read for CallbackReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // SAFETY: `buf` is valid for `buf.len()` bytes of writes; the callback's contract is to
        // write at most that many, during the call.
        let n = unsafe { (self.read)(self.ctx, buf.as_mut_ptr(), buf.len()) };
        crate::source::callback_count(n, buf.len(), "the stream's read")
    }
}
