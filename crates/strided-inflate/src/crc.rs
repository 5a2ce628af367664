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
