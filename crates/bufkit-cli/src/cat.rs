//! `bufkit cat`: entries to stdout, like `unzip -p`, checked before a byte is written.
//!
//! The archive is opened as an [`AssetArchive`] read with `pread` and validated as every command
//! validates it (its end records, central directory and every local header, so that `cat`,
//! `ls`, `test` and `extract` accept and refuse the same archives); then only the selected
//! entries' data is read, so one small entry of a large archive costs its headers and that entry.
//! Every entry is inflated once. Up to [`HELD_MAX`] bytes of selected entries are read whole
//! (each CRC-checked) before anything is written; a larger selection is written as it is inflated,
//! as `unzip -p` writes it, and a check that fails at an entry's end stops the command with a
//! non-zero exit and nothing more written.

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::Path;

use asset_extract::{AssetArchive, Kind, ParallelInflate};

/// Selected bytes up to this are held in memory between checking and writing.
const HELD_MAX: u64 = 64 << 20;

pub fn run(archive: &Path, names: Vec<String>, parallel: ParallelInflate) -> Result<(), String> {
    let fail = |e: asset_extract::Error| format!("{}: {e}", archive.display());
    let (opened, fetched) = crate::remote::open_archive(archive).map_err(fail)?;
    opened.set_parallel_inflate(parallel);
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
        // Too much to hold: each entry written as it inflates (on several cores when the rule
        // says so), its checks at its end.
        let mut written = Ok(());
        for &i in &selected {
            let mut write_error = None;
            let copied = opened.copy_to(i, &mut |bytes| {
                out.write_all(bytes).map_err(|e| {
                    write_error = Some(e);
                    asset_extract::Error::Cancelled
                })
            });
            if let Some(e) = write_error {
                written = Err(e);
                break;
            }
            copied.map_err(fail)?;
        }
        written
    };
    // The process ends right after: the index of every entry goes back with it, not freed one
    // name at a time (a thousand `free`s, about 1% of a small `cat`).
    std::mem::forget(opened);
    if let Some(fetched) = fetched {
        crate::remote::report(archive, &fetched);
    }
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
