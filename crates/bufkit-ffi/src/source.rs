//! `bk_source`: an archive's bytes served by the caller (an encrypted store, a cache, an Android
//! asset file descriptor), read through the same path as a file: every check, every refusal.

use std::ffi::c_void;
use std::io;

use asset_extract::Source;

/// Reads up to `len` bytes of the caller's archive at `offset` into `buf`, as `pread` does:
/// returns how many (fewer than `len` only at the archive's end, 0 at or past it), or a negative
/// value on failure: `-errno` (`-EIO`...) to pass an error number on, any other negative value for
/// a failure without one. bufkit calls it from any of its threads, several at once, for as long as
/// the source is in use (see `bk_source.release`). A short count is read on from where it
/// stopped. An error, a count larger than asked, an end before `bk_source.length`, or bytes that
/// differ from one call to the next give a status (`BK_STATUS_IO_ERROR` for the first three,
/// `BK_STATUS_ARCHIVE_MALFORMED` or `BK_STATUS_CRC_MISMATCH` for the last), never a crash or
/// another reading.
pub type bk_read_at_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, offset: u64, buf: *mut u8, len: usize) -> i64>;

/// Called once, when bufkit no longer reads a source: see `bk_source.release`.
pub type bk_release_fn = Option<unsafe extern "C" fn(ctx: *mut c_void)>;

/// An archive's bytes, served by the caller: for `bk_archive_open_source` and
/// `bk_extract_source`. bufkit reads only what a request needs, through `read_at`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bk_source {
    /// The archive's length in bytes: the end records are looked for at the end this says. A
    /// length that lies gives a status (`BK_STATUS_IO_ERROR` when `read_at` ends before it).
    pub length: u64,
    /// Reads the archive's bytes (required: NULL is `BK_STATUS_INVALID_ARGUMENT`).
    pub read_at: bk_read_at_fn,
    /// Called exactly once with `ctx` when bufkit is done with the source: when the archive and
    /// every reader opened from it are freed (`bk_archive_open_source`), or before the call
    /// returns (`bk_extract_source`, and `bk_archive_open_source` when it fails). NULL for none.
    pub release: bk_release_fn,
    /// Passed to `read_at` and `release`.
    pub ctx: *mut c_void,
}

/// A `bk_source` as an [`asset_extract::Source`]: the caller's `read_at` behind the one reading
/// path. Releases the caller's context when dropped.
pub(crate) struct CallbackSource {
    length: u64,
    read_at: unsafe extern "C" fn(ctx: *mut c_void, offset: u64, buf: *mut u8, len: usize) -> i64,
    release: bk_release_fn,
    ctx: *mut c_void,
}

// SAFETY: the caller's contract (`bk_read_at_fn`): `read_at` may be called from any thread,
// several at once, with `ctx`, until `release`; bufkit holds nothing else through `ctx`.
unsafe impl Send for CallbackSource {}
// SAFETY: as for Send: concurrent calls of `read_at` are part of the caller's contract.
unsafe impl Sync for CallbackSource {}

impl CallbackSource {
    /// Takes over `source`: its `release` is called once this is dropped, including when
    /// `read_at` is missing (`Err`, after the release).
    pub(crate) fn new(source: &bk_source) -> Result<CallbackSource, crate::status::bk_status> {
        match source.read_at {
            Some(read_at) => {
                Ok(CallbackSource { length: source.length, read_at, release: source.release, ctx: source.ctx })
            }
            None => {
                if let Some(release) = source.release {
                    // SAFETY: called once, with the caller's ctx, as bk_source.release says.
                    unsafe { release(source.ctx) };
                }
                Err(crate::status::bk_status::BK_STATUS_INVALID_ARGUMENT)
            }
        }
    }
}

impl Drop for CallbackSource {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: called once (drop runs once), with the caller's ctx, after the last read.
            unsafe { release(self.ctx) };
        }
    }
}

impl Source for CallbackSource {
    fn len(&self) -> u64 {
        self.length
    }

    /// The caller's `read_at`. Only the default `read_at_uninit` (zeroing first) is offered: a
    /// count the callback claims without writing the bytes must not expose uninitialised memory.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // SAFETY: `buf` is valid for `buf.len()` bytes of writes; the callback's contract is to
        // write at most that many, into it, during the call.
        let n = unsafe { (self.read_at)(self.ctx, offset, buf.as_mut_ptr(), buf.len()) };
        callback_count(n, buf.len(), &format!("the source's read_at at offset {offset}"))
    }
}

/// What a caller's read callback returned (`n`, into room for `room` bytes) as a count, or the
/// error it means: a negative value is `-errno` (any other negative value a failure without
/// one), never retried, so a callback always interrupted cannot hold the thread; a count larger
/// than the room is an error too. `what` names the call in errors.
pub(crate) fn callback_count(n: i64, room: usize, what: &str) -> io::Result<usize> {
    match usize::try_from(n) {
        Ok(n) if n <= room => Ok(n),
        Ok(n) => Err(io::Error::other(format!("{what} said it read {n} bytes into room for {room}"))),
        Err(_) => {
            let failed = || io::Error::other(format!("{what} failed ({n})"));
            let error = match n.checked_neg().and_then(|e| i32::try_from(e).ok()) {
                Some(errno @ 1..=4095) => crate::sys::error_of_errno(errno),
                _ => failed(),
            };
            Err(if error.kind() == io::ErrorKind::Interrupted { failed() } else { error })
        }
    }
}
