//! The temporary directory an extraction writes into, beside the destination: renamed into place
//! when everything verified (the old destination moved aside, then removed), removed otherwise.

use std::fs::{self, File};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Error;
use crate::remove::remove_tree;

/// The temporary directory beside the destination; removed on drop unless committed.
pub(crate) struct Staging {
    path: Option<PathBuf>,
}

impl Staging {
    pub(crate) fn create(dest: &Path) -> Result<Staging, Error> {
        let parent = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name =
            dest.file_name().ok_or_else(|| Error::io("naming", dest, std::io::ErrorKind::InvalidInput.into()))?;
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let unique = format!(
            ".{}.bufkit-tmp-{}-{}",
            name.to_string_lossy(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = parent.join(unique);
        fs::DirBuilder::new().mode(0o755).create(&path).map_err(|e| Error::io("creating", &path, e))?;
        Ok(Staging { path: Some(path) })
    }

    pub(crate) fn path(&self) -> &Path {
        self.path.as_deref().expect("live until committed")
    }

    /// Moves the staged tree into place: the old destination (if any) is renamed aside, the new
    /// one renamed in, and the old one removed; if the second rename fails, the old one returns.
    pub(crate) fn commit(mut self, dest: &Path, durable: bool, threads: usize) -> Result<(), Error> {
        let staged = self.path.take().expect("committed once");
        // Unique like the staging name itself (with_extension would cut it at its first dot and
        // could land on a name the user already has).
        let mut aside = staged.clone().into_os_string();
        aside.push(".old");
        let aside = PathBuf::from(aside);
        let had_old = dest.exists();
        if had_old {
            fs::rename(dest, &aside).map_err(|e| Error::io("moving aside", dest, e))?;
        }
        if let Err(e) = fs::rename(&staged, dest) {
            if had_old {
                let _ = fs::rename(&aside, dest);
            }
            let _ = fs::remove_dir_all(&staged);
            return Err(Error::io("moving into place", dest, e));
        }
        if durable && let Some(parent) = dest.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(parent).and_then(|d| d.sync_all()).map_err(|e| Error::io("syncing", parent, e))?;
        }
        if had_old {
            remove_tree(&aside, threads).map_err(|e| Error::io("removing the old", &aside, e))?;
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = fs::remove_dir_all(path);
        }
    }
}
