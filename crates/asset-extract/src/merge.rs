//! Merge mode's last step: the verified files, staged in a temporary directory inside the
//! destination, are renamed into place one by one. Every directory of the destination is opened
//! relative to its parent without following a symlink, so nothing outside the destination is ever
//! reached. Conflicts (a path the archive needs as a directory that is something else, a file
//! where a directory stands) are all found before the first file moves.

#![forbid(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;

use crate::Error;
use crate::archive::Entry;
use crate::destination::c_path;
use crate::names::Kind;
use crate::sys;

fn c_name(name: &str) -> CString {
    CString::new(name).expect("entry names hold no NUL (checked when parsed)")
}

/// What is at `name` in `dir`, without following a symlink: `None` if nothing.
fn kind_at(dir: RawFd, name: &str) -> io::Result<Option<libc::mode_t>> {
    match crate::sys::stat_at(dir, &c_name(name)) {
        Ok(st) => Ok(Some(st.st_mode & libc::S_IFMT)),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

fn open_dir(dir: RawFd, name: &str) -> io::Result<OwnedFd> {
    sys::open_at(dir, &c_name(name), libc::O_RDONLY | libc::O_DIRECTORY, 0)
}

/// The destination's directory for `path`'s parent, walked from `root` one component at a time
/// (never through a symlink), made where missing when `create` is set. `None` when it does not
/// exist and `create` is not set.
fn parent_dir(root: &OwnedFd, dest: &Path, path: &str, create: bool) -> Result<Option<OwnedFd>, Error> {
    let fail = |what: &'static str, e: io::Error| Error::io(what, &dest.join(path), e);
    let mut dir = open_dir(root.as_raw_fd(), ".").map_err(|e| fail("opening", e))?;
    let Some((parents, _)) = path.rsplit_once('/') else { return Ok(Some(dir)) };
    for component in parents.split('/') {
        match kind_at(dir.as_raw_fd(), component).map_err(|e| fail("inspecting", e))? {
            Some(libc::S_IFDIR) => {}
            Some(_) => return Err(conflict(dest, path, component, "exists but is not a directory")),
            None if create => match crate::sys::mkdir_at(dir.as_raw_fd(), &c_name(component), 0o755) {
                Err(e) if e.raw_os_error() != Some(libc::EEXIST) => return Err(fail("creating", e)),
                _ => {}
            },
            None => return Ok(None),
        }
        dir = open_dir(dir.as_raw_fd(), component).map_err(|e| fail("opening", e))?;
    }
    Ok(Some(dir))
}

fn conflict(dest: &Path, path: &str, component: &str, reason: &str) -> Error {
    let upto = path.find(component).map_or(path, |i| &path[..i + component.len()]);
    Error::Destination { path: dest.join(upto).display().to_string(), reason: reason.to_string() }
}

/// Refuses the merge if any entry's path meets something it cannot replace; touches nothing.
fn check(root: &OwnedFd, dest: &Path, entries: &[Entry]) -> Result<(), Error> {
    for e in entries {
        let Some(dir) = parent_dir(root, dest, &e.path, false)? else { continue };
        let name = e.path.rsplit_once('/').map_or(e.path.as_str(), |(_, n)| n);
        let found = kind_at(dir.as_raw_fd(), name).map_err(|err| Error::io("inspecting", &dest.join(&e.path), err))?;
        match (e.kind, found) {
            (_, None) | (Kind::Directory, Some(libc::S_IFDIR)) => {}
            (Kind::Directory, Some(_)) => return Err(conflict(dest, &e.path, name, "exists but is not a directory")),
            (Kind::File, Some(libc::S_IFDIR)) => return Err(conflict(dest, &e.path, name, "is a directory")),
            // A file or a symlink of that name is replaced by the rename (a link is never followed).
            (Kind::File, Some(_)) => {}
        }
    }
    Ok(())
}

/// Removes the incremental manifest of an earlier extraction into `dest`, before anything is
/// merged in: the files it describes are about to change, and the next incremental run would
/// otherwise keep the merged files as the ones it wrote (issue 29, 3). Without it, that run
/// writes every file afresh.
fn forget_manifest(root: &OwnedFd, dest: &Path) -> Result<(), Error> {
    let name = c_name(crate::names::MANIFEST_NAME);
    // That name only: a symlink itself, never what it points to.
    match crate::sys::unlink_at(root.as_raw_fd(), &name, 0) {
        Ok(()) => Ok(()),
        // None there, or a directory of that name (which no run reads as a manifest).
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::EISDIR)) => Ok(()),
        Err(e) => Err(Error::io("removing the incremental manifest", &dest.join(crate::names::MANIFEST_NAME), e)),
    }
}

/// Moves every staged entry of `entries` from `staged` (a directory inside `dest`) into `dest`,
/// then (with `restore_mtime`) gives each directory the archive has an entry for the time it
/// records, as a plain extraction does, whether the merge made it or found it. Returns the files
/// moved. On an error after the first move, the files already moved stay (they are complete and
/// verified) and the error says how many.
pub(crate) fn move_into(staged: &Path, dest: &Path, entries: &[Entry], restore_mtime: bool) -> Result<u64, Error> {
    let root = sys::open_at(libc::AT_FDCWD, &c_path(dest)?, libc::O_RDONLY | libc::O_DIRECTORY, 0)
        .map_err(|e| Error::io("opening", dest, e))?;
    let staged_root = sys::open_at(libc::AT_FDCWD, &c_path(staged)?, libc::O_RDONLY | libc::O_DIRECTORY, 0)
        .map_err(|e| Error::io("opening", staged, e))?;
    check(&root, dest, entries)?;
    forget_manifest(&root, dest)?;
    let mut moved = 0u64;
    let partial = |moved: u64, e: Error| match moved {
        0 => e,
        n => Error::Destination {
            path: dest.display().to_string(),
            reason: format!("{e}; {n} verified files were already merged in and stay"),
        },
    };
    for e in entries {
        let dir = match parent_dir(&root, dest, &e.path, true) {
            Ok(dir) => dir.expect("made when missing"),
            Err(err) => return Err(partial(moved, err)),
        };
        let name = e.path.rsplit_once('/').map_or(e.path.as_str(), |(_, n)| n);
        let c = c_name(name);
        let result = match e.kind {
            Kind::Directory => match crate::sys::mkdir_at(dir.as_raw_fd(), &c, 0o755) {
                Err(err) if err.raw_os_error() == Some(libc::EEXIST) => Ok(()),
                other => other,
            },
            Kind::File => {
                let from = c_name(&e.path);
                // The source resolves inside our own staging tree; the target is one name in a
                // directory reached without symlinks, and rename replaces (never follows) whatever
                // is there.
                crate::sys::rename_at(staged_root.as_raw_fd(), &from, dir.as_raw_fd(), &c).map(|()| moved += 1)
            }
        };
        if let Err(err) = result {
            return Err(partial(moved, Error::io("merging", &dest.join(&e.path), err)));
        }
    }
    // Last, once nothing more is moved into them (a move sets a directory's time).
    for e in entries.iter().filter(|e| restore_mtime && e.kind == Kind::Directory) {
        let Some(time) = crate::write::system_time(e.mtime) else { continue };
        let set = parent_dir(&root, dest, &e.path, false)?
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
            .and_then(|dir| open_dir(dir.as_raw_fd(), e.path.rsplit_once('/').map_or(e.path.as_str(), |(_, n)| n)))
            .and_then(|fd| std::fs::File::from(fd).set_times(std::fs::FileTimes::new().set_modified(time)));
        set.map_err(|err| partial(moved, Error::io("setting the time of", &dest.join(&e.path), err)))?;
    }
    Ok(moved)
}
