//! The crate's one OS layer: what differs between systems for a C caller.
//! - The error a failed export leaves: errno on Unix, which lives behind a different symbol on
//!   each C library; the thread's last-error value on Windows (`GetLastError`), as the Win32
//!   calls that failed leave it.
//! - A C runtime's file descriptor as a file to write to: itself on Unix, the handle behind it
//!   (`_get_osfhandle`) on Windows.
//! - errno values, which the ABI speaks on every system (`bk_extract_failure.os_error`, a read
//!   callback's `-errno`): the OS's own codes on Unix; on Windows, translated to and from the C
//!   runtime's errno values by what the error is (`ENOENT` for a file not found, and so on).

use std::io;

use std::fs::File;
use std::mem::ManuallyDrop;

/// Leaves `code` (an OS error, as `std::io::Error::raw_os_error` gives it: errno on Unix, a Win32
/// code on Windows) where a C caller of a failed export looks, as after `write(2)`: errno on
/// Unix, `GetLastError()` on Windows.
pub(crate) fn set_os_error(code: i32) {
    errno::set_errno(errno::Errno(code));
}

/// The open file behind the C runtime's descriptor `fd`, borrowed: not closed when dropped.
/// `None` where `fd` is no open descriptor the runtime knows (Windows tells, and its C runtime
/// sets errno to `EBADF`; on Unix an invalid one fails at the first write, with `EBADF`).
///
/// # Safety
/// `fd` is open and stays open while the file is used, per the export's contract.
pub(crate) unsafe fn borrow_descriptor(fd: std::ffi::c_int) -> Option<ManuallyDrop<File>> {
    #[cfg(unix)]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: fd is open per the contract; ManuallyDrop keeps the caller's fd open.
        Some(ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }))
    }
    #[cfg(windows)]
    {
        use std::os::windows::io::FromRawHandle;
        unsafe extern "C" {
            /// The C runtime's handle behind a descriptor (msvcrt and the UCRT alike); -1 if none.
            fn _get_osfhandle(fd: std::ffi::c_int) -> isize;
        }
        // SAFETY: a lookup in the C runtime's descriptor table, which checks `fd`.
        let handle = unsafe { _get_osfhandle(fd) };
        if handle == -1 || handle == -2 {
            return None;
        }
        // SAFETY: the handle is open while `fd` is, per the contract; ManuallyDrop keeps it open.
        Some(ManuallyDrop::new(unsafe { File::from_raw_handle(handle as *mut std::ffi::c_void) }))
    }
}

/// What each kind of error is as an errno value, for Windows (where the OS's codes are Win32's):
/// every kind the file-system and stream calls give.
#[cfg(windows)]
const ERRNO_OF_KIND: &[(io::ErrorKind, i32)] = &[
    (io::ErrorKind::NotFound, libc::ENOENT),
    (io::ErrorKind::PermissionDenied, libc::EACCES),
    (io::ErrorKind::AlreadyExists, libc::EEXIST),
    (io::ErrorKind::NotADirectory, libc::ENOTDIR),
    (io::ErrorKind::IsADirectory, libc::EISDIR),
    (io::ErrorKind::DirectoryNotEmpty, libc::ENOTEMPTY),
    (io::ErrorKind::InvalidInput, libc::EINVAL),
    (io::ErrorKind::StorageFull, libc::ENOSPC),
    (io::ErrorKind::ReadOnlyFilesystem, libc::EROFS),
    (io::ErrorKind::Interrupted, libc::EINTR),
    (io::ErrorKind::BrokenPipe, libc::EPIPE),
    (io::ErrorKind::WouldBlock, libc::EAGAIN),
    (io::ErrorKind::OutOfMemory, libc::ENOMEM),
    (io::ErrorKind::FileTooLarge, libc::EFBIG),
    (io::ErrorKind::CrossesDevices, libc::EXDEV),
    (io::ErrorKind::ResourceBusy, libc::EBUSY),
    (io::ErrorKind::Unsupported, libc::ENOSYS),
];

/// The errno value of an OS error, as the ABI reports it; `None` for an error the OS did not
/// give.
pub(crate) fn errno_of(err: &io::Error) -> Option<i32> {
    #[cfg(unix)]
    {
        err.raw_os_error()
    }
    #[cfg(windows)]
    {
        if let Some(Errno(errno)) = err.get_ref().and_then(|inner| inner.downcast_ref::<Errno>()) {
            return Some(*errno);
        }
        err.raw_os_error()?;
        let kind = err.kind();
        Some(ERRNO_OF_KIND.iter().find(|(k, _)| *k == kind).map_or(libc::EIO, |&(_, errno)| errno))
    }
}

/// The error a caller's errno value means (a read callback's `-errno`).
pub(crate) fn error_of_errno(errno: i32) -> io::Error {
    #[cfg(unix)]
    {
        io::Error::from_raw_os_error(errno)
    }
    #[cfg(windows)]
    {
        let kind = ERRNO_OF_KIND.iter().find(|&&(_, e)| e == errno).map_or(io::ErrorKind::Other, |&(k, _)| k);
        io::Error::new(kind, Errno(errno))
    }
}

/// A caller's errno value carried inside an `io::Error` on Windows, where it is no OS code.
#[cfg(windows)]
#[derive(Debug)]
struct Errno(i32);

#[cfg(windows)]
impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "errno {}", self.0)
    }
}

#[cfg(windows)]
impl std::error::Error for Errno {}
