//! The symbol loop, shared by the chunked decoder and the parallel decoder's marked output: a
//! 64-bit bit buffer refilled a word at a time, one table lookup per symbol, and matches copied
//! a word at a time into slack past the end.

use super::MAX_MATCH;
use super::tables::{
    COUNT_MASK, DIST_BITS, DIST_SUB, DIST_TABLE, KIND_BASE, KIND_END, KIND_LITERAL, KIND_MASK, KIND_SUB, LITLEN_BITS,
    LITLEN_SUB, LITLEN_TABLE,
};
use crate::Error;

/// The bit buffer of the symbol loop: `bit_count` bits of input in `bits`, the next byte to load
/// at `next_in`.
pub(crate) struct BitState {
    pub(crate) bits: u64,
    pub(crate) bit_count: u32,
    pub(crate) next_in: usize,
}

/// Why [`decode_symbols`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SymbolsEnd {
    /// The output reached its limit, or a fed input its stop: call again once there is room.
    Room,
    /// The end-of-block code, consumed.
    BlockEnd,
    /// More than a bit buffer of zeros past the input's end was needed.
    Truncated,
    BadLitLen,
    BadDistance,
    /// A distance past the start of the output.
    TooFarBack,
}

/// What the symbol loop writes: bytes ([`ChunkedInflater`]) or 16-bit symbols that can also name
/// bytes of an unknown window (the parallel decoder's marked output).
pub(crate) trait Symbol: Copy {
    /// Writes literal `value` at `pos`.
    ///
    /// # Safety
    /// `out` is valid for writes at `pos`.
    unsafe fn literal(out: *mut Self, pos: usize, value: u8);
    /// Copies `length` symbols from `distance` back to `pos`, writing up to 40 bytes past them.
    ///
    /// # Safety
    /// As [`copy_match`]'s, counted in symbols: `1 <= distance <= pos`, and `out` valid for
    /// writes up to `pos + length` symbols plus 40 bytes.
    unsafe fn copy(out: *mut Self, pos: usize, distance: usize, length: usize);
}

impl Symbol for u8 {
    #[inline(always)]
    unsafe fn literal(out: *mut u8, pos: usize, value: u8) {
        // SAFETY: per the contract.
        unsafe { *out.add(pos) = value };
    }

    #[inline(always)]
    unsafe fn copy(out: *mut u8, pos: usize, distance: usize, length: usize) {
        // SAFETY: per the contract, which is copy_match's.
        unsafe { copy_match(out, pos, distance, length) };
    }
}

impl Symbol for u16 {
    #[inline(always)]
    unsafe fn literal(out: *mut u16, pos: usize, value: u8) {
        // SAFETY: per the contract.
        unsafe { *out.add(pos) = u16::from(value) };
    }

    #[inline(always)]
    unsafe fn copy(out: *mut u16, pos: usize, distance: usize, length: usize) {
        // SAFETY: in bytes, the same copy at twice the position, distance and length; the 40
        // bytes past its end are the contract's.
        unsafe { copy_match(out.cast::<u8>(), 2 * pos, 2 * distance, 2 * length) };
    }
}

/// Room a [`decode_symbols`] output needs past its limit, in symbols: up to three literals pass
/// the loop's check, then a 258-symbol match and the 40 bytes a word-wise copy writes past it.
pub(crate) const fn symbol_slack<T>() -> usize {
    3 + MAX_MATCH + 40usize.div_ceil(std::mem::size_of::<T>())
}

/// The one symbol loop of this crate, compiled for BMI2 where the CPU has it (its shifts by a
/// register need no flags and no `cl`: about a tenth faster, as in libdeflate). Decodes the codes
/// of `litlen` and `dist` from `input` into `out` from `*pos` until the block's end code, until
/// `*pos` reaches `limit`, or until `bits.next_in` reaches `input_stop`.
///
/// # Safety
/// `out` is valid for reads and writes of `limit + symbol_slack::<T>()` symbols, all initialised.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn decode_symbols<T: Symbol>(
    litlen: &[u32; LITLEN_TABLE],
    dist: &[u32; DIST_TABLE],
    input: &[u8],
    input_stop: usize,
    bits: &mut BitState,
    out: *mut T,
    pos: &mut usize,
    limit: usize,
) -> SymbolsEnd {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU supports BMI2 (checked just above); the rest is the caller's contract.
        return unsafe { decode_symbols_bmi2(litlen, dist, input, input_stop, bits, out, pos, limit) };
    }
    // SAFETY: the caller's contract.
    unsafe { decode_symbols_any(litlen, dist, input, input_stop, bits, out, pos, limit) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[allow(clippy::too_many_arguments)]
unsafe fn decode_symbols_bmi2<T: Symbol>(
    litlen: &[u32; LITLEN_TABLE],
    dist: &[u32; DIST_TABLE],
    input: &[u8],
    input_stop: usize,
    bits: &mut BitState,
    out: *mut T,
    pos: &mut usize,
    limit: usize,
) -> SymbolsEnd {
    // SAFETY: the caller's contract.
    unsafe { decode_symbols_any(litlen, dist, input, input_stop, bits, out, pos, limit) }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn decode_symbols_any<T: Symbol>(
    litlen: &[u32; LITLEN_TABLE],
    dist: &[u32; DIST_TABLE],
    input: &[u8],
    input_stop: usize,
    state: &mut BitState,
    out: *mut T,
    pos_out: &mut usize,
    limit: usize,
) -> SymbolsEnd {
    // `next_in < words_end` exactly when a whole word can be read at `next_in`.
    let words_end = input.len().saturating_sub(7);
    debug_assert!(state.bit_count < 64, "a refill shifts a word in by the bits held");
    let (mut bits, mut bit_count, mut next_in, mut pos) = (state.bits, state.bit_count, state.next_in, *pos_out);
    let litlen_main = (1u64 << LITLEN_BITS) - 1;
    let dist_main = (1u64 << DIST_BITS) - 1;
    // The entry for the code at the front of `bits`; for a long code, its subtable entry
    // with the main table's bits added to its counts (nothing is consumed here).
    let lookup_litlen = |bits: u64| -> u32 {
        let e = litlen[(bits & litlen_main) as usize];
        if e & KIND_MASK != KIND_SUB {
            return e;
        }
        litlen[((e >> 16) as usize + ((bits >> LITLEN_BITS) & ((1 << LITLEN_SUB) - 1)) as usize) & (LITLEN_TABLE - 1)]
            + (LITLEN_BITS | LITLEN_BITS << 8)
    };
    let mut end = SymbolsEnd::Room;
    // The entry of the next code, looked up ahead so that its load overlaps the work on the
    // current symbol. It is valid when it was looked up with 15 or more bits in the buffer, or
    // after a whole-word refill (which fills all 64 bits with input); otherwise it is looked
    // up again after the refill.
    let mut e = lookup_litlen(bits);
    // Writes the literal `e` holds and looks up the next entry.
    macro_rules! literal {
        () => {
            bits = bits.wrapping_shr(e);
            bit_count -= e & COUNT_MASK;
            // SAFETY: pos < limit + 3, inside the slack (the caller's contract).
            unsafe { T::literal(out, pos, (e >> 16) as u8) };
            pos += 1;
            e = lookup_litlen(bits);
        };
    }
    while pos < limit && next_in < input_stop {
        let before = bit_count;
        if next_in < words_end {
            // The fast half of `refill`, here so that nothing but the word load is on the path.
            // SAFETY: next_in + 8 <= input.len(), so the word is inside `input`.
            bits |= u64::from_le(unsafe { input.as_ptr().add(next_in).cast::<u64>().read_unaligned() }) << bit_count;
            next_in += (63 - bit_count as usize) >> 3;
            bit_count |= 56;
        } else {
            // The slow half, inline too: a call here would cost the loop its registers.
            while bit_count <= 56 {
                bits |= u64::from(input.get(next_in).copied().unwrap_or(0)) << bit_count;
                next_in += 1;
                bit_count += 8;
            }
            if next_in > input.len() + 8 {
                end = SymbolsEnd::Truncated;
                break;
            }
            e = lookup_litlen(bits);
        }
        if before < 15 {
            e = lookup_litlen(bits);
        }
        // With at least 56 bits: up to three literals (15 bits each); a length and its
        // distance (15 + 5 + 15 + 13 bits at most) only with 48 bits left, else after a refill.
        if e & KIND_MASK == KIND_LITERAL {
            literal!();
            if e & KIND_MASK == KIND_LITERAL {
                literal!();
                if e & KIND_MASK == KIND_LITERAL {
                    literal!();
                    continue;
                }
            }
            if bit_count < 48 {
                continue;
            }
        }
        match e & KIND_MASK {
            KIND_BASE => {}
            KIND_END => {
                bits = bits.wrapping_shr(e);
                bit_count -= e & COUNT_MASK;
                end = SymbolsEnd::BlockEnd;
                break;
            }
            _ => {
                end = SymbolsEnd::BadLitLen;
                break;
            }
        }
        let length = take_base(&mut bits, &mut bit_count, e);
        let mut d = dist[(bits & dist_main) as usize];
        if d & KIND_MASK == KIND_SUB {
            d = dist[((d >> 16) as usize + ((bits >> DIST_BITS) & ((1 << DIST_SUB) - 1)) as usize) & (DIST_TABLE - 1)]
                + (DIST_BITS | DIST_BITS << 8);
        }
        if d & KIND_MASK != KIND_BASE {
            end = SymbolsEnd::BadDistance;
            break;
        }
        let distance = take_base(&mut bits, &mut bit_count, d);
        e = lookup_litlen(bits);
        if distance > pos {
            end = SymbolsEnd::TooFarBack;
            break;
        }
        // SAFETY: distance <= pos, so the source starts inside the output; pos < limit + 3 and
        // length <= 258, so the copy, with its overrun, ends inside the slack.
        unsafe { T::copy(out, pos, distance, length) };
        pos += length;
    }
    (state.bits, state.bit_count, state.next_in) = (bits, bit_count, next_in);
    *pos_out = pos;
    end
}

/// The entry of `table` (of `main_bits` direct bits) for the code at the front of `bits`, a long
/// code's subtable entry with the main table's bits added to its counts, as the symbol loop
/// looks it up.
pub(super) fn entry_at(table: &[u32], bits: u64, main_bits: u32) -> u32 {
    let e = table[(bits & ((1 << main_bits) - 1)) as usize];
    if e & KIND_MASK != KIND_SUB {
        return e;
    }
    let sub = ((bits >> main_bits) & ((1 << (15 - main_bits)) - 1)) as usize;
    table[((e >> 16) as usize + sub) & (table.len() - 1)] + (main_bits | main_bits << 8)
}

/// Consumes a length or distance entry's codeword and extra bits; returns its base plus the extra
/// bits' value.
#[inline(always)]
pub(crate) fn take_base(bits: &mut u64, bit_count: &mut u32, entry: u32) -> usize {
    let codeword = (entry >> 8) & 15;
    let extra = (entry >> 12) & 15;
    let value = (entry >> 16) as usize + ((*bits >> codeword) & ((1 << extra) - 1)) as usize;
    *bits = bits.wrapping_shr(entry);
    *bit_count -= entry & COUNT_MASK;
    value
}

/// Tops `bits` up to at least 56 bits of `input` from `next_in` on: a whole word at a time while
/// 8 bytes remain (then all 64 bits hold input, and `true` is returned), byte by byte with zeros
/// past the end otherwise. A stream that consumes those zeros is truncated: an error once more
/// than a bit buffer of them has been loaded (and checked again at the end of the stream).
#[inline(always)]
pub(super) fn refill(input: &[u8], bits: &mut u64, bit_count: &mut u32, next_in: &mut usize) -> Result<bool, Error> {
    if *next_in + 8 <= input.len() {
        // SAFETY: next_in + 8 <= input.len(), so the word is inside `input`.
        let word = unsafe { input.as_ptr().add(*next_in).cast::<u64>().read_unaligned() };
        *bits |= u64::from_le(word) << *bit_count;
        *next_in += (63 - *bit_count as usize) >> 3;
        *bit_count |= 56;
        return Ok(true);
    }
    (*bits, *bit_count, *next_in) = refill_bytes(input, *bits, *bit_count, *next_in)?;
    Ok(false)
}

/// The slow half of [`refill`]; takes and returns the buffer by value, so that callers keep it in
/// registers.
#[cold]
pub(super) fn refill_bytes(
    input: &[u8],
    mut bits: u64,
    mut bit_count: u32,
    mut next_in: usize,
) -> Result<(u64, u32, usize), Error> {
    while bit_count <= 56 {
        bits |= u64::from(input.get(next_in).copied().unwrap_or(0)) << bit_count;
        next_in += 1;
        bit_count += 8;
    }
    if next_in > input.len() + 8 {
        return Err(Error::Truncated { offset: 0 });
    }
    Ok((bits, bit_count, next_in))
}

/// Copies `length` bytes from `distance` back to `pos`, whole words at a time (writing up to 39
/// bytes past the end): four words unconditionally when the source is a word or more behind (most
/// matches are short, so most need no loop), byte patterns broadcast or stepped when it is closer.
///
/// # Safety
/// `distance <= pos`, `1 <= distance`, and `out` is valid for writes up to `pos + length + 40`.
#[inline(always)]
pub(crate) unsafe fn copy_match(out: *mut u8, pos: usize, distance: usize, length: usize) {
    // SAFETY: (the whole body) per the contract, the source lies in the window and every write ends
    // before pos + length + 40; words are read only where they were written before (a source at
    // least a word behind, or a step of `distance` bytes, each step writing what the next reads).
    unsafe {
        let mut dst = out.add(pos);
        let end = dst.add(length);
        let mut src = dst.sub(distance);
        let word = |p: *const u8| p.cast::<u64>().read_unaligned();
        if distance >= 8 {
            dst.cast::<u64>().write_unaligned(word(src));
            dst.add(8).cast::<u64>().write_unaligned(word(src.add(8)));
            dst.add(16).cast::<u64>().write_unaligned(word(src.add(16)));
            dst.add(24).cast::<u64>().write_unaligned(word(src.add(24)));
            if length > 32 {
                dst = dst.add(32);
                src = src.add(32);
                while dst < end {
                    dst.cast::<u64>().write_unaligned(word(src));
                    dst = dst.add(8);
                    src = src.add(8);
                }
            }
        } else if distance == 1 {
            let v = u64::from(*src) * 0x0101_0101_0101_0101;
            while dst < end {
                dst.cast::<u64>().write_unaligned(v);
                dst = dst.add(8);
            }
        } else {
            while dst < end {
                dst.cast::<u64>().write_unaligned(word(src));
                dst = dst.add(distance);
                src = src.add(distance);
            }
        }
    }
}
