//! Merge mode's last step: the verified files, staged in a temporary directory inside the
//! destination, are renamed into place one by one. Every directory of the destination is opened
//! relative to its parent without following a symlink, so nothing outside the destination is ever
//! reached. Conflicts (a path the archive needs as a directory that is something else, a file
//! where a directory stands) are all found before the first file moves.

#![forbid(unsafe_code)]

use std::io;
use std::path::Path;

use crate::Error;
use crate::read::entry::Entry;
use crate::read::names::Kind;
use crate::sys::{self, Dir};

/// What is at `name` in `dir`, without following a symlink: `None` if nothing.
fn kind_at(dir: &Dir, name: &str) -> io::Result<Option<sys::Kind>> {
    match dir.status(name) {
        Ok(status) => Ok(Some(status.kind)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The destination's directory for `path`'s parent, walked from `root` one component at a time
/// (never through a symlink), made where missing when `create` is set. `None` when it does not
/// exist and `create` is not set.
fn parent_dir(root: &Dir, dest: &Path, path: &str, create: bool) -> Result<Option<Dir>, Error> {
    let fail = |what: &'static str, e: io::Error| Error::io(what, &dest.join(path), e);
    let mut dir = root.open_dir(".").map_err(|e| fail("opening", e))?;
    let Some((parents, _)) = path.rsplit_once('/') else { return Ok(Some(dir)) };
    for component in parents.split('/') {
        match kind_at(&dir, component).map_err(|e| fail("inspecting", e))? {
            Some(sys::Kind::Dir) => {}
            Some(_) => return Err(conflict(dest, path, component, "exists but is not a directory")),
            None if create => match dir.make_dir(component) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(fail("creating", e)),
                _ => {}
            },
            None => return Ok(None),
        }
        dir = dir.open_dir(component).map_err(|e| fail("opening", e))?;
    }
    Ok(Some(dir))
}

fn conflict(dest: &Path, path: &str, component: &str, reason: &str) -> Error {
    let upto = path.find(component).map_or(path, |i| &path[..i + component.len()]);
    Error::Destination { path: dest.join(upto).display().to_string(), reason: reason.to_string() }
}

/// Refuses the merge if any entry's path meets something it cannot replace; touches nothing.
fn check(root: &Dir, dest: &Path, entries: &[Entry]) -> Result<(), Error> {
    for e in entries {
        let Some(dir) = parent_dir(root, dest, &e.path, false)? else { continue };
        let name = e.path.rsplit_once('/').map_or(e.path.as_str(), |(_, n)| n);
        let found = kind_at(&dir, name).map_err(|err| Error::io("inspecting", &dest.join(&e.path), err))?;
        match (e.kind, found) {
            (_, None) | (Kind::Directory, Some(sys::Kind::Dir)) => {}
            (Kind::Directory, Some(_)) => return Err(conflict(dest, &e.path, name, "exists but is not a directory")),
            (Kind::File, Some(sys::Kind::Dir)) => return Err(conflict(dest, &e.path, name, "is a directory")),
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
fn forget_manifest(root: &Dir, dest: &Path) -> Result<(), Error> {
    // That name only: a symlink itself, never what it points to.
    match root.remove_file(crate::read::names::MANIFEST_NAME) {
        Ok(()) => Ok(()),
        // None there, or a directory of that name (which no run reads as a manifest).
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::IsADirectory) => Ok(()),
        Err(e) => Err(Error::io("removing the incremental manifest", &dest.join(crate::read::names::MANIFEST_NAME), e)),
    }
}

/// Moves every staged entry of `entries` from `staged` (a directory inside `dest`) into `dest`,
/// then (with `restore_mtime`) gives each directory the archive has an entry for the time it
/// records, as a plain extraction does, whether the merge made it or found it. Returns the files
/// moved. On an error after the first move, the files already moved stay (they are complete and
/// verified) and the error says how many.
pub(crate) fn move_into(staged: &Path, dest: &Path, entries: &[Entry], restore_mtime: bool) -> Result<u64, Error> {
    let root = Dir::open(dest).map_err(|e| Error::io("opening", dest, e))?;
    let staged_root = Dir::open(staged).map_err(|e| Error::io("opening", staged, e))?;
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
        let result = match e.kind {
            Kind::Directory => match dir.make_dir(name) {
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
                other => other,
            },
            Kind::File => {
                // The source resolves inside our own staging tree; the target is one name in a
                // directory reached without symlinks, and rename replaces (never follows) whatever
                // is there.
                staged_root.rename(&e.path, &dir, name).map(|()| moved += 1)
            }
        };
        if let Err(err) = result {
            return Err(partial(moved, Error::io("merging", &dest.join(&e.path), err)));
        }
    }
    // Last, once nothing more is moved into them (a move sets a directory's time).
    for e in entries.iter().filter(|e| restore_mtime && e.kind == Kind::Directory) {
        let Some(time) = crate::extract::write::system_time(e.mtime) else { continue };
        let set = parent_dir(&root, dest, &e.path, false)?
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
            .and_then(|dir| dir.open_dir(e.path.rsplit_once('/').map_or(e.path.as_str(), |(_, n)| n)))
            .and_then(|dir| dir.set_modified(time));
        set.map_err(|err| partial(moved, Error::io("setting the time of", &dest.join(&e.path), err)))?;
    }
    Ok(moved)
}
