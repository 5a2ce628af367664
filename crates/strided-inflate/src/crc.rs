//! CRC-32 (the polynomial of zip, gzip and git's pack index) computed by libdeflate, which this
//! crate links for inflating anyway. Faster than `crc32fast` on the small inputs a pack is made
//! of: over the 156,182 objects of a git history pack (82 bytes on average), 2.2–2.4 ms against
//! 3.5–3.7 ms (`bench-reports/strided-inflate.md`).

use libdeflate_sys as ld;

/// The CRC-32 of `bytes`.
///
/// ```
/// assert_eq!(strided_inflate::crc32(b"123456789"), 0xcbf4_3926); // the standard check value
/// ```
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32_update(0, bytes)
}

/// Continues the CRC-32 `crc` (0 to start) over `bytes`: for data that comes in pieces.
///
/// ```
/// use strided_inflate::{crc32, crc32_update};
///
/// assert_eq!(crc32_update(crc32(b"12345"), b"6789"), crc32(b"123456789"));
/// ```
pub fn crc32_update(crc: u32, bytes: &[u8]) -> u32 {
    // SAFETY: libdeflate reads exactly `bytes.len()` bytes from the pointer (none when empty).
    unsafe { ld::libdeflate_crc32(crc, bytes.as_ptr().cast(), bytes.len()) }
}

/// A CRC-32 computed over data that comes in pieces: `crc32fast::Hasher`'s shape, libdeflate's
/// speed, and no CPU detection of its own (libdeflate's one detection serves inflating and CRC).
///
/// ```
/// use strided_inflate::{crc32, Crc32};
///
/// let mut crc = Crc32::new();
/// crc.update(b"12345");
/// crc.update(b"6789");
/// assert_eq!(crc.finalize(), crc32(b"123456789"));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Crc32(u32);

impl Crc32 {
    /// The CRC-32 of nothing yet.
    pub fn new() -> Self {
        Crc32(0)
    }

    /// Continues the CRC over `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0 = crc32_update(self.0, bytes);
    }

    /// The CRC-32 of everything given so far.
    pub fn finalize(self) -> u32 {
        self.0
    }
}
