//! Deflate's Huffman decode tables: the entry layout, the fixed code, and the table builder
//! that checks a code is complete (RFC 1951, 3.2.2).

/// Bits resolved by the first lookup; longer codes continue in a subtable.
pub(crate) const LITLEN_BITS: u32 = 10;
pub(crate) const DIST_BITS: u32 = 8;
pub(crate) const PRECODE_BITS: u32 = 7;
/// A subtable resolves the rest of a code of up to 15 bits.
pub(crate) const LITLEN_SUB: u32 = 15 - LITLEN_BITS;
pub(crate) const DIST_SUB: u32 = 15 - DIST_BITS;
/// Table sizes: the main table, then at most one subtable per symbol; rounded up to a power of two
/// so that a masked index needs no bounds check.
pub(crate) const LITLEN_TABLE: usize = ((1usize << LITLEN_BITS) + 288 * (1 << LITLEN_SUB)).next_power_of_two();
pub(crate) const DIST_TABLE: usize = ((1usize << DIST_BITS) + 32 * (1 << DIST_SUB)).next_power_of_two();

// A table entry: bits 0-4 the bits to consume (codeword and extra bits together), 5-7 the kind,
// 8-11 the codeword's length, 12-15 the extra bits after it, 16-31 the value (literal, base
// length or distance, or subtable start). The kinds decoded in the hot loop leave bit 5 clear, so
// `bits.wrapping_shr(entry)` (which looks at the low 6 bits) shifts by exactly the count.
pub(crate) const KIND_LITERAL: u32 = 0;
pub(crate) const KIND_INVALID: u32 = 1 << 5;
pub(crate) const KIND_BASE: u32 = 2 << 5;
pub(crate) const KIND_END: u32 = 4 << 5;
pub(crate) const KIND_SUB: u32 = 6 << 5;
pub(crate) const KIND_MASK: u32 = 7 << 5;
pub(crate) const COUNT_MASK: u32 = 31;

const LENGTH_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] =
    [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/// The order in which the code-length code lengths are stored.
pub(crate) const PRECODE_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

pub(crate) fn litlen_entry(symbol: usize) -> u32 {
    match symbol {
        0..=255 => KIND_LITERAL | (symbol as u32) << 16,
        256 => KIND_END,
        257..=285 => {
            let i = symbol - 257;
            KIND_BASE | u32::from(LENGTH_EXTRA[i]) << 12 | u32::from(LENGTH_BASE[i]) << 16
        }
        _ => KIND_INVALID,
    }
}

pub(crate) fn dist_entry(symbol: usize) -> u32 {
    match symbol {
        0..=29 => KIND_BASE | u32::from(DIST_EXTRA[symbol]) << 12 | u32::from(DIST_BASE[symbol]) << 16,
        _ => KIND_INVALID,
    }
}

pub(crate) fn precode_entry(symbol: usize) -> u32 {
    KIND_LITERAL | (symbol as u32) << 16
}

/// Completes `entry` for a codeword of `len` bits: its length, and the bits to consume.
fn with_length(entry: u32, len: u32) -> u32 {
    entry | len << 8 | (len + ((entry >> 12) & 15))
}

/// Builds the decode table of the canonical Huffman code with code lengths `lengths` (0: unused):
/// `main_bits` direct entries, then subtables of `15 - main_bits` bits for longer codes. As zlib
/// does, refuses over-subscribed codes and incomplete ones, except a code of a single 1-bit
/// codeword when `allow_single` (a lone distance code). An empty code gives a table of invalid
/// entries. Returns the entries used.
///
/// As libdeflate builds its tables: the codes of up to `main_bits` bits in canonical order, each
/// written once at its bit-reversed index of a table of `2^len` entries, the table doubled (one
/// copy) at each next length; so a small stream's code, a few dozen symbols, costs a few dozen
/// writes and copies rather than a strided store into every entry per symbol.
pub(crate) fn build_table(
    table: &mut [u32],
    lengths: &[u8],
    main_bits: u32,
    allow_single: bool,
    entry: impl Fn(usize) -> u32,
) -> Result<usize, &'static str> {
    // Counted eight lengths at a time, skipping the groups of unused symbols (a small stream's
    // code uses a few dozen of its 257+ symbols), into four sets of counters: a count bumped
    // again at once waits for its last store, and a run of unused symbols was such a chain.
    let mut counts = [[0u16; 16]; 4];
    let mut groups = lengths.chunks_exact(8);
    for group in &mut groups {
        if u64::from_le_bytes(group.try_into().expect("8 lengths")) == 0 {
            continue;
        }
        for (i, &l) in group.iter().enumerate() {
            counts[i & 3][usize::from(l)] += 1;
        }
    }
    for &l in groups.remainder() {
        counts[0][usize::from(l)] += 1;
    }
    let mut count = [0u16; 16];
    for (len, total) in count.iter_mut().enumerate().skip(1) {
        *total = counts.iter().map(|c| c[len]).sum();
    }
    let main = 1usize << main_bits;
    let max_len = (1..16).rev().find(|&l| count[l] != 0).unwrap_or(0);
    if max_len == 0 {
        table[..main].fill(KIND_INVALID);
        return Ok(main);
    }
    let mut left: i32 = 1;
    for &c in &count[1..] {
        left = (left << 1) - i32::from(c);
        if left < 0 {
            return Err("over-subscribed Huffman code");
        }
    }
    if left > 0 && !(allow_single && max_len == 1) {
        return Err("incomplete Huffman code");
    }
    // The symbols in canonical order: by length, then by symbol.
    let mut offsets = [0usize; 17];
    for len in 1..16 {
        offsets[len + 1] = offsets[len] + usize::from(count[len]);
    }
    let mut sorted = [0u16; 320];
    let mut place = offsets;
    for (base, group) in lengths.chunks(8).enumerate() {
        if group.len() == 8 && u64::from_le_bytes(group.try_into().expect("8 lengths")) == 0 {
            continue;
        }
        for (i, &l) in group.iter().enumerate().filter(|&(_, &l)| l != 0) {
            sorted[place[usize::from(l)]] = (base * 8 + i) as u16;
            place[usize::from(l)] += 1;
        }
    }
    if left > 0 {
        // The one incomplete code allowed, a single 1-bit codeword: the other bit value is
        // invalid, and one bit decides it (never consumed: the count says how many were looked at).
        let e = with_length(entry(usize::from(sorted[0])), 1);
        for (slot, value) in table[..main].iter_mut().enumerate() {
            *value = if slot & 1 == 0 { e } else { KIND_INVALID | 1 };
        }
        return Ok(main);
    }
    // The short codes: `codeword` runs through the codewords bit-reversed, in a table of `end`
    // entries for the current length.
    let (mut codeword, mut end) = (0usize, 2usize);
    for len in 1..=main_bits {
        for &symbol in &sorted[offsets[len as usize]..offsets[len as usize + 1]] {
            table[codeword] = with_length(entry(usize::from(symbol)), len);
            if codeword == end - 1 {
                // The last codeword: the code is complete here. Fill the table by doubling.
                while end < main {
                    table.copy_within(0..end, end);
                    end <<= 1;
                }
                return Ok(main);
            }
            let bit = 1usize << (usize::BITS - 1 - (codeword ^ (end - 1)).leading_zeros());
            codeword = (codeword & (bit - 1)) | bit;
        }
        if len < main_bits {
            table.copy_within(0..end, end);
            end <<= 1;
        }
    }
    // The long codes: their first `main_bits` bits link to a subtable of the rest. Every main
    // entry not written above is such a prefix (the code is complete).
    let sub_bits = 15 - main_bits;
    let mut used = main;
    let mut linked = [0u64; 16]; // which of up to 1024 prefixes have their subtable
    let mut code = 0u32;
    let mut first = [0u32; 16];
    for len in 1..16 {
        code = (code + u32::from(count[len - 1])) << 1;
        first[len] = code;
    }
    for len in main_bits + 1..=15 {
        for (k, &symbol) in sorted[offsets[len as usize]..offsets[len as usize + 1]].iter().enumerate() {
            let reversed = ((first[len as usize] + k as u32).reverse_bits() >> (32 - len)) as usize;
            let prefix = reversed & (main - 1);
            if linked[prefix / 64] & 1 << (prefix % 64) == 0 {
                linked[prefix / 64] |= 1 << (prefix % 64);
                table[prefix] = KIND_SUB | main_bits | (used as u32) << 16;
                table[used..used + (1 << sub_bits)].fill(KIND_INVALID);
                used += 1 << sub_bits;
            }
            let start = (table[prefix] >> 16) as usize;
            let rest_len = len - main_bits;
            let e = with_length(entry(usize::from(symbol)), rest_len);
            let mut slot = reversed >> main_bits;
            while slot < 1 << sub_bits {
                table[start + slot] = e;
                slot += 1 << rest_len;
            }
        }
    }
    Ok(used)
}

/// The decode tables of deflate's fixed code (RFC 1951, 3.2.6): literal/length, distance.
pub(crate) fn fixed_tables() -> (Box<[u32; LITLEN_TABLE]>, Box<[u32; DIST_TABLE]>) {
    let mut fixed_litlen = table();
    let mut fixed_dist = table();
    let mut lengths = [0u8; 288];
    lengths[..144].fill(8);
    lengths[144..256].fill(9);
    lengths[256..280].fill(7);
    lengths[280..].fill(8);
    build_table(&mut fixed_litlen[..], &lengths, LITLEN_BITS, false, litlen_entry).expect("the fixed code is complete");
    // 30 of the 32 five-bit codes are valid distances; 30 and 31 decode as invalid entries.
    build_table(&mut fixed_dist[..], &[5u8; 32], DIST_BITS, false, dist_entry).expect("the fixed code is complete");
    (fixed_litlen, fixed_dist)
}

/// A zeroed decode table on the heap.
pub(crate) fn table<const N: usize>() -> Box<[u32; N]> {
    vec![0u32; N].into_boxed_slice().try_into().expect("N entries")
}
