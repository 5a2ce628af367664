//! The checksums deflate's framings carry, computed by libdeflate, which this crate links for
//! inflating anyway: CRC-32 (the polynomial of zip, gzip and git's pack index) and Adler-32
//! (zlib's trailer). CRC-32 is faster than `crc32fast` on the small inputs a pack is made
//! of: over the 156,182 objects of a git history pack (82 bytes on average), 2.2–2.4 ms against
//! 3.5–3.7 ms (`bench-reports/strided-inflate.md`).

use libdeflate_sys as ld;

/// Adler-32 of `data` continuing from `adler` (libdeflate's vectorised implementation).
pub(crate) fn adler32(adler: u32, data: &[u8]) -> u32 {
    // SAFETY: `data` is valid for `data.len()` bytes; libdeflate only reads it.
    unsafe { ld::libdeflate_adler32(adler, data.as_ptr().cast(), data.len()) }
}

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

/// The CRC-32 of the bytes between two prefixes of one stream: `before` is the CRC-32 of its first
/// `s` bytes, `through` that of its first `s + len`; the result is the CRC-32 of the `len` bytes
/// between them, computed without them.
pub(crate) fn crc32_between(before: u32, through: u32, len: u64) -> u32 {
    through ^ shifted(before, len)
}

/// The CRC-32 of `a` followed by `b`, from `a`'s CRC-32, `b`'s and `b`'s length.
pub(crate) fn crc32_concat(a: u32, b: u32, b_len: u64) -> u32 {
    shifted(a, b_len) ^ b
}

/// The bit-reversed polynomial of CRC-32.
const POLY: u32 = 0xedb8_8320;

/// `crc` carried over `len` zero bytes, its initial and final inversions aside: multiplied by
/// x^(8·len) modulo the polynomial. What appending `len` bytes does to the CRC of what precedes
/// them (CRC-32 is linear in its input over GF(2)).
fn shifted(crc: u32, len: u64) -> u32 {
    // x^(2^k) for k = 3, 4, …: the powers whose product is x^(8·len). In this bit-reversed form
    // the top bit is x^0; x^(2^32) = x, as the order of x divides 2^32 - 1, so k cycles mod 32.
    let mut power = 1u32 << 30; // x^1
    for _ in 0..3 {
        power = multiply(power, power);
    }
    let (mut product, mut n) = (crc, len);
    while n != 0 {
        if n & 1 == 1 {
            product = multiply(power, product);
        }
        power = multiply(power, power);
        n >>= 1;
    }
    product
}

/// `a × b` modulo the polynomial, both in bit-reversed form (the top bit is x^0).
fn multiply(a: u32, mut b: u32) -> u32 {
    let mut product = 0;
    let mut bit = 1u32 << 31;
    while bit != 0 {
        if a & bit != 0 {
            product ^= b;
        }
        bit >>= 1;
        // b × x
        b = if b & 1 == 1 { (b >> 1) ^ POLY } else { b >> 1 };
    }
    product
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits of pseudo-random data at many places, lengths 0 to past 2^16 included.
    #[test]
    fn the_crc_of_a_part_and_of_a_concatenation_come_from_the_crcs_alone() {
        let data: Vec<u8> = (0u64..70_000).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for (s, e) in [(0, 0), (0, 1), (5, 5), (3, 70_000), (0, 70_000), (65_535, 65_537), (17, 40_000), (1, 2)] {
            let (before, through) = (crc32(&data[..s]), crc32(&data[..e]));
            assert_eq!(crc32_between(before, through, (e - s) as u64), crc32(&data[s..e]), "{s}..{e}");
            assert_eq!(crc32_concat(crc32(&data[..s]), crc32(&data[s..e]), (e - s) as u64), through, "{s}..{e}");
        }
    }
}
