//! The incremental-mode manifest: what the last extraction wrote, so the next one can keep what
//! did not change. Binary, little-endian: a magic line, then per file CRC-32 (4), size (8), mode
//! (4), path length (4), path.

use std::collections::HashMap;
use std::path::Path;

use crate::Entry;
use crate::Error;

/// File name of the manifest inside the destination.
pub(crate) const NAME: &str = ".bufkit-manifest";
const MAGIC: &[u8] = b"bufkit-manifest 1\n";

/// path -> (crc32, size, mode)
pub(crate) type Manifest = HashMap<String, (u32, u64, u32)>;

/// The manifest of an existing destination; `None` if there is none or it is not valid (then
/// everything is written afresh).
pub(crate) fn read(dest: &Path) -> Option<Manifest> {
    let bytes = std::fs::read(dest.join(NAME)).ok()?;
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut manifest = HashMap::new();
    while !rest.is_empty() {
        let crc = u32::from_le_bytes(rest.get(0..4)?.try_into().ok()?);
        let size = u64::from_le_bytes(rest.get(4..12)?.try_into().ok()?);
        let mode = u32::from_le_bytes(rest.get(12..16)?.try_into().ok()?);
        let len = u32::from_le_bytes(rest.get(16..20)?.try_into().ok()?) as usize;
        let path = std::str::from_utf8(rest.get(20..20 + len)?).ok()?;
        manifest.insert(path.to_string(), (crc, size, mode));
        rest = &rest[20 + len..];
    }
    Some(manifest)
}

/// Writes the manifest of `files` into the staged tree.
pub(crate) fn write(root: &Path, files: &[&Entry]) -> Result<(), Error> {
    let mut out = MAGIC.to_vec();
    for e in files {
        out.extend_from_slice(&e.crc32.to_le_bytes());
        out.extend_from_slice(&e.size.to_le_bytes());
        out.extend_from_slice(&e.mode.to_le_bytes());
        out.extend_from_slice(&(e.path.len() as u32).to_le_bytes());
        out.extend_from_slice(e.path.as_bytes());
    }
    let path = root.join(NAME);
    std::fs::write(&path, out).map_err(|e| Error::io("writing", &path, e))
}

/// Keeps `entry` from the previous extraction by hard-linking it into the staged tree, if the
/// manifest says it is unchanged and the old file is still a regular file of that size. False
/// means: write it.
pub(crate) fn reuse(old_root: &Path, manifest: &Manifest, entry: &Entry, root: &Path) -> bool {
    if manifest.get(&entry.path) != Some(&(entry.crc32, entry.size, entry.mode)) {
        return false;
    }
    let old = old_root.join(&entry.path);
    // symlink_metadata: a symlink put in place of a file is never followed, only rewritten.
    match std::fs::symlink_metadata(&old) {
        Ok(m) if m.file_type().is_file() && m.len() == entry.size => {
            std::fs::hard_link(&old, root.join(&entry.path)).is_ok()
        }
        _ => false,
    }
}
