//! A worker's speculation: from an arbitrary bit, find where a block could start (a dynamic
//! block header whose codes are all complete, or a stored block whose length matches its
//! complement), then decode from there without the window before it, marked, until the markers
//! die out, and on with the byte decoder to the first block boundary past the chunk's end.

use super::*;

/// A worker's chunk: finds a block start at or after `from_bit`, decodes from it with an unknown
/// window to the first block boundary at or past `to_bit`. `None` if nothing is found or the
/// decoding fails (the writer then decodes that part serially).
#[allow(clippy::too_many_arguments)]
pub(super) fn speculate<E>(
    compressed_len: u64,
    from_bit: u64,
    to_bit: u64,
    input: &mut Vec<u8>,
    reuse: &mut Reuse<'_, '_>,
    source: &Source<'_, E>,
    stale: &dyn Fn() -> bool,
    found: &dyn Fn(),
) -> Option<ChunkOut> {
    // The chunk's compressed bytes and a margin past its end for the last blocks; reading goes on
    // from the source when the fast decoder needs more.
    let first_byte = from_bit / 8;
    let span = ((to_bit - from_bit) / 8 + (1 << 20)).min(compressed_len - first_byte) as usize;
    if input.len() < span {
        input.resize(span, 0);
    }
    let input = &mut input[..span];
    let mut filled = 0;
    while filled < span {
        match source(first_byte + filled as u64, &mut input[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    let input = &input[..filled];
    let mut decoder = MarkerDecoder::new();
    // A block starts every few tens of KiB in what real encoders write: a chunk with none in its
    // first SEARCH bits is left to serial decoding rather than scanned to its end.
    let search_end = (to_bit - from_bit).min(filled as u64 * 8).min(SEARCH);
    for offset in 0..search_end {
        if offset.is_multiple_of(65_536) && stale() {
            return None;
        }
        // A non-final block's first three bits are 0, then its type: 00 (stored) or 01
        // (dynamic), least significant bit first. Most places fail here, at a byte load.
        let first = input.get((offset / 8) as usize..).and_then(|b| b.first().zip(b.get(1)));
        let three = first.map_or(0, |(&a, &b)| (u16::from(a) | u16::from(b) << 8) >> (offset % 8)) & 7;
        if three & 3 != 0 {
            continue;
        }
        if !decoder.plausible(input, offset) {
            continue;
        }
        decoder.too_large.set(false);
        if let Some(out) =
            decoder.try_from(input, offset, first_byte, to_bit, compressed_len, reuse, source, stale, found)
        {
            return Some(out);
        }
        if decoder.too_large.get() {
            // A block start whose chunk decodes past the bound (a stretch that compresses far
            // better than the stream's ratio said): the next one would too, each after decoding
            // as much again. The chunk is the writer's to decode.
            return None;
        }
    }
    None
}

/// A bit reader over a byte slice, with zeros past its end.
struct Bits<'a> {
    input: &'a [u8],
    /// Bit position in `input`.
    pos: u64,
}

impl Bits<'_> {
    fn peek(&self) -> u64 {
        let byte = (self.pos / 8) as usize;
        if let Some(word) = self.input.get(byte..byte + 8) {
            return u64::from_le_bytes(word.try_into().expect("8 bytes")) >> (self.pos % 8);
        }
        let mut word = [0u8; 8];
        if let Some(rest) = self.input.get(byte..) {
            let n = rest.len().min(8);
            word[..n].copy_from_slice(&rest[..n]);
        }
        u64::from_le_bytes(word) >> (self.pos % 8)
    }

    fn take(&mut self, n: u32) -> u32 {
        let v = (self.peek() & ((1u64 << n) - 1)) as u32;
        self.pos += u64::from(n);
        v
    }

    fn past_end(&self) -> bool {
        self.pos > self.input.len() as u64 * 8
    }
}

/// Bits of a chunk searched for a block start.
const SEARCH: u64 = 4 << 20;
/// How far a candidate must decode before it is believed (or reach its chunk's end).
const BELIEVE_OUT: usize = 8 << 10;

/// A worker's outputs and decoder, kept from chunk to chunk.
pub(super) struct Reuse<'r, 'i> {
    pub(super) marked: &'r mut Marked,
    /// For the bytes decoded after the markers die out (handed to the writer in the chunk, and
    /// back through `Shared::spare_bytes`: fresh megabytes cost their page faults).
    pub(super) bytes: &'r mut Vec<u8>,
    pub(super) inflater: &'r mut ChunkedInflater<'i>,
}

/// Output between checks for 32 KiB without a marker (then the fast byte decoder goes on): each
/// check reads 32 Ki symbols, and where markers die out soon after a chunk's start (most data
/// but log lines) every marked symbol decoded past that point costs a resolve for nothing.
const CLEAN_EVERY: usize = 64 << 10;
/// Output decoded from a block start before the worker tells the writer it found one (the
/// writer then waits for this chunk rather than decode it itself).
const FOUND_AFTER: usize = 1 << 20;

/// A worker's decoder for a chunk: block headers read a bit at a time (a few per chunk), the
/// codes between them by [`marked::decode_codes`], into 16-bit symbols that can name bytes of
/// the unknown window.
struct MarkerDecoder {
    litlen: Box<[u32; LITLEN_TABLE]>,
    dist: Box<[u32; DIST_TABLE]>,
    fixed_litlen: Box<[u32; LITLEN_TABLE]>,
    fixed_dist: Box<[u32; DIST_TABLE]>,
    /// The last try reached the output's limit: the chunk decodes to more than a worker may hold.
    too_large: std::cell::Cell<bool>,
}

/// Where the marker decoder is in its current block.
enum Block {
    Stored { left: usize },
    Codes { fixed: bool },
}

impl MarkerDecoder {
    fn new() -> MarkerDecoder {
        let (fixed_litlen, fixed_dist) = fixed_tables();
        MarkerDecoder {
            litlen: table(),
            dist: table(),
            fixed_litlen,
            fixed_dist,
            too_large: std::cell::Cell::new(false),
        }
    }

    /// Whether a non-final dynamic or stored block could start at `offset` (a cheap first test).
    fn plausible(&self, input: &[u8], offset: u64) -> bool {
        let bits = Bits { input, pos: offset }.peek();
        if bits & 1 != 0 {
            return false;
        }
        match (bits >> 1) & 3 {
            // Dynamic: HLIT <= 29, HDIST <= 29, and a code-length code that is complete (zlib
            // refuses any other): its lengths' Kraft sum is exactly one. This leaves about one
            // place in a hundred for `header` to try.
            2 if (bits >> 3) & 31 <= 29 && (bits >> 8) & 31 <= 29 => {
                let count = ((bits >> 13) & 15) as usize + 4;
                let lengths = Bits { input, pos: offset + 17 }.peek();
                let kraft: u32 = (0..count)
                    .map(|i| ((lengths >> (3 * i)) & 7) as u32)
                    .filter(|&l| l != 0)
                    .map(|l| 1 << (7 - l))
                    .sum();
                kraft == 1 << 7
            }
            // Stored: LEN and NLEN, after the padding to the byte, must be complements.
            0 => {
                let pad = (8 - (offset + 3) % 8) % 8;
                let at = Bits { input, pos: offset + 3 + pad }.peek();
                (at & 0xffff) as u16 == !((at >> 16) & 0xffff) as u16
            }
            _ => false,
        }
    }

    /// Reads a block header at `bits`: the block, and whether it is the last.
    fn header(&mut self, bits: &mut Bits<'_>) -> Option<(Block, bool)> {
        let last = bits.take(1) == 1;
        match bits.take(2) {
            0 => {
                let pad = ((8 - bits.pos % 8) % 8) as u32;
                bits.take(pad);
                let len = bits.take(16);
                let nlen = bits.take(16);
                (len == !nlen & 0xffff).then_some((Block::Stored { left: len as usize }, last))
            }
            1 => Some((Block::Codes { fixed: true }, last)),
            2 => {
                let hlit = bits.take(5) as usize + 257;
                let hdist = bits.take(5) as usize + 1;
                let hclen = bits.take(4) as usize + 4;
                if hlit > 286 || hdist > 30 {
                    return None;
                }
                let mut precode_lengths = [0u8; 19];
                for &symbol in &PRECODE_ORDER[..hclen] {
                    precode_lengths[symbol] = bits.take(3) as u8;
                }
                let mut precode = [0u32; 1 << PRECODE_BITS];
                build_table(&mut precode, &precode_lengths, PRECODE_BITS, false, precode_entry).ok()?;
                let mut lengths = [0u8; 286 + 30];
                let mut i = 0;
                while i < hlit + hdist {
                    let e = precode[(bits.peek() & ((1 << PRECODE_BITS) - 1)) as usize];
                    if e & KIND_MASK == KIND_INVALID {
                        return None;
                    }
                    bits.take(e & COUNT_MASK);
                    let symbol = (e >> 16) as u8;
                    let (value, repeat) = match symbol {
                        0..=15 => (symbol, 1),
                        16 => (*lengths[..i].last()?, 3 + bits.take(2) as usize),
                        17 => (0, 3 + bits.take(3) as usize),
                        _ => (0, 11 + bits.take(7) as usize),
                    };
                    if i + repeat > hlit + hdist {
                        return None;
                    }
                    lengths[i..i + repeat].fill(value);
                    i += repeat;
                }
                if lengths[256] == 0 || bits.past_end() {
                    return None;
                }
                build_table(&mut self.litlen[..], &lengths[..hlit], LITLEN_BITS, true, litlen_entry).ok()?;
                build_table(&mut self.dist[..], &lengths[hlit..hlit + hdist], DIST_BITS, true, dist_entry).ok()?;
                Some((Block::Codes { fixed: false }, last))
            }
            _ => None,
        }
    }

    /// Decodes from `offset` of `input` (the stream's byte `first_byte` on) with an unknown window
    /// to the first block boundary past `to_bit`, switching to the fast byte decoder once 32 KiB
    /// pass without a marker. `None` unless at least [`BELIEVE_OUT`] bytes decode.
    #[allow(clippy::too_many_arguments)]
    fn try_from<E>(
        &mut self,
        input: &[u8],
        offset: u64,
        first_byte: u64,
        to_bit: u64,
        compressed_len: u64,
        reuse: &mut Reuse<'_, '_>,
        source: &Source<'_, E>,
        stale: &dyn Fn() -> bool,
        found: &dyn Fn(),
    ) -> Option<ChunkOut> {
        let start_bit = first_byte * 8 + offset;
        let mut bits = Bits { input, pos: offset };
        let out = &mut *reuse.marked;
        out.restart();
        let (mut checked_at, mut told) = (0, false);
        loop {
            // At a block boundary.
            let here = first_byte * 8 + bits.pos;
            // At the chunk's end; or, where the chunk decodes to far more than the stream's ratio
            // said, a quarter of the limit before it (a block is rarely larger): the writer
            // decodes the rest up to the next chunk, instead of the whole chunk.
            let full = out.decoded().len() >= out.limit() / 4 * 3;
            if (here >= to_bit || full) && out.decoded().len() >= BELIEVE_OUT {
                return Some(ChunkOut {
                    start_bit,
                    marked: out.take(),
                    bytes: Vec::new(),
                    end_bit: here,
                    ended: false,
                });
            }
            if !told && out.pos >= HISTORY + FOUND_AFTER {
                // A megabyte decoded from here: this is where a block starts.
                found();
                told = true;
            }
            if out.pos >= checked_at + CLEAN_EVERY {
                checked_at = out.pos;
                if out.clean() {
                    // On failure (a false start that decoded this far) the buffers stay the
                    // worker's, for the next place it tries.
                    return self.go_fast(
                        start_bit,
                        out,
                        reuse.bytes,
                        here,
                        to_bit,
                        compressed_len,
                        reuse.inflater,
                        source,
                    );
                }
                if stale() {
                    return None;
                }
            }
            let (block, last) = self.header(&mut bits)?;
            match block {
                Block::Stored { left } => {
                    let byte = (bits.pos / 8) as usize;
                    if !out.push_bytes(input.get(byte..byte + left)?) {
                        self.too_large.set(true);
                        return None;
                    }
                    bits.pos += left as u64 * 8;
                }
                Block::Codes { fixed } => {
                    let (litlen, dist) =
                        if fixed { (&self.fixed_litlen, &self.fixed_dist) } else { (&self.litlen, &self.dist) };
                    match marked::decode_codes(litlen, dist, input, &mut bits.pos, out) {
                        Ok(()) => {}
                        Err(marked::Refused::TooLong) => {
                            self.too_large.set(true);
                            return None;
                        }
                        Err(_) => return None,
                    }
                }
            }
            if last {
                let end_bit = first_byte * 8 + bits.pos;
                if end_bit.div_ceil(8) != compressed_len || out.decoded().is_empty() {
                    return None;
                }
                return Some(ChunkOut {
                    start_bit,
                    marked: out.take(),
                    bytes: Vec::new(),
                    end_bit: end_bit.div_ceil(8) * 8,
                    ended: true,
                });
            }
            if bits.past_end() {
                return None;
            }
        }
    }

    /// Goes on from `here` with the fast decoder, the last 32 KiB of `out` (marker-free) as its
    /// window, to the first block boundary past `to_bit` or the stream's end.
    #[allow(clippy::too_many_arguments)]
    fn go_fast<E>(
        &self,
        start_bit: u64,
        out: &mut Marked,
        bytes: &mut Vec<u8>,
        here: u64,
        to_bit: u64,
        compressed_len: u64,
        inflater: &mut ChunkedInflater<'_>,
        source: &Source<'_, E>,
    ) -> Option<ChunkOut> {
        let window: Vec<u8> = out.symbols[out.pos - HISTORY..out.pos].iter().map(|&v| v as u8).collect();
        let point = Checkpoint {
            bit_offset: here,
            out_offset: out.pos as u64,
            window: window.into(),
            inside: Inside::Nothing,
            stream_crc: None,
        };
        let mut next = inflater.resume_fed(&point).ok()?;
        inflater.set_stop_at_bit(to_bit);
        bytes.clear();
        let mut read = |offset: u64, buf: &mut [u8]| source(offset, buf);
        loop {
            feed(inflater, &mut next, compressed_len, &mut read).ok()?;
            match inflater.next_chunk().ok()? {
                Some(chunk) if out.decoded().len() + bytes.len() + chunk.len() <= out.limit() => {
                    bytes.extend_from_slice(chunk);
                    let total = out.decoded().len() + bytes.len();
                    if total >= out.limit() / 4 * 3 || total + SERIAL_CHUNK > out.limit() {
                        // Far more than the stream's ratio said: end at the next block boundary
                        // (as the marked loop does), the writer decoding on from there.
                        inflater.set_stop_at_bit(inflater.bit_position().min(to_bit));
                    }
                }
                Some(_) => {
                    // Past the limit: left to serial decoding.
                    self.too_large.set(true);
                    return None;
                }
                None => break,
            }
        }
        let (end_bit, ended) = match inflater.stopped_at() {
            Some(bit) => (bit, false),
            None => (inflater.consumed() as u64 * 8, true),
        };
        if ended && inflater.consumed() as u64 != compressed_len {
            return None;
        }
        Some(ChunkOut { start_bit, marked: out.take(), bytes: std::mem::take(bytes), end_bit, ended })
    }
}
