//! The crate's one OS call beyond `std`: setting errno for a C caller, which lives behind a
//! different symbol on each C library (a port touches this file alone).

/// Sets this thread's errno to `code`, so that a C caller of a failed export sees the OS error of
/// the call that failed, as after `write(2)`.
pub(crate) fn set_errno(code: libc::c_int) {
    #[cfg(any(target_os = "linux", target_os = "hurd", target_os = "emscripten"))]
    // SAFETY: returns this thread's errno slot, valid for the thread's life.
    unsafe {
        *libc::__errno_location() = code;
    }
    #[cfg(any(target_os = "android", target_os = "netbsd", target_os = "openbsd"))]
    // SAFETY: as above.
    unsafe {
        *libc::__errno() = code;
    }
    #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd", target_os = "dragonfly"))]
    // SAFETY: as above.
    unsafe {
        *libc::__error() = code;
    }
}
