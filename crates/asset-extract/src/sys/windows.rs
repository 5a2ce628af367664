//! The Windows implementation of the OS layer (see `mod.rs`).
//!
//! A [`Dir`] is a directory's path and a handle held open on it; names are resolved from the
//! path, and every step that opens, creates or inspects a name refuses a reparse point (a
//! symlink, a junction, a mount point) there instead of following it: files and directories are
//! opened with `FILE_FLAG_OPEN_REPARSE_POINT` and checked, new files are created with
//! `CREATE_NEW` (which fails on anything there, a link included). Where Windows differs from the
//! POSIX layer:
//! - **Walks.** Windows has no `openat`: a directory swapped for a junction between the check of
//!   a name and its use is not caught as the `*at` calls catch it on Unix. The trees written
//!   into are our own staging directories, which only this extraction writes.
//! - **Replace.** Windows cannot swap two paths in one step (`RENAME_EXCHANGE`): a destination
//!   replaced as a whole is renamed aside and the new tree renamed in, two steps, with the old
//!   tree put back if the second fails and by the next run's sweep if the process dies between
//!   them. A rename without replacing is `MoveFileExW` without `MOVEFILE_REPLACE_EXISTING`.
//! - **Modes.** Windows has no permission bits: an entry's mode is not applied (a read-only
//!   attribute would stop the tree from being replaced or removed later).
//! - **Locks** are `LockFileEx` (through `File::lock`), held until the handle closes or the
//!   process dies, as `flock` is.
//! - **Positional reads and writes** are `ReadFile` and `WriteFile` at an offset, which also
//!   move the handle's position (nothing in the crate reads a file by its position).
//! - **The stream spool** is a file created with `FILE_FLAG_DELETE_ON_CLOSE`: gone when its
//!   handle closes, whatever happens. There is no `splice`: a pipe is read.
//! - **Local time** is `TzSpecificLocalTimeToSystemTime`, with the zone's current rules.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io;
use std::mem::MaybeUninit;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};

use windows_sys::Win32::Foundation::{ERROR_DIRECTORY, FILETIME, SYSTEMTIME};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_REPARSE_POINT, FILE_ATTRIBUTE_TEMPORARY,
    FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_DELETE_ON_CLOSE, FILE_FLAG_OPEN_REPARSE_POINT, FILE_READ_ATTRIBUTES,
    FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, FILE_WRITE_ATTRIBUTES, GetFileInformationByHandle,
    MoveFileExW,
};
use windows_sys::Win32::System::Time::{SystemTimeToFileTime, TzSpecificLocalTimeToSystemTime};

use super::{Kind, Rename, Status};

/// A pipe (or any stream) the caller lends to [`extract_pipe`](crate::extract_pipe): a descriptor
/// on Unix, a handle on Windows.
pub type BorrowedPipe<'a> = std::os::windows::io::BorrowedHandle<'a>;

/// Every other opener may read, write, rename and delete: as POSIX files behave.
const SHARE_ALL: u32 = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

/// 100-nanosecond intervals from 1601-01-01 (a `FILETIME`'s epoch) to 1970-01-01.
const FILETIME_UNIX_EPOCH: i64 = 116_444_736_000_000_000;

pub(super) fn unsupported_code(_err: &io::Error) -> bool {
    false
}

pub(super) fn not_a_directory_code(err: &io::Error) -> bool {
    err.raw_os_error() == Some(ERROR_DIRECTORY as i32)
}

fn is_reparse_point(meta: &std::fs::Metadata) -> bool {
    meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0
}

fn refused_link() -> io::Error {
    io::Error::new(io::ErrorKind::NotADirectory, "a link or reparse point, which is not followed")
}

/// `name` (one component, or several joined by `/`) under `dir`.
fn resolve(dir: &Path, name: &OsStr) -> PathBuf {
    let mut path = dir.to_path_buf();
    match name.to_str() {
        Some(name) => name.split('/').for_each(|part| path.push(part)),
        None => path.push(name),
    }
    path
}

/// Opens `path` without following a reparse point there, as a directory (`FILE_FLAG_BACKUP_SEMANTICS`)
/// or not, with `access` rights.
fn open_no_follow(path: &Path, access: u32, directory: bool) -> io::Result<File> {
    let flags = FILE_FLAG_OPEN_REPARSE_POINT | if directory { FILE_FLAG_BACKUP_SEMANTICS } else { 0 };
    OpenOptions::new().access_mode(access).share_mode(SHARE_ALL).custom_flags(flags).open(path)
}

/// An open directory: every name given to its methods (one component, or several joined by `/`)
/// is resolved under it, and a reparse point in the last step is never followed.
pub(crate) struct Dir {
    path: PathBuf,
    /// Held open for as long as the directory is used.
    _handle: File,
}

impl Dir {
    /// Opens the directory at `path`; a reparse point there is not followed (`not_a_directory`).
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        let handle = open_no_follow(path, FILE_READ_ATTRIBUTES, true)?;
        let meta = handle.metadata()?;
        if is_reparse_point(&meta) {
            return Err(refused_link());
        }
        if !meta.is_dir() {
            return Err(io::Error::from_raw_os_error(ERROR_DIRECTORY as i32));
        }
        Ok(Dir { path: path.to_path_buf(), _handle: handle })
    }

    /// Another handle on this directory.
    pub(crate) fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir { path: self.path.clone(), _handle: self._handle.try_clone()? })
    }

    fn resolve(&self, name: &OsStr) -> PathBuf {
        resolve(&self.path, name)
    }

    /// Opens the directory `name` in this one.
    pub(crate) fn open_dir(&self, name: impl AsRef<OsStr>) -> io::Result<Dir> {
        Dir::open(&self.resolve(name.as_ref()))
    }

    /// Creates `name` as a new regular file, open for writing; `AlreadyExists` if anything is
    /// there, a link included. Windows has no permission bits: `mode` is not applied.
    pub(crate) fn create_file(&self, name: impl AsRef<OsStr>, _mode: u32) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .share_mode(SHARE_ALL)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(self.resolve(name.as_ref()))
    }

    /// Opens the file `name` for reading; a reparse point there is refused.
    pub(crate) fn open_file(&self, name: impl AsRef<OsStr>) -> io::Result<File> {
        let file = OpenOptions::new()
            .read(true)
            .share_mode(SHARE_ALL)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(self.resolve(name.as_ref()))?;
        if is_reparse_point(&file.metadata()?) {
            return Err(refused_link());
        }
        Ok(file)
    }

    /// Makes the directory `name` (`AlreadyExists` if anything is there, a link included).
    pub(crate) fn make_dir(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        std::fs::create_dir(self.resolve(name.as_ref()))
    }

    /// What `name` is, not following a reparse point.
    pub(crate) fn status(&self, name: impl AsRef<OsStr>) -> io::Result<Status> {
        let meta = std::fs::symlink_metadata(self.resolve(name.as_ref()))?;
        let kind = if is_reparse_point(&meta) {
            Kind::Other
        } else if meta.is_dir() {
            Kind::Dir
        } else if meta.is_file() {
            Kind::File
        } else {
            Kind::Other
        };
        let ticks = meta.last_write_time() as i64 - FILETIME_UNIX_EPOCH;
        let mtime = (ticks.div_euclid(10_000_000), (ticks.rem_euclid(10_000_000) * 100) as u32);
        Ok(Status { kind, size: meta.len(), mtime })
    }

    /// Removes the name `name`, anything but a directory: a link is removed itself, never what
    /// it points to (a link to a directory too).
    pub(crate) fn remove_file(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        remove_link_or_file(&self.resolve(name.as_ref()))
    }

    /// Removes the empty directory `name` (a link to a directory is removed itself).
    pub(crate) fn remove_dir(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        std::fs::remove_dir(self.resolve(name.as_ref()))
    }

    /// Renames `from` in this directory to `to` in `to_dir`, replacing (never following) a file
    /// or a link there.
    pub(crate) fn rename(&self, from: impl AsRef<OsStr>, to_dir: &Dir, to: impl AsRef<OsStr>) -> io::Result<()> {
        std::fs::rename(self.resolve(from.as_ref()), to_dir.resolve(to.as_ref()))
    }

    /// Makes `to` in `to_dir` a hard link to `from` in this directory.
    pub(crate) fn hard_link(&self, from: impl AsRef<OsStr>, to_dir: &Dir, to: impl AsRef<OsStr>) -> io::Result<()> {
        std::fs::hard_link(self.resolve(from.as_ref()), to_dir.resolve(to.as_ref()))
    }

    /// Windows has no permission bits: nothing to set.
    pub(crate) fn set_mode(&self, _name: impl AsRef<OsStr>, _mode: u32) -> io::Result<()> {
        Ok(())
    }

    /// Sets the modification time of `name` to `secs` and `nanos` since the epoch, not following
    /// a reparse point.
    pub(crate) fn set_mtime(&self, name: impl AsRef<OsStr>, secs: i64, nanos: u32) -> io::Result<()> {
        let path = self.resolve(name.as_ref());
        let is_dir = std::fs::symlink_metadata(&path)?.is_dir();
        let file = open_no_follow(&path, FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES, is_dir)?;
        let time = super::unix_system_time((secs, nanos))
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a time Windows cannot record"))?;
        file.set_times(std::fs::FileTimes::new().set_modified(time))
    }

    /// Sets this directory's own modification time.
    pub(crate) fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        let dir = open_no_follow(&self.path, FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES, true)?;
        dir.set_times(std::fs::FileTimes::new().set_modified(time))
    }

    /// Calls `each(name, is_dir)` for every entry; a link to a directory is no directory.
    pub(crate) fn for_each_entry(&self, mut each: impl FnMut(&OsStr, bool) -> io::Result<()>) -> io::Result<()> {
        for entry in std::fs::read_dir(&self.path)? {
            let entry = entry?;
            let is_dir = entry.file_type()?.is_dir(); // false for a link to a directory
            each(&entry.file_name(), is_dir)?;
        }
        Ok(())
    }
}

/// Removes `path`, a file or a link (to a file or a directory, never followed).
pub(crate) fn remove_link_or_file(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(err) => match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_attributes() & FILE_ATTRIBUTE_DIRECTORY != 0 => {
                if is_reparse_point(&meta) {
                    std::fs::remove_dir(path) // a directory link: removed itself
                } else {
                    Err(io::Error::new(io::ErrorKind::IsADirectory, err))
                }
            }
            _ => Err(err),
        },
    }
}

/// Makes what `dir` holds durable: `FlushFileBuffers` on the directory, which needs it open for
/// writing.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    open_no_follow(dir, windows_sys::Win32::Foundation::GENERIC_WRITE, true)?.sync_all()
}

/// Makes the directory `path`.
pub(crate) fn make_dir(path: &Path) -> io::Result<()> {
    std::fs::create_dir(path)
}

/// Creates the lock file `path`; `AlreadyExists` if anything is there, a link included.
pub(crate) fn create_lock_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .share_mode(SHARE_ALL)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)
}

/// Opens the existing lock file `path` to take its lock, never through a link.
pub(crate) fn open_existing_lock(path: &Path) -> io::Result<File> {
    let file =
        OpenOptions::new().write(true).share_mode(SHARE_ALL).custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path)?;
    if is_reparse_point(&file.metadata()?) {
        return Err(refused_link());
    }
    Ok(file)
}

/// Opens the archive at `path` for reading, letting others read, write, rename and delete it
/// meanwhile (as on Unix: a change is caught by the version check, never a sharing violation).
pub(crate) fn open_archive(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).share_mode(SHARE_ALL).open(path)
}

/// What identifies a file's version: its size, and its modification and creation times
/// (Windows keeps no change time that `std` reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Version {
    len: u64,
    written: u64,
    created: u64,
}

impl Version {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Version {
        Version { len: meta.len(), written: meta.last_write_time(), created: meta.creation_time() }
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }
}

/// Which file `path` is, following links: its volume's serial number and its file index.
pub(crate) fn file_id(path: &Path) -> io::Result<(u64, u64)> {
    let file = OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .share_mode(SHARE_ALL)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    // SAFETY: an all-zero BY_HANDLE_FILE_INFORMATION (integers and FILETIMEs) is a valid value
    // for the call to overwrite.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is open for the call and `info` writable.
    if unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let index = u64::from(info.nFileIndexHigh) << 32 | u64::from(info.nFileIndexLow);
    Ok((u64::from(info.dwVolumeSerialNumber), index))
}

/// Windows has no file mode creation mask.
pub(crate) fn umask_in(_dir: &Path) -> Option<u32> {
    Some(0)
}

/// Reads up to `out.len()` bytes of `file` at `offset`.
pub(crate) fn read_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<usize> {
    file.seek_read(out, offset)
}

/// Reads up to `out.len()` bytes of `file` at `offset` into `out`, which may be uninitialised:
/// cleared first, then read.
pub(crate) fn read_at_uninit(file: &File, out: &mut [MaybeUninit<u8>], offset: u64) -> io::Result<usize> {
    for byte in out.iter_mut() {
        byte.write(0);
    }
    // SAFETY: every byte of `out` was just initialised, and `[MaybeUninit<u8>]` has the layout of
    // `[u8]`.
    let out = unsafe { &mut *(std::ptr::from_mut::<[MaybeUninit<u8>]>(out) as *mut [u8]) };
    file.seek_read(out, offset)
}

/// Writes all of `bytes` into `file` at `offset`.
pub(crate) fn write_all_at(file: &File, mut bytes: &[u8], mut offset: u64) -> io::Result<()> {
    while !bytes.is_empty() {
        match file.seek_write(bytes, offset) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                bytes = &bytes[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn wide(path: &Path) -> Vec<u16> {
    path.as_os_str().encode_wide().chain(std::iter::once(0)).collect()
}

/// Renames the directory `from` to `to`, where an empty directory may stand: Windows cannot
/// rename onto a directory, so the empty one is removed first (which fails if it was filled
/// meanwhile: `DirectoryNotEmpty`), then `from` is renamed without replacing (`AlreadyExists` if
/// something took the place in between). `NotADirectory` if it became something else.
pub(crate) fn rename_over_empty_dir(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(to) {
        Ok(meta) if meta.is_dir() && !is_reparse_point(&meta) => std::fs::remove_dir(to)?,
        Ok(_) => return Err(io::Error::from(io::ErrorKind::NotADirectory)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    rename_paths(from, to, Rename::NoReplace)
}

/// Renames the path `from` to `to` as `how` says, in one step: without replacing
/// (`MoveFileExW` without `MOVEFILE_REPLACE_EXISTING`); swapping is `Unsupported`.
pub(crate) fn rename_paths(from: &Path, to: &Path, how: Rename) -> io::Result<()> {
    match how {
        Rename::NoReplace => {
            let (from, to) = (wide(from), wide(to));
            // SAFETY: both are NUL-terminated wide strings outliving the call.
            if unsafe { MoveFileExW(from.as_ptr(), to.as_ptr(), 0) } == 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        }
        Rename::Exchange => Err(io::Error::new(io::ErrorKind::Unsupported, "Windows cannot swap two paths")),
    }
}

/// Windows has no `splice`: `Unsupported`, and the pipe is read.
pub(crate) fn splice_to_file(_from: BorrowedPipe<'_>, _to: &File, _offset: u64, _len: usize) -> io::Result<usize> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "no splice on Windows"))
}

/// A new file in `dir` for reading and writing, deleted when its handle closes, however the
/// process ends (`FILE_FLAG_DELETE_ON_CLOSE`).
pub(crate) fn unnamed_file(dir: &Path) -> io::Result<File> {
    for attempt in 0..100u32 {
        let path = dir.join(format!(".bufkit-stream-{}-{attempt}", std::process::id()));
        let opened = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .share_mode(SHARE_ALL)
            .custom_flags(FILE_FLAG_DELETE_ON_CLOSE)
            .attributes(FILE_ATTRIBUTE_TEMPORARY)
            .open(&path);
        match opened {
            Ok(file) => return Ok(file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no name free for a spool"))
}

/// A broken-down local time (as a DOS timestamp records one), as seconds since the epoch: fields
/// past their range carried over (as `mktime` normalises them), then read in the local time
/// zone by its rules for that year. `None` if it cannot be represented.
pub(crate) fn local_time_to_unix(year: i32, month: i32, day: i32, hour: i32, minute: i32, second: i32) -> Option<i64> {
    let as_utc = super::days_from_civil(year, month, day) * 86_400
        + i64::from(hour) * 3600
        + i64::from(minute) * 60
        + i64::from(second);
    let (days, secs) = (as_utc.div_euclid(86_400), as_utc.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let local = SYSTEMTIME {
        wYear: u16::try_from(y).ok()?,
        wMonth: m as u16,
        wDayOfWeek: 0,
        wDay: d as u16,
        wHour: (secs / 3600) as u16,
        wMinute: (secs / 60 % 60) as u16,
        wSecond: (secs % 60) as u16,
        wMilliseconds: 0,
    };
    // SAFETY: an all-zero SYSTEMTIME is a valid value for the call to overwrite.
    let mut utc: SYSTEMTIME = unsafe { std::mem::zeroed() };
    // SAFETY: a null zone means the current one; both SYSTEMTIMEs are valid for the call.
    if unsafe { TzSpecificLocalTimeToSystemTime(std::ptr::null(), &local, &mut utc) } == 0 {
        return None;
    }
    let mut filetime = FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
    // SAFETY: both pointers are valid for the call.
    if unsafe { SystemTimeToFileTime(&utc, &mut filetime) } == 0 {
        return None;
    }
    let ticks = (i64::from(filetime.dwHighDateTime) << 32 | i64::from(filetime.dwLowDateTime)) - FILETIME_UNIX_EPOCH;
    Some(ticks.div_euclid(10_000_000))
}

/// The civil date (year, month 1–12, day) `days` after 1970-01-01: the inverse of
/// [`days_from_civil`](super::days_from_civil).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;
    use crate::sys::days_from_civil;

    #[test]
    fn days_and_dates_convert_both_ways() {
        for (y, m, d) in [(1970, 1, 1), (1969, 12, 31), (2000, 2, 29), (2100, 3, 1), (2107, 12, 31), (1980, 1, 1)] {
            assert_eq!(civil_from_days(days_from_civil(y, m, d)), (i64::from(y), m as u32, d as u32));
        }
    }
}
