//! An entry as the central directory describes it: its name, sizes, CRC-32, compression method
//! and modification time. The parser (`archive.rs`) makes them; every reader takes them.

#![forbid(unsafe_code)]

use crate::read::bytes::{u16_at, u32_at, u64_at};
use crate::read::names::Kind;

/// Compression of an entry's data: the methods bufkit reads. Every other method an archive names
/// is refused at open with [`Error::UnsupportedMethod`](crate::Error::UnsupportedMethod), which names it ([`method_name`]).
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
