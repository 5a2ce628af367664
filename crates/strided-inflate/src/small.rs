//! A DEFLATE decoder for small streams of known size: the common case of a git pack, where most
//! objects inflate to a few dozen bytes. General-purpose decoders build Huffman tables sized for
//! large streams (2,048-entry primary tables) for every dynamic block; here the primary table is
//! only as wide as the block's longest code allows (at most 2^9 entries for literals/lengths,
//! 2^7 for distances), longer codes are decoded canonically, and the fixed-Huffman tables are
//! built once per decoder. Written in safe Rust: every read and write is bounds-checked.
//!
//! Any failure returns `None`; the caller then classifies it with the streaming decoder, so the
//! error kinds are exactly those of the large-stream path.

/// Primary table width caps.
const LITLEN_BITS: u32 = 9;
const DIST_BITS: u32 = 7;

/// Base lengths and extra bits for length symbols 257..=285.
const LEN_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
/// Base distances and extra bits for distance symbols 0..=29.
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] =
    [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/// Order of the code-length code lengths in a dynamic block header.
const CLEN_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/// LSB-first bit reader. Reads past the end as zeros but counts them, so a stream that needed
/// them is recognised as truncated.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u64,
    nbits: u32,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Self {
        Bits { data, pos: 0, buf: 0, nbits: 0 }
    }

    /// Tops the buffer up to at least 56 bits.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(chunk) = self.data.get(self.pos..self.pos + 8) {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            self.buf |= word << self.nbits;
            let taken = (63 - self.nbits) / 8;
            self.pos += taken as usize;
            self.nbits += taken * 8;
        } else {
            while self.nbits <= 56 {
                let byte = self.data.get(self.pos).copied().unwrap_or(0);
                self.buf |= u64::from(byte) << self.nbits;
                self.pos += 1; // may pass the end: checked by `overran`
                self.nbits += 8;
            }
        }
    }

    #[inline(always)]
    fn peek(&self, n: u32) -> u32 {
        (self.buf & ((1u64 << n) - 1)) as u32
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buf >>= n;
        self.nbits -= n;
    }

    /// Reads `n` ≤ 32 bits (after a refill).
    #[inline(always)]
    fn take(&mut self, n: u32) -> u32 {
        let v = self.peek(n);
        self.consume(n);
        v
    }

    /// Bits consumed from the start.
    fn bit_position(&self) -> usize {
        self.pos * 8 - self.nbits as usize
    }

    /// Whether any bit consumed so far lies past the data.
    fn overran(&self) -> bool {
        self.bit_position() > self.data.len() * 8
    }

    /// Drops the bits up to the next byte boundary.
    fn align(&mut self) {
        let skip = self.nbits % 8;
        self.consume(skip);
    }
}

/// A canonical Huffman code: a primary lookup table for codes up to `bits` long, and the counts
/// and sorted symbols that decode any code bit by bit.
#[derive(Default)]
struct Huffman {
    /// `symbol << 4 | length`; 0 = no code of at most `bits` bits starts with these bits.
    table: Vec<u16>,
    bits: u32,
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Huffman {
    /// Builds the code from per-symbol lengths. False if the lengths over-subscribe the code space.
    fn build(&mut self, lengths: &[u8], cap: u32) -> bool {
        self.counts = [0; 16];
        for &l in lengths {
            self.counts[usize::from(l)] += 1;
        }
        self.counts[0] = 0;
        let mut left: i32 = 1;
        for len in 1..16 {
            left = (left << 1) - i32::from(self.counts[len]);
            if left < 0 {
                return false; // over-subscribed
            }
        }
        let max_len = (1..16).rev().find(|&l| self.counts[l] > 0).unwrap_or(0) as u32;
        self.bits = max_len.clamp(1, cap);
        // Canonical codes: the first code of each length, then codes in symbol order.
        let mut next_code = [0u32; 16];
        let mut code = 0u32;
        for len in 1..16 {
            next_code[len] = code;
            code = (code + u32::from(self.counts[len])) << 1;
        }
        let size = 1usize << self.bits;
        self.table.clear();
        self.table.resize(size, 0);
        for (sym, &l) in lengths.iter().enumerate() {
            let len = u32::from(l);
            if len == 0 || len > self.bits {
                continue;
            }
            let reversed = next_code[len as usize].reverse_bits() >> (32 - len);
            next_code[len as usize] += 1;
            let entry = ((sym as u16) << 4) | len as u16;
            let mut at = reversed as usize;
            while at < size {
                self.table[at] = entry;
                at += 1 << len;
            }
        }
        // Symbols sorted by code, for the bit-by-bit path: only needed when some code is longer
        // than the table.
        self.symbols.clear();
        if max_len > self.bits {
            let mut offsets = [0u16; 16];
            for len in 1..15 {
                offsets[len + 1] = offsets[len] + self.counts[len];
            }
            self.symbols.resize(lengths.len(), 0);
            for (sym, &l) in lengths.iter().enumerate() {
                if l != 0 {
                    self.symbols[usize::from(offsets[usize::from(l)])] = sym as u16;
                    offsets[usize::from(l)] += 1;
                }
            }
        }
        true
    }

    /// Decodes one symbol (the reader refilled beforehand).
    #[inline(always)]
    fn decode(&self, bits: &mut Bits<'_>) -> Option<u16> {
        let entry = self.table[bits.peek(self.bits) as usize];
        if entry != 0 {
            bits.consume(u32::from(entry & 15));
            return Some(entry >> 4);
        }
        self.decode_slow(bits)
    }

    /// Canonical decoding, one bit at a time: codes longer than the primary table.
    #[cold]
    fn decode_slow(&self, bits: &mut Bits<'_>) -> Option<u16> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= bits.take(1) as i32;
            let count = i32::from(self.counts[len]);
            if code - count < first {
                return self.symbols.get((index + code - first) as usize).copied();
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        None
    }
}

/// The small-stream decoder; its tables are reused from stream to stream.
#[derive(Default)]
pub(crate) struct SmallInflater {
    litlen: Huffman,
    dist: Huffman,
    clen: Huffman,
    fixed: Option<(Huffman, Huffman)>,
    lengths: Vec<u8>,
}

impl SmallInflater {
    /// Inflates the zlib (`zlib` true) or raw deflate stream at the start of `input` into exactly
    /// `out`; returns the bytes the stream occupied, or `None` on any problem (the caller
    /// classifies it).
    pub(crate) fn inflate(&mut self, input: &[u8], out: &mut [u8], zlib: bool) -> Option<usize> {
        let body = if zlib {
            let (cmf, flg) = (*input.first()?, *input.get(1)?);
            if cmf & 0x0f != 8 || cmf >> 4 > 7 || (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 || flg & 0x20 != 0 {
                return None;
            }
            &input[2..]
        } else {
            input
        };
        let used = self.deflate(body, out)?;
        if !zlib {
            return Some(used);
        }
        let trailer = body.get(used..used + 4)?;
        (u32::from_be_bytes(trailer.try_into().expect("4 bytes")) == adler32(out)).then_some(2 + used + 4)
    }

    /// Decodes raw deflate blocks into exactly `out`; returns the bytes of `data` they occupied.
    fn deflate(&mut self, data: &[u8], out: &mut [u8]) -> Option<usize> {
        let mut bits = Bits::new(data);
        let mut o = 0usize;
        loop {
            bits.refill();
            let last = bits.take(1);
            match bits.take(2) {
                0 => o = stored(&mut bits, out, o)?,
                1 => {
                    let (litlen, dist) = self.fixed.get_or_insert_with(fixed_codes);
                    o = codes(&mut bits, out, o, litlen, dist)?;
                }
                2 => {
                    self.read_dynamic(&mut bits)?;
                    o = codes(&mut bits, out, o, &self.litlen, &self.dist)?;
                }
                _ => return None,
            }
            if bits.overran() {
                return None;
            }
            if last == 1 {
                break;
            }
        }
        if o != out.len() {
            return None;
        }
        Some(bits.bit_position().div_ceil(8))
    }

    /// Reads a dynamic block's code definitions into `litlen` and `dist`.
    fn read_dynamic(&mut self, bits: &mut Bits<'_>) -> Option<()> {
        let nlen = bits.take(5) as usize + 257;
        let ndist = bits.take(5) as usize + 1;
        let nclen = bits.take(4) as usize + 4;
        if nlen > 286 || ndist > 30 {
            return None;
        }
        let mut clen_lengths = [0u8; 19];
        bits.refill();
        for &slot in &CLEN_ORDER[..nclen] {
            clen_lengths[slot] = bits.take(3) as u8;
        }
        if !self.clen.build(&clen_lengths, 7) {
            return None;
        }
        self.lengths.clear();
        while self.lengths.len() < nlen + ndist {
            bits.refill();
            let sym = self.clen.decode(bits)?;
            match sym {
                0..=15 => self.lengths.push(sym as u8),
                16 => {
                    let prev = *self.lengths.last()?;
                    let n = 3 + bits.take(2) as usize;
                    self.lengths.extend(std::iter::repeat_n(prev, n));
                }
                17 => {
                    let n = 3 + bits.take(3) as usize;
                    self.lengths.extend(std::iter::repeat_n(0, n));
                }
                _ => {
                    let n = 11 + bits.take(7) as usize;
                    self.lengths.extend(std::iter::repeat_n(0, n));
                }
            }
        }
        if self.lengths.len() != nlen + ndist || self.lengths[256] == 0 {
            return None; // repeats ran past the end, or no end-of-block code
        }
        let (lit, dist) = self.lengths.split_at(nlen);
        (self.litlen.build(lit, LITLEN_BITS) && self.dist.build(dist, DIST_BITS)).then_some(())
    }
}

/// The fixed codes of block type 1.
fn fixed_codes() -> (Huffman, Huffman) {
    let mut lit = [0u8; 288];
    lit[..144].fill(8);
    lit[144..256].fill(9);
    lit[256..280].fill(7);
    lit[280..].fill(8);
    let (mut litlen, mut dist) = (Huffman::default(), Huffman::default());
    litlen.build(&lit, LITLEN_BITS);
    dist.build(&[5u8; 30], DIST_BITS);
    (litlen, dist)
}

/// A stored block: byte-aligned LEN, NLEN, then LEN raw bytes.
fn stored(bits: &mut Bits<'_>, out: &mut [u8], mut o: usize) -> Option<usize> {
    bits.align();
    bits.refill();
    let len = bits.take(16) as usize;
    if bits.take(16) as usize != !len & 0xffff {
        return None;
    }
    // Drain whole bytes still buffered, then copy the rest straight from the input.
    let mut remaining = len;
    while remaining > 0 && bits.nbits >= 8 {
        *out.get_mut(o)? = bits.take(8) as u8;
        o += 1;
        remaining -= 1;
    }
    if remaining > 0 {
        // The buffer is empty, but may still hold copies of the bytes at `pos` from a wide
        // refill; `pos` is about to move past them, so they must go.
        bits.buf = 0;
        let start = bits.pos;
        let src = bits.data.get(start..start + remaining)?;
        out.get_mut(o..o + remaining)?.copy_from_slice(src);
        o += remaining;
        bits.pos += remaining;
    }
    Some(o)
}

/// Decodes literal/length and distance symbols until end-of-block.
#[inline(always)]
fn codes(bits: &mut Bits<'_>, out: &mut [u8], mut o: usize, litlen: &Huffman, dist: &Huffman) -> Option<usize> {
    loop {
        if bits.nbits < 48 {
            bits.refill(); // 48 bits cover a length code, its extra bits and a distance code
        }
        let sym = litlen.decode(bits)?;
        if sym < 256 {
            *out.get_mut(o)? = sym as u8;
            o += 1;
            continue;
        }
        if sym == 256 {
            return Some(o);
        }
        let i = usize::from(sym - 257);
        let len = usize::from(*LEN_BASE.get(i)?) + bits.take(u32::from(*LEN_EXTRA.get(i)?)) as usize;
        if bits.nbits < 32 {
            bits.refill();
        }
        let d = usize::from(dist.decode(bits)?);
        let distance = usize::from(*DIST_BASE.get(d)?) + bits.take(u32::from(DIST_EXTRA[d])) as usize;
        if distance > o || o + len > out.len() {
            return None;
        }
        if distance >= len {
            out.copy_within(o - distance..o - distance + len, o);
        } else {
            for k in o..o + len {
                out[k] = out[k - distance];
            }
        }
        o += len;
    }
}

/// Adler-32 of `data` (RFC 1950).
pub(crate) fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}
