//! Inflating one large stream that is wholly in memory into bounded chunks, at close to
//! libdeflate's speed, without holding its whole output.
//!
//! libdeflate decodes a stream only into one output buffer of its full size; zlib-style streaming
//! decoders bound memory but run at about half libdeflate's speed here. This decoder has
//! libdeflate's shape — a 64-bit bit buffer refilled a word at a time, one table lookup per symbol
//! (with subtables for the few long codes), matches copied a word at a time into slack past the
//! end — and writes into a window of 32 KiB of history plus one chunk, handing out each chunk and
//! sliding the history to the front. It only stops between symbols: a chunk may run a little past
//! its nominal size ([`ChunkedInflater::MAX_OVERRUN`]).
//!
//! Here: the inflater, its input (whole or fed), chunks and window. Beside it: `blocks.rs` (the
//! zlib framing, block headers, stored and Huffman blocks), `checkpointing.rs` (where a later read
//! resumes), `symbol_loop.rs` (the hot loop, shared with the parallel decoder) and `tables.rs`
//! (the Huffman decode tables).

mod blocks;
mod checkpointing;
pub(crate) mod symbol_loop;
pub(crate) mod tables;

use crate::checkpoint::{Checkpoint, Inside, STREAM_MARK, StreamCrc};
use crate::checksum::adler32;
use crate::{Crc32, Error, Format};
use tables::{DIST_TABLE, LITLEN_TABLE, fixed_tables, table};

/// History a match may reach back into (deflate's window).
pub(crate) const HISTORY: usize = 32 << 10;
/// Longest match.
const MAX_MATCH: usize = 258;
/// Room past a chunk's end for the last match and for copying whole words (matches are copied
/// four words at a time, then a word at a time).
const SLACK: usize = MAX_MATCH + 48;

/// Where the decoder is between calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At a block header (or at the end, if the last block is done).
    Header,
    /// Inside a stored block with this many bytes left.
    Stored(usize),
    /// Inside a Huffman block (fixed or dynamic tables).
    Codes,
    /// The stream (and its trailer) is complete.
    Done,
}

/// Inflates one raw deflate or zlib stream held in memory, a chunk at a time.
///
/// ```
/// use strided_inflate::{ChunkedInflater, Format};
///
/// // "hello" as a raw deflate stream.
/// let stream = [0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00];
/// let mut inflater = ChunkedInflater::new(Format::Raw);
/// inflater.start(&stream);
/// let mut out = Vec::new();
/// while let Some(chunk) = inflater.next_chunk()? {
///     out.extend_from_slice(chunk);
/// }
/// assert_eq!((out.as_slice(), inflater.consumed()), (&b"hello"[..], stream.len()));
/// # Ok::<(), strided_inflate::Error>(())
/// ```
pub struct ChunkedInflater<'a> {
    format: Format,
    /// The stream, when it is all in memory ([`start`](Self::start)).
    input: &'a [u8],
    /// Whether the input arrives in pieces ([`start_fed`](Self::start_fed)) into `fed`.
    feeding: bool,
    /// Input fed so far that may still be needed: from the first byte not yet consumed on.
    fed: Vec<u8>,
    /// Bytes fed and dropped from the front of `fed` (consumed), so that offsets stay absolute.
    dropped: usize,
    /// Whether the last piece of input has been fed: only then may the decoder reach its end.
    input_ended: bool,
    /// Whether a fed decoder goes on to the last bit of what it holds instead of stopping
    /// [`INPUT_MARGIN`](Self::INPUT_MARGIN) short ([`start_fed_exact`](Self::start_fed_exact)).
    exact: bool,
    /// After an invalid code: the bits its lookup looked at, past those taken.
    decisive: u32,
    /// Next input byte to load into the bit buffer (may pass the end by the zeros loaded there).
    next_in: usize,
    bits: u64,
    bit_count: u32,
    state: State,
    /// Whether the zlib header has been read (always true for raw deflate).
    header_read: bool,
    last_block: bool,
    /// History, then the chunk being filled, then slack.
    window: Box<[u8]>,
    /// Where the next output byte goes in `window`.
    pos: usize,
    /// Where the chunk being filled starts in `window`.
    chunk_start: usize,
    chunk_size: usize,
    total_out: u64,
    adler: u32,
    fixed: bool,
    litlen: Box<[u32; LITLEN_TABLE]>,
    dist: Box<[u32; DIST_TABLE]>,
    fixed_litlen: Box<[u32; LITLEN_TABLE]>,
    fixed_dist: Box<[u32; DIST_TABLE]>,
    /// Bits to drop before the next block header: a stream resumed at a checkpoint that does not
    /// start on a byte boundary.
    skip_bits: u32,
    /// Record a checkpoint at the first block boundary at least this many output bytes after the
    /// last (0: none).
    checkpoint_span: u64,
    /// The output offset from which the next checkpoint is due.
    next_checkpoint: u64,
    checkpoints: Vec<Checkpoint>,
    /// While recording checkpoints from a stream's start: the CRC-32 of its first `.0` bytes,
    /// carried forward over input before it is dropped (each checkpoint keeps it, for its digest).
    stream_crc: Option<(u64, Crc32)>,
    /// With `stream_crc`: the CRC-32 of the stream's first `(i + 1) × STREAM_MARK` bytes at `i`,
    /// as far as it has been carried (what a slice's compressed bytes are checked against).
    stream_marks: Vec<u32>,
    /// While recording checkpoints: the current Huffman block's header, from the byte holding
    /// its first bit, and the bits of that byte before it; a checkpoint inside the block keeps it.
    header: Vec<u8>,
    header_skip: u8,
    /// Stop at the first block boundary at or past this stream bit ([`set_stop_at_bit`]).
    stop_at_bit: u64,
    stopped_at: Option<u64>,
}

impl std::fmt::Debug for ChunkedInflater<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkedInflater")
            .field("format", &self.format)
            .field("total_out", &self.total_out)
            .finish_non_exhaustive()
    }
}
pub(crate) fn corrupt(reason: &'static str) -> Error {
    Error::Corrupt { offset: 0, reason: reason.into() }
}

impl<'a> ChunkedInflater<'a> {
    /// How far past its nominal size a chunk may run: the decoder stops only between symbols
    /// (two literals and one match, at most).
    pub const MAX_OVERRUN: usize = MAX_MATCH + 2;

    /// A decoder handing out chunks of about 1 MiB. Allocates its window and tables once; reuse it
    /// with [`start`](Self::start) for stream after stream.
    pub fn new(format: Format) -> ChunkedInflater<'a> {
        ChunkedInflater::with_chunk_size(format, 1 << 20)
    }

    /// A decoder handing out chunks of about `chunk_size` bytes (clamped to 1 byte – 1 GiB; a chunk
    /// may run up to [`MAX_OVERRUN`](Self::MAX_OVERRUN) bytes past it).
    pub fn with_chunk_size(format: Format, chunk_size: usize) -> ChunkedInflater<'a> {
        let chunk_size = chunk_size.clamp(1, 1 << 30);
        let (fixed_litlen, fixed_dist) = fixed_tables();
        ChunkedInflater {
            format,
            input: &[],
            feeding: false,
            fed: Vec::new(),
            dropped: 0,
            input_ended: true,
            exact: false,
            decisive: 0,
            next_in: 0,
            bits: 0,
            bit_count: 0,
            state: State::Done,
            header_read: true,
            last_block: false,
            window: vec![0u8; HISTORY + chunk_size + SLACK].into_boxed_slice(),
            pos: 0,
            chunk_start: 0,
            chunk_size,
            total_out: 0,
            adler: 1,
            fixed: false,
            litlen: table(),
            dist: table(),
            fixed_litlen,
            fixed_dist,
            skip_bits: 0,
            checkpoint_span: 0,
            next_checkpoint: 0,
            checkpoints: Vec::new(),
            stream_marks: Vec::new(),
            stream_crc: None,
            header: Vec::new(),
            header_skip: 0,
            stop_at_bit: u64::MAX,
            stopped_at: None,
        }
    }

    /// Starts on the stream at the beginning of `input` (bytes after it are never read as part
    /// of it).
    pub fn start(&mut self, input: &'a [u8]) {
        self.input = input;
        self.dropped = 0;
        self.feeding = false;
        self.input_ended = true;
        self.exact = false;
        self.restart();
    }

    /// Starts on a stream whose input is not all in memory (read from a file, say): feed it with
    /// [`feed_with`](Self::feed_with) whenever [`wants_input`](Self::wants_input) says, and call
    /// [`end_input`](Self::end_input) once the source has no more. The decoder holds at most the
    /// last piece fed plus [`INPUT_MARGIN`](Self::INPUT_MARGIN) bytes of input, and decodes exactly
    /// as [`start`](Self::start) would over the whole stream, wherever the pieces are cut.
    ///
    /// ```
    /// use strided_inflate::{ChunkedInflater, Format};
    ///
    /// let stream = [0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, b'n', b'e', b'x', b't'];
    /// let mut inflater = ChunkedInflater::new(Format::Raw);
    /// inflater.start_fed();
    /// let (mut fed, mut out) = (0, Vec::new());
    /// loop {
    ///     while inflater.wants_input() {
    ///         if fed == stream.len() {
    ///             inflater.end_input();
    ///             break;
    ///         }
    ///         // Three bytes at a time, as a short read might give them.
    ///         let piece = &stream[fed..(fed + 3).min(stream.len())];
    ///         fed += inflater.feed_with(piece.len(), |room| {
    ///             room.copy_from_slice(piece);
    ///             Ok::<usize, std::io::Error>(piece.len())
    ///         })?;
    ///     }
    ///     match inflater.next_chunk()? {
    ///         Some(chunk) => out.extend_from_slice(chunk),
    ///         None => break,
    ///     }
    /// }
    /// assert_eq!((out.as_slice(), inflater.consumed()), (&b"hello"[..], 7));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_fed(&mut self) {
        self.input = &[];
        self.feeding = true;
        self.fed.clear();
        self.dropped = 0;
        self.input_ended = false;
        self.exact = false;
        self.restart();
    }

    /// Starts on a stream fed as for [`start_fed`](Self::start_fed), decoded as far as the input
    /// fed so far allows, to its last bit: when the stream ends inside what has been fed,
    /// [`next_chunk`](Self::next_chunk) reaches its end without waiting for more, so
    /// [`consumed`](Self::consumed) tells exactly where it ended however the input was cut (a
    /// stream followed by other data in a source read piece by piece). Near the end of what it
    /// holds, each block header or group of symbols is decoded tentatively and undone if it needed
    /// bits not yet fed, and an error there waits for more input or [`end_input`](Self::end_input)
    /// to be reported (it may be an artefact of the cut). Checkpoints and
    /// [`set_stop_at_bit`](Self::set_stop_at_bit) are not for this mode. A chunk handed out while
    /// it needs input may be short or empty; [`wants_input`](Self::wants_input) is not its guide:
    /// feed, then take chunks until one comes out empty.
    pub fn start_fed_exact(&mut self) {
        self.start_fed();
        self.exact = true;
    }

    /// Input a fed decoder keeps ahead of where it decodes (unless the input has ended): more than
    /// any block header or the bits of one symbol can take, so it never has to stop mid-header.
    pub const INPUT_MARGIN: usize = 2 << 10;

    /// Whether the decoder needs more input before [`next_chunk`](Self::next_chunk) can go on
    /// (always `false` for a stream started with [`start`](Self::start)). A chunk handed out while
    /// it does may be short, or empty.
    pub fn wants_input(&self) -> bool {
        self.feeding
            && !self.input_ended
            && self.state != State::Done
            && self.fed.len() - self.next_in <= Self::INPUT_MARGIN
    }

    /// Feeds up to `max` more bytes of input: `read` fills the front of the slice it is given (as
    /// `pread` would) and says how many bytes it wrote. Input already consumed is dropped first,
    /// so memory stays at what is not yet decoded. Returns what `read` returned.
    ///
    /// # Panics
    /// If `read` says it wrote more than it was given.
    pub fn feed_with<E>(&mut self, max: usize, read: impl FnOnce(&mut [u8]) -> Result<usize, E>) -> Result<usize, E> {
        assert!(self.feeding, "feed_with needs a stream started with start_fed");
        // Input consumed, but not the byte whose first bits are: a checkpoint inside the block
        // that starts in it keeps the block's header from that byte on.
        let unneeded = self.next_in - (self.bit_count as usize).div_ceil(8);
        if unneeded > 0 {
            self.carry_stream_crc((self.dropped + unneeded) as u64);
            self.fed.drain(..unneeded);
            self.next_in -= unneeded;
            self.dropped += unneeded;
        }
        let held = self.fed.len();
        self.fed.resize(held + max, 0);
        let result = read(&mut self.fed[held..]);
        let n = *result.as_ref().unwrap_or(&0);
        assert!(n <= max, "read {n} bytes into room for {max}");
        self.fed.truncate(held + n);
        result
    }

    /// Says that all the input has been fed: the stream must end within it.
    pub fn end_input(&mut self) {
        self.input_ended = true;
    }

    /// The stream's input in memory: all of it, or what is held of what was fed.
    #[inline(always)]
    fn input(&self) -> &[u8] {
        if self.feeding { &self.fed } else { self.input }
    }

    /// Input bytes consumed, counted from the front of [`input`](Self::input).
    fn consumed_here(&self) -> usize {
        self.next_in - (self.bit_count / 8) as usize
    }

    /// Whether a fed decoder must stop and wait for more input.
    fn starved(&self) -> bool {
        self.feeding && !self.input_ended && self.fed.len() - self.next_in <= Self::INPUT_MARGIN
    }

    fn restart(&mut self) {
        self.stop_at_bit = u64::MAX;
        self.stopped_at = None;
        self.skip_bits = 0;
        self.checkpoints.clear();
        self.stream_crc = (self.checkpoint_span > 0).then(|| (0, Crc32::new()));
        self.stream_marks.clear();
        self.next_checkpoint = self.checkpoint_span;
        self.next_in = 0;
        self.bits = 0;
        self.bit_count = 0;
        self.state = State::Header;
        self.header_read = self.format == Format::Raw;
        self.last_block = false;
        self.pos = 0;
        self.chunk_start = 0;
        self.total_out = 0;
        self.adler = 1;
    }

    /// Bytes inflated so far.
    pub fn total_out(&self) -> u64 {
        self.total_out
    }

    /// Input bytes the stream occupied (header and trailer included), once it is complete.
    pub fn consumed(&self) -> usize {
        self.dropped + self.consumed_here()
    }

    /// The next chunk of output, `None` once the stream is complete (and, for zlib, its Adler-32
    /// verified). Chunks go out as they are decoded, before the checksum (and the rest of the
    /// stream) can be checked: treat them as provisional until `None` (as asset-extract does,
    /// writing into a staging directory it discards on any error). Errors report offsets relative
    /// to the start of the stream.
    pub fn next_chunk(&mut self) -> Result<Option<&[u8]>, Error> {
        if self.state == State::Done {
            return Ok(None);
        }
        let result = self.fill();
        if let Err(e) = result {
            self.state = State::Done;
            // Whatever the decoder made of the zeros past the end, a stream that needed them is
            // truncated.
            return Err(if self.consumed_here() > self.input().len() { Self::truncated() } else { e });
        }
        let chunk = &self.window[self.chunk_start..self.pos];
        self.total_out += chunk.len() as u64;
        if self.format == Format::Zlib {
            self.adler = adler32(self.adler, chunk);
        }
        if chunk.is_empty() && self.state == State::Done {
            return Ok(None);
        }
        Ok(Some(&self.window[self.chunk_start..self.pos]))
    }

    /// The last chunk [`next_chunk`](Self::next_chunk) handed out, again (empty before the first):
    /// for a caller that passes it on in pieces across calls, such as an [`std::io::Read`]
    /// adapter.
    pub fn last_chunk(&self) -> &[u8] {
        &self.window[self.chunk_start..self.pos]
    }

    /// The size of the decoder's window (32 KiB of history, a chunk, and slack): the size of a
    /// buffer for [`swap_window`](Self::swap_window).
    pub fn window_len(&self) -> usize {
        self.window.len()
    }

    /// Hands over the window holding the chunk [`next_chunk`](Self::next_chunk) just returned,
    /// taking `spare` (of [`window_len`](Self::window_len) bytes, contents unused) in its place:
    /// the chunk, at the returned range of the returned buffer, can then go to another thread
    /// without being copied. Only the 32 KiB of history the next chunk may refer back to is copied
    /// (into `spare`). After it, [`last_chunk`](Self::last_chunk) is empty.
    ///
    /// ```
    /// # use std::io::Write;
    /// # let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
    /// # e.write_all(&b"the same words again and again ".repeat(20_000)).unwrap();
    /// # let stream = e.finish().unwrap();
    /// use strided_inflate::{ChunkedInflater, Format};
    /// let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 64 << 10);
    /// inflater.start(&stream);
    /// let mut spare = vec![0u8; inflater.window_len()].into_boxed_slice();
    /// let mut out = Vec::new();
    /// while inflater.next_chunk()?.is_some() {
    ///     let (window, range) = inflater.swap_window(spare);
    ///     out.extend_from_slice(&window[range]); // another thread could do this
    ///     spare = window; // and give the buffer back for the next chunk
    /// }
    /// assert_eq!(out, b"the same words again and again ".repeat(20_000));
    /// # Ok::<(), strided_inflate::Error>(())
    /// ```
    ///
    /// # Panics
    /// If `spare` is not [`window_len`](Self::window_len) bytes long.
    pub fn swap_window(&mut self, mut spare: Box<[u8]>) -> (Box<[u8]>, std::ops::Range<usize>) {
        assert_eq!(spare.len(), self.window.len(), "a spare window is window_len() bytes");
        let history = self.pos.min(HISTORY);
        spare[..history].copy_from_slice(&self.window[self.pos - history..self.pos]);
        let chunk = self.chunk_start..self.pos;
        let window = std::mem::replace(&mut self.window, spare);
        self.pos = history;
        self.chunk_start = history;
        (window, chunk)
    }
}

#[cfg(test)]
mod tests;
