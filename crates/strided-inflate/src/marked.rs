//! Decoding without the window: [`ChunkedInflater`](crate::ChunkedInflater)'s one symbol loop
//! (`chunked::symbol_loop::decode_symbols`), writing 16-bit symbols into an output that starts with 32 KiB of markers.
//!
//! A worker that starts decoding in the middle of a stream does not know the 32 KiB of output
//! before its first block. rapidgzip's answer (Knespel and Brunst, HPDC 2023), followed here:
//! the output is 16-bit, and its first 32 KiB hold markers, `256 + i` naming byte `i` of the
//! unknown window. A back-reference then needs no test at all: it copies markers as it copies
//! bytes, and the loop is the ordinary one, at close to its speed. Once the window is known, one
//! pass ([`resolve`]) turns the symbols into bytes.

use crate::chunked::HISTORY;
use crate::chunked::symbol_loop::{BitState, SymbolsEnd, decode_symbols, symbol_slack};
use crate::chunked::tables::{DIST_TABLE, LITLEN_TABLE};

/// Room kept past the loop's limit, in symbols.
const SLACK: usize = symbol_slack::<u16>();

/// A marked output: the 32 KiB of markers, then what was decoded, at most `limit` symbols (a
/// chunk a thousand times smaller compressed must not take a thousand times the memory).
pub(crate) struct Marked {
    /// Symbols; those up to `pos` are written. Its length is its room (it grows as needed).
    pub(crate) symbols: Vec<u16>,
    pub(crate) pos: usize,
    limit: usize,
}

impl Marked {
    /// An output of the markers alone, with room for about `expected` symbols after them and
    /// growing to `limit` at most.
    pub(crate) fn new(expected: usize, limit: usize) -> Marked {
        // `vec!` of zeros takes fresh zeroed pages for large sizes: no pass over them here.
        let mut symbols = vec![0u16; HISTORY + expected.min(limit) + SLACK];
        for (i, s) in symbols[..HISTORY].iter_mut().enumerate() {
            *s = (256 + i) as u16;
        }
        Marked { symbols, pos: HISTORY, limit }
    }

    /// Forgets what was decoded (the markers stay).
    pub(crate) fn restart(&mut self) {
        self.pos = HISTORY;
    }

    /// The output, leaving an empty one (no markers, no room) in its place.
    pub(crate) fn take(&mut self) -> Marked {
        std::mem::replace(self, Marked { symbols: Vec::new(), pos: 0, limit: 0 })
    }

    /// The most symbols this output holds after its markers.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The decoded symbols, without the markers in front.
    pub(crate) fn decoded(&self) -> &[u16] {
        &self.symbols[HISTORY..self.pos]
    }

    /// Appends stored bytes; `false` (nothing appended) past the limit.
    #[must_use]
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) -> bool {
        if !self.reserve(bytes.len()) {
            return false;
        }
        for (s, &b) in self.symbols[self.pos..].iter_mut().zip(bytes) {
            *s = u16::from(b);
        }
        self.pos += bytes.len();
        true
    }

    /// Whether the last 32 KiB decoded name no byte of the unknown window, so that no later
    /// symbol can (a match reaches back 32 KiB at most).
    pub(crate) fn clean(&self) -> bool {
        self.pos >= 2 * HISTORY && self.symbols[self.pos - HISTORY..self.pos].iter().fold(0, |a, &s| a | s) < 256
    }

    /// Room for `more` symbols and the slack after them (`false` if that passes the limit).
    fn reserve(&mut self, more: usize) -> bool {
        let most = HISTORY + self.limit + SLACK + 1;
        if self.pos + more + SLACK >= self.symbols.len() {
            if self.pos + more + SLACK >= most {
                return false;
            }
            let room = (self.symbols.len() * 2).clamp(self.pos + more + SLACK + 1, most);
            self.symbols.resize(room, 0);
        }
        true
    }
}

/// Why marked decoding stopped short.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// A code no complete table gives, or a distance code past the table.
    Invalid,
    /// The input ran out inside the block.
    PastEnd,
    /// The output reached its limit.
    TooLong,
}

/// Decodes the codes of one block from bit `*bit` of `input` into `out` until its end-of-block
/// code, which it consumes; `*bit` is then just past it. Bits past the input's end read as
/// zeros; more than a bit buffer of them is [`Refused::PastEnd`]. The loop is
/// [`ChunkedInflater`](crate::ChunkedInflater)'s, writing 16-bit symbols.
pub(crate) fn decode_codes(
    litlen: &[u32; LITLEN_TABLE],
    dist: &[u32; DIST_TABLE],
    input: &[u8],
    bit: &mut u64,
    out: &mut Marked,
) -> Result<(), Refused> {
    let Ok(start) = usize::try_from(*bit / 8) else { return Err(Refused::PastEnd) };
    if start > input.len() {
        return Err(Refused::PastEnd);
    }
    // Start at the byte holding `*bit`, with its earlier bits dropped. Seven bytes: the loop's
    // refill shifts a word in by the bits held, which must stay below 64.
    let mut bits = BitState { bits: 0, bit_count: 0, next_in: start };
    while bits.bit_count < 56 {
        bits.bits |= u64::from(input.get(bits.next_in).copied().unwrap_or(0)) << bits.bit_count;
        bits.next_in += 1;
        bits.bit_count += 8;
    }
    let skip = (*bit % 8) as u32;
    bits.bits >>= skip;
    bits.bit_count -= skip;
    let result = loop {
        // Out of room: `reserve` grows the output (to its limit), and decoding goes on.
        if !out.reserve(0) {
            break Err(Refused::TooLong);
        }
        let limit = out.symbols.len() - SLACK;
        // SAFETY: `symbols` holds `limit + SLACK` initialised symbols, SLACK being the loop's
        // slack for 16-bit symbols.
        let end = unsafe {
            decode_symbols(litlen, dist, input, usize::MAX, &mut bits, out.symbols.as_mut_ptr(), &mut out.pos, limit)
        };
        match end {
            SymbolsEnd::Room => continue,
            SymbolsEnd::BlockEnd => break Ok(()),
            SymbolsEnd::Truncated => break Err(Refused::PastEnd),
            // A distance before the output's start cannot happen (32 KiB of markers are there).
            SymbolsEnd::BadLitLen | SymbolsEnd::BadDistance | SymbolsEnd::TooFarBack => break Err(Refused::Invalid),
        }
    };
    *bit = bits.next_in as u64 * 8 - u64::from(bits.bit_count);
    result
}

/// Turns marked symbols into bytes, each marker `256 + i` into byte `i` of `window` (the 32 KiB
/// before the symbols; shorter near the stream's start, then aligned to its end), writing
/// `out[..symbols.len()]`. `None` if a marker names a byte before the window's start: a reference
/// before the stream's first byte.
pub(crate) fn resolve(symbols: &[u16], window: &[u8], out: &mut [u8]) -> Option<()> {
    let base = HISTORY - window.len().min(HISTORY);
    if base > 0 && symbols.iter().any(|&s| s > 255 && usize::from(s - 256) < base) {
        return None;
    }
    // One lookup per symbol, without a branch: bytes map to themselves, markers to the window.
    // (In log lines most symbols are markers: a test per symbol costs more than the lookup.)
    let mut table = vec![0u8; 1 << 16];
    for (i, t) in table[..256].iter_mut().enumerate() {
        *t = i as u8;
    }
    table[256 + base..256 + HISTORY].copy_from_slice(&window[window.len() - (HISTORY - base)..]);
    let table: &[u8; 1 << 16] = table[..].try_into().expect("64 KiB");
    for (d, &s) in out[..symbols.len()].iter_mut().zip(symbols) {
        *d = table[usize::from(s)];
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunked::tables::{DIST_BITS, LITLEN_BITS, build_table, dist_entry, fixed_tables, litlen_entry, table};
    use std::io::Write;

    fn deflate(data: &[u8], level: u32) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn lines(n: usize) -> Vec<u8> {
        let mut data = Vec::new();
        let mut state = 7u64;
        while data.len() < n {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            data.extend_from_slice(format!("2026-12-02 {} GET /items/{}\n", state % 97, state % 100_000).as_bytes());
        }
        data
    }

    /// Decodes a whole stream from its first bit: no marker can appear, so the symbols are the
    /// bytes. (Headers read here the simple way, as the parallel decoder reads them.)
    fn decode_from_start(stream: &[u8]) -> Vec<u16> {
        let mut out = Marked::new(16, 1 << 30);
        let mut bit = 0u64;
        let (fixed_litlen, fixed_dist) = fixed_tables();
        let (mut litlen, mut dist) = (table::<LITLEN_TABLE>(), table::<DIST_TABLE>());
        let take = |bit: &mut u64, n: u32| {
            let mut v = 0u32;
            for i in 0..n {
                v |= u32::from(stream[(*bit / 8) as usize] >> (*bit % 8) & 1) << i;
                *bit += 1;
            }
            v
        };
        loop {
            let last = take(&mut bit, 1) == 1;
            match take(&mut bit, 2) {
                0 => {
                    bit = bit.div_ceil(8) * 8;
                    let len = take(&mut bit, 16) as usize;
                    take(&mut bit, 16);
                    let at = (bit / 8) as usize;
                    assert!(out.push_bytes(&stream[at..at + len]));
                    bit += len as u64 * 8;
                }
                1 => decode_codes(&fixed_litlen, &fixed_dist, stream, &mut bit, &mut out).unwrap(),
                _ => {
                    let hlit = take(&mut bit, 5) as usize + 257;
                    let hdist = take(&mut bit, 5) as usize + 1;
                    let hclen = take(&mut bit, 4) as usize + 4;
                    let mut pl = [0u8; 19];
                    for &s in &crate::chunked::tables::PRECODE_ORDER[..hclen] {
                        pl[s] = take(&mut bit, 3) as u8;
                    }
                    // The precode decoded canonically, a bit at a time.
                    let mut lengths = vec![];
                    while lengths.len() < hlit + hdist {
                        let sym = precode_symbol(&pl, &mut || take(&mut bit, 1));
                        match sym {
                            0..=15 => lengths.push(sym as u8),
                            16 => {
                                let v = *lengths.last().unwrap();
                                for _ in 0..3 + take(&mut bit, 2) {
                                    lengths.push(v)
                                }
                            }
                            17 => lengths.extend(std::iter::repeat_n(0, 3 + take(&mut bit, 3) as usize)),
                            _ => lengths.extend(std::iter::repeat_n(0, 11 + take(&mut bit, 7) as usize)),
                        }
                    }
                    build_table(&mut litlen[..], &lengths[..hlit], LITLEN_BITS, true, litlen_entry).unwrap();
                    build_table(&mut dist[..], &lengths[hlit..], DIST_BITS, true, dist_entry).unwrap();
                    decode_codes(&litlen, &dist, stream, &mut bit, &mut out).unwrap();
                }
            }
            if last {
                return out.decoded().to_vec();
            }
        }
    }

    fn precode_symbol(lengths: &[u8; 19], next: &mut dyn FnMut() -> u32) -> usize {
        let (mut code, mut first) = (0i32, 0i32);
        for len in 1..=7 {
            code |= next() as i32;
            let count = lengths.iter().filter(|&&l| l == len).count() as i32;
            if code - count < first {
                let mut symbols: Vec<usize> = (0..19).filter(|&s| lengths[s] == len).collect();
                symbols.sort();
                return symbols[(code - first) as usize];
            }
            first += count;
            first <<= 1;
            code <<= 1;
        }
        panic!("bad precode")
    }

    #[test]
    fn decoding_from_the_start_gives_the_bytes() {
        for (data, level) in [(lines(300_000), 6), (lines(100_000), 1), (lines(50_000), 0), (vec![b'a'; 70_000], 9)] {
            let stream = deflate(&data, level);
            let symbols = decode_from_start(&stream);
            assert!(symbols.iter().all(|&s| s < 256));
            let bytes: Vec<u8> = symbols.iter().map(|&s| s as u8).collect();
            assert_eq!(bytes, data, "level {level}");
        }
    }

    #[test]
    fn resolving_markers_reads_the_window_and_refuses_what_is_before_the_stream() {
        let window: Vec<u8> = (0..HISTORY).map(|i| (i * 7) as u8).collect();
        let symbols: Vec<u16> = (0..1000u16).map(|i| if i % 3 == 0 { 256 + i * 30 } else { i % 256 }).collect();
        let mut out = vec![9; 1001];
        resolve(&symbols, &window, &mut out).unwrap();
        assert_eq!(out[1000], 9, "nothing past the symbols is written");
        for (i, (&s, &b)) in symbols.iter().zip(&out).enumerate() {
            let want = if s >= 256 { window[usize::from(s - 256)] } else { s as u8 };
            assert_eq!(b, want, "symbol {i}");
        }
        // A window of 100 bytes: markers 256 + HISTORY - 100 and up name it, anything lower is refused.
        let short = &window[..100];
        let ok = [256 + (HISTORY - 100) as u16, 5, 256 + HISTORY as u16 - 1];
        let mut out = vec![0; 3];
        resolve(&ok, short, &mut out).unwrap();
        assert_eq!(out, [short[0], 5, short[99]]);
        let mut long: Vec<u16> = vec![7; 100];
        long[70] = 256 + (HISTORY - 101) as u16;
        assert!(resolve(&long, short, &mut [0; 100]).is_none());
        assert!(resolve(&long[..70], short, &mut [0; 70]).is_some(), "only the marker past the window is refused");
    }
}
