//! libdeflate's CRC-32 and Adler-32 (the SIMD paths its CPU dispatch picks: PCLMULQDQ/AVX on
//! x86-64, PMULL/NEON on aarch64, the latter run under qemu-user by the `aarch64:` suite) against
//! plain table-driven and byte-at-a-time implementations, for every length 0 to 4096 at every
//! alignment 0 to 15, and for chained calls (a running checksum resumed across splits).

mod plain;

use libdeflate_sys::{libdeflate_adler32, libdeflate_crc32};
use plain::{adler32_plain, crc32_plain, data};

fn crc32(crc: u32, data: &[u8]) -> u32 {
    // SAFETY: `data` is valid for reads of `data.len()` bytes for the call.
    unsafe { libdeflate_crc32(crc, data.as_ptr().cast(), data.len()) }
}

fn adler32(adler: u32, data: &[u8]) -> u32 {
    // SAFETY: as above.
    unsafe { libdeflate_adler32(adler, data.as_ptr().cast(), data.len()) }
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
