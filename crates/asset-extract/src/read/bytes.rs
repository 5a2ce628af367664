//! The archive's bytes as the parser reads them: the records' signatures, little-endian fields,
//! the window of the file held, and an entry's name as an error shows it.

#![forbid(unsafe_code)]

use crate::Error;

pub(crate) const EOCD_SIG: u32 = 0x0605_4b50;
pub(crate) const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
pub(crate) const ZIP64_EOCD_SIG: u32 = 0x0606_4b50;
pub(crate) const CENTRAL_SIG: u32 = 0x0201_4b50;
pub(crate) const LOCAL_SIG: u32 = 0x0403_4b50;
pub(crate) const DESCRIPTOR_SIG: u32 = 0x0807_4b50;

pub(super) fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..at + 2).map(|s| u16::from_le_bytes([s[0], s[1]]))
}

pub(super) fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4).map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
}

pub(super) fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 8).map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
}

/// The archive's bytes as the parser sees them: the whole file in memory, or parts of it (read
/// with `pread`) at their offsets in a file of `len` bytes. What lies outside the parts reads as
/// absent, as past the end of a file does, so a parse over too little fails rather than guesses;
/// the caller then gives it more.
#[derive(Clone, Copy)]
pub(crate) struct Window<'a> {
    /// (file offset, bytes) of each part held.
    parts: [(usize, &'a [u8]); 2],
    len: usize,
}

impl<'a> Window<'a> {
    /// All of a file held in memory.
    pub(crate) fn whole(bytes: &'a [u8]) -> Window<'a> {
        Window { parts: [(0, bytes), (0, &[])], len: bytes.len() }
    }

    /// The last `tail.len()` bytes of a file of `len` bytes.
    pub(crate) fn tail(tail: &'a [u8], len: usize) -> Window<'a> {
        Window { parts: [(len - tail.len(), tail), (0, &[])], len }
    }

    /// Two parts of a file of `len` bytes, at their offsets.
    pub(crate) fn parts(first: (usize, &'a [u8]), second: (usize, &'a [u8]), len: usize) -> Window<'a> {
        Window { parts: [first, second], len }
    }

    /// The file's length.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The bytes at `range` of the file, if one part holds them all.
    pub(crate) fn get(&self, range: std::ops::Range<usize>) -> Option<&'a [u8]> {
        self.parts.iter().find_map(|&(base, bytes)| {
            let start = range.start.checked_sub(base)?;
            let end = range.end.checked_sub(base)?;
            bytes.get(start..end)
        })
    }

    /// From `at` to the end of the part that holds it.
    pub(super) fn from(&self, at: usize) -> Option<&'a [u8]> {
        self.parts.iter().find_map(|&(base, bytes)| bytes.get(at.checked_sub(base)?..))
    }

    pub(super) fn u16(&self, at: usize) -> Option<u16> {
        self.get(at..at + 2).map(|s| u16::from_le_bytes([s[0], s[1]]))
    }

    pub(super) fn u32(&self, at: usize) -> Option<u32> {
        self.get(at..at + 4).map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
    }

    pub(super) fn u64(&self, at: usize) -> Option<u64> {
        self.get(at..at + 8).map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
    }
}

pub(super) fn truncated(what: &str) -> Error {
    Error::malformed(format!("{what} runs past the end of the archive"))
}

/// An entry's stored name, shown (lossily decoded) only when an error names it: decoding every
/// name up front cost a UTF-8 pass per entry on every open.
#[derive(Clone, Copy)]
pub(crate) struct Shown<'a>(pub(crate) &'a [u8]);

impl Shown<'_> {
    pub(crate) fn text(self) -> String {
        String::from_utf8_lossy(self.0).into_owned()
    }
}
