//! Reading a zip's structure strictly: the end record, ZIP64 records, the central directory and
//! every local header (through `local.rs`), each checked against the others before a single byte
//! is written. The entries it makes are `entry.rs`'s.

#![forbid(unsafe_code)]

use crate::Error;
use crate::read::bytes::{CENTRAL_SIG, Shown, Window, ZIP64_LOCATOR_SIG, truncated, u16_at, u32_at};
use crate::read::end_records::{Directory, find_end};
use crate::read::entry::{Entry, Method, Mtime, mtime_of};
use crate::read::extra::{extra_fields_fit, zip64_extra};
use crate::read::local::{Central, LocalRef, local_data};
use crate::read::name_index::NameIndex;
use crate::read::names::{self, Kind};

/// Parses and cross-checks the whole archive. Returns the entries in central directory order.
/// Data prepended to the archive (a self-extractor's stub, a `.jmod` header, a shell script before
/// an executable jar) is accepted when every offset reads consistently shifted by its length; see
/// [`read_archive`] to learn how many bytes were prepended.
pub fn read_entries(data: &[u8]) -> Result<Vec<Entry>, Error> {
    read_archive(data).map(|layout| layout.entries)
}

/// A parsed archive: its entries, and how many bytes of other data precede the zip part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The entries, in central directory order.
    pub entries: Vec<Entry>,
    /// Bytes before the zip part whose offsets do not count (0 for a plain zip).
    pub prepended: u64,
    /// Bytes after the end record and its comment (0 for a plain zip).
    pub appended: u64,
    /// The end record's comment runs past the end of the file (the file was cut inside it):
    /// read past, as `unzip` and Python do, unless strict.
    pub comment_truncated: bool,
    /// Symlink entries, as stored (lossily decoded): checked like the others but never in
    /// `entries`, since a link is never extracted; the caller refuses or skips them.
    pub symlinks: Vec<String>,
}

/// Where the zip part starts in `data` for the directory `dir` the end records describe, as a
/// count of bytes before it that its offsets do not count. The one rule every reading follows:
/// a directory may sit where the end record says (`dir.offset`) or right before the end records
/// (`dir.end - dir.size`, where unzip and Python look first: the zip part after other bytes, its
/// offsets counted from its own start). Where both places hold a complete directory and they
/// differ, the archive is refused as ambiguous, whatever else either would fail later: which one
/// a reader takes must never hang on this library's own checks. Where only one is complete, that
/// one is read; a shift is then reported as bytes prepended.
fn prepended_bytes(data: &Window<'_>, dir: &Directory) -> Result<u64, Error> {
    let stated = dir.offset;
    let before_ends = dir.end.checked_sub(dir.size).filter(|&at| at != stated);
    if dir.entries == 0 {
        return Ok(0);
    }
    let starts = |at: u64| data.u32(at as usize) == Some(CENTRAL_SIG);
    let shifted = match (starts(stated), before_ends.filter(|&at| starts(at))) {
        (true, None) => return Ok(0),
        (false, None) => {
            return Err(Error::malformed(
                "no central directory where the end record says, nor just before the end records",
            ));
        }
        (false, Some(at)) => at,
        (true, Some(at)) => match (walks(data, dir, stated), walks(data, dir, at)) {
            (Some(first), Some(second)) => {
                return Err(Error::Ambiguous {
                    reason: format!(
                        "the end record at byte {} reads {} entries: a central directory of {first} bytes at \
                         offset {stated}, as it says, and another of {second} bytes at offset {at}, just before the \
                         end records (an archive after {} bytes of other data)",
                        dir.record,
                        dir.entries,
                        at.abs_diff(stated),
                    ),
                });
            }
            // The stated one is read, or refused with what is wrong with it.
            (_, None) => return Ok(0),
            (None, Some(_)) => at,
        },
    };
    shifted.checked_sub(stated).ok_or_else(|| {
        Error::malformed(format!(
            "the central directory sits at offset {shifted}, {} bytes before where the end record at byte {} \
             says: bytes are missing before it",
            stated - shifted,
            dir.record
        ))
    })
}

/// The bytes a central directory takes from `from`, if a reader could take one to start there:
/// `dir.entries` records, each with its signature and ending before the end records (as unzip
/// walks a directory, by its count), or records with their signatures until `dir.size` bytes are
/// taken, whatever their count and wherever they end (as Python walks it, by its size). Nothing
/// else about the records (names, sizes, local headers) is judged: a reading another reader
/// takes is a reading.
fn walks(data: &Window<'_>, dir: &Directory, from: u64) -> Option<u64> {
    let record_len = |at: u64| -> Option<u64> {
        let header = data.get(at as usize..at as usize + 46)?;
        (u32_at(header, 0) == Some(CENTRAL_SIG))
            .then(|| 46 + [28, 30, 32].map(|o| u64::from(u16_at(header, o).expect("inside"))).iter().sum::<u64>())
    };
    let by_count = || {
        let mut at = from;
        for _ in 0..dir.entries {
            at += record_len(at)?;
            if at > dir.end {
                return None;
            }
        }
        Some(at - from)
    };
    // Python reads a record's name, extra field and comment short where the file ends, and goes on.
    let by_size = || {
        let mut at = from;
        while at - from < dir.size {
            at += record_len(at)?;
        }
        Some(at - from)
    };
    by_count().or_else(by_size)
}

/// Like [`read_entries`], also saying how many bytes were prepended.
pub fn read_archive(data: &[u8]) -> Result<Layout, Error> {
    read_checked(data).map(|(layout, _)| layout)
}

/// Like [`read_archive`], with the entries' index by name.
pub(crate) fn read_checked(data: &[u8]) -> Result<(Layout, Locals), Error> {
    parse(&Window::whole(data), false)
}

/// The lowest offset a parse of the central directory reads, as the end records in `data` say
/// (`None` when they cannot be read from it): where to read from when `data` holds too little.
pub(crate) fn central_start(data: &Window<'_>) -> Option<u64> {
    let (dir, _, _) = find_end(data).ok()?;
    // The ZIP64 end record where the locator says, when that is not where it was found: a parse
    // reads it to tell whether it is a second reading.
    let locator = (dir.record as usize).checked_sub(20).filter(|&at| data.u32(at) == Some(ZIP64_LOCATOR_SIG));
    let zip64_stated = locator.and_then(|at| data.u64(at + 8)).unwrap_or(u64::MAX);
    Some(dir.offset.min(dir.end.saturating_sub(dir.size)).min(zip64_stated))
}

/// Like [`read_archive`], touching only the end records and the central directory: every check
/// of the central directory is made, and entries whose smallest possible extents overlap are
/// refused; each entry's local header is left to [`check_local`], with what it needs. The
/// entries' `data_offset` is 0 until then. Opening an archive this way costs what its central
/// directory costs, not a page fault and a cache miss per entry.
pub(crate) fn read_central(data: &Window<'_>) -> Result<(Layout, Locals), Error> {
    parse(data, true)
}

/// Copies the central names that `locals` refer to out of `central` into one buffer, and points
/// them at it: all that checking local headers needs of the central directory, so that a reader
/// need not hold the directory itself (a third of it, or less, for archives with extra fields).
pub(crate) fn compact_names(central: &Window<'_>, locals: &mut Locals) -> Result<Vec<u8>, Error> {
    let refs = || locals.entries.iter().chain(locals.symlinks.iter().map(|(l, _)| l));
    let mut names = Vec::with_capacity(refs().map(|l| l.name_len).sum());
    for local in locals.entries.iter_mut().chain(locals.symlinks.iter_mut().map(|(l, _)| l)) {
        let name = central
            .get(local.name_at..local.name_at + local.name_len)
            .ok_or_else(|| Error::malformed("a central name is not held"))?;
        local.name_at = names.len();
        names.extend_from_slice(name);
    }
    Ok(names)
}

/// In a span's slot: entry `i` is `i`; the `k`-th symlink is `SYMLINK - k` (from
/// `SYMLINK_BASE` up: far above any entry count the parser lets through).
const SYMLINK: usize = usize::MAX;
const SYMLINK_BASE: usize = usize::MAX / 2;

/// The local headers [`read_central`] leaves to check: each entry's, and each symlink's (never
/// read in place, checked only by those who check every local header at open).
#[derive(Debug, Default)]
pub(crate) struct Locals {
    pub(crate) entries: Vec<LocalRef>,
    pub(crate) symlinks: Vec<(LocalRef, Entry)>,
    /// The entries by name, checked to be able to exist together.
    pub(crate) index: NameIndex,
}

fn parse(data: &Window<'_>, defer_local: bool) -> Result<(Layout, Locals), Error> {
    let (dir, appended, comment_truncated) = find_end(data)?;
    let prepended = prepended_bytes(data, &dir)?;
    parse_directory(data, dir, prepended, (appended, comment_truncated), defer_local)
}

/// Parses the central directory `dir` describes, every offset shifted by `prepended`, and (unless
/// `defer_local`) every local header.
fn parse_directory(
    data: &Window<'_>,
    mut dir: Directory,
    prepended: u64,
    (appended, comment_truncated): (u64, bool),
    defer_local: bool,
) -> Result<(Layout, Locals), Error> {
    dir.offset += prepended;
    let len = data.len() as u64;
    let cd_end =
        dir.offset.checked_add(dir.size).ok_or_else(|| Error::malformed("central directory size overflows"))?;
    if cd_end > dir.end || cd_end > len {
        return Err(Error::malformed("the central directory runs past the end records"));
    }
    if dir.entries > dir.size / 46 {
        // Never trust a count to size an allocation: each entry takes at least 46 bytes.
        return Err(Error::malformed(format!(
            "{} entries cannot fit in a {}-byte central directory",
            dir.entries, dir.size
        )));
    }
    let mut entries = Vec::with_capacity(dir.entries as usize);
    let mut symlinks = Vec::new();
    let mut spans: Vec<(u64, u64, usize)> = Vec::with_capacity(dir.entries as usize);
    let mut locals: Vec<LocalRef> = Vec::with_capacity(if defer_local { dir.entries as usize } else { 0 });
    let mut symlink_locals: Vec<(LocalRef, Entry)> = Vec::new();
    let mut at = dir.offset as usize;
    for _ in 0..dir.entries {
        let header = data.get(at..at + 46).ok_or_else(|| truncated("a central directory entry"))?;
        if u32_at(header, 0) != Some(CENTRAL_SIG) {
            return Err(Error::malformed(format!("bad central directory entry signature at {at}")));
        }
        let f16 = |o| u16_at(header, o).expect("inside");
        let f32 = |o| u32_at(header, o).expect("inside");
        let (made_by, flags, method) = (f16(4), f16(8), f16(10));
        let dos = u32::from(f16(14)) << 16 | u32::from(f16(12));
        let (name_len, extra_len, comment_len) = (usize::from(f16(28)), usize::from(f16(30)), usize::from(f16(32)));
        let total = 46 + name_len + extra_len + comment_len;
        if at as u64 + total as u64 > cd_end {
            return Err(truncated("a central directory entry"));
        }
        let raw_name = data.get(at + 46..at + 46 + name_len).ok_or_else(|| truncated("a central directory entry"))?;
        let extra = data
            .get(at + 46 + name_len..at + 46 + name_len + extra_len)
            .ok_or_else(|| truncated("a central directory entry"))?;
        let display = Shown(raw_name);
        if !extra_fields_fit(extra) {
            return Err(Error::malformed_entry(
                "central directory extra field disagrees with its own length",
                &display.text(),
            ));
        }
        let (mut size, mut csize, mut offset) = (u64::from(f32(24)), u64::from(f32(20)), u64::from(f32(42)));
        let mut disk = u32::from(f16(34));
        zip64_extra(extra, &mut size, &mut csize, Some(&mut offset), Some(&mut disk), display)?;
        let offset =
            offset.checked_add(prepended).ok_or_else(|| Error::malformed_entry("offset overflows", &display.text()))?;
        if disk != 0 {
            return Err(Error::malformed_entry("entry on another disk", &display.text()));
        }
        if flags & 0x41 != 0 {
            let scheme = match (method, flags & 0x40 != 0) {
                (_, true) => "PKWARE strong encryption",
                (99, _) => "WinZip AES",
                _ => "ZipCrypto",
            };
            return Err(Error::Encrypted { entry: display.text(), scheme });
        }
        let unix_mode = if made_by >> 8 == 3 { Some(f32(38) >> 16) } else { None };
        if names::is_symlink(unix_mode) {
            let method = Method::from_code(f16(10))
                .ok_or_else(|| Error::UnsupportedMethod { entry: display.text(), method: f16(10) })?;
            let span_end = if defer_local {
                if offset >= dir.offset {
                    return Err(Error::malformed_entry(
                        "local header is not before the central directory",
                        &display.text(),
                    ));
                }
                let local =
                    LocalRef { header_offset: offset, name_at: at + 46, name_len, flags, dos, limit: dir.offset };
                let entry = Entry {
                    path: display.text(),
                    kind: Kind::File,
                    mode: 0,
                    method,
                    crc32: f32(16),
                    compressed_size: csize,
                    size,
                    data_offset: 0,
                    mtime: Mtime::Dos(0),
                };
                symlink_locals.push((local, entry));
                smallest_end(offset, name_len, csize, display)?
            } else {
                local_data(
                    data,
                    &Central {
                        offset,
                        limit: dir.offset,
                        name: raw_name,
                        method: method.code(),
                        flags,
                        dos,
                        crc: f32(16),
                        csize,
                        size,
                    },
                )?
                .1
            };
            spans.push((offset, span_end, SYMLINK - (symlinks.len())));
            symlinks.push(display.text());
            at += total;
            continue;
        }
        let (path, kind, mode) = names::check(raw_name, flags & 0x800 != 0, (made_by >> 8) as u8, unix_mode)?;
        let method =
            Method::from_code(method).ok_or_else(|| Error::UnsupportedMethod { entry: display.text(), method })?;
        if method == Method::Stored && csize != size {
            return Err(Error::malformed_entry("stored entry whose sizes differ", &display.text()));
        }
        // A declared size beyond what deflate can reach is a lie, refused before anything is
        // allocated for it.
        let ceiling = strided_inflate::max_inflated_len(usize::try_from(csize).unwrap_or(usize::MAX)) as u64;
        if method == Method::Deflate && size > ceiling {
            return Err(Error::malformed_entry("declared size larger than its data can inflate to", &display.text()));
        }
        let (data_offset, span_end) = if defer_local {
            if offset >= dir.offset {
                return Err(Error::malformed_entry(
                    "local header is not before the central directory",
                    &display.text(),
                ));
            }
            locals.push(LocalRef { header_offset: offset, name_at: at + 46, name_len, flags, dos, limit: dir.offset });
            (0, smallest_end(offset, name_len, csize, display)?)
        } else {
            local_data(
                data,
                &Central {
                    offset,
                    limit: dir.offset,
                    name: raw_name,
                    method: method.code(),
                    flags,
                    dos,
                    crc: f32(16),
                    csize,
                    size,
                },
            )?
        };
        spans.push((offset, span_end, entries.len()));
        let mtime = mtime_of(extra, dos);
        entries.push(Entry {
            path,
            kind,
            mode,
            method,
            crc32: f32(16),
            compressed_size: csize,
            size,
            data_offset,
            mtime,
        });
        at += total;
    }
    if at as u64 != cd_end {
        return Err(Error::malformed("the central directory's size disagrees with its entries"));
    }
    // No two entries may share bytes: overlapping entries are how the smallest zip bombs work.
    spans.sort_unstable();
    for pair in spans.windows(2) {
        if pair[1].0 < pair[0].1 {
            let name = entries.get(pair[1].2).map_or("a symlink entry", |e: &Entry| e.path.as_str());
            return Err(Error::malformed_entry("entries overlap (shared data)", name));
        }
    }
    if defer_local {
        // Each entry must end by the next one's local header (or the central directory): the
        // exact check, once its local header gives its exact extent.
        for (k, &(_, _, index)) in spans.iter().enumerate() {
            let limit = spans.get(k + 1).map_or(dir.offset, |next| next.0);
            match index.checked_sub(SYMLINK_BASE) {
                None => locals[index].limit = limit,
                Some(_) => symlink_locals[SYMLINK - index].0.limit = limit,
            }
        }
    }
    let index = NameIndex::checked(&entries)?;
    let layout = Layout { entries, prepended, appended, comment_truncated, symlinks };
    Ok((layout, Locals { entries: locals, symlinks: symlink_locals, index }))
}

/// The least an entry at `offset` can occupy: a local header with no extra field, the same name
/// as in the central directory, and its data.
fn smallest_end(offset: u64, name_len: usize, csize: u64, display: Shown<'_>) -> Result<u64, Error> {
    offset
        .checked_add(30 + name_len as u64)
        .and_then(|v| v.checked_add(csize))
        .ok_or_else(|| Error::malformed_entry("size overflows", &display.text()))
}
