//! The end records: the end of central directory record, the ZIP64 locator and end record, and
//! where they put the central directory. Every end record that could be the archive's is read; if
//! they disagree, the archive is refused as ambiguous.

#![forbid(unsafe_code)]

use crate::Error;
use crate::read::bytes::{CENTRAL_SIG, EOCD_SIG, Window, ZIP64_EOCD_SIG, ZIP64_LOCATOR_SIG, truncated};

/// The central directory's location and size, from the end records.
#[derive(Debug, Clone, Copy)]
pub(super) struct Directory {
    pub(super) offset: u64,
    pub(super) size: u64,
    pub(super) entries: u64,
    /// Where the end records start (the ZIP64 end record, if there is one): the directory must
    /// end at or before it.
    pub(super) end: u64,
    /// Where the end of central directory record this reading comes from starts.
    pub(super) record: u64,
}

impl Directory {
    /// Whether two readings describe the same central directory, wherever a reader looks for it:
    /// at the offset the record gives, or (as readers that allow for prepended data do) right
    /// before the end records. Two distinct end records never agree on the second, unless they
    /// share one ZIP64 end record.
    fn same_as(&self, other: &Directory) -> bool {
        (self.offset, self.size, self.entries, self.end) == (other.offset, other.size, other.entries, other.end)
    }

    /// Whether this could be a reading of the archive at all, for an end record at `pos`: its
    /// directory lies before its end records and can hold its entries. Bytes that merely look like
    /// an end record (a comment mentioning one, compressed data) fail this; a planted second
    /// record, describing another directory, passes and makes the archive ambiguous.
    fn plausible(&self, pos: usize) -> bool {
        self.offset.checked_add(self.size).is_some_and(|end| end <= self.end.min(pos as u64))
            && self.entries <= self.size / 46
    }
}

/// Finds the end of central directory record: says how many bytes follow it and its comment,
/// and whether its comment runs past the end of the file (a truncated comment, which `unzip` and
/// Python read past). Every end record that reaches the end of the file is a reading of the
/// archive: the last one, and any inside its comment. They must all describe the same central
/// directory, or the archive is refused as ambiguous rather than guessed between. Failing any,
/// data appended after the archive is read past when one record (or several that agree) fits.
pub(super) fn find_end(data: &Window<'_>) -> Result<(Directory, u64, bool), Error> {
    if data.len() < 22 {
        return Err(Error::malformed("too short for an end of central directory record"));
    }
    let lowest = data.len().saturating_sub(22 + 0xffff);
    // (position, directory, comment truncated), last first.
    let signatures: Vec<usize> = end_signatures(data, lowest).collect();
    let reach = |pos: usize| pos + 22 + usize::from(data.u16(pos + 20).unwrap_or(0));
    // The first record whose comment reaches the end of the file: from it on, everything is
    // comment, and every record in it a reading too (readers that take the last signature in the
    // file take one of those).
    let outermost = signatures.iter().copied().filter(|&pos| reach(pos) >= data.len()).min();
    let mut readings: Vec<Reading> = Vec::new();
    // The last record that reaches the end but cannot be a reading, or the error it gave: what is
    // said about the archive when nothing else reads it (the parse then says what is wrong).
    let mut implausible = None;
    for &pos in signatures.iter().filter(|&&pos| outermost.is_some_and(|outer| pos >= outer)) {
        let truncated = reach(pos) > data.len();
        match record_at(data, pos) {
            Err(e @ Error::Ambiguous { .. }) => return Err(e),
            // A record this library refuses (another disk, counts that disagree) that still
            // describes a directory is a reading other readers take: it must agree with the rest.
            Ok((dir, refusal)) if dir.plausible(pos) => readings.push(Reading { pos, dir, truncated, refusal }),
            other if reach(pos) >= data.len() => {
                implausible.get_or_insert(other.and_then(|(dir, refusal)| refusal.map_or(Ok((dir, truncated)), Err)));
            }
            _ => {} // bytes in a comment that only look like a record
        }
    }
    if let Some(reading) = agreeing(readings)? {
        return Ok((within_limits(reading.dir)?, 0, reading.truncated));
    }
    if let Some(last) = implausible {
        let (dir, truncated) = last?;
        return Ok((within_limits(dir)?, 0, truncated));
    }
    let (pos, dir) = end_before_appended_data(data)?;
    let appended = (data.len() - (pos + 22 + usize::from(data.u16(pos + 20).unwrap_or(0)))) as u64;
    Ok((within_limits(dir)?, appended, false))
}

/// One end record read as a description of the central directory.
#[derive(Debug)]
struct Reading {
    /// Where the end record starts.
    pos: usize,
    dir: Directory,
    /// Its comment runs past the end of the file.
    truncated: bool,
    /// Why this library refuses the archive as this record describes it, though other readers
    /// read it (another disk; entry counts that disagree).
    refusal: Option<Error>,
}

/// The reading all of `readings` agree on (the one whose comment fits the file, else the first),
/// `None` if there are none; refused as ambiguous if two describe different central directories,
/// and with its refusal if any of them is refused.
fn agreeing(mut readings: Vec<Reading>) -> Result<Option<Reading>, Error> {
    let Some(first) = readings.first() else { return Ok(None) };
    if let Some(other) = readings.iter().find(|r| !r.dir.same_as(&first.dir)) {
        let (a, b) = if other.pos < first.pos { (other, first) } else { (first, other) };
        return Err(Error::Ambiguous {
            reason: format!(
                "the end record at byte {} reads {} entries in {} bytes at offset {}, the one at byte {} \
                 reads {} entries in {} bytes at offset {}",
                a.pos, a.dir.entries, a.dir.size, a.dir.offset, b.pos, b.dir.entries, b.dir.size, b.dir.offset
            ),
        });
    }
    if let Some(refused) = readings.iter_mut().find_map(|r| r.refusal.take()) {
        return Err(refused);
    }
    let chosen = readings.iter().position(|r| !r.truncated).unwrap_or(0);
    Ok(Some(readings.swap_remove(chosen)))
}

/// The directory the end record at `pos` describes (its own fields, or ZIP64's where they say
/// so), and why this library refuses it if it does while the record still reads (another disk, entry counts that disagree): other readers take
/// such a record, so it is a reading the others must agree with.
fn record_at(data: &Window<'_>, pos: usize) -> Result<(Directory, Option<Error>), Error> {
    let field = |at| data.u16(pos + at).expect("inside the record");
    // Disk numbers of all ones defer to the ZIP64 record (some writers saturate every field).
    let deferred_disks = field(4) == 0xffff && field(6) == 0xffff;
    let mut refusal = None;
    if (field(4) != 0 || field(6) != 0) && !deferred_disks {
        refusal = Some(Error::malformed("multi-disk archives are not supported"));
    }
    let dir = Directory {
        entries: u64::from(field(10)),
        size: u64::from(data.u32(pos + 12).expect("inside")),
        offset: u64::from(data.u32(pos + 16).expect("inside")),
        end: pos as u64,
        record: pos as u64,
    };
    let disk_entries = u64::from(field(8));
    let saturated = [disk_entries == 0xffff, dir.entries == 0xffff, dir.size == 0xffff_ffff, dir.offset == 0xffff_ffff];
    if !saturated[0] && !saturated[1] && disk_entries != dir.entries {
        refusal.get_or_insert(Error::malformed("entry counts disagree"));
    }
    if saturated.contains(&true) || deferred_disks {
        let wide = zip64_end(data, pos)?;
        // Every field not saturated must say what the ZIP64 record says: a reader that takes the
        // 32-bit value where it is not saturated (Go, unzip) and one that takes ZIP64's (Python)
        // would read two archives.
        let disagree = [
            (!saturated[0] && disk_entries != wide.entries, "entries on this disk", disk_entries, wide.entries),
            (!saturated[1] && dir.entries != wide.entries, "entries", dir.entries, wide.entries),
            (!saturated[2] && dir.size != wide.size, "directory size", dir.size, wide.size),
            (!saturated[3] && dir.offset != wide.offset, "directory offset", dir.offset, wide.offset),
        ];
        if let Some(&(_, what, narrow, wide_value)) = disagree.iter().find(|d| d.0) {
            return Err(Error::Ambiguous {
                reason: format!("the end record's {what} is {narrow}, its ZIP64 record's {wide_value}"),
            });
        }
        return Ok((wide, refusal));
    }
    // A ZIP64 locator before a record that needs none: readers that always follow it (Python)
    // and readers that follow it only for saturated fields (Go, unzip) must read the same thing.
    // The end records then start at its ZIP64 record, where the directory must end.
    if pos >= 20 && data.u32(pos - 20) == Some(ZIP64_LOCATOR_SIG) {
        match zip64_end(data, pos) {
            Ok(wide) if (wide.entries, wide.size, wide.offset) != (dir.entries, dir.size, dir.offset) => {
                return Err(Error::Ambiguous {
                    reason: format!(
                        "the end record at byte {pos} reads {} entries in {} bytes at offset {}, its ZIP64 record \
                         {} entries in {} bytes at offset {}",
                        dir.entries, dir.size, dir.offset, wide.entries, wide.size, wide.offset
                    ),
                });
            }
            Ok(wide) => return Ok((Directory { end: wide.end, ..dir }, refusal)),
            Err(e @ Error::Ambiguous { .. }) => return Err(e),
            Err(_) => {}
        }
    }
    Ok((dir, refusal))
}

/// Where an end record's signature appears in `data[lowest..]` with a whole record's 22 bytes
/// after it, last first. Every open scans up to 64 KiB for them, so the scan is SIMD: found
/// forwards (memchr's reverse search is not vectorized) and handed out backwards.
fn end_signatures(data: &Window<'_>, lowest: usize) -> impl Iterator<Item = usize> {
    const EOCD_BYTES: [u8; 4] = EOCD_SIG.to_le_bytes();
    let mut found = Vec::new();
    for_each_match(data.from(lowest).unwrap_or(&[]), &EOCD_BYTES, |at| {
        if lowest + at + 22 <= data.len() {
            found.push(lowest + at);
        }
    });
    found.into_iter().rev()
}

/// Calls `found` with every position of `needle` in `haystack`, in order. On x86_64 with SSE2
/// (part of the architecture) rather than through memchr's front door: that one asks the CPU for
/// AVX2 first, and std's CPU detection runs a dozen `cpuid`s, each a trap to the hypervisor on a
/// virtual machine: about 80 µs of a `bufkit cat` that took 1.3 ms, for a 64 KiB scan that SSE2
/// does in a few microseconds.
#[cfg(target_arch = "x86_64")]
fn for_each_match(haystack: &[u8], needle: &[u8], mut found: impl FnMut(usize)) {
    let mut from = 0;
    if let Some(finder) = memchr::arch::x86_64::sse2::packedpair::Finder::new(needle) {
        while haystack.len() - from >= finder.min_haystack_len() {
            match finder.find(&haystack[from..], needle) {
                Some(at) => {
                    found(from + at);
                    from += at + 1;
                }
                None => return,
            }
        }
    }
    // What the SIMD search cannot take (shorter than its vector), byte by byte.
    for at in from..haystack.len() {
        if haystack[at..].starts_with(needle) {
            found(at);
        }
    }
}

/// Calls `found` with every position of `needle` in `haystack`, in order: memchr's `memmem`
/// (NEON on aarch64, part of that architecture too, so no CPU detection runs).
#[cfg(not(target_arch = "x86_64"))]
fn for_each_match(haystack: &[u8], needle: &[u8], found: impl FnMut(usize)) {
    memchr::memmem::find_iter(haystack, needle).for_each(found);
}

/// How far back from the end of the file an end record followed by appended data is looked for.
pub(crate) const APPENDED_SEARCH: usize = 1 << 20;

/// The most entries an archive may declare: 4,194,304. More is refused before anything is
/// allocated for them (an index of this many entries already takes hundreds of MiB).
pub const MAX_ENTRIES: u64 = 1 << 22;

/// The largest central directory an archive may declare: 512 MiB. More is refused before any of
/// it is read.
pub const MAX_CENTRAL_DIRECTORY: u64 = 512 << 20;

/// Refuses a directory larger than the limits above.
fn within_limits(dir: Directory) -> Result<Directory, Error> {
    if dir.entries > MAX_ENTRIES {
        return Err(Error::malformed(format!(
            "{} entries declared: more than the limit of {MAX_ENTRIES}",
            dir.entries
        )));
    }
    if dir.size > MAX_CENTRAL_DIRECTORY {
        return Err(Error::malformed(format!(
            "a central directory of {} bytes declared: more than the limit of {MAX_CENTRAL_DIRECTORY}",
            dir.size
        )));
    }
    Ok(dir)
}

/// When no end record reaches the end of the file: the end record followed by other data whose
/// central directory (as its own fields say, or ZIP64's) ends right where the end records begin
/// and starts with a central directory signature, or that of an empty archive. Several such
/// records must describe the same directory, or the archive is ambiguous.
fn end_before_appended_data(data: &Window<'_>) -> Result<(usize, Directory), Error> {
    let lowest = data.len().saturating_sub(22 + APPENDED_SEARCH);
    let mut readings: Vec<Reading> = Vec::new();
    for pos in end_signatures(data, lowest) {
        if pos + 22 + usize::from(data.u16(pos + 20).unwrap_or(0)) > data.len() {
            continue;
        }
        let size = data.u32(pos + 12).map_or(0, |v| v as usize);
        // The end records start at the ZIP64 record when there is a locator before this one.
        let records = match pos.checked_sub(20).filter(|&l| data.u32(l) == Some(ZIP64_LOCATOR_SIG)) {
            Some(locator) => locator.saturating_sub(56),
            None => pos,
        };
        let zip64_size = (records != pos).then(|| data.u64(records + 40).map_or(0, |v| v as usize));
        let cd = records.checked_sub(zip64_size.unwrap_or(size));
        // An empty archive has no directory to find: its record alone is the reading (zip2 and
        // Python read one whose comment is shorter than the bytes after it).
        let empty = records == pos && [8, 10].map(|f| data.u16(pos + f)) == [Some(0); 2] && size == 0;
        if empty || cd.is_some_and(|cd| data.u32(cd) == Some(CENTRAL_SIG)) {
            let (dir, refusal) = record_at(data, pos)?;
            readings.push(Reading { pos, dir, truncated: false, refusal });
        }
    }
    match agreeing(readings)? {
        Some(reading) => Ok((reading.pos, reading.dir)),
        None => Err(Error::malformed("no end of central directory record (or its comment length passes the end)")),
    }
}

/// Reads the ZIP64 end record through its locator, which must sit just before the end record.
/// The record may be where the locator says, or right before the locator (where Python always
/// reads it, and where it sits when other bytes before the archive shift everything): two
/// records there that describe different directories are two readings, refused as ambiguous.
fn zip64_end(data: &Window<'_>, eocd: usize) -> Result<Directory, Error> {
    let at = eocd.checked_sub(20).ok_or_else(|| Error::malformed("ZIP64 fields but no room for a ZIP64 locator"))?;
    if data.u32(at) != Some(ZIP64_LOCATOR_SIG) {
        return Err(Error::malformed("ZIP64 fields but no ZIP64 locator"));
    }
    // The disk holding the ZIP64 end record, and the number of disks (1; some writers put 0).
    if data.u32(at + 4) != Some(0) || data.u32(at + 16).is_none_or(|disks| disks > 1) {
        return Err(Error::malformed("multi-disk archives are not supported (ZIP64 locator)"));
    }
    let stated = data.u64(at + 8).expect("inside");
    if stated > at as u64 || (at as u64) - stated < 56 {
        return Err(Error::malformed("the ZIP64 locator points past itself or past the end"));
    }
    let before_locator = (at - 56) as u64;
    let holds = |record: u64| data.u32(record as usize) == Some(ZIP64_EOCD_SIG);
    // What each reads as it stands, before this library's own checks of it.
    let reads = |record: u64| [32, 40, 48].map(|field| data.u64(record as usize + field));
    if before_locator != stated && holds(stated) && holds(before_locator) && reads(stated) != reads(before_locator) {
        let [a, b] = [stated, before_locator].map(|r| reads(r).map(|v| v.unwrap_or(0)));
        return Err(Error::Ambiguous {
            reason: format!(
                "the ZIP64 locator at byte {at} points at a ZIP64 end record at byte {stated} that reads {} entries \
                 in {} bytes at offset {}, and the one right before the locator, at byte {before_locator}, reads \
                 {} entries in {} bytes at offset {}",
                a[0], a[1], a[2], b[0], b[1], b[2]
            ),
        });
    }
    // Where both agree, the one right before the locator: where the end records start.
    match [before_locator, stated].into_iter().find(|&r| holds(r)) {
        Some(record) => zip64_record(data, record as usize, eocd),
        None => Err(Error::malformed("no ZIP64 end record where the locator points")),
    }
}

/// The ZIP64 end record at `r`, for the end record at `eocd`.
fn zip64_record(data: &Window<'_>, r: usize, eocd: usize) -> Result<Directory, Error> {
    let entries = data.u64(r + 32).ok_or_else(|| truncated("the ZIP64 end record"))?;
    if data.u64(r + 24) != Some(entries) {
        return Err(Error::malformed("ZIP64 entry counts disagree"));
    }
    if data.u32(r + 16) != Some(0) || data.u32(r + 20) != Some(0) {
        return Err(Error::malformed("multi-disk archives are not supported"));
    }
    Ok(Directory {
        entries,
        size: data.u64(r + 40).ok_or_else(|| truncated("the ZIP64 end record"))?,
        offset: data.u64(r + 48).ok_or_else(|| truncated("the ZIP64 end record"))?,
        end: r as u64,
        record: eocd as u64,
    })
}
