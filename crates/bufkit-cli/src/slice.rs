//! `bufkit index` and `bufkit cat --range`: a slice of one entry, inflated from the checkpoint
//! before it rather than from the entry's start; the checkpoints built once and kept in a file
//! beside the archive (or the URL), so a later slice costs one checkpoint span.

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::Path;

use asset_extract::AssetArchive;

/// `OFFSET:LEN` of `--range`.
pub fn parse_range(text: &str) -> Result<(u64, u64), String> {
    let (offset, len) = text.split_once(':').ok_or_else(|| format!("--range {text}: expected OFFSET:LEN"))?;
    let number = |s: &str| s.parse::<u64>().map_err(|_| format!("--range {text}: {s} is not a number of bytes"));
    Ok((number(offset)?, number(len)?))
}

/// The index of file entry `name` in `archive`, or an error naming it.
fn entry(archive: &AssetArchive, name: &str, at: &Path) -> Result<usize, String> {
    archive.find(name).ok_or_else(|| {
        format!("{}: {}", at.display(), asset_extract::Error::NothingSelected { patterns: vec![name.into()] })
    })
}

/// Writes entry `name`'s checkpoints to `output`: the whole entry is inflated once (fetched
/// once, for a URL).
pub fn index(archive: &Path, name: &str, output: &Path) -> Result<(), String> {
    let fail = |e: asset_extract::Error| format!("{}: {e}", archive.display());
    let (opened, fetched) = crate::remote::open_archive(archive).map_err(fail)?;
    let index = entry(&opened, name, archive)?;
    let bytes = opened.export_checkpoints(index).map_err(fail)?;
    std::fs::write(output, &bytes).map_err(|e| format!("{}: {e}", output.display()))?;
    if let Some(fetched) = fetched {
        crate::remote::report(archive, &fetched);
    }
    eprintln!("bufkit: {name}: {} bytes of checkpoints in {}", bytes.len(), output.display());
    Ok(())
}

/// Writes `len` bytes of entry `name` from `offset` (fewer past its end) to stdout, from the
/// checkpoints in `checkpoints` when given (refused if they were made for another entry or
/// archive), else from checkpoints built now.
pub fn cat_range(
    archive: &Path,
    name: &str,
    (offset, len): (u64, u64),
    checkpoints: Option<&Path>,
) -> Result<(), String> {
    let fail = |e: asset_extract::Error| format!("{}: {e}", archive.display());
    let (opened, fetched) = crate::remote::open_archive(archive).map_err(fail)?;
    let index = entry(&opened, name, archive)?;
    if let Some(path) = checkpoints {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        opened.import_checkpoints(index, &bytes).map_err(fail)?;
    }
    let mut out = std::io::stdout().lock();
    let mut buf = vec![0u8; len.min(1 << 20) as usize];
    let (mut at, end) = (offset, offset.saturating_add(len));
    while at < end {
        let want = ((end - at) as usize).min(buf.len());
        let n = opened.read_at(index, at, &mut buf[..want]).map_err(fail)?;
        if n == 0 {
            break;
        }
        if let Err(e) = out.write_all(&buf[..n]) {
            return if e.kind() == std::io::ErrorKind::BrokenPipe { Ok(()) } else { Err(format!("writing: {e}")) };
        }
        at += n as u64;
    }
    if let Some(fetched) = fetched {
        crate::remote::report(archive, &fetched);
    }
    out.flush().map_err(|e| format!("writing: {e}"))
}
