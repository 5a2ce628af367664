//! Helpers the test binaries share: a fresh temporary directory per test, its listing, and the
//! tree under a directory.

use std::path::Path;

/// A fresh, empty directory for test `name`, under the system's temp dir; removed with everything
/// in it when dropped, whether the test passed or not.
pub fn workdir(name: &str) -> WorkDir {
    WorkDir(
        tempfile::Builder::new().prefix(&format!("asset-extract-{name}-")).tempdir().expect("a temporary directory"),
    )
}

/// A test's own directory (see [`workdir`]): a `Path` while it lives, gone when dropped.
pub struct WorkDir(tempfile::TempDir);

impl std::ops::Deref for WorkDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for WorkDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// The names in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Every file and directory under `dir` (relative path, a file's bytes; a directory's path ends in
/// `/` with no bytes), sorted.
#[allow(dead_code)] // only the binaries that compare trees call it
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                out.push((rel + "/", Vec::new()));
                stack.push(path);
            } else {
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A caller's source whose bytes change after the slices' first pass (one byte flipped at
/// `flipped` once `changed` is set): the header's contract for `bk_read_at_fn`.
#[allow(dead_code)] // only the tests of slices use it
pub struct Changing {
    pub bytes: Vec<u8>,
    pub flipped: usize,
    pub changed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl asset_extract::Source for Changing {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = self.bytes.get(offset as usize..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        if self.changed.load(std::sync::atomic::Ordering::Relaxed)
            && let Some(at) = self.flipped.checked_sub(offset as usize).filter(|&at| at < n)
        {
            buf[at] ^= 0x20;
        }
        Ok(n)
    }
}

/// The permission bits of what is at `path` (not following a link); `None` on Windows, which has
/// none.
#[allow(dead_code, reason = "not every test binary checks modes")]
pub fn mode_bits(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::symlink_metadata(path).ok()?.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
