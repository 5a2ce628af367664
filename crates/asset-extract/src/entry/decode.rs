//! How an entry's bytes are decoded, chosen in one place for every reader of entries (whole
//! reads, `copy_to`, streams, verification, extraction, the stream path): [`decoding`], by the
//! entry's method and size, where its compressed bytes are ([`Input`]), and what the reader does
//! with the output ([`Output`]).
//!
//! - stored bytes in memory: taken as they lie ([`Decoding::Held`]);
//! - a large deflated entry on several cores, where the rule says so
//!   ([`inflate_in_parallel`](crate::inflate_in_parallel));
//! - deflate into an output of the entry's size: libdeflate's whole-buffer decoder
//!   ([`Decoding::Whole`]), its compressed bytes first read into scratch room when they are not
//!   in memory;
//! - anything else: a stream in bounded memory ([`EntryDecoder`]).
//!
//! Every way checks the same things once the entry ends: its size, its CRC-32 (whole reads may
//! skip it once it has matched), and what follows the stream ([`Trailing`]).

use std::mem::MaybeUninit;

use strided_inflate::{ChunkedInflater, Decoder, Format};

use crate::Error;
use crate::entry::checks::{Trailing, check_stream_end};
use crate::entry::parallel::{ParallelInflate, Share, inflate_parallel_into, inflate_parallel_to, parallel_cores};
use crate::entry::source::Input;
use crate::entry::stream_decoder::EntryDecoder;
use crate::read::entry::{Entry, Method};

/// What a reader does with an entry's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// Holds them all, in room of the entry's size ([`Decoding::into_buffer`]).
    Whole,
    /// Hands them on in order, as they come ([`Decoding::into_sink`]).
    Sink,
    /// Reads them as a stream, a piece at a time ([`stream`]).
    Stream,
}

/// What a reader asks of [`decoding`]: the output, the parallel rule and its share of the
/// machine, the rule for bytes after the stream, and the chunked decoder it keeps between
/// entries.
pub(crate) struct Ask<'a, 'w> {
    output: Output,
    parallel: ParallelInflate,
    share: Option<Share>,
    trailing: Trailing,
    /// The reader's chunked decoder slot and its chunk size: filled on first use.
    inflater: Option<(&'w mut Option<ChunkedInflater<'a>>, usize)>,
}

impl<'a, 'w> Ask<'a, 'w> {
    /// For `output`: on one core, bytes after the stream read past, a decoder of its own.
    pub(crate) fn new(output: Output) -> Self {
        Ask { output, parallel: ParallelInflate::Never, share: None, trailing: Trailing::Read, inflater: None }
    }

    /// Large deflated entries on several cores under `mode`: with the cores available, or with
    /// `share` of them when several entries are inflated at once.
    pub(crate) fn parallel(mut self, mode: ParallelInflate, share: Option<Share>) -> Self {
        self.parallel = mode;
        self.share = share;
        self
    }

    /// Bytes after the stream under `rule`.
    pub(crate) fn trailing(mut self, rule: Trailing) -> Self {
        self.trailing = rule;
        self
    }

    /// A deflated entry streamed inflates with the chunked decoder in `slot` (made there, of
    /// `chunk` bytes, on first use).
    pub(crate) fn inflater(mut self, slot: &'w mut Option<ChunkedInflater<'a>>, chunk: usize) -> Self {
        self.inflater = Some((slot, chunk));
        self
    }
}

/// How an entry is decoded: [`decoding`]'s choice, ready to run.
pub(crate) enum Decoding<'a, 'w> {
    /// A stored entry's bytes, in memory where they lie.
    Held { bytes: &'a [u8], entry: &'a Entry },
    /// A deflated entry, by libdeflate's whole-buffer decoder.
    Whole { input: Input<'a>, entry: &'a Entry, trailing: Trailing },
    /// A deflated entry, on `threads` threads with `cores` available.
    Parallel { input: Input<'a>, entry: &'a Entry, threads: usize, cores: usize, trailing: Trailing },
    /// Any entry, as a stream in bounded memory.
    Stream(EntryDecoder<'a, 'w>),
}

/// The one choice of how entry `e`, whose compressed bytes are `input`, is decoded for a reader
/// asking `ask`.
pub(crate) fn decoding<'a, 'w>(input: Input<'a>, e: &'a Entry, ask: Ask<'a, 'w>) -> Result<Decoding<'a, 'w>, Error> {
    let Ask { output, parallel, share, trailing, inflater } = ask;
    if output != Output::Stream {
        if let (Method::Stored, Input::Slice(bytes)) = (e.method, input) {
            return Ok(Decoding::Held { bytes, entry: e });
        }
        if e.method == Method::Deflate {
            let on_cores = match share {
                Some(share) => crate::inflate_in_parallel(parallel, e.size, share.cores)
                    .then_some((share.decode_threads, share.cores)),
                None => parallel_cores(parallel, e).map(|cores| (cores, cores)),
            };
            if let Some((threads, cores)) = on_cores {
                return Ok(Decoding::Parallel { input, entry: e, threads, cores, trailing });
            }
            if output == Output::Whole {
                return Ok(Decoding::Whole { input, entry: e, trailing });
            }
        }
    }
    let lent = match inflater {
        Some((slot, chunk)) if e.method == Method::Deflate => {
            Some(slot.get_or_insert_with(|| ChunkedInflater::with_chunk_size(Format::Raw, chunk)))
        }
        _ => None,
    };
    Ok(Decoding::Stream(EntryDecoder::new(input, e, lent)?.with_trailing(trailing)))
}

/// Entry `e` as a stream: [`decoding`] for [`Output::Stream`].
pub(crate) fn stream<'a, 'w>(input: Input<'a>, e: &'a Entry, ask: Ask<'a, 'w>) -> Result<EntryDecoder<'a, 'w>, Error> {
    match decoding(input, e, Ask { output: Output::Stream, ..ask })? {
        Decoding::Stream(decoder) => Ok(decoder),
        _ => unreachable!("a stream is always decoded as one"),
    }
}

/// What a whole read keeps from entry to entry: libdeflate's whole-buffer decoder (made on first
/// use) and room for compressed bytes that are not in memory.
pub(crate) struct WholeTools<'t> {
    pub(crate) decoder: &'t mut Option<Decoder>,
    pub(crate) scratch: &'t mut dyn Scratch,
}

impl<'a> Decoding<'a, '_> {
    /// The entry being decoded.
    pub(crate) fn entry(&self) -> &'a Entry {
        match self {
            Decoding::Held { entry, .. } | Decoding::Whole { entry, .. } | Decoding::Parallel { entry, .. } => entry,
            Decoding::Stream(decoder) => decoder.entry(),
        }
    }

    /// Decodes the whole entry into `out`, exactly its size, which may be uninitialised, and
    /// returns it initialised; on error `out` is zeroed. A held or whole read checks the CRC-32
    /// only when `check_crc` (once it has matched, a caller may skip it); the other ways always
    /// check it.
    pub(crate) fn into_buffer<'o>(
        self,
        out: &'o mut [MaybeUninit<u8>],
        tools: WholeTools<'_>,
        check_crc: bool,
    ) -> Result<&'o mut [u8], Error> {
        let result = match self {
            Decoding::Held { bytes, entry } => {
                debug_assert_eq!(bytes.len(), out.len());
                // SAFETY: u8 and MaybeUninit<u8> have the same layout, and the two cannot overlap
                // (one is the archive's bytes, the other the caller's buffer); the parser holds a
                // stored entry's compressed size to its size, which is out's length.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr().cast::<u8>(), out.len()) };
                // SAFETY: every byte was just written.
                let whole = unsafe { &mut *(std::ptr::from_mut(&mut *out) as *mut [u8]) };
                crc_checked(entry, whole, check_crc)
            }
            Decoding::Whole { input, entry, trailing } => inflate_whole(input, entry, tools, out, check_crc, trailing),
            Decoding::Parallel { input, entry, threads, cores, trailing } => {
                inflate_parallel_into(input, entry, threads, cores, trailing, &mut *out).map(|_| ())
            }
            Decoding::Stream(decoder) => {
                out.fill(MaybeUninit::new(0));
                // SAFETY: every byte was just initialised.
                let whole = unsafe { &mut *(std::ptr::from_mut(&mut *out) as *mut [u8]) };
                decoder.fill_exactly(whole)
            }
        };
        if result.is_err() {
            out.fill(MaybeUninit::new(0));
        }
        result?;
        // SAFETY: each way above wrote every byte of `out` when it succeeded.
        Ok(unsafe { &mut *(std::ptr::from_mut(out) as *mut [u8]) })
    }

    /// [`into_buffer`](Self::into_buffer) into initialised memory.
    pub(crate) fn into_slice(self, out: &mut [u8], tools: WholeTools<'_>, check_crc: bool) -> Result<(), Error> {
        // SAFETY: every u8 is a valid MaybeUninit<u8>, and into_buffer writes only initialised
        // bytes.
        let uninit = unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
        self.into_buffer(uninit, tools, check_crc).map(|_| ())
    }

    /// Hands the whole entry to `sink` in order, checked at its end (before this returns; held
    /// bytes before they are handed on). A stream is read through `buffer`. An error from `sink`
    /// stops it and is returned.
    pub(crate) fn into_sink(
        self,
        buffer: &mut [u8],
        sink: &mut dyn FnMut(&[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        match self {
            Decoding::Held { bytes, entry } => {
                crc_checked(entry, bytes, true)?;
                if bytes.is_empty() { Ok(()) } else { sink(bytes) }
            }
            Decoding::Parallel { input, entry, threads, cores, trailing } => {
                inflate_parallel_to(input, entry, threads, cores, trailing, sink)
            }
            Decoding::Whole { input, entry, trailing } => {
                Decoding::Stream(EntryDecoder::new(input, entry, None)?.with_trailing(trailing)).into_sink(buffer, sink)
            }
            Decoding::Stream(mut decoder) => loop {
                match decoder.read(buffer)? {
                    0 => return Ok(()),
                    n => sink(&buffer[..n])?,
                }
            },
        }
    }
}

/// Checks `bytes`, entry `e` whole, against its CRC-32 when `check`.
fn crc_checked(e: &Entry, bytes: &[u8], check: bool) -> Result<(), Error> {
    if check && strided_inflate::crc32(bytes) != e.crc32 {
        return Err(Error::Crc { entry: e.path.clone() });
    }
    Ok(())
}

/// Inflates deflated entry `e` (its compressed bytes `input`) whole into `out`, exactly its size,
/// by libdeflate's whole-buffer decoder, its compressed bytes first read into scratch room when
/// they are not in memory. Checks the CRC-32 when `check_crc`, and the stream's end as
/// `trailing` says.
fn inflate_whole(
    input: Input<'_>,
    e: &Entry,
    tools: WholeTools<'_>,
    out: &mut [MaybeUninit<u8>],
    check_crc: bool,
    trailing: Trailing,
) -> Result<(), Error> {
    let compressed = match input {
        Input::Slice(bytes) => bytes,
        Input::Range { .. } => {
            let room = tools.scratch.room(to_usize(e.compressed_size, e)?, &e.path)?;
            // SAFETY: every u8 is a valid MaybeUninit<u8>, and read_exact writes only bytes.
            let uninit = unsafe { &mut *(std::ptr::from_mut(room) as *mut [MaybeUninit<u8>]) };
            input.read_exact(0, uninit, &e.path)?;
            room
        }
    };
    let decoder = match tools.decoder {
        Some(decoder) => decoder,
        None => tools
            .decoder
            .insert(Decoder::new(Format::Raw).map_err(|source| Error::Data { entry: e.path.clone(), source })?),
    };
    let consumed = decoder
        .inflate_at_uninit(compressed, 0, &mut *out)
        .map_err(|source| Error::Data { entry: e.path.clone(), source })?;
    // SAFETY: the inflate succeeded, so it wrote every byte of `out` (its size is the entry's).
    let whole = unsafe { &*(std::ptr::from_ref(out) as *const [u8]) };
    crc_checked(e, whole, check_crc)?;
    check_stream_end(e, consumed as u64, trailing)
}

fn to_usize(n: u64, e: &Entry) -> Result<usize, Error> {
    usize::try_from(n).map_err(|_| Error::malformed_entry("size does not fit in memory", &e.path))
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
