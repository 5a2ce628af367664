//! libdeflate's CRC-32 and Adler-32 (the SIMD paths its CPU dispatch picks: PCLMULQDQ/AVX on
//! x86-64, PMULL/NEON on aarch64, the latter run under qemu-user by the `aarch64:` suite) against
//! plain table-driven and byte-at-a-time implementations, for every length 0 to 4096 at every
//! alignment 0 to 15, and for chained calls (a running checksum resumed across splits).

use libdeflate_sys::{libdeflate_adler32, libdeflate_crc32};

/// CRC-32 (reflected, polynomial 0xEDB88320) byte at a time through a 256-entry table built
/// bit by bit: nothing shared with any fast path.
fn crc32_plain(crc: u32, data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = [0u32; 256];
        for (n, entry) in table.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
            }
            *entry = c;
        }
        table
    });
    !data.iter().fold(!crc, |c, &b| table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8))
}

/// Adler-32, one byte at a time.
fn adler32_plain(adler: u32, data: &[u8]) -> u32 {
    let (mut a, mut b) = (adler & 0xffff, adler >> 16);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    b << 16 | a
}

fn crc32(crc: u32, data: &[u8]) -> u32 {
    // SAFETY: `data` is valid for reads of `data.len()` bytes for the call.
    unsafe { libdeflate_crc32(crc, data.as_ptr().cast(), data.len()) }
}

fn adler32(adler: u32, data: &[u8]) -> u32 {
    // SAFETY: as above.
    unsafe { libdeflate_adler32(adler, data.as_ptr().cast(), data.len()) }
}

/// 4096 + 16 bytes that are not a pattern a fast path could get right by accident: a simple
/// generator's output, with runs of 0xFF and 0x00 (Adler-32's modular reductions) inside.
fn data() -> Vec<u8> {
    let mut x = 0x2545_f491_u32;
    let mut out: Vec<u8> = (0..4096 + 16)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect();
    out[1000..1600].fill(0xff);
    out[3000..3100].fill(0);
    out
}

#[test]
fn every_length_and_alignment_matches_the_plain_implementations() {
    let data = data();
    for align in 0..16 {
        for len in 0..=4096 {
            let piece = &data[align..align + len];
            assert_eq!(crc32(0, piece), crc32_plain(0, piece), "crc32: len {len}, alignment {align}");
            assert_eq!(adler32(1, piece), adler32_plain(1, piece), "adler32: len {len}, alignment {align}");
        }
    }
}

#[test]
fn a_checksum_resumed_across_splits_matches_one_over_the_whole() {
    let data = data();
    let whole = &data[..4096];
    let (crc, adler) = (crc32_plain(0, whole), adler32_plain(1, whole));
    for split in (0..=4096).step_by(7) {
        let (a, b) = whole.split_at(split);
        assert_eq!(crc32(crc32(0, a), b), crc, "crc32 split at {split}");
        assert_eq!(adler32(adler32(1, a), b), adler, "adler32 split at {split}");
    }
    // Larger than any vector loop's block, so the folding across blocks is exercised too.
    let big: Vec<u8> = data.iter().cycle().take(1 << 20).copied().collect();
    assert_eq!(crc32(0, &big), crc32_plain(0, &big));
    assert_eq!(adler32(1, &big), adler32_plain(1, &big));
}
