//! What an extraction may do to what is already at its destination: the one place these rules
//! live. They are checked before anything is written, and again at the moment the staged tree is
//! put in place (a change in between is refused, never overwritten). The rules are on [`Mode`].

#![forbid(unsafe_code)]

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::Error;
use crate::sys;

/// What to do with a destination that already exists.
///
/// | mode | destination absent | empty directory | non-empty directory | anything else |
/// |---|---|---|---|---|
/// | [`Mode::Create`] (default) | created | filled | refused | refused |
/// | [`Mode::Replace`] | created | replaced | replaced as a whole, atomically | refused |
/// | [`Mode::Merge`] | created | filled | files added, existing ones of the same name replaced | refused |
///
/// "Anything else" is a file, a symlink (never followed, even to a directory: name the directory
/// itself), a device. Replace also refuses directories whose loss would be a disaster: `/`, a
/// filesystem root (a mount point), `.` or `..` in any spelling, the current directory, the home
/// directory, and any directory holding one of those.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// The destination must not exist, or be an empty directory: nothing is ever replaced.
    #[default]
    Create,
    /// An existing directory is replaced as a whole, atomically, once every entry has verified
    /// (protected directories are refused).
    Replace,
    /// The archive's files are added into an existing directory, as `unzip` does: each file is
    /// written and verified under a temporary name inside the destination, then renamed over any
    /// file of the same name. Symlinks in the destination are never followed; a path the archive
    /// needs as a directory that exists as anything else is refused before anything moves.
    Merge,
}

/// What the destination was found to be; decides how the staged tree is put in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// Nothing there: the staged tree is renamed in, refusing anything that appeared meanwhile.
    Nothing,
    /// An empty directory: the staged tree takes its place (the kernel refuses if it was filled).
    EmptyDirectory,
    /// A directory to replace as a whole (replace) or to add files into (merge).
    Directory,
}

fn refuse(dest: &Path, reason: impl Into<String>) -> Error {
    Error::Destination { path: dest.display().to_string(), reason: reason.into() }
}

/// Checks `dest` against `mode`'s rules; says what is there.
pub(crate) fn inspect(dest: &Path, mode: Mode) -> Result<Found, Error> {
    if dest.as_os_str().is_empty() {
        return Err(refuse(dest, "is empty"));
    }
    if let Some(reason) = dot_name(dest) {
        return Err(refuse(dest, reason));
    }
    let meta = match fs::symlink_metadata(dest) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Nothing),
        Err(e) => return Err(Error::io("inspecting", dest, e)),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err(refuse(dest, "is a symbolic link, which is never followed: name the directory itself"));
    }
    if !kind.is_dir() {
        return Err(refuse(dest, "exists and is not a directory"));
    }
    let empty = || Ok::<_, Error>(fs::read_dir(dest).map_err(|e| Error::io("reading", dest, e))?.next().is_none());
    match mode {
        Mode::Create if empty()? => Ok(Found::EmptyDirectory),
        Mode::Create => Err(refuse(dest, "exists and is not empty (replace or merge it explicitly)")),
        Mode::Replace => {
            if let Some(reason) = protected(dest)? {
                return Err(refuse(dest, reason));
            }
            // Empty or not, it is swapped out whole: what it held does not matter, and a run
            // replacing it at the same moment may have emptied the very directory just read
            // (issue 29, 6), which is then not the destination any more.
            Ok(Found::Directory)
        }
        Mode::Merge => Ok(if empty()? { Found::EmptyDirectory } else { Found::Directory }),
    }
}

/// `.` or `..` as the last component, whatever the slashes around it: such a name is never a
/// directory one means to create or replace.
fn dot_name(dest: &Path) -> Option<&'static str> {
    let separator = |b: &u8| b.is_ascii() && std::path::is_separator(char::from(*b));
    let bytes = dest.as_os_str().as_encoded_bytes();
    let end = bytes.iter().rposition(|b| !separator(b)).map_or(0, |i| i + 1);
    let trimmed = &bytes[..end];
    if trimmed.is_empty() {
        return Some("is the root directory");
    }
    let last = trimmed.rsplit(separator).next().unwrap_or(trimmed);
    (last == b"." || last == b"..").then_some("names `.` or `..`: say which directory you mean")
}

/// Why replacing the directory `dest` would be a disaster, if it would.
fn protected(dest: &Path) -> Result<Option<&'static str>, Error> {
    let canonical = fs::canonicalize(dest).map_err(|e| Error::io("resolving", dest, e))?;
    if canonical.parent().is_none() {
        return Ok(Some("is the root directory"));
    }
    if is_mount_point(&canonical) {
        return Ok(Some("is the root of a filesystem (a mount point)"));
    }
    let holds = |other: Option<PathBuf>| {
        other.and_then(|p| fs::canonicalize(p).ok()).is_some_and(|p| p.starts_with(&canonical))
    };
    if holds(std::env::current_dir().ok()) {
        return Ok(Some("is the current directory or holds it"));
    }
    if holds(std::env::var_os("HOME").map(PathBuf::from)) {
        return Ok(Some("is the home directory or holds it"));
    }
    Ok(None)
}

/// Whether `dir` (canonical) is the root of a filesystem: another device than its parent's, or
/// its own parent.
fn is_mount_point(dir: &Path) -> bool {
    let (Ok((dev, ino)), Some(Ok((up_dev, up_ino)))) = (sys::file_id(dir), dir.parent().map(sys::file_id)) else {
        return false;
    };
    dev != up_dev || ino == up_ino
}

/// Puts the staged tree at `dest` as `found` allows: refuses, rather than overwrites, a
/// destination that changed since it was inspected. `Found::Directory` is not handled here (see
/// the staging commit, which moves it aside first).
pub(crate) fn rename_into_place(staged: &Path, dest: &Path, found: Found) -> Result<(), Error> {
    match found {
        Found::Nothing => {
            // Fails instead of replacing anything at `dest`.
            match sys::rename_paths(staged, dest, sys::Rename::NoReplace) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    Err(refuse(dest, "appeared while the archive was extracted; left as it is"))
                }
                Err(e) => Err(Error::io("moving into place", dest, e)),
            }
        }
        // rename(2) replaces an empty directory only: one filled meanwhile makes it fail.
        Found::EmptyDirectory => sys::rename_over_empty_dir(staged, dest).map_err(|e| match e.kind() {
            io::ErrorKind::DirectoryNotEmpty | io::ErrorKind::AlreadyExists => {
                refuse(dest, "was filled while the archive was extracted; left as it is")
            }
            io::ErrorKind::NotADirectory => {
                refuse(dest, "was replaced by a file while the archive was extracted; left as it is")
            }
            _ => Error::io("moving into place", dest, e),
        }),
        Found::Directory => unreachable!("a directory to replace is moved aside by the staging commit"),
    }
}

/// Checks, at commit time, that a directory to replace is still a directory (not swapped for a
/// symlink or a file since it was inspected).
pub(crate) fn still_a_directory(dest: &Path) -> Result<(), Error> {
    match fs::symlink_metadata(dest) {
        Ok(meta) if meta.file_type().is_dir() => Ok(()),
        Ok(_) => Err(refuse(dest, "stopped being a directory while the archive was extracted; left as it is")),
        Err(e) => Err(Error::io("inspecting", dest, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::dot_name;
    use std::path::Path;

    #[test]
    fn dot_names_are_recognised_in_any_spelling() {
        for name in [".", "./", "..", "../", "a/..", "a/../", "a/.", "a/.//", "/", "///"] {
            assert!(dot_name(Path::new(name)).is_some(), "{name:?}");
        }
        for name in ["a", "a/", "./a", "../a", ".a", "..a", "a/.b"] {
            assert!(dot_name(Path::new(name)).is_none(), "{name:?}");
        }
    }
}
