//! The temporary directory an extraction writes into: beside the destination (create, replace),
//! or inside it (merge, so files rename within one filesystem). It is renamed into place when
//! everything verified, removed otherwise.
//!
//! Each staging directory `S` has a lock file `S.lock` beside it, locked (`File::lock`: `flock`,
//! or `LockFileEx` on Windows) for as long as its extraction runs; the system drops the lock when
//! the process dies, however it dies. A run
//! creates its lock file, locks it, and only then writes into it: an empty lock file may be one
//! whose run has not locked it yet. Before staging, an extraction sweeps what dead runs left for
//! the same destination: a staging directory whose (written) lock it can take is removed, and an
//! old destination that an interrupted commit had moved aside (`S.old`) is put back if the new
//! one never arrived. Nothing is removed on the strength of its name alone, and a live run's lock
//! is never taken: a sweep that finds an empty lock file lets go of it at once (and removes it
//! only once it is an hour old, the trace of a run that died between creating and locking it).

#![forbid(unsafe_code)]

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Error;
use crate::extract::destination::{self, Found};
use crate::extract::remove::remove_tree;
use crate::sys;

/// Numbers this process's staging names (after its id).
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The temporary directory and its held lock; both removed on drop unless committed.
pub(crate) struct Staging {
    path: Option<PathBuf>,
    lock: Option<(PathBuf, File)>,
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// Takes `lock`'s exclusive lock, waiting for whoever holds it.
fn lock_waiting(file: &File) -> io::Result<()> {
    loop {
        match file.lock() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// A lock file left empty this long belongs to a run that died between creating and locking it.
const UNLOCKED_LOCK_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Takes `lock`'s exclusive lock without waiting: true if taken (no live owner).
fn try_lock(file: &File) -> bool {
    file.try_lock().is_ok()
}

impl Staging {
    /// Staging beside `dest`, for create and replace (after [`sweep_beside`]).
    pub(crate) fn beside(dest: &Path) -> Result<Staging, Error> {
        let (parent, prefix) = beside_prefix(dest)?;
        Self::create(parent, &prefix)
    }

    /// Staging inside the directory `dest`, for merge.
    pub(crate) fn inside(dest: &Path) -> Result<Staging, Error> {
        sweep(dest, ".bufkit-tmp-", None);
        Self::create(dest, ".bufkit-tmp-")
    }

    fn create(dir: &Path, prefix: &str) -> Result<Staging, Error> {
        // The process id makes the name unique among live runs; a dead run's files may still
        // hold the same id (ids are reused, and what a sweep cannot clean stays): then the next
        // number.
        let mut attempts = 0;
        let (path, lock_path, mut lock) = loop {
            let unique = format!("{prefix}{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
            let path = dir.join(unique);
            let lock_path = with_suffix(&path, ".lock");
            attempts += 1;
            match sys::create_lock_file(&lock_path) {
                Ok(lock) if fs::symlink_metadata(&path).is_err() => break (path, lock_path, lock),
                Ok(_) => {
                    let _ = fs::remove_file(&lock_path);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => {}
                Err(e) => return Err(Error::io("creating", &lock_path, e)),
            }
        };
        // Waiting is right here: the file is ours (a fresh unique name), and only a sweep can
        // hold its lock, for the instant it takes to see the file is still empty.
        if let Err(e) = lock_waiting(&lock).and_then(|()| io::Write::write_all(&mut lock, b"live\n")) {
            let _ = fs::remove_file(&lock_path);
            return Err(Error::io("locking", &lock_path, e));
        }
        // From here on, dropping `staging` removes the lock file (and the directory once made).
        let mut staging = Staging { path: None, lock: Some((lock_path, lock)) };
        sys::make_dir(&path).map_err(|e| Error::io("creating", &path, e))?;
        staging.path = Some(path);
        Ok(staging)
    }

    pub(crate) fn path(&self) -> &Path {
        self.path.as_deref().expect("live until committed")
    }

    /// Puts the staged tree at `dest` as `found` allows. A directory being replaced is renamed
    /// aside, the new tree renamed in, and the old one removed; if the second rename fails, the
    /// old one returns.
    pub(crate) fn commit(mut self, dest: &Path, found: Found, durable: bool, threads: usize) -> Result<(), Error> {
        let staged = self.path.take().expect("committed once");
        let result = Self::put_in_place(&staged, dest, found, threads);
        if result.is_err() {
            let _ = fs::remove_dir_all(&staged);
            // An old tree moved aside and not removed (`S.old`) is left with its lock file, for
            // the next run's sweep to remove.
            if fs::symlink_metadata(with_suffix(&staged, ".old")).is_ok_and(|m| m.is_dir()) {
                self.lock.take();
            }
        }
        result?;
        if durable && let Some(parent) = dest.parent().filter(|p| !p.as_os_str().is_empty()) {
            sys::sync_dir(parent).map_err(|e| Error::io("syncing", parent, e))?;
        }
        Ok(())
    }

    fn put_in_place(staged: &Path, dest: &Path, found: Found, threads: usize) -> Result<(), Error> {
        if found != Found::Directory {
            return destination::rename_into_place(staged, dest, found);
        }
        destination::still_a_directory(dest)?;
        // One atomic swap: at every instant `dest` is the old tree or the new one, even if this
        // process is killed; the old tree then sits under the staging name, which this function
        // removes, or the next run's sweep does (its lock died with this process).
        match sys::rename_paths(staged, dest, sys::Rename::Exchange) {
            Ok(()) => return remove_tree(staged, threads).map_err(|e| Error::io("removing the old", staged, e)),
            Err(e) if !sys::unsupported(&e) => {
                return Err(Error::io("swapping into place", dest, e));
            }
            Err(_) => {} // a system or file system that cannot swap: two renames
        }
        // Unique like the staging name itself, and found by the sweep if this process dies
        // between the two renames (then `dest` is briefly absent, and the sweep puts it back).
        let aside = with_suffix(staged, ".old");
        fs::rename(dest, &aside).map_err(|e| Error::io("moving aside", dest, e))?;
        if let Err(e) = fs::rename(staged, dest) {
            let _ = fs::rename(&aside, dest);
            return Err(Error::io("moving into place", dest, e));
        }
        remove_tree(&aside, threads).map_err(|e| Error::io("removing the old", &aside, e))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = fs::remove_dir_all(path);
        }
        if let Some((lock_path, _lock)) = self.lock.take() {
            let _ = fs::remove_file(lock_path); // the lock itself goes with the descriptor
        }
    }
}

/// The directory staging for `dest` goes in, and the prefix of its names.
fn beside_prefix(dest: &Path) -> Result<(&Path, String), Error> {
    let parent = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = dest.file_name().ok_or_else(|| Error::io("naming", dest, std::io::ErrorKind::InvalidInput.into()))?;
    Ok((parent, format!(".{}.bufkit-tmp-", name.to_string_lossy())))
}

/// Cleans up what dead runs left beside `dest`, putting back an old destination an interrupted
/// commit had moved aside: done before `dest` is inspected, so it is inspected as it should be.
pub(crate) fn sweep_beside(dest: &Path) {
    if let Ok((parent, prefix)) = beside_prefix(dest) {
        sweep(parent, &prefix, Some(dest));
    }
}

/// Cleans up after dead runs in `dir`: every `PREFIX*.lock` whose lock can be taken belongs to a
/// run that no longer exists. Its staging directory is removed; an old destination it had moved
/// aside is put back at `dest` if nothing took its place, else removed. Best effort: what cannot
/// be cleaned is left for the next run, never guessed at.
fn sweep(dir: &Path, prefix: &str, dest: Option<&Path>) {
    let Ok(listing) = fs::read_dir(dir) else { return };
    for item in listing.flatten() {
        let name = item.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name.strip_suffix(".lock").filter(|s| s.starts_with(prefix)) else { continue };
        let lock_path = dir.join(name);
        let Ok(lock) = sys::open_existing_lock(&lock_path) else {
            continue;
        };
        if !try_lock(&lock) {
            continue; // a live run
        }
        let Ok(meta) = lock.metadata() else { continue };
        if meta.len() == 0 {
            // Created, not yet locked by its run (which waits for us): let go at once. Removed
            // only when so old that its run surely died before locking it.
            let stale = meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > UNLOCKED_LOCK_AGE);
            if stale {
                let _ = fs::remove_file(&lock_path);
            }
            continue;
        }
        let staged = dir.join(stem);
        let aside = with_suffix(&staged, ".old");
        let is_dir = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_dir());
        if let Some(dest) = dest
            && is_dir(&aside)
        {
            if fs::symlink_metadata(dest).is_err() {
                let _ = fs::rename(&aside, dest);
            } else {
                let _ = remove_tree(&aside, 1);
            }
        }
        if is_dir(&staged) {
            let _ = remove_tree(&staged, 1);
        }
        if !is_dir(&staged) && !is_dir(&aside) {
            let _ = fs::remove_file(&lock_path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{COUNTER, Staging, sweep_beside};
    use std::sync::atomic::Ordering;

    /// A dead run with this process's id (ids are reused) may have left lock files the sweep
    /// keeps for now (empty ones, which a run may not have locked yet): a new run takes the next
    /// free name instead of failing.
    #[test]
    fn names_a_dead_run_left_with_this_process_s_id_are_skipped() {
        let dir = tempfile::Builder::new().prefix("asset-extract-staging-reused-id-").tempdir().unwrap();
        let dest = dir.path().join("out");
        let next = COUNTER.load(Ordering::Relaxed);
        for n in next..next + 20 {
            let lock = dir.path().join(format!(".out.bufkit-tmp-{}-{n}.lock", std::process::id()));
            std::fs::write(lock, b"").unwrap();
        }
        let staging = Staging::beside(&dest).unwrap_or_else(|e| panic!("{e}"));
        assert!(staging.path().is_dir());
        drop(staging);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 20, "the dead run's files are left as they were");
    }

    /// Issue 29, 6: one run's sweep could take another live run's lock file between its creation
    /// and its `flock`, and that run then failed (EAGAIN, or ENOENT). Many threads stage for one
    /// destination, each sweeping first, as extractions do: every one must get its staging.
    #[test]
    fn a_sweep_never_takes_a_live_run_s_lock() {
        let dir = tempfile::Builder::new().prefix("asset-extract-staging-race-").tempdir().unwrap();
        let dest = dir.path().join("out");
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..300 {
                        sweep_beside(&dest);
                        let staging = Staging::beside(&dest).unwrap_or_else(|e| panic!("a live run failed: {e}"));
                        assert!(staging.path().is_dir());
                        drop(staging);
                    }
                });
            }
        });
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }
}
