//! The incremental-mode manifest: what the last extraction wrote, so the next one can keep what
//! did not change. Binary, little-endian: a magic line, then per file CRC-32 (4), size (8), mode
//! (4), path length (4), path.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use crate::Entry;
use crate::Error;
use crate::extract::tree::Tree;
use crate::read::names::MANIFEST_NAME as NAME;
use crate::sys::{self, Dir};

const MAGIC: &[u8] = b"bufkit-manifest 1\n";

/// path -> (crc32, size, mode)
pub(crate) type Manifest = HashMap<String, (u32, u64, u32)>;

/// The destination an incremental extraction replaces: a handle on it and its manifest.
pub(crate) struct Previous {
    root: Dir,
    manifest: Manifest,
}

/// The existing destination and its manifest; `None` if there is none, it is not a directory (a
/// symlink in its place is not followed), or the manifest is not valid: then everything is written
/// afresh.
pub(crate) fn previous(dest: &Path) -> Option<Previous> {
    let root = Dir::open(dest).ok()?;
    let mut bytes = Vec::new();
    root.open_file(NAME).ok()?.read_to_end(&mut bytes).ok()?;
    let manifest = parse(&bytes)?;
    Some(Previous { root, manifest })
}

/// path -> (crc32, size, mode), from the manifest's bytes.
fn parse(bytes: &[u8]) -> Option<Manifest> {
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
/// manifest says it is unchanged and the old file is still a regular file of that size, with the
/// modification time `mtime` (seconds and nanoseconds) when one is to be restored: a link shares
/// its inode, so its time cannot be set without changing the old tree's file too, and a file
/// whose time differs is written afresh. The old path is walked one directory at a time, never
/// through a link, and the file itself is checked without following it: a symlink put anywhere on
/// the way makes the file be written afresh, never reached through. False means: write it.
pub(crate) fn reuse(previous: &Previous, entry: &Entry, mtime: Option<(i64, u32)>, tree: &Tree<'_>) -> bool {
    if previous.manifest.get(&entry.path) != Some(&(entry.crc32, entry.size, entry.mode)) {
        return false;
    }
    let (dirs, name) = match entry.path.rsplit_once('/') {
        Some((dirs, name)) => (Some(dirs), name),
        None => (None, entry.path.as_str()),
    };
    let mut held: Option<Dir> = None;
    for component in dirs.into_iter().flat_map(|d| d.split('/')) {
        match held.as_ref().unwrap_or(&previous.root).open_dir(component) {
            Ok(dir) => held = Some(dir),
            Err(_) => return false,
        }
    }
    let dir = held.as_ref().unwrap_or(&previous.root);
    let Ok(status) = dir.status(name) else { return false };
    status.kind == sys::Kind::File
        && status.size == entry.size
        && mtime.is_none_or(|time| status.mtime == time)
        && tree.link_from(dir, name, &entry.path)
}
