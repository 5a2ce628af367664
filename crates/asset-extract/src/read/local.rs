//! A local header: its one parser, for every reading path. The archive's check of an entry
//! against its central record is made here (at open, or on the entry's first read, from the
//! [`LocalRef`] the central directory's parse left), and the stream's follower, which meets local
//! headers as they arrive, before any central record, parses them here too.

#![forbid(unsafe_code)]

use crate::Error;
use crate::read::bytes::{DESCRIPTOR_SIG, LOCAL_SIG, Shown, Window, u16_at, u32_at};
use crate::read::entry::Entry;
use crate::read::extra::{extra_fields_fit, has_zip64_extra, zip64_extra};

/// A local header's fixed part, decoded: the 30 bytes before its name and extra field.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalFixed {
    pub(crate) flags: u16,
    /// The method's code (any: the caller decides what it reads).
    pub(crate) method: u16,
    /// The DOS time and date, as one value (date high).
    pub(crate) dos: u32,
    pub(crate) crc: u32,
    /// The 32-bit sizes as written (all ones where the ZIP64 extra field holds the value).
    pub(crate) csize: u32,
    pub(crate) size: u32,
    pub(crate) name_len: usize,
    pub(crate) extra_len: usize,
}

impl LocalFixed {
    /// The fixed part's length.
    pub(crate) const LEN: usize = 30;

    /// Decodes the fixed part at the start of `bytes`: `None` where fewer than 30 bytes are
    /// there or they do not start with a local header's signature.
    pub(crate) fn parse(bytes: &[u8]) -> Option<LocalFixed> {
        let header = bytes.get(..Self::LEN)?;
        if u32_at(header, 0) != Some(LOCAL_SIG) {
            return None;
        }
        let f16 = |o| u16_at(header, o).expect("inside");
        let f32 = |o| u32_at(header, o).expect("inside");
        Some(LocalFixed {
            flags: f16(6),
            method: f16(8),
            dos: u32::from(f16(12)) << 16 | u32::from(f16(10)),
            crc: f32(14),
            csize: f32(18),
            size: f32(22),
            name_len: usize::from(f16(26)),
            extra_len: usize::from(f16(28)),
        })
    }

    /// The whole header's length: the fixed part, the name and the extra field.
    pub(crate) fn len(&self) -> usize {
        Self::LEN + self.name_len + self.extra_len
    }

    /// (size, compressed size): the 32-bit values, or the ZIP64 extra field's where they are all
    /// ones. `extra` is this header's extra field; `name` names the entry in an error.
    pub(crate) fn sizes(&self, extra: &[u8], name: Shown<'_>) -> Result<(u64, u64), Error> {
        let (mut size, mut csize) = (u64::from(self.size), u64::from(self.csize));
        zip64_extra(extra, &mut size, &mut csize, None, None, name)?;
        Ok((size, csize))
    }
}

/// What an entry's central record says, for checking its local header against it.
#[derive(Clone, Copy)]
pub(crate) struct Central<'a> {
    /// Where the local header is.
    pub(crate) offset: u64,
    /// Where the entry must have ended: the central directory's start, or the next entry's.
    pub(crate) limit: u64,
    pub(crate) name: &'a [u8],
    /// The method's code (one the archive reads: see `Method`).
    pub(crate) method: u16,
    pub(crate) flags: u16,
    pub(crate) dos: u32,
    pub(crate) crc: u32,
    pub(crate) csize: u64,
    pub(crate) size: u64,
}

/// Checks the local header at `offset` against the central directory and returns where the data
/// starts and where the entry (data descriptor included) ends.
pub(crate) fn local_data(data: &Window<'_>, central: &Central<'_>) -> Result<(u64, u64), Error> {
    let Central { offset, limit, name, method, flags, dos, crc, csize, size } = *central;
    let display = Shown(name);
    let bad = |reason: &str| Error::malformed_entry(reason, &display.text());
    if offset >= limit {
        return Err(bad("local header is not before the central directory"));
    }
    let at = offset as usize;
    let header = data.get(at..at + 30).ok_or_else(|| bad("local header runs past the end"))?;
    let fixed = LocalFixed::parse(header).ok_or_else(|| bad("no local header where the central directory says"))?;
    let (name_len, extra_len) = (fixed.name_len, fixed.extra_len);
    let local_name = data.get(at + 30..at + 30 + name_len).ok_or_else(|| bad("local name runs past the end"))?;
    if local_name != name {
        return Err(bad("local header name differs from the central directory"));
    }
    if fixed.method != method {
        return Err(bad("local header method differs from the central directory"));
    }
    // The flags that change how the entry reads: encryption, a data descriptor (a streaming
    // reader finds the entry's end by it), and for a name that is not ASCII, UTF-8.
    let compared = if name.is_ascii() { 0x49 } else { 0x849 };
    if (fixed.flags ^ flags) & compared != 0 {
        return Err(bad(&format!(
            "local header flags {:#06x} differ from the central directory's {flags:#06x}",
            fixed.flags
        )));
    }
    // The modification time, which readers that stream take from here.
    if fixed.dos != dos {
        return Err(bad("local header modification time differs from the central directory"));
    }
    let extra = data
        .get(at + 30 + name_len..at + 30 + name_len + extra_len)
        .ok_or_else(|| bad("local extra field runs past the end"))?;
    if !extra_fields_fit(extra) {
        return Err(bad("local extra field disagrees with its own length"));
    }
    let data_offset = offset + 30 + name_len as u64 + extra_len as u64;
    let data_end = data_offset.checked_add(csize).ok_or_else(|| bad("size overflows"))?;
    if data_end > limit {
        return Err(bad("entry data runs into the central directory or past the end"));
    }
    let descriptor = flags & 0x08 != 0;
    if !descriptor {
        let (lsize, lcsize) = fixed.sizes(extra, display)?;
        if fixed.crc != crc || lsize != size || lcsize != csize {
            return Err(bad("local header CRC or sizes differ from the central directory"));
        }
        return Ok((data_offset, data_end));
    }
    // With a data descriptor the local CRC and sizes are 0 (or, from some writers, already the
    // right values): anything else is a second description of the entry.
    let (lcrc, lcsize, lsize) = (fixed.crc, fixed.csize, fixed.size);
    let zero_or = |local: u32, central: u64| local == 0 || local == 0xffff_ffff || u64::from(local) == central;
    if !(zero_or(lcrc, u64::from(crc)) && zero_or(lcsize, csize) && zero_or(lsize, size)) {
        return Err(bad("local header CRC or sizes differ from the central directory (data descriptor)"));
    }
    // Data descriptor: optional signature, CRC, then 4- or 8-byte sizes (8 for ZIP64 entries).
    let mut d = data_end as usize;
    if data.u32(d) == Some(DESCRIPTOR_SIG) {
        d += 4;
    }
    // 8-byte sizes when the local header carries a ZIP64 extra field (as streaming writers put
    // there for entries of unknown size), whatever the sizes turn out to be.
    let wide = csize >= 0xffff_ffff || size >= 0xffff_ffff || has_zip64_extra(extra);
    let (dcrc, dcsize, dsize, end) = if wide {
        (data.u32(d), data.u64(d + 4), data.u64(d + 12), d + 20)
    } else {
        (data.u32(d), data.u32(d + 4).map(u64::from), data.u32(d + 8).map(u64::from), d + 12)
    };
    match (dcrc, dcsize, dsize) {
        (Some(c), Some(cs), Some(s)) if c == crc && cs == csize && s == size && end as u64 <= limit => {
            Ok((data_offset, end as u64))
        }
        (Some(_), Some(_), Some(_)) => Err(bad("data descriptor differs from the central directory")),
        _ => Err(bad("data descriptor runs past the end")),
    }
}

/// Where an entry's local header is and what it must agree with, for a check made later (the
/// first time the entry is read) instead of at open: see [`read_central`](crate::read::archive::read_central).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalRef {
    /// Where the local header starts.
    pub(super) header_offset: u64,
    /// Where the entry's name lies in the archive (in its central directory record).
    pub(super) name_at: usize,
    pub(super) name_len: usize,
    pub(super) flags: u16,
    /// The central record's DOS date (high 16 bits) and time (low 16 bits).
    pub(super) dos: u32,
    /// Where the next entry's local header (or the central directory) starts: the entry, its data
    /// descriptor included, must end by there.
    pub(super) limit: u64,
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

/// Checks entry `e`'s local header in `data` as [`read_archive`](crate::read::archive::read_archive) does (against its central
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
