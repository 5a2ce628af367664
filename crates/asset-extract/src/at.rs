//! `openat` relative to a directory descriptor, never following a symlink in the last step: the
//! one way this crate opens anything inside a tree it writes, replaces or reuses.

use std::ffi::CStr;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// Opens `name` in the directory `dir` (or `AT_FDCWD`) with `flags` plus `O_NOFOLLOW |
/// O_CLOEXEC`, creating it with `mode` when `flags` has `O_CREAT`.
pub(crate) fn open_at(dir: RawFd, name: &CStr, flags: libc::c_int, mode: libc::mode_t) -> io::Result<OwnedFd> {
    // SAFETY: `dir` is an open descriptor of the caller's (or AT_FDCWD) and `name` a
    // NUL-terminated string that outlives the call; the mode is passed as the variadic `mode_t`
    // openat expects.
    let fd = unsafe {
        libc::openat(dir, name.as_ptr(), flags | libc::O_NOFOLLOW | libc::O_CLOEXEC, libc::c_uint::from(mode))
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just returned by a successful openat, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
