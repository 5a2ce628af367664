//! The chunked decoder's block loop: the zlib header and trailer, block headers, stored blocks,
//! and Huffman blocks handed to the symbol loop.

use super::symbol_loop::{BitState, SymbolsEnd, decode_symbols, entry_at, refill};
use super::tables::{
    COUNT_MASK, DIST_BITS, DIST_TABLE, KIND_INVALID, KIND_MASK, LITLEN_BITS, LITLEN_TABLE, PRECODE_BITS, PRECODE_ORDER,
    build_table, dist_entry, litlen_entry, precode_entry,
};
use super::*;

impl<'a> ChunkedInflater<'a> {
    /// Decodes the next chunk into the window.
    pub(super) fn fill(&mut self) -> Result<(), Error> {
        if !self.header_read {
            if self.feeding && !self.input_ended && self.fed.len() < 2 {
                return Ok(()); // an exact decoder fed less than the zlib header
            }
            self.zlib_header()?;
            self.header_read = true;
        }
        // Slide: the last 32 KiB handed out become the history of the next chunk. Only once the
        // chunk's room is mostly used: a fed decoder short of input hands out short chunks, and
        // sliding after each would cost 32 KiB of copying per piece fed.
        let room_end = HISTORY + self.chunk_size;
        if self.pos > HISTORY && room_end.saturating_sub(self.pos) <= self.chunk_size / 4 {
            self.window.copy_within(self.pos - HISTORY..self.pos, 0);
            self.pos = HISTORY;
        }
        self.chunk_start = self.pos;
        let limit = (self.pos + self.chunk_size).min(room_end);
        while self.pos < limit {
            if self.starved() {
                if self.exact && self.careful_step(limit)? {
                    continue;
                }
                break;
            }
            if self.skip_bits != 0 && self.state != State::Header {
                // Resumed inside a Huffman block, at a bit that is not a byte's first.
                self.refill()?;
                let skip = self.skip_bits;
                self.take(skip);
                self.skip_bits = 0;
            }
            if self.checkpoint_span != 0
                && self.pos == self.chunk_start
                && matches!(self.state, State::Codes | State::Stored(_))
            {
                // Between chunks inside a block: blocks can be megabytes long.
                self.maybe_checkpoint();
            }
            match self.state {
                State::Header if self.last_block => {
                    self.finish()?;
                    break;
                }
                State::Header => {
                    if self.bit_position() >= self.stop_at_bit {
                        self.stopped_at = Some(self.bit_position());
                        self.state = State::Done;
                        break;
                    }
                    if self.checkpoint_span != 0 {
                        self.maybe_checkpoint();
                    }
                    self.block_header()?
                }
                State::Stored(left) => self.copy_stored(left, limit)?,
                State::Codes => self.decode_codes(limit)?,
                State::Done => break,
            }
        }
        Ok(())
    }

    /// One step of an exact decoder within [`INPUT_MARGIN`](Self::INPUT_MARGIN) of the end of
    /// what it holds: a block header, a run of symbols (all of them while a whole word of input
    /// is left, so every bit they take is input; then one group at a time over the zeros past the
    /// end), a piece of a stored block, or the stream's end. Kept only if it took no bit past the
    /// input fed; undone if it did, or if it failed where the zeros past the end may be the cause
    /// (a failure decided by bits that were all fed is the stream's, and returned). Returns
    /// whether it moved the decoder on.
    pub(super) fn careful_step(&mut self, limit: usize) -> Result<bool, Error> {
        debug_assert!(self.checkpoint_span == 0 && self.stop_at_bit == u64::MAX, "not for an exact decoder");
        let saved = (self.next_in, self.bits, self.bit_count, self.pos, self.state, self.last_block, self.fixed);
        self.decisive = 0;
        let result = match self.state {
            State::Header if self.last_block => self.finish(),
            State::Header => self.block_header(),
            State::Stored(left) => self.copy_stored(left, limit),
            State::Codes => {
                let whole_words = self.fed.len().saturating_sub(8);
                let (limit, stop) = if self.next_in < whole_words {
                    (limit, whole_words)
                } else {
                    ((self.pos + 1).min(limit), usize::MAX)
                };
                self.decode_codes_until(limit, stop)
            }
            State::Done => return Ok(false),
        };
        let fed_bits = self.fed.len() as u64 * 8;
        let taken = (self.next_in as u64 * 8).saturating_sub(u64::from(self.bit_count));
        match result {
            // Decided by fed bits alone: what was taken, and the bits an invalid code's lookup
            // looked at past it; a trailer is compared only once all of it was fed.
            Err(e @ Error::Checksum { .. }) => return Err(e),
            Err(e) if !matches!(e, Error::Truncated { .. }) && taken + u64::from(self.decisive) <= fed_bits => {
                return Err(e);
            }
            Ok(()) if taken <= fed_bits => {}
            _ => {
                (self.next_in, self.bits, self.bit_count, self.pos, self.state, self.last_block, self.fixed) = saved;
                return Ok(false);
            }
        }
        if self.next_in > self.fed.len() {
            // Unload the zeros loaded past the end: the input fed next goes in their place.
            self.bit_count -= 8 * (self.next_in - self.fed.len()) as u32;
            self.next_in = self.fed.len();
        }
        Ok((self.next_in, self.bit_count, self.pos, self.state, self.last_block)
            != (saved.0, saved.2, saved.3, saved.4, saved.5))
    }

    pub(super) fn truncated() -> Error {
        Error::Truncated { offset: 0 }
    }

    /// Tops the bit buffer up (see [`refill`]).
    #[inline(always)]
    pub(super) fn refill(&mut self) -> Result<(), Error> {
        let input = if self.feeding { &self.fed[..] } else { self.input };
        refill(input, &mut self.bits, &mut self.bit_count, &mut self.next_in).map(|_| ())
    }

    #[inline(always)]
    pub(super) fn take(&mut self, n: u32) -> u32 {
        let v = (self.bits & ((1u64 << n) - 1)) as u32;
        self.bits >>= n;
        self.bit_count -= n;
        v
    }

    pub(super) fn zlib_header(&mut self) -> Result<(), Error> {
        let (&cmf, &flg) = match (self.input().first(), self.input().get(1)) {
            (Some(a), Some(b)) => (a, b),
            _ => return Err(Self::truncated()),
        };
        if cmf & 0x0f != 8 || cmf >> 4 > 7 || (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 {
            return Err(corrupt("bad zlib header"));
        }
        if flg & 0x20 != 0 {
            return Err(corrupt("zlib preset dictionaries are not supported"));
        }
        self.next_in = 2;
        Ok(())
    }

    /// After the last block: for zlib, the Adler-32 trailer.
    pub(super) fn finish(&mut self) -> Result<(), Error> {
        // Drop the bits of the last partial byte; whole bytes left in the buffer were not used.
        self.bits >>= self.bit_count % 8;
        self.bit_count -= self.bit_count % 8;
        if self.consumed_here() > self.input().len() {
            return Err(Self::truncated());
        }
        if self.format == Format::Zlib {
            let at = self.consumed_here();
            let trailer = self.input().get(at..at + 4).ok_or_else(Self::truncated)?;
            let expected = u32::from_be_bytes(trailer.try_into().expect("4 bytes"));
            // The chunk not yet handed out is still to be summed.
            let adler = adler32(self.adler, &self.window[self.chunk_start..self.pos]);
            if adler != expected {
                return Err(Error::Checksum { offset: 0 });
            }
            // The trailer is consumed: move past it, with nothing left in the bit buffer.
            self.next_in = at + 4;
            self.bits = 0;
            self.bit_count = 0;
        }
        self.state = State::Done;
        Ok(())
    }

    pub(super) fn block_header(&mut self) -> Result<(), Error> {
        self.refill()?;
        if self.skip_bits != 0 {
            let skip = self.skip_bits;
            self.take(skip);
            self.skip_bits = 0;
            self.refill()?;
        }
        let start_bit = self.bit_position();
        self.block_header_fields()?;
        if self.checkpoint_span != 0 && self.state == State::Codes {
            // The header's bytes, for a checkpoint inside this block to rebuild its tables from.
            let (first, end) = (start_bit / 8, self.bit_position().div_ceil(8));
            let input = if self.feeding { &self.fed[..] } else { self.input };
            let from = (first - self.dropped as u64) as usize;
            let to = ((end - self.dropped as u64) as usize).min(input.len());
            self.header.clear();
            self.header.extend_from_slice(&input[from..to]);
            self.header_skip = (start_bit % 8) as u8;
        }
        Ok(())
    }

    /// Stops the stream at the first block boundary at or past stream bit `bit` (counted from the
    /// stream's first byte), as if the stream ended there: [`next_chunk`](Self::next_chunk) then
    /// hands out what came before it and `None`, and [`stopped_at`](Self::stopped_at) says where.
    /// For decoding one stream in pieces on several threads. Set after starting or resuming.
    pub fn set_stop_at_bit(&mut self, bit: u64) {
        self.stop_at_bit = bit;
    }

    /// The block boundary the decoder stopped at ([`set_stop_at_bit`](Self::set_stop_at_bit)),
    /// if it stopped there rather than at the stream's end.
    pub fn stopped_at(&self) -> Option<u64> {
        self.stopped_at
    }

    /// The stream bit the decoder is at: input consumed from the stream's start, less the bits
    /// still buffered, plus bits still to be skipped.
    pub(crate) fn bit_position(&self) -> u64 {
        ((self.dropped + self.next_in) as u64) * 8 - u64::from(self.bit_count) + u64::from(self.skip_bits)
    }

    pub(super) fn block_header_fields(&mut self) -> Result<(), Error> {
        self.last_block = self.take(1) == 1;
        match self.take(2) {
            0 => {
                // Stored: to the byte boundary, then LEN and NLEN.
                let skip = self.bit_count % 8;
                self.take(skip);
                self.refill()?;
                let len = self.take(16);
                let nlen = self.take(16);
                if len != !nlen & 0xffff {
                    return Err(corrupt("stored block length does not match its complement"));
                }
                // Read the data straight from the input: give back the whole bytes still buffered.
                self.next_in -= (self.bit_count / 8) as usize;
                self.bits = 0;
                self.bit_count = 0;
                if self.next_in > self.input().len() {
                    return Err(Self::truncated());
                }
                self.state = State::Stored(len as usize);
            }
            1 => {
                self.fixed = true;
                self.state = State::Codes;
            }
            2 => {
                self.dynamic_header()?;
                self.fixed = false;
                self.state = State::Codes;
            }
            _ => return Err(corrupt("invalid block type")),
        }
        Ok(())
    }

    pub(super) fn copy_stored(&mut self, left: usize, limit: usize) -> Result<(), Error> {
        let mut n = left.min(limit - self.pos);
        if self.feeding && !self.input_ended {
            // What has been fed; the rest of the block after the next piece.
            n = n.min(self.fed.len() - self.next_in);
        }
        let input = if self.feeding { &self.fed[..] } else { self.input };
        let src = input.get(self.next_in..self.next_in + n).ok_or_else(Self::truncated)?;
        self.window[self.pos..self.pos + n].copy_from_slice(src);
        self.pos += n;
        self.next_in += n;
        self.state = if n == left { State::Header } else { State::Stored(left - n) };
        Ok(())
    }

    pub(super) fn dynamic_header(&mut self) -> Result<(), Error> {
        self.refill()?;
        let hlit = self.take(5) as usize + 257;
        let hdist = self.take(5) as usize + 1;
        let hclen = self.take(4) as usize + 4;
        if hlit > 286 || hdist > 30 {
            return Err(corrupt("too many length or distance symbols"));
        }
        let mut precode_lengths = [0u8; 19];
        for &symbol in &PRECODE_ORDER[..hclen] {
            self.refill()?;
            precode_lengths[symbol] = self.take(3) as u8;
        }
        let mut precode = [0u32; 1 << PRECODE_BITS];
        build_table(&mut precode, &precode_lengths, PRECODE_BITS, false, precode_entry).map_err(corrupt)?;
        let mut lengths = [0u8; 286 + 30];
        let mut i = 0;
        while i < hlit + hdist {
            self.refill()?;
            let e = precode[(self.bits & ((1 << PRECODE_BITS) - 1)) as usize];
            if e & KIND_MASK == KIND_INVALID {
                return Err(corrupt("invalid code length code"));
            }
            self.take(e & COUNT_MASK);
            let symbol = (e >> 16) as u8;
            let (value, repeat) = match symbol {
                0..=15 => (symbol, 1),
                16 => {
                    let previous = *lengths[..i].last().ok_or_else(|| corrupt("repeat with no previous length"))?;
                    (previous, 3 + self.take(2) as usize)
                }
                17 => (0, 3 + self.take(3) as usize),
                _ => (0, 11 + self.take(7) as usize),
            };
            if i + repeat > hlit + hdist {
                return Err(corrupt("code lengths repeat past their end"));
            }
            lengths[i..i + repeat].fill(value);
            i += repeat;
        }
        if lengths[256] == 0 {
            return Err(corrupt("no end-of-block code"));
        }
        build_table(&mut self.litlen[..], &lengths[..hlit], LITLEN_BITS, true, litlen_entry).map_err(corrupt)?;
        build_table(&mut self.dist[..], &lengths[hlit..hlit + hdist], DIST_BITS, true, dist_entry).map_err(corrupt)?;
        Ok(())
    }

    /// Decodes symbols until the block ends or the output reaches `limit`.
    pub(super) fn decode_codes(&mut self, limit: usize) -> Result<(), Error> {
        // A fed decoder stops this far before the end of what it holds, unless the input has
        // ended: a symbol's refill reads 8 bytes at most, so the fast path always has its word.
        let input_stop = if self.feeding && !self.input_ended {
            self.fed.len().saturating_sub(Self::INPUT_MARGIN)
        } else {
            usize::MAX
        };
        self.decode_codes_until(limit, input_stop)
    }

    /// Decodes symbols until the block ends, the output reaches `limit`, or the next byte to load
    /// reaches `input_stop`.
    pub(super) fn decode_codes_until(&mut self, limit: usize, input_stop: usize) -> Result<(), Error> {
        let (litlen, dist): (&[u32; LITLEN_TABLE], &[u32; DIST_TABLE]) =
            if self.fixed { (&self.fixed_litlen, &self.fixed_dist) } else { (&self.litlen, &self.dist) };
        let input: &[u8] = if self.feeding { &self.fed } else { self.input };
        // Every write lands before `limit + SLACK` (see `decode_symbols`).
        assert!(limit + SLACK <= self.window.len(), "chunk limit inside the window");
        let mut bits = BitState { bits: self.bits, bit_count: self.bit_count, next_in: self.next_in };
        // SAFETY: the window holds `limit + SLACK` bytes (asserted above), all of them initialised.
        let end = unsafe {
            decode_symbols(litlen, dist, input, input_stop, &mut bits, self.window.as_mut_ptr(), &mut self.pos, limit)
        };
        (self.bits, self.bit_count, self.next_in) = (bits.bits, bits.bit_count, bits.next_in);
        match end {
            SymbolsEnd::Room => Ok(()),
            SymbolsEnd::BlockEnd => {
                self.state = State::Header;
                Ok(())
            }
            SymbolsEnd::Truncated => Err(Self::truncated()),
            SymbolsEnd::BadLitLen => {
                self.decisive = entry_at(litlen, self.bits, LITLEN_BITS) & COUNT_MASK;
                Err(corrupt("invalid literal/length code"))
            }
            SymbolsEnd::BadDistance => {
                self.decisive = entry_at(dist, self.bits, DIST_BITS) & COUNT_MASK;
                Err(corrupt("invalid distance code"))
            }
            SymbolsEnd::TooFarBack => Err(corrupt("distance too far back")),
        }
    }
}
