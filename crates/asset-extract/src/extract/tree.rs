//! The tree an extraction writes into: each directory made once, on demand, by whichever worker
//! first needs it (so directory creation runs in parallel with everything else), and every file
//! and directory created relative to one handle on the staging root (shorter path walks, no path
//! joins), never through a link.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::Error;
use crate::read::entry::Entry;
use crate::read::names::Kind;
use crate::sys::{self, Dir};

/// One directory of the tree.
struct Planned<'a> {
    path: &'a str,
    parent: Option<usize>,
    /// Set by the first worker that needs the directory: `Ok` once made, or how making it failed,
    /// which every later caller reports too.
    made: OnceLock<Result<(), Failed>>,
}

/// How making a directory failed: the OS's error code where it gave one.
#[derive(Clone, Copy)]
struct Failed {
    kind: io::ErrorKind,
    code: Option<i32>,
}

impl Failed {
    fn of(err: &io::Error) -> Failed {
        Failed { kind: err.kind(), code: err.raw_os_error() }
    }

    fn error(self) -> io::Error {
        self.code.map_or_else(|| self.kind.into(), io::Error::from_raw_os_error)
    }
}

/// The directories the selected entries need, parents before children, and a handle on the root
/// they are made in.
pub(crate) struct Tree<'a> {
    root: Dir,
    root_path: &'a Path,
    dirs: Vec<Planned<'a>>,
    index: HashMap<&'a str, usize, foldhash::fast::RandomState>,
}

/// Adds directory `path` and its missing ancestors, each after its parent (so parents always come
/// first). A loop, not recursion: a hostile name may be 2,000 components deep, and this runs on
/// the caller's thread (a BEAM dirty scheduler has a small stack).
fn intern<'a>(
    path: &'a str,
    dirs: &mut Vec<Planned<'a>>,
    index: &mut HashMap<&'a str, usize, foldhash::fast::RandomState>,
) {
    let mut missing = Vec::new();
    let mut parent = None;
    let mut at = Some(path);
    while let Some(dir) = at {
        if let Some(&i) = index.get(dir) {
            parent = Some(i);
            break;
        }
        missing.push(dir);
        at = dir.rsplit_once('/').map(|(up, _)| up);
    }
    for dir in missing.into_iter().rev() {
        dirs.push(Planned { path: dir, parent, made: OnceLock::new() });
        index.insert(dir, dirs.len() - 1);
        parent = Some(dirs.len() - 1);
    }
}

impl<'a> Tree<'a> {
    /// Plans the directories of `entries` (explicit directory entries and every file's parents)
    /// under `root`, an existing directory that only this extraction writes into.
    pub(crate) fn plan(root: &'a Path, entries: &'a [Entry]) -> Result<Tree<'a>, Error> {
        let mut tree_dirs: Vec<Planned<'a>> = Vec::new();
        let mut index: HashMap<&'a str, usize, _> = HashMap::with_hasher(foldhash::fast::RandomState::default());
        for e in entries {
            let dir = match e.kind {
                Kind::Directory => Some(e.path.as_str()),
                Kind::File => e.path.rsplit_once('/').map(|(parent, _)| parent),
            };
            if let Some(dir) = dir {
                intern(dir, &mut tree_dirs, &mut index);
            }
        }
        let dirs = tree_dirs;
        let root_handle = Dir::open(root).map_err(|e| Error::io("opening", root, e))?;
        Ok(Tree { root: root_handle, root_path: root, dirs, index })
    }

    /// How many directories the tree holds.
    pub(crate) fn len(&self) -> usize {
        self.dirs.len()
    }

    /// Every directory's path, each after its parent.
    pub(crate) fn paths(&self) -> impl DoubleEndedIterator<Item = PathBuf> + '_ {
        self.dirs.iter().map(|d| self.root_path.join(d.path))
    }

    /// Makes directory `i` and its missing parents (each exactly once, whoever asks first), top
    /// down, in a loop (see [`intern`] for why not recursion).
    fn make(&self, i: usize) -> Result<(), Error> {
        let mut chain = Vec::new();
        let mut at = Some(i);
        while let Some(j) = at {
            if self.dirs[j].made.get().is_some() {
                break;
            }
            chain.push(j);
            at = self.dirs[j].parent;
        }
        if let Some(made) = at.and_then(|j| self.dirs[j].made.get())
            && made.is_err()
        {
            return self.make_one(at.expect("checked"));
        }
        chain.into_iter().rev().try_for_each(|j| self.make_one(j))
    }

    /// Makes directory `i`, its parent being made.
    fn make_one(&self, i: usize) -> Result<(), Error> {
        let dir = &self.dirs[i];
        let made = dir.made.get_or_init(|| {
            match self.root.make_dir(dir.path) {
                // Made already, as files staged from a stream were written ahead of the plan: a
                // directory, not followed if a link (the tree holds only what this extraction made).
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match self.root.status(dir.path) {
                    Ok(status) if status.kind == sys::Kind::Dir => Ok(()),
                    _ => Err(Failed::of(&e)),
                },
                other => other.map_err(|e| Failed::of(&e)),
            }
        });
        made.map_err(|failed| Error::io("creating", &self.root_path.join(dir.path), failed.error()))
    }

    /// Makes the directory that will hold `path` (nothing to do at the root).
    pub(crate) fn make_parent(&self, path: &str) -> Result<(), Error> {
        match path.rsplit_once('/') {
            Some((parent, _)) => self.make(self.index[parent]),
            None => Ok(()),
        }
    }

    /// Makes every directory not made yet (those no file needed: empty directory entries).
    pub(crate) fn make_all(&self) -> Result<(), Error> {
        (0..self.dirs.len()).try_for_each(|i| self.make(i))
    }

    /// Creates `path` as a new regular file with `mode`, its parent made first. Never writes
    /// through anything already there (the staging tree holds only what this extraction created,
    /// so this is belt and braces).
    pub(crate) fn create_file(&self, path: &str, mode: u32) -> Result<File, Error> {
        self.make_parent(path)?;
        self.root.create_file(path, mode).map_err(|e| Error::io("creating", &self.root_path.join(path), e))
    }

    /// Hard-links `name` in directory `dir` (not following it if it is a symlink) as `path` in the
    /// tree, its parent made first; false if that fails for any reason.
    pub(crate) fn link_from(&self, dir: &Dir, name: &str, path: &str) -> bool {
        if self.make_parent(path).is_err() {
            return false;
        }
        // A symlink at `name` would be linked itself, not followed (and the caller has checked it
        // is a regular file).
        dir.hard_link(name, &self.root, path).is_ok()
    }

    /// Finishes `path`, a file written into the tree before it was planned (staged from a
    /// stream as it arrived): gives it `mode` and `mtime` where given, and syncs it with `durable`.
    pub(crate) fn finish_file(
        &self,
        path: &str,
        mode: Option<u32>,
        mtime: Option<(i64, u32)>,
        durable: bool,
    ) -> Result<(), Error> {
        let full = || self.root_path.join(path);
        if let Some(mode) = mode {
            self.root.set_mode(path, mode).map_err(|e| Error::io("setting the mode of", &full(), e))?;
        }
        if let Some((secs, nanos)) = mtime {
            self.root.set_mtime(path, secs, nanos).map_err(|e| Error::io("setting the time of", &full(), e))?;
        }
        if durable {
            let file = self.root.open_file(path).map_err(|e| Error::io("opening", &full(), e))?;
            file.sync_all().map_err(|e| Error::io("syncing", &full(), e))?;
        }
        Ok(())
    }

    /// Sets the modification time of `path` (seconds and nanoseconds since the epoch), not
    /// following a link.
    pub(crate) fn set_mtime(&self, path: &str, (secs, nanos): (i64, u32)) -> Result<(), Error> {
        self.root.set_mtime(path, secs, nanos).map_err(|e| Error::io("setting the time of", &self.full_path(path), e))
    }

    /// The full path of `path` under the root, for messages and for the few calls that need one.
    pub(crate) fn full_path(&self, path: &str) -> PathBuf {
        self.root_path.join(path)
    }
}
