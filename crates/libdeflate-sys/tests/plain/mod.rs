//! Plain CRC-32 and Adler-32, and the data they are checked on: the reference the SIMD paths are
//! held to, shared by tests/checksums.rs and cpu-paths/tests/paths.rs.

/// CRC-32 (reflected, polynomial 0xEDB88320) byte at a time through a 256-entry table built
/// bit by bit: nothing shared with any fast path.
pub fn crc32_plain(crc: u32, data: &[u8]) -> u32 {
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
pub fn adler32_plain(adler: u32, data: &[u8]) -> u32 {
    let (mut a, mut b) = (adler & 0xffff, adler >> 16);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    b << 16 | a
}

/// 4096 + 16 bytes that are not a pattern a fast path could get right by accident: a simple
/// generator's output, with runs of 0xFF and 0x00 (Adler-32's modular reductions) inside.
pub fn data() -> Vec<u8> {
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
