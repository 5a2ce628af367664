//! The POSIX implementation of the OS layer (see `mod.rs`): Linux, Android, macOS and the BSDs.
//!
//! A [`Dir`] is a directory descriptor; every name is resolved by the `*at` calls relative to it
//! with `O_NOFOLLOW` (or `AT_SYMLINK_NOFOLLOW`) on the last step. What is not POSIX is chosen here,
//! per system:
//! - `rename_paths` (rename without replacing, or swap two paths in one step) is the `renameat2`
//!   system call by number on Linux and Android (musl before 1.2.5 has no wrapper for it, and
//!   bionic's needs API level 30), `renamex_np` on macOS and iOS, and `ENOSYS` elsewhere, where
//!   the callers' fallbacks run (they already handle kernels and file systems without it);
//! - `splice` (a pipe's bytes into a file inside the kernel) and `O_TMPFILE` (the spool's unnamed
//!   file) on Linux and Android only;
//! - errno, cleared before `readdir`, lives behind `__errno_location` (glibc, musl),
//!   `__errno` (bionic, the other BSDs) or `__error` (macOS, FreeBSD).

use std::ffi::{CStr, CString, OsStr};
use std::fs::{File, OpenOptions};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use super::{Kind, Rename, Status, days_from_civil};

/// A pipe (or any stream) the caller lends to [`extract_pipe`](crate::extract_pipe): a descriptor
/// on Unix, a handle on Windows.
pub type BorrowedPipe<'a> = std::os::fd::BorrowedFd<'a>;

fn ok_or_errno(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// `name` as a C string: names hold no NUL (entry names are checked when parsed; listed names
/// cannot).
fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| io::ErrorKind::InvalidInput.into())
}

pub(super) fn unsupported_code(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP))
}

pub(super) fn not_a_directory_code(err: &io::Error) -> bool {
    // ELOOP: a symlink, refused by O_NOFOLLOW.
    matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR))
}

/// Opens `name` in the directory `dir` (or `AT_FDCWD`) with `flags` plus `O_NOFOLLOW |
/// O_CLOEXEC`, creating it with `mode` when `flags` has `O_CREAT`.
fn open_at(dir: RawFd, name: &CStr, flags: libc::c_int, mode: libc::mode_t) -> io::Result<OwnedFd> {
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

/// An open directory: every name given to its methods (one component, or several joined by `/`)
/// is resolved relative to it, and a symlink in the last step is never followed.
pub(crate) struct Dir {
    fd: OwnedFd,
}

impl Dir {
    /// Opens the directory at `path`; a symlink there is not followed (`not_a_directory`).
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        Self::open_in(libc::AT_FDCWD, path.as_os_str())
    }

    fn open_in(at: RawFd, name: &OsStr) -> io::Result<Dir> {
        Ok(Dir { fd: open_at(at, &c_name(name)?, libc::O_RDONLY | libc::O_DIRECTORY, 0)? })
    }

    /// Another handle on this directory.
    pub(crate) fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir { fd: self.fd.try_clone()? })
    }

    /// Opens the directory `name` in this one.
    pub(crate) fn open_dir(&self, name: impl AsRef<OsStr>) -> io::Result<Dir> {
        Self::open_in(self.fd.as_raw_fd(), name.as_ref())
    }

    /// Creates `name` as a new regular file with permission bits `mode` (less the mask), open for
    /// writing; `AlreadyExists` if anything is there, a dangling symlink included.
    pub(crate) fn create_file(&self, name: impl AsRef<OsStr>, mode: u32) -> io::Result<File> {
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
        open_at(self.fd.as_raw_fd(), &c_name(name.as_ref())?, flags, mode as libc::mode_t).map(File::from)
    }

    /// Opens the file `name` for reading.
    pub(crate) fn open_file(&self, name: impl AsRef<OsStr>) -> io::Result<File> {
        open_at(self.fd.as_raw_fd(), &c_name(name.as_ref())?, libc::O_RDONLY, 0).map(File::from)
    }

    /// Makes the directory `name` (permission bits 0755 less the mask).
    pub(crate) fn make_dir(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        let name = c_name(name.as_ref())?;
        // SAFETY: `fd` is an open directory and `name` NUL-terminated, outliving the call.
        ok_or_errno(unsafe { libc::mkdirat(self.fd.as_raw_fd(), name.as_ptr(), 0o755) })
    }

    /// What `name` is, not following a symlink (`fstatat` with `AT_SYMLINK_NOFOLLOW`).
    pub(crate) fn status(&self, name: impl AsRef<OsStr>) -> io::Result<Status> {
        let st = stat_at(self.fd.as_raw_fd(), &c_name(name.as_ref())?)?;
        let kind = match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => Kind::File,
            libc::S_IFDIR => Kind::Dir,
            _ => Kind::Other,
        };
        #[allow(clippy::unnecessary_cast, reason = "the field types differ between systems")]
        let mtime = (st.st_mtime as i64, st.st_mtime_nsec as u32);
        Ok(Status { kind, size: st.st_size as u64, mtime })
    }

    fn unlink(&self, name: &OsStr, flags: libc::c_int) -> io::Result<()> {
        let name = c_name(name)?;
        // SAFETY: `fd` is an open directory and `name` NUL-terminated, outliving the call.
        ok_or_errno(unsafe { libc::unlinkat(self.fd.as_raw_fd(), name.as_ptr(), flags) })
    }

    /// Removes the name `name`, anything but a directory: a symlink is removed itself, never
    /// what it points to.
    pub(crate) fn remove_file(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        self.unlink(name.as_ref(), 0)
    }

    /// Removes the empty directory `name`.
    pub(crate) fn remove_dir(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        self.unlink(name.as_ref(), libc::AT_REMOVEDIR)
    }

    /// Renames `from` in this directory to `to` in `to_dir`, replacing (never following) a file
    /// or an empty directory there.
    pub(crate) fn rename(&self, from: impl AsRef<OsStr>, to_dir: &Dir, to: impl AsRef<OsStr>) -> io::Result<()> {
        let (from, to) = (c_name(from.as_ref())?, c_name(to.as_ref())?);
        // SAFETY: both descriptors are open directories and both names NUL-terminated, outliving
        // the call.
        ok_or_errno(unsafe { libc::renameat(self.fd.as_raw_fd(), from.as_ptr(), to_dir.fd.as_raw_fd(), to.as_ptr()) })
    }

    /// Makes `to` in `to_dir` a hard link to `from` in this directory (a symlink at `from` is
    /// linked itself, never followed).
    pub(crate) fn hard_link(&self, from: impl AsRef<OsStr>, to_dir: &Dir, to: impl AsRef<OsStr>) -> io::Result<()> {
        let (from, to) = (c_name(from.as_ref())?, c_name(to.as_ref())?);
        // SAFETY: both descriptors are open directories and both names NUL-terminated, outliving
        // the call.
        ok_or_errno(unsafe { libc::linkat(self.fd.as_raw_fd(), from.as_ptr(), to_dir.fd.as_raw_fd(), to.as_ptr(), 0) })
    }

    /// Sets the permission bits of `name` (`fchmodat`; the caller's own tree holds no symlinks).
    pub(crate) fn set_mode(&self, name: impl AsRef<OsStr>, mode: u32) -> io::Result<()> {
        let name = c_name(name.as_ref())?;
        // SAFETY: `fd` is an open directory and `name` NUL-terminated, outliving the call.
        ok_or_errno(unsafe { libc::fchmodat(self.fd.as_raw_fd(), name.as_ptr(), mode as libc::mode_t, 0) })
    }

    /// Sets the modification time of `name` to `secs` and `nanos` since the epoch, leaving its
    /// access time, without following a symlink (`utimensat`).
    pub(crate) fn set_mtime(&self, name: impl AsRef<OsStr>, secs: i64, nanos: u32) -> io::Result<()> {
        let name = c_name(name.as_ref())?;
        let times = [
            libc::timespec { tv_sec: 0, tv_nsec: libc::UTIME_OMIT },
            // `as _`: libc names musl's time_t deprecated (a note on its width), not the type.
            libc::timespec { tv_sec: secs as _, tv_nsec: nanos as _ },
        ];
        // SAFETY: `fd` is an open directory, `name` NUL-terminated and `times` two timespecs, all
        // outliving the call.
        ok_or_errno(unsafe {
            libc::utimensat(self.fd.as_raw_fd(), name.as_ptr(), times.as_ptr(), libc::AT_SYMLINK_NOFOLLOW)
        })
    }

    /// Sets this directory's own modification time.
    pub(crate) fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        File::from(self.fd.try_clone()?).set_times(std::fs::FileTimes::new().set_modified(time))
    }

    /// Calls `each(name, is_dir)` for every entry but `.` and `..`; entries whose type the file
    /// system does not report are looked up without following links (a symlink is no directory).
    pub(crate) fn for_each_entry(&self, mut each: impl FnMut(&OsStr, bool) -> io::Result<()>) -> io::Result<()> {
        let fd = &self.fd;
        // SAFETY: dup of a descriptor we hold open; the copy is handed to fdopendir below, which
        // owns it from then on (closedir closes it).
        let copy = unsafe { libc::dup(fd.as_raw_fd()) };
        if copy < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `copy` is an open directory descriptor nothing else uses.
        let dir = unsafe { libc::fdopendir(copy) };
        if dir.is_null() {
            let err = io::Error::last_os_error();
            // SAFETY: fdopendir failed, so `copy` is still ours to close.
            unsafe { libc::close(copy) };
            return Err(err);
        }
        let result = (|| loop {
            // readdir signals errors only through errno, so clear it first.
            errno::set_errno(errno::Errno(0));
            // SAFETY: `dir` is a live DIR* used by this thread only.
            let entry = unsafe { libc::readdir(dir) };
            if entry.is_null() {
                let errno = io::Error::last_os_error();
                return if errno.raw_os_error() == Some(0) { Ok(()) } else { Err(errno) };
            }
            // SAFETY: readdir returned a valid entry, whose d_name is NUL-terminated and stays
            // valid until the next readdir on `dir`, after `each` returns.
            let (name, kind) = unsafe { (CStr::from_ptr((*entry).d_name.as_ptr()), (*entry).d_type) };
            if name == c"." || name == c".." {
                continue;
            }
            let is_dir = match kind {
                libc::DT_DIR => true,
                libc::DT_UNKNOWN => stat_at(fd.as_raw_fd(), name)?.st_mode & libc::S_IFMT == libc::S_IFDIR,
                _ => false,
            };
            each(OsStr::from_bytes(name.to_bytes()), is_dir)?;
        })();
        // SAFETY: `dir` came from fdopendir and is closed exactly once.
        unsafe { libc::closedir(dir) };
        result
    }
}

/// The status of `name` in `dir`, without following a symlink.
fn stat_at(dir: RawFd, name: &CStr) -> io::Result<libc::stat> {
    // SAFETY: an all-zero `stat` is a valid value for fstatat to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `dir` is an open directory (or AT_FDCWD), `name` NUL-terminated and `st` writable,
    // all outliving the call.
    ok_or_errno(unsafe { libc::fstatat(dir, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) })?;
    Ok(st)
}

/// Removes `path`, a file or a link (never followed).
pub(crate) fn remove_link_or_file(path: &Path) -> io::Result<()> {
    std::fs::remove_file(path)
}

/// Makes what `dir` holds durable: its names, as a crash would otherwise lose them (`fsync` on
/// the directory).
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Makes the directory `path` (permission bits 0755 less the mask).
pub(crate) fn make_dir(path: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new().mode(0o755).create(path)
}

/// Creates the lock file `path`, readable by its owner alone; `AlreadyExists` if anything is
/// there, a symlink included.
pub(crate) fn create_lock_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Opens the existing lock file `path` to take its lock, never through a symlink.
pub(crate) fn open_existing_lock(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(path)
}

/// Opens the archive at `path` for reading without waiting: a FIFO is opened without waiting for
/// a writer (a plain `open(2)` blocks until one comes, and the caller's thread with it), and a
/// terminal does not become the process's controlling one.
pub(crate) fn open_archive(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path)
}

/// What identifies a file and its version (from `fstat`): its device and inode, size, and
/// modification and change times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Version {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Version {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Version {
        Version {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }
}

/// Which file `path` is, following links: its device and its inode.
pub(crate) fn file_id(path: &Path) -> io::Result<(u64, u64)> {
    let meta = std::fs::metadata(path)?;
    Ok((meta.dev(), meta.ino()))
}

/// The process's file mode creation mask, read from a file created in `dir` with every
/// permission asked (reading it with `umask(2)` would change it, for every thread, meanwhile).
pub(crate) fn umask_in(dir: &Path) -> Option<u32> {
    let probe = dir.join(".bufkit-umask-probe");
    let file = OpenOptions::new().write(true).create_new(true).mode(0o777).open(&probe).ok()?;
    let mode = file.metadata().ok()?.permissions().mode();
    let _ = std::fs::remove_file(&probe);
    Some(!mode & 0o777)
}

/// Reads up to `out.len()` bytes of `file` at `offset` (`pread`); `Interrupted` is the caller's
/// to retry.
pub(crate) fn read_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<usize> {
    file.read_at(out, offset)
}

/// Reads up to `out.len()` bytes of `file` at `offset` into `out`, which may be uninitialised
/// (`pread`): the bytes read (0 at the end of the file); `Interrupted` is the caller's to retry.
pub(crate) fn read_at_uninit(file: &File, out: &mut [MaybeUninit<u8>], offset: u64) -> io::Result<usize> {
    let offset = libc::off_t::try_from(offset).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: `out` is valid for writes of its length; pread writes at most that many bytes and
    // never reads them, so uninitialised memory is fine; `file` is open for the call.
    let n = unsafe { libc::pread(file.as_raw_fd(), out.as_mut_ptr().cast(), out.len(), offset) };
    if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
}

/// Writes all of `bytes` into `file` at `offset` (`pwrite`), the file's position untouched.
pub(crate) fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    file.write_all_at(bytes, offset)
}

/// Renames the directory `from` to `to`, where an empty directory may stand, replacing it in one
/// step (`rename(2)`): `DirectoryNotEmpty` or `AlreadyExists` if it was filled meanwhile,
/// `NotADirectory` if it became something else.
pub(crate) fn rename_over_empty_dir(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::rename(from, to)
}

/// Renames the path `from` to `to` as `how` says, in one step. `Unsupported` (or `EINVAL`) where
/// the system or the file system has no such call: see [`unsupported`](super::unsupported).
pub(crate) fn rename_paths(from: &Path, to: &Path, how: Rename) -> io::Result<()> {
    let (from, to) = (c_name(from.as_os_str())?, c_name(to.as_os_str())?);
    // By number on Linux and Android: musl before 1.2.5 has no renameat2 wrapper (Alpine 3.19
    // and older, Debian's musl-tools), and bionic's needs API level 30.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let flags = match how {
            Rename::NoReplace => libc::RENAME_NOREPLACE,
            Rename::Exchange => libc::RENAME_EXCHANGE,
        };
        // SAFETY: renameat2's arguments: both paths NUL-terminated strings outliving the call.
        let rc = unsafe {
            libc::syscall(libc::SYS_renameat2, libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), flags)
        };
        if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
    }
    #[cfg(any(target_os = "macos", target_os = "ios"))]
    {
        let flags = match how {
            Rename::NoReplace => libc::RENAME_EXCL,
            Rename::Exchange => libc::RENAME_SWAP,
        };
        // SAFETY: both paths are NUL-terminated strings outliving the call.
        ok_or_errno(unsafe { libc::renamex_np(from.as_ptr(), to.as_ptr(), flags) })
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios")))]
    {
        let _ = (from, to, how);
        Err(io::Error::from_raw_os_error(libc::ENOSYS))
    }
}

/// Moves up to `len` bytes from the pipe `from` into the file `to` at `offset` inside the kernel
/// (`splice`), never through this process's memory: how many (0 at the pipe's end). Unsupported
/// (`EINVAL`) where either cannot splice (not a pipe, a file system without it); Linux and
/// Android only.
pub(crate) fn splice_to_file(from: BorrowedPipe<'_>, to: &File, offset: u64, len: usize) -> io::Result<usize> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let mut offset = libc::loff_t::try_from(offset).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        // SAFETY: both descriptors are open (the caller's pipe and our file); a null input offset
        // means the pipe's own, `offset` is a valid loff_t for the call, and no memory of ours is
        // read or written.
        let n = unsafe {
            libc::splice(from.as_raw_fd(), std::ptr::null_mut(), to.as_raw_fd(), &mut offset, len, libc::SPLICE_F_MOVE)
        };
        if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (from, to, offset, len);
        Err(io::Error::from_raw_os_error(libc::EINVAL))
    }
}

/// A file in `dir` with no name, for reading and writing: nothing to clean up whatever happens.
/// Where the system or the file system has no unnamed files (`O_TMPFILE`, Linux and Android), a
/// named one removed at once.
pub(crate) fn unnamed_file(dir: &Path) -> io::Result<File> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let unnamed = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
            .mode(0o600)
            .open(dir);
        match unnamed {
            Ok(file) => return Ok(file),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)) => {}
            Err(e) => return Err(e),
        }
    }
    for attempt in 0..100u32 {
        let path = dir.join(format!(".bufkit-stream-{}-{attempt}", std::process::id()));
        match OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&path) {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no name free for a spool"))
}

/// A broken-down local time (as a DOS timestamp records one), as seconds since the epoch,
/// the way `mktime` reads it (the time zone's rules, daylight saving time decided by them); `None`
/// if it cannot be represented.
///
/// `mktime` looks at the zone file (`/etc/localtime`) on every call, holding a lock all threads
/// share, so a time well away from any change of the zone's offset is found from the offset
/// instead (`localtime_r`, which uses the zone as the process last loaded it: no look at the file,
/// the lock held only briefly), and checked: the answer is `mktime`'s. Times near a change (a gap,
/// an hour met twice) go to `mktime`, which decides them.
pub(crate) fn local_time_to_unix(year: i32, month: i32, day: i32, hour: i32, minute: i32, second: i32) -> Option<i64> {
    away_from_changes(year, month, day, hour, minute, second).or_else(|| mktime(year, month, day, hour, minute, second))
}

/// The one instant that local time names, where the zone's offset is the same for 26 hours either
/// side of it (longer than any change of offset lasts, so no other instant has that local time),
/// and the fields are a time of day that exists (else `None`).
fn away_from_changes(year: i32, month: i32, day: i32, hour: i32, minute: i32, second: i32) -> Option<i64> {
    if !(0..24).contains(&hour) || !(0..60).contains(&minute) || !(0..60).contains(&second) {
        return None; // normalised by mktime alone
    }
    let as_utc = days_from_civil(year, month, day) * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    let (first_guess, _) = local_fields(as_utc)?;
    let (offset, _) = local_fields(as_utc - first_guess)?;
    let instant = as_utc - offset;
    let (found, fields) = local_fields(instant)?;
    const AROUND: i64 = 26 * 3600;
    let steady =
        found == offset && local_fields(instant - AROUND)?.0 == offset && local_fields(instant + AROUND)?.0 == offset;
    (steady && fields == (year, month, day, hour, minute, second)).then_some(instant)
}

/// A local time: year, month (1–12), day, hour, minute, second.
type Fields = (i32, i32, i32, i32, i32, i32);

/// The local time zone's offset from UTC at `secs` (`tm_gmtoff`), and the local time there.
fn local_fields(secs: i64) -> Option<(i64, Fields)> {
    #[allow(clippy::useless_conversion, reason = "time_t is 32 bits on some targets")]
    let t = secs.try_into().ok()?;
    // SAFETY: an all-zero `tm` is a valid value (every field an integer, tm_zone a null pointer).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call; localtime_r writes only `tm`.
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        return None;
    }
    #[allow(clippy::useless_conversion, reason = "tm_gmtoff is 32 bits on some targets")]
    let offset = i64::from(tm.tm_gmtoff);
    Some((offset, (tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec)))
}

/// `mktime`, for what [`away_from_changes`] leaves.
fn mktime(year: i32, month: i32, day: i32, hour: i32, minute: i32, second: i32) -> Option<i64> {
    // SAFETY: an all-zero `tm` is a valid value (every field an integer, tm_zone a null pointer).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    tm.tm_isdst = -1; // let the time zone's rules say
    // SAFETY: `tm` is a valid, writable struct tm; mktime reads the process's time zone.
    let secs = unsafe { libc::mktime(&mut tm) };
    #[allow(clippy::useless_conversion, reason = "time_t is 32 bits on some targets")]
    (secs != -1).then_some(i64::from(secs))
}

#[cfg(test)]
mod tests {
    use super::{away_from_changes, mktime};
    use crate::sys::days_from_civil;

    #[test]
    fn a_time_away_from_any_change_of_offset_is_found_without_mktime() {
        // Mid-June, mid-day: no zone changes its offset within a day of it.
        let found = away_from_changes(2021, 6, 15, 12, 34, 56);
        assert!(found.is_some());
        assert_eq!(found, mktime(2021, 6, 15, 12, 34, 56));
        // Fields that are no time of day are left to mktime, which normalises them.
        assert_eq!(away_from_changes(2021, 2, 30, 0, 0, 0), None);
        assert_eq!(away_from_changes(2021, 6, 15, 24, 0, 0), None);
        assert_eq!(away_from_changes(2021, 6, 15, 23, 60, 0), None);
    }

    #[test]
    fn days_count_from_1970_through_leap_years_and_centuries() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2100, 3, 1) - days_from_civil(2100, 2, 28), 1); // 2100: no 29th
        assert_eq!(days_from_civil(2000, 3, 1) - days_from_civil(2000, 2, 28), 2); // 2000: a 29th
        assert_eq!(days_from_civil(2107, 12, 31), 50_402);
    }
}
