//! Writing one entry: inflated whole into a pooled buffer of its exact size, or, when large,
//! inflated in chunks that are written behind by whichever worker is idle; CRC-32 always checked.

#![forbid(unsafe_code)]

use std::fs::File;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use buffer_pool::{BufferPool, PooledBuffer};
use strided_inflate::{ChunkedInflater, Decoder};

use crate::Error;
use crate::entry::decode::{Ask, Decoding, Output, WholeTools, decoding};
use crate::entry::opened::Opened;
use crate::entry::source::Input;
use crate::entry::source::Source;
use crate::entry::stream_decoder::EntryDecoder;
use crate::extract::behind::{Chunk, Target, WriteBehind};
use crate::extract::tree::Tree;
use crate::read::entry::{Entry, Method};

/// Entries inflating to more than this are streamed to disk in chunks, so memory stays bounded
/// whatever the archive holds.
pub(crate) const WHOLE_ENTRY_MAX: u64 = 4 << 20;

/// The piece entries streamed through a reading decoder are written in: stored entries read
/// from the source, and the other methods' output.
const PIECE: usize = 1 << 20;
/// A streamed deflated entry's chunks (the decoder's window is this plus 32 KiB and its slack).
pub(crate) const CHUNK: usize = PIECE - ChunkedInflater::MAX_OVERRUN;

/// What a worker keeps between entries: the whole-stream decoder for entries inflated at once and
/// the chunked one for large entries (each made on first use), and its buffers for an entry's
/// data as stored and as inflated.
pub(crate) struct Inflaters<'a, 'pool> {
    pub(crate) whole: Option<Decoder>,
    pub(crate) chunked: Option<ChunkedInflater<'a>>,
    input: Scratch<'pool>,
    output: Scratch<'pool>,
}

impl<'pool> Inflaters<'_, 'pool> {
    pub(crate) fn new(pool: &'pool BufferPool) -> Self {
        Inflaters { whole: None, chunked: None, input: Scratch::new(pool), output: Scratch::new(pool) }
    }
}

/// A worker's buffer for one purpose, kept from entry to entry and replaced only by a larger one,
/// the smaller one freed (never kept idle in the pool: no scratch would take it again). A lease
/// per entry, of each entry's size, would cycle through every size class of the pool, each
/// claiming its share of the pool's small budget, and the classes left out would be mapped and
/// unmapped for every entry: 1,750 `mmap`s extracting 31,000 files.
pub(crate) struct Scratch<'pool> {
    pool: &'pool BufferPool,
    held: Option<PooledBuffer>,
}

impl<'pool> Scratch<'pool> {
    pub(crate) fn new(pool: &'pool BufferPool) -> Self {
        Scratch { pool, held: None }
    }

    /// `len` bytes of the buffer, holding whatever they held; a larger buffer replaces it first
    /// if it is too small. `entry` names the entry in an out-of-memory error.
    pub(crate) fn take(&mut self, len: usize, entry: &str) -> Result<&mut [u8], Error> {
        if self.held.as_ref().is_none_or(|held| held.len() < len) {
            self.held = None; // the smaller one freed first
            let buffer = self
                .pool
                .acquire(len.max(1))
                .map_err(|_| Error::Limit { entry: entry.to_owned(), reason: "out of memory".into() })?
                .detach();
            self.held = Some(buffer);
        }
        Ok(&mut self.held.as_mut().expect("a buffer is held")[..len])
    }
}

impl crate::entry::decode::Scratch for Scratch<'_> {
    fn room(&mut self, len: usize, entry: &str) -> Result<&mut [u8], Error> {
        self.take(len, entry)
    }
}

/// What writing an entry needs besides the entry: where the archive's bytes are (and the entry's,
/// if a batch read already holds them), where to write, and the shared buffers and flags.
pub(crate) struct Job<'j, 'a> {
    pub(crate) archive: &'a Opened<'a>,
    /// Where the entry's data starts in the archive (its local header checked).
    pub(crate) data_offset: u64,
    /// The entry's data as stored, when a batch read holds it.
    pub(crate) held: Option<&'j [u8]>,
    pub(crate) tree: &'j Tree<'j>,
    pub(crate) behind: &'j WriteBehind,
    pub(crate) halt: &'j Halt<'j>,
    pub(crate) durable: bool,
    /// Give the file the modification time the archive records.
    pub(crate) restore_mtime: bool,
    /// What bytes after an entry's stream make of it.
    pub(crate) trailing: crate::entry::checks::Trailing,
    /// When a large deflated entry is inflated on several cores, and its share of the cores and
    /// threads.
    pub(crate) parallel: crate::ParallelInflate,
    pub(crate) share: crate::entry::parallel::Share,
}

/// `mtime` as a `SystemTime`, if it is a time at all.
pub(crate) fn system_time(mtime: crate::read::entry::Mtime) -> Option<std::time::SystemTime> {
    crate::sys::unix_system_time(mtime.unix()?)
}

/// Whether entry `e` is streamed to its file in chunks that other workers may write behind it
/// (so its modification time is set once they all have).
pub(crate) fn written_behind(e: &Entry, durable: bool) -> bool {
    e.method == Method::Deflate && e.size > WHOLE_ENTRY_MAX && !durable
}

/// Neighbouring entries are read together when the span holding them is at most this long...
const PREFETCH_MAX: u64 = 1 << 20;

/// The bytes of a batch of neighbouring small entries, read from the file at once: their data,
/// and their local headers when those are checked from the same read.
pub(crate) struct Prefetch<'s> {
    data: &'s [u8],
    start: u64,
}

impl<'s> Prefetch<'s> {
    /// Reads the span holding `extents` (each entry's `(start, end)` in the file: its data, or its
    /// local header through its data) in one `pread`, when the archive is in a file, there are at
    /// least `at_least` of them, and they fill at least half the span (what lies between them,
    /// other headers and unselected entries, is read for nothing); else `None`. `first` names
    /// the batch in errors.
    pub(crate) fn read(
        source: &dyn Source,
        extents: &[(u64, u64)],
        at_least: usize,
        first: &Entry,
        scratch: &'s mut Scratch<'_>,
    ) -> Result<Option<Prefetch<'s>>, Error> {
        if source.bytes().is_some() || extents.len() < at_least.max(1) {
            return Ok(None);
        }
        let start = extents.iter().map(|&(from, _)| from).min().unwrap_or(0);
        let end = extents.iter().map(|&(_, to)| to).max().unwrap_or(0);
        let useful: u64 = extents.iter().map(|&(from, to)| to - from).sum();
        let len = end - start;
        if len > PREFETCH_MAX || useful < len / 2 {
            return Ok(None);
        }
        let data = scratch.take(len as usize, &first.path)?;
        crate::entry::source::read_exact(source, start, data, &first.path)?;
        Ok(Some(Prefetch { data, start }))
    }

    /// The bytes read, and where in the file they start.
    pub(crate) fn held(&self) -> (u64, &[u8]) {
        (self.start, self.data)
    }

    /// Entry `e`'s data as stored (from `data_offset`), if this read holds it.
    pub(crate) fn span(&self, e: &Entry, data_offset: u64) -> Option<&[u8]> {
        let from = data_offset.checked_sub(self.start)?;
        let to = from.checked_add(e.compressed_size)?;
        (to <= self.data.len() as u64).then(|| &self.data[from as usize..to as usize])
    }
}

/// Inflates (or copies) one entry, verifies its CRC-32, and writes it as a new file, decoded as
/// [`decoding`] chooses: a stored entry in memory straight from the archive, one decoded whole
/// into a pooled buffer of its size when small enough, else streamed (a large deflated entry's
/// chunks written behind it by whichever worker is idle).
pub(crate) fn write_file<'a>(e: &'a Entry, job: &Job<'_, 'a>, inflaters: &mut Inflaters<'a, '_>) -> Result<(), Error> {
    let file = job.tree.create_file(&e.path, e.mode)?;
    let Inflaters { whole, chunked, input: scratch, output: buffer } = inflaters;
    let whole = WholeTools { decoder: whole, scratch };
    let file = match job.held {
        // A batch read holds only small entries (see `Prefetch`): no chunked decoder.
        Some(bytes) => write_decoded(decoding(Input::Slice(bytes), e, ask(e, job))?, job, file, whole, buffer)?,
        None => {
            let input = job.archive.input(job.data_offset, e);
            write_decoded(decoding(input, e, ask(e, job).inflater(chunked, CHUNK))?, job, file, whole, buffer)?
        }
    };
    let Some(file) = file else { return Ok(()) }; // written behind: the last chunk's writer finishes it
    let tree = job.tree;
    if job.restore_mtime
        && let Some(time) = system_time(e.mtime)
    {
        let times = std::fs::FileTimes::new().set_modified(time);
        file.set_times(times).map_err(|err| Error::io("setting the time of", &tree.full_path(&e.path), err))?;
    }
    if job.durable {
        file.sync_all().map_err(|err| Error::io("syncing", &tree.full_path(&e.path), err))?;
    }
    Ok(())
}

/// What extraction asks of [`decoding`] for entry `e`: whole when small enough, else in pieces;
/// on several cores by the job's rule and share; bytes after the stream by its rule.
fn ask<'x, 'w>(e: &Entry, job: &Job<'_, '_>) -> Ask<'x, 'w> {
    let output = if e.size <= WHOLE_ENTRY_MAX { Output::Whole } else { Output::Sink };
    Ask::new(output).parallel(job.parallel, Some(job.share)).trailing(job.trailing)
}

/// Writes entry `decoding` decodes into `file`: returns the file for its time and sync, or
/// `None` when its chunks are written behind (whoever writes the last finishes it).
fn write_decoded<'a>(
    decoding: Decoding<'a, '_>,
    job: &Job<'_, '_>,
    mut file: File,
    whole: WholeTools<'_>,
    buffer: &mut Scratch<'_>,
) -> Result<Option<File>, Error> {
    let e = decoding.entry();
    let tree = job.tree;
    let write = |file: &mut File, bytes: &[u8]| {
        file.write_all(bytes).map_err(|err| Error::io("writing", &tree.full_path(&e.path), err))
    };
    match decoding {
        Decoding::Whole { .. } => {
            let out = buffer.take(e.size as usize, &e.path)?;
            decoding.into_slice(out, whole, true)?;
            write(&mut file, out)?;
        }
        Decoding::Stream(decoder) if e.method == Method::Deflate => {
            // Large deflate: inflated in bounded chunks by the worker's chunked decoder, hashed as
            // it goes. Each chunk is written at once (always when durable, so the file can be
            // synced), or, while another worker waits for work, handed to it in the decoder's
            // own window.
            if job.durable {
                stream_entry(decoder, job, |_, inflater| write(&mut file, inflater.last_chunk()))?;
            } else {
                let target = Arc::new(Target { file, path: tree.full_path(&e.path) });
                let behind = job.behind;
                stream_entry(decoder, job, |offset, inflater| {
                    if !behind.has_writer() {
                        return crate::sys::write_all_at(&target.file, inflater.last_chunk(), offset)
                            .map_err(|err| Error::io("writing", &target.path, err));
                    }
                    // The decoder's window goes to the writer as it is; a written one replaces it.
                    let len = inflater.window_len();
                    let spare = behind.spare_window(len).unwrap_or_else(|| vec![0u8; len].into_boxed_slice());
                    let (window, range) = inflater.swap_window(spare);
                    behind.push(Chunk { target: Arc::clone(&target), offset, window, range })
                })?;
                return Ok(None);
            }
        }
        decoding => {
            // Stored entries in memory at once; on several cores, the chunks as they come out, in
            // order; stored entries read from the source, and the other methods (Deflate64,
            // bzip2, LZMA, Zstandard, XZ), in pieces through the entry's decoder, which checks
            // size and CRC-32 as it ends.
            let buffer = match decoding {
                Decoding::Stream(_) => buffer.take((e.size as usize).saturating_add(1).clamp(2, PIECE), &e.path)?,
                _ => &mut [],
            };
            let halt = job.halt;
            decoding.into_sink(buffer, &mut |bytes: &[u8]| {
                if halt.is_set() {
                    return Err(Error::Cancelled);
                }
                write(&mut file, bytes)
            })?;
        }
    }
    Ok(Some(file))
}

/// Why workers stop early: another worker failed, or the caller cancelled.
pub(crate) struct Halt<'a> {
    /// Set when a worker failed.
    pub(crate) failed: &'a AtomicBool,
    /// The caller's cancel flag.
    pub(crate) cancel: Option<&'a AtomicBool>,
}

impl Halt<'_> {
    pub(crate) fn is_set(&self) -> bool {
        self.failed.load(Ordering::Relaxed) || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// Inflates a large deflated entry in chunks through `decoder`, which checks its size, CRC-32
/// and end; each chunk goes to `sink(offset in the file, the decoder holding it)`. Stops early
/// when the job halts.
fn stream_entry<'a>(
    mut decoder: EntryDecoder<'a, '_>,
    job: &Job<'_, '_>,
    mut sink: impl FnMut(u64, &mut ChunkedInflater<'a>) -> Result<(), Error>,
) -> Result<(), Error> {
    loop {
        if job.halt.is_set() {
            return Err(Error::Cancelled);
        }
        let Some(offset) = decoder.next_chunk()? else { return Ok(()) };
        sink(offset, decoder.inflater().expect("a deflated entry"))?;
    }
}
