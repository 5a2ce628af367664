//! The crate's one OS layer: every system call the crate makes beyond `std`'s (`pread` into
//! uninitialised memory; on trees `openat`, `mkdirat`, `unlinkat`, `renameat`, `renameat2`,
//! `linkat`, `fstatat`, `readdir`, `flock`) and the local-time conversion, each behind a safe
//! function. The modules that build, merge,
//! replace and remove trees call these and hold no `unsafe` of their own.
//!
//! Everything inside a tree is opened relative to a directory descriptor, never following a
//! symlink in the last step. What is not POSIX is chosen here, per system, so that a port touches
//! this file alone:
//! - `rename_paths` (rename without replacing, or swap two paths in one step) is the `renameat2`
//!   system call by number on Linux and Android (musl before 1.2.5 has no wrapper for it, and
//!   bionic's needs API level 30),
//!   `renamex_np` on macOS and iOS, and `ENOSYS` elsewhere, where the callers' fallbacks run
//!   (they already handle kernels and file systems without it);
//! - errno, cleared before `readdir`, lives behind `__errno_location` (glibc, musl),
//!   `__errno` (bionic, the other BSDs) or `__error` (macOS, FreeBSD).
//!
//! `scripts/check-ports` type-checks the crate for FreeBSD, macOS and Android.

use std::ffi::CStr;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// `Ok(())` for a call that returned 0, else the OS error it left.
/// Whether extraction writes for Windows, which reads some names otherwise than they are stored
/// (see `windows_names`): there, those are refused always.
pub(crate) const WINDOWS_NAMES: bool = cfg!(windows);

fn ok_or_errno(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

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

/// Reads up to `out.len()` bytes of `file` at `offset` into `out`, which may be uninitialised
/// (`pread`): the bytes read (0 at the end of the file); `Interrupted` is the caller's to retry.
pub(crate) fn read_at_uninit(file: &impl AsRawFd, out: &mut [MaybeUninit<u8>], offset: u64) -> io::Result<usize> {
    let offset = libc::off_t::try_from(offset).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: `out` is valid for writes of its length; pread writes at most that many bytes and
    // never reads them, so uninitialised memory is fine; `file` is open for the call.
    let n = unsafe { libc::pread(file.as_raw_fd(), out.as_mut_ptr().cast(), out.len(), offset) };
    if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
}

/// Creates the directory `name` in `dir` with `mode`.
pub(crate) fn mkdir_at(dir: RawFd, name: &CStr, mode: libc::mode_t) -> io::Result<()> {
    // SAFETY: `dir` is an open directory (or AT_FDCWD) and `name` NUL-terminated, outliving the call.
    ok_or_errno(unsafe { libc::mkdirat(dir, name.as_ptr(), mode) })
}

/// Removes the name `name` in `dir` (a directory with `AT_REMOVEDIR` in `flags`); a symlink is
/// removed itself, never what it points to.
pub(crate) fn unlink_at(dir: RawFd, name: &CStr, flags: libc::c_int) -> io::Result<()> {
    // SAFETY: `dir` is an open directory and `name` NUL-terminated, outliving the call.
    ok_or_errno(unsafe { libc::unlinkat(dir, name.as_ptr(), flags) })
}

/// Renames `from` in `from_dir` to `to` in `to_dir`, replacing (never following) what is there.
pub(crate) fn rename_at(from_dir: RawFd, from: &CStr, to_dir: RawFd, to: &CStr) -> io::Result<()> {
    // SAFETY: both descriptors are open directories (or AT_FDCWD) and both names NUL-terminated,
    // outliving the call.
    ok_or_errno(unsafe { libc::renameat(from_dir, from.as_ptr(), to_dir, to.as_ptr()) })
}

/// How [`rename_paths`] renames.
#[derive(Clone, Copy)]
pub(crate) enum Rename {
    /// Only if nothing is at the target (`EEXIST` otherwise): `RENAME_NOREPLACE`.
    NoReplace,
    /// Swapping the two paths in one step: `RENAME_EXCHANGE`.
    Exchange,
}

/// Renames the path `from` to `to` as `how` says, in one step. `ENOSYS` where the system has no
/// such call, `EINVAL` (or `ENOTSUP`) where the file system lacks it.
pub(crate) fn rename_paths(from: &CStr, to: &CStr, how: Rename) -> io::Result<()> {
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

/// Sets this thread's errno, for a call that reports failure only through it (`readdir`).
fn set_errno(code: libc::c_int) {
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

/// Makes `to` in `to_dir` a hard link to `from` in `from_dir` (not following a symlink at `from`).
pub(crate) fn link_at(from_dir: RawFd, from: &CStr, to_dir: RawFd, to: &CStr) -> io::Result<()> {
    // SAFETY: both descriptors are open directories and both names NUL-terminated, outliving the call.
    ok_or_errno(unsafe { libc::linkat(from_dir, from.as_ptr(), to_dir, to.as_ptr(), 0) })
}

/// Sets the modification time of `name` in `dir` to `secs` and `nanos` since the epoch, leaving
/// its access time, without following a symlink (`utimensat`).
pub(crate) fn set_mtime_at(dir: RawFd, name: &CStr, secs: i64, nanos: u32) -> io::Result<()> {
    let times = [
        libc::timespec { tv_sec: 0, tv_nsec: libc::UTIME_OMIT },
        // `as _`: libc names musl's time_t deprecated (a note on its width), not the type.
        libc::timespec { tv_sec: secs as _, tv_nsec: nanos as _ },
    ];
    // SAFETY: `dir` is an open directory, `name` NUL-terminated and `times` two timespecs, all
    // outliving the call.
    ok_or_errno(unsafe { libc::utimensat(dir, name.as_ptr(), times.as_ptr(), libc::AT_SYMLINK_NOFOLLOW) })
}

/// Sets the permission bits of `name` in `dir` (`fchmodat`; the caller's own tree holds no
/// symlinks).
pub(crate) fn chmod_at(dir: RawFd, name: &CStr, mode: u32) -> io::Result<()> {
    // SAFETY: `dir` is an open directory and `name` NUL-terminated, outliving the call.
    ok_or_errno(unsafe { libc::fchmodat(dir, name.as_ptr(), mode as libc::mode_t, 0) })
}

/// Moves up to `len` bytes from the pipe `from` to the end of the file `to` inside the kernel
/// (`splice`), never through this process's memory: how many (0 at the pipe's end). `EINVAL`
/// where either cannot splice (not a pipe, a file system without it); Linux and Android only.
pub(crate) fn splice_to_file(from: RawFd, to: RawFd, len: usize) -> io::Result<usize> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: both descriptors are open (the caller's pipe and our file); null offsets mean
        // each descriptor's own position, and no memory of ours is read or written.
        let n = unsafe { libc::splice(from, std::ptr::null_mut(), to, std::ptr::null_mut(), len, libc::SPLICE_F_MOVE) };
        if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (from, to, len);
        Err(io::Error::from_raw_os_error(libc::EINVAL))
    }
}

/// The status of `name` in `dir`, without following a symlink (`fstatat` with
/// `AT_SYMLINK_NOFOLLOW`).
pub(crate) fn stat_at(dir: RawFd, name: &CStr) -> io::Result<libc::stat> {
    // SAFETY: an all-zero `stat` is a valid value for fstatat to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `dir` is an open directory (or AT_FDCWD), `name` NUL-terminated and `st` writable,
    // all outliving the call.
    ok_or_errno(unsafe { libc::fstatat(dir, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) })?;
    Ok(st)
}

/// Locks `file` exclusively (`flock`): waiting for another holder, or with `wait` false failing
/// at once (`EWOULDBLOCK`).
pub(crate) fn lock_exclusive(file: &impl AsRawFd, wait: bool) -> io::Result<()> {
    let operation = if wait { libc::LOCK_EX } else { libc::LOCK_EX | libc::LOCK_NB };
    // SAFETY: `file` is an open descriptor for the duration of the call.
    ok_or_errno(unsafe { libc::flock(file.as_raw_fd(), operation) })
}

/// Calls `each(name, is_dir)` for every entry of the directory `fd` but `.` and `..`; entries
/// whose type the file system does not report are looked up without following links.
pub(crate) fn for_each_entry(fd: &OwnedFd, mut each: impl FnMut(&CStr, bool) -> io::Result<()>) -> io::Result<()> {
    // SAFETY: dup of a descriptor we hold open; the copy is handed to fdopendir below, which owns
    // it from then on (closedir closes it).
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
        set_errno(0);
        // SAFETY: `dir` is a live DIR* used by this thread only.
        let entry = unsafe { libc::readdir(dir) };
        if entry.is_null() {
            let errno = io::Error::last_os_error();
            return if errno.raw_os_error() == Some(0) { Ok(()) } else { Err(errno) };
        }
        // SAFETY: readdir returned a valid entry, whose d_name is NUL-terminated and stays valid
        // until the next readdir on `dir`, after `each` returns.
        let (name, kind) = unsafe { (CStr::from_ptr((*entry).d_name.as_ptr()), (*entry).d_type) };
        if name == c"." || name == c".." {
            continue;
        }
        let is_dir = match kind {
            libc::DT_DIR => true,
            libc::DT_UNKNOWN => stat_at(fd.as_raw_fd(), name)?.st_mode & libc::S_IFMT == libc::S_IFDIR,
            _ => false,
        };
        each(name, is_dir)?;
    })();
    // SAFETY: `dir` came from fdopendir and is closed exactly once.
    unsafe { libc::closedir(dir) };
    result
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

/// Days from 1970-01-01 to `year-month-day` in the proleptic Gregorian calendar, the day of the
/// month counted on linearly past the month's end (as `mktime` normalises it).
fn days_from_civil(year: i32, month: i32, day: i32) -> i64 {
    let (y, m) = (i64::from(if month <= 2 { year - 1 } else { year }), i64::from(month));
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
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
    use super::{away_from_changes, days_from_civil, mktime};

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
