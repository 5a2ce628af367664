//! What a stream staged as it arrived, held against the archive once the stream has ended: the
//! files whose local headers the one reading path confirms are kept, and everything else staged
//! ahead is removed.

use std::path::Path;

use crate::Error;
use crate::entry::opened::Opened;
use crate::extract::staging::Staging;
use crate::read::entry::{Entry, Method};
use crate::read::local::LocalRef;
use crate::read::names::Kind;
use crate::sys::Dir;

/// Maps keyed by names and offsets of our own parsing: a fast hasher.
pub(super) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub(super) type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// The mode files are created with ahead (before the central directory gives theirs): what most
/// are, so that only executables are changed afterwards.
pub(super) const AHEAD_MODE: u32 = 0o644;

/// A file staged ahead, and what it was inflated from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Staged {
    pub(super) header_at: u64,
    pub(super) data_at: u64,
    pub(super) method: Method,
    pub(super) compressed_size: u64,
    pub(super) size: u64,
    pub(super) crc32: u32,
    /// The time it was given, if one.
    pub(super) mtime: Option<(i64, u32)>,
}

/// What a stream staged as it arrived: its staging directory, with the files and directories
/// made in it ahead.
pub(crate) struct Prestaged {
    pub(super) files: HashMap<String, Staged>,
    pub(super) dirs: HashSet<String>,
    pub(super) root: Option<Dir>,
    pub(super) umask: Option<u32>,
    pub(super) staging: Option<Staging>,
    /// The files kept, by where their local headers start: set by [`keep`](Self::keep).
    pub(super) claimed: HashMap<u64, Staged>,
}

impl Prestaged {
    /// Takes the staging directory, for an extraction that keeps what was staged in it.
    pub(crate) fn take_staging(&mut self) -> Option<Staging> {
        self.staging.take()
    }

    /// Keeps the staged files that `entries` (the selected entries, each with its local header,
    /// of the archive `opened`) describe as they were staged, their local headers checked now,
    /// and removes every other file and directory staged ahead, so that the staging directory
    /// holds nothing the archive does not. Where a kept file's local header fails its check,
    /// nothing is kept: the extraction then meets every fault where a file's would.
    pub(crate) fn keep(&mut self, opened: &Opened<'_>, entries: &[Entry], locals: &[LocalRef]) -> Result<(), Error> {
        let can_place = self.umask.is_some() && self.root.is_some();
        let mut needed_dirs: HashSet<&str> = HashSet::default();
        let mut checks: Vec<(&LocalRef, &Entry)> = Vec::new();
        for (e, local) in entries.iter().zip(locals) {
            let dir = match e.kind {
                Kind::Directory => Some(e.path.as_str()),
                Kind::File => e.path.rsplit_once('/').map(|(d, _)| d),
            };
            let mut at = dir;
            while let Some(d) = at {
                if !needed_dirs.insert(d) {
                    break;
                }
                at = d.rsplit_once('/').map(|(up, _)| up);
            }
            if e.kind == Kind::File
                && can_place
                && let Some(staged) = self.files.get(&e.path)
                && (staged.header_at, staged.method, staged.compressed_size, staged.size, staged.crc32)
                    == (local.header_offset(), e.method, e.compressed_size, e.size, e.crc32)
            {
                checks.push((local, e));
            }
        }
        // Each kept file's local header, checked as the one reading path checks it, in few reads.
        if let Ok(offsets) = opened.check_locals(&checks) {
            for ((local, e), data_offset) in checks.iter().zip(offsets) {
                let staged = self.files[&e.path];
                if staged.data_at == data_offset {
                    self.claimed.insert(local.header_offset(), staged);
                }
            }
        }
        let path_of = |p: &str| self.staging.as_ref().map_or_else(|| Path::new(p).to_path_buf(), |s| s.path().join(p));
        for (path, staged) in &self.files {
            if self.claimed.get(&staged.header_at) != Some(staged) {
                remove_at(self.root.as_ref(), path, |d, p| d.remove_file(p))
                    .map_err(|e| Error::io("removing", &path_of(path), e))?;
            }
        }
        let mut unneeded: Vec<&String> = self.dirs.iter().filter(|d| !needed_dirs.contains(d.as_str())).collect();
        unneeded.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
        for dir in unneeded {
            remove_at(self.root.as_ref(), dir, |d, p| d.remove_dir(p))
                .map_err(|e| Error::io("removing", &path_of(dir), e))?;
        }
        Ok(())
    }

    /// Whether the file whose local header starts at `header_offset` was kept: it is finished
    /// ([`place`](Self::place)), not read.
    pub(crate) fn has_header(&self, header_offset: u64) -> bool {
        self.claimed.contains_key(&header_offset)
    }

    /// Finishes entry `e` if it was kept by [`keep`](Self::keep) (its local header, at
    /// `header_offset`, checked): its mode, its time `mtime` (if given), synced with `durable`.
    /// False where it was not kept: it is to be written as usual.
    pub(crate) fn place(
        &self,
        e: &Entry,
        header_offset: u64,
        tree: &crate::extract::tree::Tree<'_>,
        mtime: Option<(i64, u32)>,
        durable: bool,
    ) -> Result<bool, Error> {
        let (Some(staged), Some(umask)) = (self.claimed.get(&header_offset), self.umask) else { return Ok(false) };
        let mode = (e.mode & 0o7777 & !umask != AHEAD_MODE & !umask).then_some(e.mode & 0o7777 & !umask);
        // The time the central directory gives it, if not the one it was given; the time of the
        // extraction if it is to have none but was given one.
        let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok();
        let time = match (mtime, staged.mtime) {
            (wanted, given) if wanted == given => None,
            (Some(wanted), _) => Some(wanted),
            (None, Some(_)) => now().map(|d| (d.as_secs() as i64, d.subsec_nanos())),
            (None, None) => None,
        };
        tree.finish_file(&e.path, mode, time, durable)?;
        Ok(true)
    }
}

/// Removes `path` under `root` with `remove` (a file's or a directory's); gone already is fine.
fn remove_at(root: Option<&Dir>, path: &str, remove: fn(&Dir, &str) -> std::io::Result<()>) -> std::io::Result<()> {
    let Some(root) = root else { return Err(std::io::Error::other("the staging directory is not open")) };
    match remove(root, path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}
