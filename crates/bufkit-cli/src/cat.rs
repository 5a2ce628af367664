//! `bufkit cat`: entries to stdout, like `unzip -p`, checked before a byte is written.
//!
//! The archive is opened as an [`AssetArchive`] read with `pread` and validated as every command
//! validates it (its end records, central directory and every local header, so that `cat`,
//! `ls`, `test` and `extract` accept and refuse the same archives); then only the selected
//! entries' data is read, so one small entry of a large archive costs its headers and that entry. Up to [`HELD_MAX`] bytes of selected entries are read whole (each CRC-checked) and
//! then written; more than that are checked in one streaming pass and written in a second, so
//! memory stays bounded whatever the entries' size.

#![forbid(unsafe_code)]

use std::io::{Read, Write};
use std::path::Path;

use asset_extract::{AssetArchive, Holding, Kind};

/// Selected bytes up to this are held in memory between checking and writing.
const HELD_MAX: u64 = 64 << 20;

pub fn run(archive: &Path, names: Vec<String>) -> Result<(), String> {
    let fail = |e: asset_extract::Error| format!("{}: {e}", archive.display());
    let opened = AssetArchive::open(archive, Holding::Read).map_err(fail)?;
    let selected = select(&opened, &names);
    if selected.is_empty() && !names.is_empty() {
        return Err(fail(asset_extract::Error::NothingSelected { patterns: names }));
    }
    let total: u64 = selected.iter().map(|&i| opened.entries()[i].size).sum();
    let mut out = std::io::stdout().lock();
    let written = if total <= HELD_MAX {
        let files = selected.iter().map(|&i| opened.read(i)).collect::<Result<Vec<_>, _>>().map_err(fail)?;
        files.iter().try_for_each(|bytes| out.write_all(bytes))
    } else {
        // Every entry checked first (inflated, CRC-32 and size), nothing written; then written.
        for &i in &selected {
            std::io::copy(&mut opened.reader(i).map_err(fail)?, &mut std::io::sink())
                .map_err(|e| unwrap_error(e, archive))?;
        }
        selected.iter().try_for_each(|&i| copy_entry(&opened, i, &mut out))
    };
    // The process ends right after: the index of every entry goes back with it, not freed one
    // name at a time (a thousand `free`s, about 1% of a small `cat`).
    std::mem::forget(opened);
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()), // `| head` is fine
        other => other.map_err(|e| format!("writing: {e}")),
    }
}

/// The files `names` select (exact names or `*`/`?`/`dir/` patterns, as extraction's `--only`),
/// in archive order; every file when there are no names.
fn select(archive: &AssetArchive, names: &[String]) -> Vec<usize> {
    let files = |i: &usize| archive.entries()[*i].kind == Kind::File;
    if names.is_empty() {
        return (0..archive.len()).filter(files).collect();
    }
    let mut selected: Vec<usize> = names.iter().flat_map(|p| archive.list_matching(p)).filter(files).collect();
    selected.sort_unstable();
    selected.dedup();
    selected
}

/// Writes entry `index` to `out` as it inflates (checked already; checked again as it goes, since
/// the file may have changed since).
fn copy_entry(archive: &AssetArchive, index: usize, out: &mut impl Write) -> std::io::Result<()> {
    let mut reader = archive.reader(index).map_err(std::io::Error::other)?;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match reader.read(&mut buf)? {
            0 => return Ok(()),
            n => out.write_all(&buf[..n])?,
        }
    }
}

/// The archive's error inside an I/O error from a reader, as a message.
fn unwrap_error(e: std::io::Error, archive: &Path) -> String {
    format!(
        "{}: {}",
        archive.display(),
        e.into_inner().map_or_else(|| "read failed".to_string(), |inner| inner.to_string())
    )
}
