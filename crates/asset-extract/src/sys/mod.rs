//! The crate's one OS layer: everything that differs between Linux, Android, macOS, the BSDs and
//! Windows. The rest of the crate calls what this module exports and holds no `cfg` on a system
//! and no raw descriptor or handle.
//!
//! - [`Dir`]: an open directory, with every name resolved relative to it and never followed
//!   through a link (or a reparse point) in its last step: create, open, make, inspect, list,
//!   remove, rename, link, set a mode or a time.
//! - Positional reads and writes, locks, the stream spool's unnamed file, moving a pipe's bytes
//!   to a file inside the kernel, renaming a path without replacing or by swapping.
//! - What identifies a file and its version, the file mode creation mask, the local time zone.
//!
//! `unix.rs` holds the POSIX implementation (with what is not POSIX chosen there per system),
//! `windows.rs` the Windows one, whose differences its opening comment lists.
//! `scripts/check-ports` type-checks the crate for FreeBSD, macOS and Android;
//! `scripts/test-windows` builds it for Windows and runs its tests under wine.

use std::io;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

pub use imp::BorrowedPipe;
pub(crate) use imp::{
    Dir, Version, create_lock_file, file_id, local_time_to_unix, make_dir, open_archive, open_existing_lock, read_at,
    read_at_uninit, remove_link_or_file, rename_over_empty_dir, rename_paths, splice_to_file, sync_dir, umask_in,
    unnamed_file, write_all_at,
};

/// Whether extraction writes for Windows, which reads some names otherwise than they are stored
/// (see `windows_names`): there, those are refused always.
pub(crate) const WINDOWS_NAMES: bool = cfg!(windows);

/// What a name in a directory is, not following a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    /// A symlink, a Windows reparse point, a device, a FIFO or a socket.
    Other,
}

/// What [`Dir::status`] says of a name.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Status {
    pub(crate) kind: Kind,
    pub(crate) size: u64,
    /// Seconds and nanoseconds since the epoch.
    pub(crate) mtime: (i64, u32),
}

/// How [`rename_paths`] renames.
#[derive(Clone, Copy)]
pub(crate) enum Rename {
    /// Only if nothing is at the target (`AlreadyExists` otherwise).
    NoReplace,
    /// Swapping the two paths in one step.
    Exchange,
}

/// Whether `err` says the system or the file system cannot do what was asked (a rename that swaps,
/// a splice): the caller then does it another way.
pub(crate) fn unsupported(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::Unsupported || imp::unsupported_code(err)
}

/// Whether `err`, from [`Dir::open`] or [`Dir::open_dir`], says the name is there but is no
/// directory to enter: a file, or a link (never followed).
pub(crate) fn not_a_directory(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::NotADirectory || imp::not_a_directory_code(err)
}

/// Days from 1970-01-01 to `year-month-day` in the proleptic Gregorian calendar, the day of the
/// month counted on linearly past the month's end (as `mktime` normalises it).
pub(crate) fn days_from_civil(year: i32, month: i32, day: i32) -> i64 {
    let (y, m) = (i64::from(if month <= 2 { year - 1 } else { year }), i64::from(month));
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Seconds and nanoseconds since the epoch as a `SystemTime`, if representable.
pub(crate) fn unix_system_time((secs, nanos): (i64, u32)) -> Option<std::time::SystemTime> {
    let epoch = std::time::UNIX_EPOCH;
    if secs >= 0 {
        epoch.checked_add(std::time::Duration::new(secs as u64, nanos))
    } else {
        epoch
            .checked_sub(std::time::Duration::from_secs(secs.unsigned_abs()))?
            .checked_add(std::time::Duration::new(0, nanos))
    }
}
