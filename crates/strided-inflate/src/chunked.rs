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

use crate::checkpoint::{Checkpoint, Inside, STREAM_MARK, StreamCrc};
use crate::{Crc32, Error, Format};

/// History a match may reach back into (deflate's window).
pub(crate) const HISTORY: usize = 32 << 10;
/// Longest match.
const MAX_MATCH: usize = 258;
/// Room past a chunk's end for the last match and for copying whole words (matches are copied
/// four words at a time, then a word at a time).
const SLACK: usize = MAX_MATCH + 48;

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

    /// Records a [`Checkpoint`] at the first block boundary at least `span` output bytes after the
    /// previous one (or the start), from the next [`start`](Self::start),
    /// [`start_fed`](Self::start_fed) or [`resume_fed`](Self::resume_fed) on; 0 records none (the
    /// default). [`take_checkpoints`](Self::take_checkpoints) hands them out. Each holds up to 32
    /// KiB of output: a stream of `n` bytes costs about `n / span × 32 KiB`.
    pub fn set_checkpoint_span(&mut self, span: u64) {
        self.checkpoint_span = span;
        self.next_checkpoint = span;
        // Set on a stream started but not yet decoded: its checkpoints are recorded from its
        // first byte, and so is the CRC their digests rest on.
        if span > 0 && self.stream_crc.is_none() && self.bit_position() == 0 {
            self.stream_crc = Some((0, Crc32::new()));
            self.stream_marks.clear();
        }
    }

    /// The checkpoints recorded since the stream started, in output order.
    pub fn take_checkpoints(&mut self) -> Vec<Checkpoint> {
        std::mem::take(&mut self.checkpoints)
    }

    /// Resumes decoding a raw deflate stream at `checkpoint`, its input fed as for
    /// [`start_fed`](Self::start_fed) but from the byte offset returned (the byte holding the
    /// checkpoint's first bit): chunks then continue the stream's output from
    /// [`Checkpoint::out_offset`], and [`total_out`](Self::total_out) counts from there. A
    /// checkpoint inside a Huffman block rebuilds the block's tables from the header it keeps:
    /// one that does not decode as a header is [`Error::Corrupt`].
    ///
    /// # Panics
    /// For a zlib decoder: its Adler-32 covers the whole stream, so it cannot be checked from the
    /// middle; checkpoints are for raw deflate (zip entries, gzip members).
    pub fn resume_fed(&mut self, checkpoint: &Checkpoint) -> Result<u64, Error> {
        assert_eq!(self.format, Format::Raw, "checkpoints are for raw deflate streams");
        self.start_fed();
        match &checkpoint.inside {
            Inside::Nothing => {}
            Inside::Stored { left, last } => {
                self.state = State::Stored(usize::try_from(*left).map_err(|_| corrupt("stored block too long"))?);
                self.last_block = *last;
            }
            Inside::Codes { header, skip } => {
                // Rebuild the block's tables from its header, then go on where the checkpoint is.
                self.fed.extend_from_slice(header);
                self.input_ended = true;
                self.skip_bits = u32::from(*skip);
                self.block_header()?;
                if self.state != State::Codes || self.consumed_here() > header.len() {
                    return Err(corrupt("a checkpoint's block header is not one"));
                }
                self.fed.clear();
                self.input_ended = false;
                (self.next_in, self.bits, self.bit_count) = (0, 0, 0);
            }
        }
        // Resumed mid-stream: the bytes before are not seen, so there is no CRC to carry.
        self.stream_crc = None;
        let byte = checkpoint.bit_offset / 8;
        self.dropped = usize::try_from(byte).expect("a stream held in a usize-sized address space");
        self.skip_bits = (checkpoint.bit_offset % 8) as u32;
        let history = &checkpoint.window;
        self.window[..history.len()].copy_from_slice(history);
        self.pos = history.len();
        self.chunk_start = self.pos;
        self.total_out = checkpoint.out_offset;
        self.next_checkpoint = checkpoint.out_offset.saturating_add(self.checkpoint_span);
        Ok(byte)
    }

    /// At a block boundary: records a checkpoint if one is due.
    fn maybe_checkpoint(&mut self) {
        let out = self.total_out + (self.pos - self.chunk_start) as u64;
        if out < self.next_checkpoint || out == 0 {
            return;
        }
        let inside = match self.state {
            State::Header => Inside::Nothing,
            State::Stored(left) => Inside::Stored { left: left as u64, last: self.last_block },
            State::Codes => Inside::Codes { header: self.header.as_slice().into(), skip: self.header_skip },
            State::Done => return,
        };
        let kept = (out.min(HISTORY as u64)) as usize;
        let bit_offset = self.bit_position();
        let stream_crc = self.stream_crc_at(bit_offset);
        self.checkpoints.push(Checkpoint {
            bit_offset,
            out_offset: out,
            window: self.window[self.pos - kept..self.pos].into(),
            inside,
            stream_crc,
        });
        self.next_checkpoint = out.saturating_add(self.checkpoint_span);
    }

    /// Carries the CRC-32 of the stream's first bytes forward to its first `to` bytes (all in
    /// memory), while recording checkpoints from the start.
    /// Notes it at every mark on the way.
    fn carry_stream_crc(&mut self, to: u64) {
        if let Some((mut at, mut crc)) = self.stream_crc
            && to > at
        {
            let held = self.dropped as u64;
            while at < to {
                let mark = (at / STREAM_MARK + 1) * STREAM_MARK;
                let end = mark.min(to);
                crc.update(&self.input()[(at - held) as usize..(end - held) as usize]);
                if end == mark {
                    self.stream_marks.push(crc.finalize());
                }
                at = end;
            }
            self.stream_crc = Some((to, crc));
        }
    }

    /// What a pass that recorded checkpoints from the stream's start saw of its compressed bytes,
    /// up to the first `len` or as far as it holds them if fewer (a stream that ended before
    /// bytes it never needed): how far (`reach`), the CRC-32 of the first `(i + 1) ×
    /// STREAM_MARK` bytes at `i` for every mark within it, and the CRC-32 of all `reach` bytes.
    /// `None` where the pass did not start at the stream's start.
    pub(crate) fn take_stream_marks(&mut self, len: u64) -> Option<(Vec<u32>, u64, u32)> {
        let held_end = (self.dropped + self.input().len()) as u64;
        let reach = len.min(held_end);
        let whole = self.stream_crc_through(reach)?;
        let mut marks = std::mem::take(&mut self.stream_marks);
        marks.truncate((reach / STREAM_MARK) as usize);
        (marks.len() as u64 == reach / STREAM_MARK).then_some((marks, reach, whole))
    }

    /// The CRC-32s of the stream's bytes before and through the byte holding bit `bit` (which
    /// is in memory: the decoder is there).
    fn stream_crc_at(&mut self, bit: u64) -> Option<StreamCrc> {
        let byte = bit / 8;
        self.carry_stream_crc(byte);
        let (_, crc) = self.stream_crc?;
        let before = crc.finalize();
        let through = if bit.is_multiple_of(8) {
            before
        } else {
            let mut with = crc;
            with.update(&self.input()[(byte - self.dropped as u64) as usize..][..1]);
            with.finalize()
        };
        Some(StreamCrc { before, through })
    }

    /// The CRC-32 of the stream's first `len` bytes, if the checkpoints recorded from its start
    /// carried it there and those bytes are still in memory (a fed decoder holds the last piece).
    pub(crate) fn stream_crc_through(&mut self, len: u64) -> Option<u32> {
        let held_end = (self.dropped + self.input().len()) as u64;
        let (at, _) = self.stream_crc?;
        if len < at || len > held_end {
            return None;
        }
        self.carry_stream_crc(len);
        self.stream_crc.map(|(_, crc)| crc.finalize())
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

    /// Decodes the next chunk into the window.
    fn fill(&mut self) -> Result<(), Error> {
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
    fn careful_step(&mut self, limit: usize) -> Result<bool, Error> {
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

    fn truncated() -> Error {
        Error::Truncated { offset: 0 }
    }

    /// Tops the bit buffer up (see [`refill`]).
    #[inline(always)]
    fn refill(&mut self) -> Result<(), Error> {
        let input = if self.feeding { &self.fed[..] } else { self.input };
        refill(input, &mut self.bits, &mut self.bit_count, &mut self.next_in).map(|_| ())
    }

    #[inline(always)]
    fn take(&mut self, n: u32) -> u32 {
        let v = (self.bits & ((1u64 << n) - 1)) as u32;
        self.bits >>= n;
        self.bit_count -= n;
        v
    }

    fn zlib_header(&mut self) -> Result<(), Error> {
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
    fn finish(&mut self) -> Result<(), Error> {
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

    fn block_header(&mut self) -> Result<(), Error> {
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

    fn block_header_fields(&mut self) -> Result<(), Error> {
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

    fn copy_stored(&mut self, left: usize, limit: usize) -> Result<(), Error> {
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

    fn dynamic_header(&mut self) -> Result<(), Error> {
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
    fn decode_codes(&mut self, limit: usize) -> Result<(), Error> {
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
    fn decode_codes_until(&mut self, limit: usize, input_stop: usize) -> Result<(), Error> {
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
fn entry_at(table: &[u32], bits: u64, main_bits: u32) -> u32 {
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
fn refill(input: &[u8], bits: &mut u64, bit_count: &mut u32, next_in: &mut usize) -> Result<bool, Error> {
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
fn refill_bytes(
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

/// Adler-32 of `data` continuing from `adler` (libdeflate's vectorised implementation).
fn adler32(adler: u32, data: &[u8]) -> u32 {
    // SAFETY: `data` is valid for `data.len()` bytes; libdeflate only reads it.
    unsafe { libdeflate_sys::libdeflate_adler32(adler, data.as_ptr().cast(), data.len()) }
}

#[cfg(test)]
mod tests {
    //! Small streams through every path of the decoder (stored, fixed and dynamic blocks, long and
    //! short match distances, every chunk boundary); small enough to run under Miri, which checks
    //! the unsafe copies: `cargo +nightly miri test -p bufkit-strided-inflate --lib chunked`.

    use super::*;

    fn sample() -> Vec<u8> {
        let mut data: Vec<u8> =
            (0..1500u32).map(|i| b"tree blob commit\n"[(i % 17) as usize] ^ (i / 500) as u8).collect();
        data.extend(std::iter::repeat_n(b'a', 300)); // distance 1
        data.extend((0..300).map(|i| b"xyz"[i % 3])); // distance 3
        data.extend((0..200u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)); // noise
        data
    }

    fn inflate_all(stream: &[u8], chunk: usize) -> Result<(Vec<u8>, usize), Error> {
        let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, chunk);
        inflater.start(stream);
        let mut out = Vec::new();
        while let Some(c) = inflater.next_chunk()? {
            assert!(c.len() <= chunk + ChunkedInflater::MAX_OVERRUN);
            out.extend_from_slice(c);
        }
        Ok((out, inflater.consumed()))
    }

    #[test]
    fn small_streams_round_trip_at_every_level_and_chunk_size() {
        let data = sample();
        for level in [0u8, 1, 6, 9] {
            let stream = miniz_oxide::deflate::compress_to_vec(&data, level);
            for chunk in [1usize, 7, 300, 5000] {
                assert_eq!(
                    inflate_all(&stream, chunk).unwrap(),
                    (data.clone(), stream.len()),
                    "level {level}, chunk {chunk}"
                );
            }
        }
    }

    /// Inflates `stream` fed in pieces of the sizes `pieces` cycles through; `Err` as `start` would.
    fn inflate_fed(stream: &[u8], chunk: usize, pieces: &[usize], format: Format) -> Result<(Vec<u8>, usize), Error> {
        let mut inflater = ChunkedInflater::with_chunk_size(format, chunk);
        inflater.start_fed();
        let (mut fed, mut out, mut turn) = (0, Vec::new(), 0);
        loop {
            while inflater.wants_input() {
                if fed == stream.len() {
                    inflater.end_input();
                    break;
                }
                let piece = &stream[fed..(fed + pieces[turn % pieces.len()]).min(stream.len())];
                turn += 1;
                fed += inflater
                    .feed_with(piece.len(), |room| {
                        room.copy_from_slice(piece);
                        Ok::<_, ()>(piece.len())
                    })
                    .unwrap();
                assert!(inflater.fed.len() <= piece.len() + ChunkedInflater::INPUT_MARGIN + 8, "holds little input");
            }
            match inflater.next_chunk()? {
                Some(c) => out.extend_from_slice(c),
                None => break,
            }
        }
        Ok((out, inflater.consumed()))
    }

    #[test]
    fn fed_input_decodes_exactly_as_whole_input_wherever_the_pieces_are_cut() {
        let mut data = sample();
        for i in 0..40u32 {
            data.extend(sample().iter().map(|b| b.wrapping_add(i as u8)));
        }
        let mut tail = b"trailing bytes of the next entry".to_vec();
        for level in [0u8, 1, 6, 9] {
            let mut stream = miniz_oxide::deflate::compress_to_vec(&data, level);
            let len = stream.len();
            stream.append(&mut tail.clone());
            for pieces in [&[1usize][..], &[3, 1000], &[4096], &[100_000], &[7, 65_536, 1]] {
                for chunk in [64usize, 5000, 1 << 20] {
                    let fed = inflate_fed(&stream, chunk, pieces, Format::Raw).unwrap();
                    assert_eq!(fed, (data.clone(), len), "level {level}, pieces {pieces:?}, chunk {chunk}");
                }
            }
        }
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&data, 6);
        assert_eq!(inflate_fed(&zlib, 4096, &[5, 3000], Format::Zlib).unwrap(), (data.clone(), zlib.len()));
        let mut bad = zlib.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(inflate_fed(&bad, 4096, &[5, 3000], Format::Zlib), Err(Error::Checksum { .. })));
        tail.clear();
    }

    #[test]
    fn fed_input_that_ends_early_is_truncated_or_corrupt_as_whole_input_is() {
        let stream = miniz_oxide::deflate::compress_to_vec(&sample(), 6);
        for cut in (0..stream.len()).step_by(29) {
            let whole = inflate_all(&stream[..cut], 64).map(|_| ()).map_err(|e| std::mem::discriminant(&e));
            let fed = inflate_fed(&stream[..cut], 64, &[11, 2], Format::Raw)
                .map(|_| ())
                .map_err(|e| std::mem::discriminant(&e));
            assert!(fed.is_err(), "cut at {cut}");
            assert_eq!(fed, whole, "cut at {cut}");
        }
    }

    #[test]
    fn truncated_small_streams_fail_without_reading_out_of_bounds() {
        let stream = miniz_oxide::deflate::compress_to_vec(&sample(), 6);
        for cut in (0..stream.len()).step_by(37) {
            assert!(inflate_all(&stream[..cut], 64).is_err(), "cut at {cut}");
        }
    }
}
