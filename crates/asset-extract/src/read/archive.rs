//! Reading a zip's structure strictly: the end record, ZIP64 records, the central directory and
//! every local header, each checked against the others before a single byte is written.

#![forbid(unsafe_code)]

use crate::Error;
use crate::read::bytes::{CENTRAL_SIG, Shown, Window, ZIP64_LOCATOR_SIG, truncated, u16_at, u32_at, u64_at};
use crate::read::end_records::{Directory, find_end};
use crate::read::extra::{extra_fields_fit, zip64_extra};
use crate::read::local::{Central, local_data};
use crate::read::name_index::NameIndex;
use crate::read::names::{self, Kind};

/// Compression of an entry's data: the methods bufkit reads. Every other method an archive names
/// is refused at open with [`Error::UnsupportedMethod`], which names it ([`method_name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Stored as is (0).
    Stored,
    /// Raw deflate (8).
    Deflate,
    /// Deflate64, "enhanced deflate" (9): what Windows Explorer writes for large files.
    Deflate64,
    /// bzip2 (12).
    Bzip2,
    /// LZMA (14), as APPNOTE 5.8.8 frames it: a version, the properties, the raw stream.
    Lzma,
    /// Zstandard (93, APPNOTE 6.3.8).
    Zstd,
    /// XZ (95).
    Xz,
}

impl Method {
    /// The method of number `code` in a zip header, if bufkit reads it.
    pub fn from_code(code: u16) -> Option<Method> {
        Some(match code {
            0 => Method::Stored,
            8 => Method::Deflate,
            9 => Method::Deflate64,
            12 => Method::Bzip2,
            14 => Method::Lzma,
            93 => Method::Zstd,
            95 => Method::Xz,
            _ => return None,
        })
    }

    /// The method's number in a zip header.
    ///
    /// ```
    /// use asset_extract::Method;
    /// assert_eq!(Method::from_code(93), Some(Method::Zstd));
    /// assert_eq!(Method::Zstd.code(), 93);
    /// assert_eq!(Method::from_code(98), None); // PPMd: refused
    /// ```
    pub fn code(self) -> u16 {
        match self {
            Method::Stored => 0,
            Method::Deflate => 8,
            Method::Deflate64 => 9,
            Method::Bzip2 => 12,
            Method::Lzma => 14,
            Method::Zstd => 93,
            Method::Xz => 95,
        }
    }

    /// The method's name, as `bufkit ls` shows it.
    pub fn name(self) -> &'static str {
        method_name(self.code())
    }
}

/// The name of zip compression method `code` (APPNOTE 4.4.5), for messages: "PPMd" for 98;
/// "unknown" for numbers APPNOTE does not assign.
pub fn method_name(code: u16) -> &'static str {
    match code {
        0 => "stored",
        1 => "shrink",
        2..=5 => "reduce",
        6 => "implode",
        8 => "deflate",
        9 => "deflate64",
        10 => "PKWARE DCL implode",
        12 => "bzip2",
        14 => "lzma",
        16 => "IBM z/OS CMPSC",
        18 => "IBM TERSE",
        19 => "IBM LZ77 z",
        20 => "zstd (deprecated number 20)",
        93 => "zstd",
        94 => "MP3",
        95 => "xz",
        96 => "JPEG variant",
        97 => "WavPack",
        98 => "PPMd",
        99 => "AE-x encryption",
        _ => "unknown",
    }
}

/// One entry, validated: its name is safe, its data lies inside the archive, alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The relative path to create (`/`-separated, no `..`, no trailing `/`).
    pub path: String,
    /// File or directory.
    pub kind: Kind,
    /// Permission bits to create it with (already masked: no setuid/setgid/sticky).
    pub mode: u32,
    /// How the data is stored.
    pub method: Method,
    /// CRC-32 of the extracted data.
    pub crc32: u32,
    /// Bytes of data in the archive.
    pub compressed_size: u64,
    /// Bytes once extracted.
    pub size: u64,
    /// Where the data starts in the archive.
    pub data_offset: u64,
    /// When it was last modified, as the archive records it.
    pub mtime: Mtime,
}

impl crate::read::name_index::Named for Entry {
    fn path(&self) -> &str {
        &self.path
    }
    fn kind(&self) -> Kind {
        self.kind
    }
}

/// An entry's modification time as recorded: a Unix time from its extended-timestamp (0x5455) or
/// NTFS (0x000a) extra field, else the DOS date and time every entry has, which has no time zone
/// (`unzip` reads it as local time, and so does [`Mtime::unix`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mtime {
    /// Seconds and nanoseconds since the Unix epoch.
    Unix {
        /// Whole seconds (negative before 1970).
        secs: i64,
        /// Nanoseconds past them.
        nanos: u32,
    },
    /// The DOS date (high 16 bits) and time (low 16 bits), 2-second resolution.
    Dos(u32),
}

impl Mtime {
    /// As seconds and nanoseconds since the Unix epoch: a DOS time read as local time (the
    /// process's time zone, as `unzip` does); `None` for a DOS time that is no date.
    pub fn unix(self) -> Option<(i64, u32)> {
        match self {
            Mtime::Unix { secs, nanos } => Some((secs, nanos)),
            Mtime::Dos(dos) => {
                // Most archives give most entries one time (a build's, or 1980's): each thread
                // converts it once, not once per entry (a conversion asks the C library for the
                // zone's offset several times, under a lock all threads share).
                thread_local!(static LAST: std::cell::Cell<Option<(u32, Option<i64>)>> = const { std::cell::Cell::new(None) });
                if let Some((last, secs)) = LAST.get()
                    && last == dos
                {
                    return secs.map(|secs| (secs, 0));
                }
                let secs = Self::dos_to_unix(dos);
                LAST.set(Some((dos, secs)));
                secs.map(|secs| (secs, 0))
            }
        }
    }

    /// A DOS date and time, read as local time, as seconds since the Unix epoch.
    fn dos_to_unix(dos: u32) -> Option<i64> {
        let (date, time) = (dos >> 16, dos & 0xffff);
        let (month, day) = (((date >> 5) & 0xf) as i32, (date & 0x1f) as i32);
        if !(1..=12).contains(&month) || day == 0 {
            return None;
        }
        let (year, hour, minute, second) =
            ((1980 + (date >> 9)) as i32, (time >> 11) as i32, ((time >> 5) & 0x3f) as i32, ((time & 0x1f) * 2) as i32);
        crate::sys::local_time_to_unix(year, month, day, hour, minute, second)
    }
}

/// The modification time an entry's central extra field records (extended timestamp, then NTFS),
/// else its DOS date and time.
pub(crate) fn mtime_of(extra: &[u8], dos: u32) -> Mtime {
    let mut at = 0;
    let mut ntfs = None;
    while let (Some(id), Some(len)) = (u16_at(extra, at), u16_at(extra, at + 2)) {
        let Some(body) = extra.get(at + 4..at + 4 + usize::from(len)) else { break };
        match id {
            // Extended timestamp: flags, then the modification time first when bit 0 is set.
            0x5455 if body.first().is_some_and(|f| f & 1 != 0) => {
                if let Some(secs) = u32_at(body, 1).and_then(|t| ut_seconds(t, dos)) {
                    return Mtime::Unix { secs, nanos: 0 };
                }
            }
            // NTFS: 4 reserved bytes, then tagged attributes; tag 1 holds the modification,
            // access and creation times, in 100 ns since 1601.
            0x000a => {
                let mut t = 4;
                while let (Some(tag), Some(size)) = (u16_at(body, t), u16_at(body, t + 2)) {
                    if tag == 1 && size >= 8 {
                        if let Some(ticks) = u64_at(body, t + 4) {
                            const EPOCH_GAP: i64 = 11_644_473_600; // 1601 to 1970, in seconds
                            let secs = (ticks / 10_000_000) as i64 - EPOCH_GAP;
                            ntfs = Some(Mtime::Unix { secs, nanos: (ticks % 10_000_000) as u32 * 100 });
                        }
                        break;
                    }
                    t += 4 + usize::from(size);
                }
            }
            _ => {}
        }
        at += 4 + usize::from(len);
    }
    ntfs.unwrap_or(Mtime::Dos(dos))
}

/// The extended timestamp's 32 bits as seconds since 1970, read as Info-ZIP unzip reads them on a
/// 64-bit system: as unsigned (1970 to 2106). With the high bit set (2038 on) the value is taken
/// only when the entry's DOS date is 2038-01-18 or later, which it is when a writer with a 64-bit
/// clock wrote it; else it is a signed time before 1970 from a 32-bit writer, or garbage, and
/// the field is passed over for the NTFS or DOS time (`None`), which every reader then agrees on.
fn ut_seconds(t: u32, dos: u32) -> Option<i64> {
    const DOS_2038_01_18: u32 = 0x7432_0000;
    (t & 0x8000_0000 == 0 || dos >= DOS_2038_01_18).then_some(i64::from(t))
}

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

/// Where an entry's local header is and what it must agree with, for a check made later (the
/// first time the entry is read) instead of at open: see [`read_central`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalRef {
    /// Where the local header starts.
    header_offset: u64,
    /// Where the entry's name lies in the archive (in its central directory record).
    name_at: usize,
    name_len: usize,
    flags: u16,
    /// The central record's DOS date (high 16 bits) and time (low 16 bits).
    dos: u32,
    /// Where the next entry's local header (or the central directory) starts: the entry, its data
    /// descriptor included, must end by there.
    limit: u64,
}

impl LocalRef {
    /// Where the local header starts.
    pub(crate) fn header_offset(&self) -> u64 {
        self.header_offset
    }

    /// Where the entry must end by.
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// The name's length in the central directory (the local one must be the same).
    pub(crate) fn name_len(&self) -> usize {
        self.name_len
    }

    /// Whether a data descriptor follows the data.
    pub(crate) fn has_descriptor(&self) -> bool {
        self.flags & 0x08 != 0
    }
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

/// Checks entry `e`'s local header in `data` as [`read_archive`] does (against its central
/// record, whose name `central` holds, and its extent against the next entry's) and returns where
/// its data starts. `data` needs only the local header and, for an entry with a data descriptor,
/// the descriptor (see [`LocalRef::descriptor_at`]).
pub(crate) fn check_local(central: &Window<'_>, data: &Window<'_>, local: &LocalRef, e: &Entry) -> Result<u64, Error> {
    let name = central
        .get(local.name_at..local.name_at + local.name_len)
        .ok_or_else(|| Error::malformed_entry("central name not held", &e.path))?;
    let central = Central {
        offset: local.header_offset,
        limit: local.limit,
        name,
        method: e.method.code(),
        flags: local.flags,
        dos: local.dos,
        crc: e.crc32,
        csize: e.compressed_size,
        size: e.size,
    };
    let (data_offset, _) = local_data(data, &central)?;
    Ok(data_offset)
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

#[cfg(test)]
mod tests {
    use super::Mtime;

    #[test]
    fn a_remembered_dos_time_converts_as_a_fresh_one() {
        let dos = |(y, mo, d): (u32, u32, u32), (h, mi, s): (u32, u32, u32)| {
            (((y - 1980) << 9 | mo << 5 | d) << 16) | (h << 11 | mi << 5 | (s / 2))
        };
        let summer = dos((2020, 6, 15), (13, 45, 30));
        let winter = dos((2021, 1, 2), (3, 4, 6));
        let no_date = 0; // month 0: no date
        // Repeats, alternations and a time that is no date, as a thread meets them entry by entry.
        for value in [summer, summer, winter, summer, no_date, no_date, winter, winter, summer] {
            let expected = Mtime::dos_to_unix(value).map(|secs| (secs, 0));
            assert_eq!(Mtime::Dos(value).unix(), expected, "{value:#x}");
        }
        assert_eq!(Mtime::Dos(no_date).unix(), None);
        assert_ne!(Mtime::Dos(summer).unix(), Mtime::Dos(winter).unix());
    }
}
