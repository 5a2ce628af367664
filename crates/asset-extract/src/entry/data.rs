//! One entry's bytes out of the archive, checked: the one place that chooses how an entry is
//! decoded, by its method and by where its compressed bytes are ([`Input`]), for every reader of
//! entries (whole reads, [`EntryReader`](crate::EntryReader), `read_at`, verification and
//! extraction); and the one rule for bytes after an entry's stream.
//!
//! - stored: copied (or viewed in place by callers that can);
//! - deflate: strided-inflate's engine: libdeflate's whole-buffer decoder into an output of the
//!   entry's size ([`read_whole`]), its chunked decoder for a stream ([`EntryDecoder`]), fed from
//!   memory or in pieces from the source;
//! - Deflate64, bzip2, LZMA, Zstandard, XZ: their decoders in [`methods`](crate::entry::methods).
//!
//! Every way out checks the same things once the entry ends: its size, its CRC-32 (whole reads
//! may skip it once it has matched), and what follows the stream ([`Trailing`]).

use std::mem::MaybeUninit;

use strided_inflate::{ChunkedInflater, Decoder, Format};

use crate::Error;
use crate::entry::methods;
use crate::entry::source::Input;
use crate::read::entry::{Entry, Method};

/// What becomes of bytes that follow an entry's compressed stream inside its compressed size
/// (the stream ends, its size and CRC-32 match, and the entry's data goes on). They are no part
/// of any reading of the archive, so by default they are read past, as Info-ZIP `unzip`,
/// Python's `zipfile` and commons-compress read them; strict extraction
/// ([`Options::strict`](crate::Options::strict)) refuses them. The same rule holds for every
/// method (a stream of bzip2, XZ or Zstandard that completes the entry's size ends its data: a
/// second stream is read only while the entry is not yet complete) and on every path: whole
/// reads, streams, `read_at`, verification and extraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Trailing {
    /// Read past them (the default).
    #[default]
    Read,
    /// Refuse the entry (strict extraction).
    Refuse,
}

impl Trailing {
    /// The rule `strict` asks for.
    pub(crate) fn strict(strict: bool) -> Trailing {
        if strict { Trailing::Refuse } else { Trailing::Read }
    }
}

/// Checks entry `e`'s stream, which ended after `consumed` of its compressed bytes (its size and
/// CRC-32 already checked), against `rule`.
pub(crate) fn check_stream_end(e: &Entry, consumed: u64, rule: Trailing) -> Result<(), Error> {
    if consumed >= e.compressed_size || rule == Trailing::Read {
        return Ok(());
    }
    Err(Error::malformed_entry(
        format!(
            "{} bytes follow its {} stream inside its compressed size (strict)",
            e.compressed_size - consumed,
            e.method.name()
        ),
        &e.path,
    ))
}

/// Room for an entry's compressed bytes, when they must be read before a whole-buffer decoder
/// can take them.
pub(crate) trait Scratch {
    /// `len` bytes of room (their contents undefined); `entry` names the entry in errors.
    fn room(&mut self, len: usize, entry: &str) -> Result<&mut [u8], Error>;
}

impl Scratch for Vec<u8> {
    fn room(&mut self, len: usize, entry: &str) -> Result<&mut [u8], Error> {
        if self.len() < len {
            self.clear();
            self.try_reserve_exact(len)
                .map_err(|_| Error::Limit { entry: entry.to_owned(), reason: "out of memory".into() })?;
            self.resize(len, 0);
        }
        Ok(&mut self[..len])
    }
}

/// Entries decoded whole ([`read_whole`]) by the whole-buffer decoder: deflated ones, whose
/// compressed bytes are then all in memory at once.
pub(crate) fn whole_buffer(e: &Entry) -> bool {
    e.method == Method::Deflate
}

/// Reads entry `e` (its compressed bytes `input`) whole into `out`, exactly its size, which may
/// be uninitialised: a deflated entry by libdeflate's whole-buffer decoder `decoder` (its
/// compressed bytes first read into `scratch` when they are not in memory), a stored one copied,
/// the others through an [`EntryDecoder`]. Checks the stream's end as `trailing` says and the
/// CRC-32 when `check_crc` (an [`EntryDecoder`] always checks it). On error `out` is zeroed; on
/// success it is returned initialised.
pub(crate) fn read_whole<'o>(
    input: Input<'_>,
    e: &Entry,
    decoder: &mut Decoder,
    scratch: &mut dyn Scratch,
    out: &'o mut [MaybeUninit<u8>],
    check_crc: bool,
    trailing: Trailing,
) -> Result<&'o mut [u8], Error> {
    debug_assert_eq!(out.len() as u64, e.size);
    let mut consumed = e.compressed_size;
    let result = match e.method {
        Method::Stored => input.read_exact(0, out, &e.path),
        Method::Deflate => {
            let compressed = match input {
                Input::Slice(bytes) => bytes,
                Input::Range { .. } => {
                    let room = scratch.room(to_usize(e.compressed_size, e)?, &e.path)?;
                    // SAFETY: every u8 is a valid MaybeUninit<u8>, and read_exact writes only bytes.
                    let uninit = unsafe { &mut *(std::ptr::from_mut(room) as *mut [MaybeUninit<u8>]) };
                    input.read_exact(0, uninit, &e.path)?;
                    room
                }
            };
            match decoder.inflate_at_uninit(compressed, 0, out) {
                Ok(n) => {
                    consumed = n as u64;
                    Ok(())
                }
                Err(source) => Err(Error::Data { entry: e.path.clone(), source }),
            }
        }
        _ => {
            // The other methods stream: their decoder checks the size and the CRC-32.
            out.fill(MaybeUninit::new(0));
            // SAFETY: every byte was just initialised.
            let whole = unsafe { &mut *(std::ptr::from_mut(&mut *out) as *mut [u8]) };
            return match EntryDecoder::new(input, e, None).and_then(|d| d.with_trailing(trailing).fill_exactly(whole)) {
                Ok(()) => Ok(whole),
                Err(err) => {
                    whole.fill(0);
                    Err(err)
                }
            };
        }
    };
    if result.is_err() {
        out.fill(MaybeUninit::new(0));
    }
    result?;
    // SAFETY: the copy or the inflate (which zeroes on error, handled above) wrote every byte.
    let out = unsafe { &mut *(std::ptr::from_mut(out) as *mut [u8]) };
    let checked = if check_crc && strided_inflate::crc32(out) != e.crc32 {
        Err(Error::Crc { entry: e.path.clone() })
    } else {
        check_stream_end(e, consumed, trailing)
    };
    match checked {
        Ok(()) => Ok(out),
        Err(err) => {
            out.fill(0);
            Err(err)
        }
    }
}

/// [`read_whole`] into initialised memory.
pub(crate) fn read_whole_into(
    input: Input<'_>,
    e: &Entry,
    decoder: &mut Decoder,
    scratch: &mut dyn Scratch,
    out: &mut [u8],
    check_crc: bool,
    trailing: Trailing,
) -> Result<(), Error> {
    // SAFETY: every u8 is a valid MaybeUninit<u8>, and read_whole writes only initialised bytes.
    let uninit = unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
    read_whole(input, e, decoder, scratch, uninit, check_crc, trailing).map(|_| ())
}

fn to_usize(n: u64, e: &Entry) -> Result<usize, Error> {
    usize::try_from(n).map_err(|_| Error::malformed_entry("size does not fit in memory", &e.path))
}

/// Output a reader's own chunked decoder hands out at a time: its memory is this plus 32 KiB of
/// history.
pub(crate) const READER_CHUNK: usize = 64 << 10;

/// Compressed bytes read from a source at a time while inflating, at first: reads double from
/// this to [`MAX_PIECE`], so a small entry costs a small read and a large one few reads.
const FIRST_PIECE: usize = 32 << 10;
const MAX_PIECE: usize = 256 << 10;

/// The chunked decoder an [`EntryDecoder`] inflates with: its own, or one its caller keeps from
/// entry to entry.
pub(crate) enum Inflater<'a, 'w> {
    Owned(Box<ChunkedInflater<'a>>),
    Lent(&'w mut ChunkedInflater<'a>),
}

impl<'a> std::ops::Deref for Inflater<'a, '_> {
    type Target = ChunkedInflater<'a>;
    fn deref(&self) -> &ChunkedInflater<'a> {
        match self {
            Inflater::Owned(d) => d,
            Inflater::Lent(d) => d,
        }
    }
}

impl<'a> std::ops::DerefMut for Inflater<'a, '_> {
    fn deref_mut(&mut self) -> &mut ChunkedInflater<'a> {
        match self {
            Inflater::Owned(d) => d,
            Inflater::Lent(d) => d,
        }
    }
}

/// How an entry is decoded, chosen once by [`EntryDecoder::new`].
enum How<'a, 'w> {
    /// Stored: copied from the compressed bytes, `at` of them done.
    Copy { input: Input<'a>, at: u64 },
    /// Deflate: the chunked decoder, fed from memory or in pieces; `handed` bytes of its last
    /// chunk already copied out.
    Inflate { inflater: Inflater<'a, 'w>, input: Input<'a>, fed: u64, piece: usize, handed: usize, ended: bool },
    /// The other methods, and the compressed bytes the decoder has taken.
    Decode(methods::Decoded<'a>, methods::Taken),
}

/// One entry's bytes as a stream in bounded memory, checked as they go: the size, the CRC-32 and
/// the stream's end when the last byte is out (see [`finish`](Self::finish)).
pub(crate) struct EntryDecoder<'a, 'w> {
    entry: &'a Entry,
    how: How<'a, 'w>,
    crc: strided_inflate::Crc32,
    produced: u64,
    trailing: Trailing,
    /// Set once the end has been checked.
    finished: bool,
}

impl<'a, 'w> EntryDecoder<'a, 'w> {
    /// The decoder for entry `e`, whose compressed bytes are `input`: its method chooses it. A
    /// deflated entry inflates with `inflater` when given (a caller's, kept between entries),
    /// else with a decoder of its own.
    pub(crate) fn new(
        input: Input<'a>,
        e: &'a Entry,
        inflater: Option<&'w mut ChunkedInflater<'a>>,
    ) -> Result<Self, Error> {
        let how = match e.method {
            Method::Stored => How::Copy { input, at: 0 },
            Method::Deflate => {
                let mut inflater = match inflater {
                    Some(lent) => Inflater::Lent(lent),
                    None => Inflater::Owned(Box::new(ChunkedInflater::with_chunk_size(Format::Raw, READER_CHUNK))),
                };
                match input {
                    Input::Slice(bytes) => inflater.start(bytes),
                    Input::Range { .. } => inflater.start_fed(),
                }
                How::Inflate { inflater, input, fed: 0, piece: FIRST_PIECE, handed: 0, ended: false }
            }
            _ => {
                let (decoder, taken) = match input {
                    Input::Slice(bytes) => methods::decoder(e, Box::new(bytes))?,
                    Input::Range { source, offset, len } => {
                        let path = &e.path;
                        let range = methods::Range::new(offset, len, move |pos, buf: &mut [u8]| {
                            crate::entry::source::read_some(source, pos, buf, path)
                        });
                        methods::decoder(e, Box::new(std::io::BufReader::with_capacity(methods::INPUT_BUFFER, range)))?
                    }
                };
                How::Decode(decoder, taken)
            }
        };
        Ok(EntryDecoder {
            entry: e,
            how,
            crc: strided_inflate::Crc32::new(),
            produced: 0,
            trailing: Trailing::Read,
            finished: false,
        })
    }

    /// Decodes with `rule` for bytes after the entry's stream (by default they are read past).
    pub(crate) fn with_trailing(mut self, rule: Trailing) -> Self {
        self.trailing = rule;
        self
    }

    /// The entry being decoded.
    pub(crate) fn entry(&self) -> &'a Entry {
        self.entry
    }

    /// The chunked decoder, for a deflated entry: to record checkpoints, or take its window.
    pub(crate) fn inflater(&mut self) -> Option<&mut ChunkedInflater<'a>> {
        match &mut self.how {
            How::Inflate { inflater, .. } => Some(&mut **inflater),
            _ => None,
        }
    }

    /// The compressed bytes the entry's stream has taken so far: where it ended, once it has.
    fn consumed(&self) -> u64 {
        match &self.how {
            How::Copy { input, .. } => input.len(),
            How::Inflate { inflater, .. } => inflater.consumed() as u64,
            How::Decode(_, taken) => taken.get(),
        }
    }

    /// Feeds a fed decoder as long as it wants input.
    fn feed(&mut self) -> Result<(), Error> {
        let path = &self.entry.path;
        let How::Inflate { inflater, input: Input::Range { source, offset, len }, fed, piece, .. } = &mut self.how
        else {
            return Ok(());
        };
        while inflater.wants_input() {
            if *fed == *len {
                inflater.end_input();
                break;
            }
            let n = (*len - *fed).min(*piece as u64) as usize;
            let at = *offset + *fed;
            *fed += inflater
                .feed_with(n, |room| crate::entry::source::read_exact(*source, at, room, path).map(|()| n))?
                as u64;
            *piece = (*piece * 2).min(MAX_PIECE);
        }
        Ok(())
    }

    /// For a deflated entry: inflates its next chunk, counted and hashed. Returns where the chunk
    /// starts in the entry (take it from [`inflater`](Self::inflater): `last_chunk`, or
    /// `swap_window`), or `None` once the entry has ended and checked.
    pub(crate) fn next_chunk(&mut self) -> Result<Option<u64>, Error> {
        self.feed()?;
        let How::Inflate { inflater, ended, .. } = &mut self.how else {
            unreachable!("next_chunk is for deflated entries");
        };
        let offset = inflater.total_out();
        let chunk = match inflater.next_chunk() {
            Ok(Some(chunk)) => chunk,
            Ok(None) => {
                *ended = true;
                self.finish()?;
                return Ok(None);
            }
            Err(source) => return Err(Error::Data { entry: self.entry.path.clone(), source }),
        };
        self.produced += chunk.len() as u64;
        if self.produced > self.entry.size {
            return Err(self.past_size());
        }
        self.crc.update(chunk);
        Ok(Some(offset))
    }

    /// Copies the entry's next bytes into `buf` and returns how many, counted and hashed; `Ok(0)`
    /// once the entry has ended and checked.
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        if self.finished || buf.is_empty() {
            return Ok(0);
        }
        let path = &self.entry.path;
        let n = loop {
            match &mut self.how {
                How::Copy { input, at } => {
                    let n = buf.len().min((input.len() - *at) as usize);
                    let n = match input {
                        Input::Slice(bytes) => {
                            buf[..n].copy_from_slice(&bytes[*at as usize..*at as usize + n]);
                            n
                        }
                        Input::Range { source, offset, .. } => {
                            crate::entry::source::read_some(*source, *offset + *at, &mut buf[..n], path)?
                        }
                    };
                    *at += n as u64;
                    break n;
                }
                How::Inflate { inflater, handed, ended, .. } => {
                    let chunk = inflater.last_chunk();
                    if *handed < chunk.len() {
                        let n = buf.len().min(chunk.len() - *handed);
                        buf[..n].copy_from_slice(&chunk[*handed..*handed + n]);
                        *handed += n;
                        break n;
                    }
                    if *ended {
                        break 0;
                    }
                    if inflater.wants_input() {
                        self.feed()?;
                        continue;
                    }
                    match inflater.next_chunk() {
                        Ok(Some(_)) => *handed = 0,
                        Ok(None) => *ended = true,
                        Err(source) => return Err(Error::Data { entry: path.clone(), source }),
                    }
                }
                How::Decode(decoder, _) => match std::io::Read::read(decoder, buf) {
                    Ok(n) => break n,
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(err) => return Err(methods::read_error(self.entry, err)),
                },
            }
        };
        self.counted(buf, n)
    }

    /// Counts and hashes the `n` bytes just copied into `buf`; at the end (`n == 0`), the checks.
    fn counted(&mut self, buf: &[u8], n: usize) -> Result<usize, Error> {
        self.produced += n as u64;
        if self.produced > self.entry.size {
            return Err(self.past_size());
        }
        self.crc.update(&buf[..n]);
        if n == 0 {
            self.finish()?;
        }
        Ok(n)
    }

    fn past_size(&self) -> Error {
        size_mismatch(self.entry, None)
    }

    /// Checks the whole entry once its last byte is out: its size, its CRC-32, and what follows
    /// its stream.
    fn finish(&mut self) -> Result<(), Error> {
        let e = self.entry;
        if self.produced != e.size {
            return Err(size_mismatch(e, Some(self.produced)));
        }
        if self.crc.finalize() != e.crc32 {
            return Err(Error::Crc { entry: e.path.clone() });
        }
        check_stream_end(e, self.consumed(), self.trailing)?;
        self.finished = true;
        Ok(())
    }

    /// Fills `out`, exactly the entry's size, with the whole entry, and checks its end.
    pub(crate) fn fill_exactly(mut self, out: &mut [u8]) -> Result<(), Error> {
        let mut filled = 0;
        while filled < out.len() {
            match self.read(&mut out[filled..])? {
                0 => break, // ended early: read has refused it
                n => filled += n,
            }
        }
        // One more read: past the size it fails, at the end it runs the checks.
        self.read(&mut [0u8; 1]).map(|_| ())
    }
}

/// An entry whose data decodes to another size than its headers say: `actual` bytes, or
/// (`None`) more than its size. The same error whichever way the entry is read (whole, streamed,
/// on several cores), the whole read's decoder's.
pub(crate) fn size_mismatch(e: &Entry, actual: Option<u64>) -> Error {
    let fit = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    Error::Data {
        entry: e.path.clone(),
        source: strided_inflate::Error::SizeMismatch { offset: 0, expected: fit(e.size), actual: actual.map(fit) },
    }
}

/// Whether deflated entries are inflated on several cores: when the rule says so (the default),
/// always, or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParallelInflate {
    /// By [`inflate_in_parallel`]'s rule: an entry of at least [`PARALLEL_MIN_ENTRY`] bytes, on
    /// a machine that gives this process at least [`PARALLEL_MIN_CORES`] cores.
    #[default]
    Auto,
    /// Every deflated entry, whatever its size and the cores (an entry of one chunk, 4 MiB of
    /// output or less, is decoded by one thread of the parallel decoder).
    ///
    /// An entry inflated on several cores holds about 16 MiB for each chunk decoded ahead of
    /// what is written, `threads + threads / 2 + 1` chunks for `threads` decoding threads,
    /// whatever its size.
    Always,
    /// Never: each entry on one core.
    Never,
}

/// Deflated entries inflating to fewer bytes than this stay on one core under
/// [`ParallelInflate::Auto`]: from here the model of the parallel decoder, fed with each task's
/// CPU time measured on log lines, source code and mixed data, projects at least 1.2× serial
/// decoding on 4 cores for log lines and mixed data; source code needs 31 MiB, and between the two
/// stays near serial speed (`bench-reports/strided-inflate.md`, "One stream on many cores").
pub const PARALLEL_MIN_ENTRY: u64 = 20 << 20;

/// Fewer cores than this keep every entry on one core under [`ParallelInflate::Auto`]: the
/// parallel decoder's work is 1.8–3.7× serial decoding's in all (the chunks decoded without their
/// window, then resolved), which 2 cores do not win back (0.52–0.95× measured), and 4 project
/// 1.22–2.11× (same section).
pub const PARALLEL_MIN_CORES: usize = 4;

/// The cores this process may run on: its CPU affinity and its cgroup's CPU quota, as
/// [`std::thread::available_parallelism`] reads them on Linux.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The rule: whether a deflated entry of `size` bytes is inflated on several cores, with `cores`
/// available (see [`available_cores`]), under `mode`.
///
/// ```
/// use asset_extract::{ParallelInflate, inflate_in_parallel};
///
/// assert!(!inflate_in_parallel(ParallelInflate::Auto, 256 << 20, 2)); // two cores: serial
/// assert!(inflate_in_parallel(ParallelInflate::Auto, 256 << 20, 8));
/// assert!(!inflate_in_parallel(ParallelInflate::Auto, 1 << 20, 8)); // too small to cut
/// assert!(inflate_in_parallel(ParallelInflate::Always, 256 << 20, 2));
/// assert!(!inflate_in_parallel(ParallelInflate::Never, 256 << 20, 64));
/// ```
pub fn inflate_in_parallel(mode: ParallelInflate, size: u64, cores: usize) -> bool {
    match mode {
        ParallelInflate::Auto => cores >= PARALLEL_MIN_CORES && size >= PARALLEL_MIN_ENTRY,
        ParallelInflate::Always => true,
        ParallelInflate::Never => false,
    }
}

/// Whether entry `e` could be inflated on several cores under `mode`, whatever the cores.
fn could_go_parallel(mode: ParallelInflate, e: &Entry) -> bool {
    e.method == Method::Deflate
        && match mode {
            ParallelInflate::Never => false,
            ParallelInflate::Auto => e.size >= PARALLEL_MIN_ENTRY,
            ParallelInflate::Always => true,
        }
}

/// The cores available to inflate entry `e` under `mode`: counted (it reads the process's
/// affinity and cgroup files) only when the rule could take the entry; 1 when it could not.
pub(crate) fn cores_for(mode: ParallelInflate, e: &Entry) -> usize {
    if could_go_parallel(mode, e) { available_cores() } else { 1 }
}

/// The cores entry `e` is inflated on under `mode`, or `None` for one decoder: a deflated entry
/// the rule ([`inflate_in_parallel`]) takes, with the cores available.
pub(crate) fn parallel_cores(mode: ParallelInflate, e: &Entry) -> Option<usize> {
    let cores = cores_for(mode, e);
    (e.method == Method::Deflate && inflate_in_parallel(mode, e.size, cores)).then_some(cores)
}

/// How entries written at once share the machine when they are inflated on several cores.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Share {
    /// The cores the rule sees for each entry: those available, less two for each other entry
    /// the rule could take that is inflated at once (at most one per worker). Cut into chunks, an
    /// entry costs about twice its serial CPU, so another entry inflated beside it on one core
    /// does the work of two cores of chunked decoding.
    pub(crate) cores: usize,
    /// The decoding threads each entry has: the threads asked for, shared among those entries
    /// (rounded up, two at least, to be parallel at all).
    pub(crate) decode_threads: usize,
}

/// The [`Share`] of each of `files`, written by `workers` workers, with `threads` asked for.
/// Three large entries on 4 cores see 0 cores each and are inflated side by side, one core each
/// (2.93× one core, against 2.15× cut into chunks, by the model); on 8 cores they see 4 and are
/// cut into chunks, 3 threads each (4.06× against 2.93×); on 16, 12 (7.19×).
pub(crate) fn share(mode: ParallelInflate, files: &[&Entry], workers: usize, threads: usize) -> Share {
    let candidates = files.iter().filter(|e| could_go_parallel(mode, e)).count();
    if candidates == 0 {
        return Share { cores: 1, decode_threads: 1 };
    }
    let at_once = candidates.clamp(1, workers.max(1));
    let others = 2 * (at_once - 1);
    Share { cores: available_cores().saturating_sub(others).max(1), decode_threads: threads.div_ceil(at_once).max(2) }
}

/// Output a chunk of an entry inflated in parallel aims at.
const PARALLEL_CHUNK_OUT: u64 = 4 << 20;

/// Inflates deflated entry `e` (its compressed bytes `input`) on `threads` threads with `cores`
/// available, handing its bytes in order to `sink`, and checks it as [`EntryDecoder`] does: its
/// size, its CRC-32, and what follows its stream (`trailing`). The bytes and every error are
/// serial decoding's.
pub(crate) fn inflate_parallel_to(
    input: Input<'_>,
    e: &Entry,
    threads: usize,
    cores: usize,
    trailing: Trailing,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), Error>,
) -> Result<(), Error> {
    use strided_inflate::SeekError;
    let path = &e.path;
    let source = |offset: u64, buf: &mut [u8]| -> Result<usize, Error> {
        let n = (input.len().saturating_sub(offset)).min(buf.len() as u64) as usize;
        match input {
            Input::Slice(bytes) => {
                buf[..n].copy_from_slice(&bytes[offset as usize..offset as usize + n]);
                Ok(n)
            }
            Input::Range { source, offset: at, .. } if n > 0 => {
                crate::entry::source::read_some(source, at + offset, &mut buf[..n], path)
            }
            Input::Range { .. } => Ok(0),
        }
    };
    let (mut crc, mut produced) = (strided_inflate::Crc32::new(), 0u64);
    let mut checked = |bytes: &[u8]| -> Result<(), Error> {
        produced += bytes.len() as u64;
        if produced > e.size {
            return Err(size_mismatch(e, None));
        }
        crc.update(bytes);
        sink(bytes)
    };
    // Where markers persist through whole chunks, speculating costs about twice serial decoding:
    // worth it from PARALLEL_MIN_CORES on (the model), not below.
    let how = strided_inflate::Parallel {
        threads: threads.max(1),
        chunk_out: PARALLEL_CHUNK_OUT,
        patient: false,
        keep_speculating: cores.min(threads) >= PARALLEL_MIN_CORES,
    };
    let consumed = match strided_inflate::inflate_parallel(input.len(), Some(e.size), how, &source, &mut checked) {
        Ok(report) => report.consumed,
        // Bytes after the stream, inside the entry: read past or refused below, by the one rule.
        Err(SeekError::Trailing { consumed, .. }) => consumed,
        Err(SeekError::Source(err)) => return Err(err),
        Err(SeekError::Stream(source)) => return Err(Error::Data { entry: path.clone(), source }),
        Err(other) => return Err(Error::malformed_entry(other.to_string(), path)),
    };
    if produced != e.size {
        return Err(size_mismatch(e, Some(produced)));
    }
    if crc.finalize() != e.crc32 {
        return Err(Error::Crc { entry: path.clone() });
    }
    check_stream_end(e, consumed, trailing)
}

/// Inflates deflated entry `e` on `cores` cores into `out` (its size, checked by the caller),
/// returning it initialised.
pub(crate) fn inflate_parallel_into<'o>(
    input: Input<'_>,
    e: &Entry,
    cores: usize,
    out: &'o mut [MaybeUninit<u8>],
) -> Result<&'o mut [u8], Error> {
    let mut at = 0;
    inflate_parallel_to(input, e, cores, cores, Trailing::Read, &mut |bytes| {
        // Never past the end: the decoder is refused before it hands over more than the entry's
        // size, which is out's length.
        let to = &mut out[at..at + bytes.len()];
        // SAFETY: `to` and `bytes` have the same length, and cannot overlap (one is the caller's
        // buffer, the other the decoder's); u8 and MaybeUninit<u8> have the same layout.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), to.as_mut_ptr().cast::<u8>(), bytes.len()) };
        at += bytes.len();
        Ok(())
    })?;
    // inflate_parallel_to returns Ok only when exactly the entry's size came out.
    assert_eq!(at, out.len(), "the size was checked");
    // SAFETY: all `at` = out.len() bytes were written above.
    Ok(unsafe { &mut *(std::ptr::from_mut(out) as *mut [u8]) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, Mtime};

    fn deflated(size: u64) -> Entry {
        Entry {
            path: "e".into(),
            kind: Kind::File,
            mode: 0o644,
            method: Method::Deflate,
            crc32: 0,
            compressed_size: size / 4,
            size,
            data_offset: 0,
            mtime: Mtime::Dos(0),
        }
    }

    #[test]
    fn entries_inflated_at_once_share_the_cores_and_threads() {
        let big = deflated(PARALLEL_MIN_ENTRY);
        let small = deflated(PARALLEL_MIN_ENTRY - 1);
        let cores = available_cores();
        // Nothing the rule could take: one core, one thread, and no counting.
        let none = share(ParallelInflate::Auto, &[&small, &small], 8, 8);
        assert_eq!((none.cores, none.decode_threads), (1, 1));
        let never = share(ParallelInflate::Never, &[&big], 8, 8);
        assert_eq!((never.cores, never.decode_threads), (1, 1));
        // One large entry among small ones has the machine.
        let one = share(ParallelInflate::Auto, &[&small, &big, &small], 8, 8);
        assert_eq!((one.cores, one.decode_threads), (cores, 8));
        // Three, written by two workers: two at once, the other worth two cores.
        let three = share(ParallelInflate::Auto, &[&big, &big, &big], 2, 8);
        assert_eq!((three.cores, three.decode_threads), (cores.saturating_sub(2).max(1), 4));
        // Always counts every deflated entry, and keeps two threads each at least.
        let all = share(ParallelInflate::Always, &[&small, &small, &small], 3, 4);
        assert_eq!((all.cores, all.decode_threads), (cores.saturating_sub(4).max(1), 2));
        let eight = share(ParallelInflate::Always, &[&small, &small, &small], 3, 8);
        assert_eq!(eight.decode_threads, 3);
    }
}
