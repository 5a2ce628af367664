//! Any slice of an entry, at a cost set by the slice rather than by the entry: stored entries are
//! read in place; deflated ones from checkpoints (`strided_inflate::Checkpoints`: a block
//! boundary, or a place inside a block, with the 32 KiB of output before it), built by the first
//! such read of the entry in one full pass that checks its CRC-32, or imported from an earlier
//! run. A read then inflates at most about one span (1 MiB unless set) before its slice.
//!
//! Memory: each checkpoint holds 32 KiB, so an entry of `n` bytes takes about `n / span × 32
//! KiB` (3% of the entry at the default span). An archive keeps at most `budget` bytes of them (64
//! MiB unless set): an entry whose checkpoints would not fit gets a longer span, and the
//! checkpoints of the entries read longest ago are dropped to make room.
//!
//! What checks a slice, since a CRC-32 covers only a whole entry: the pass that checked the whole
//! entry notes CRC-32s of its compressed bytes, and every slice checks the bytes it reads against
//! them. A deflated entry's checkpoints carry them (see `strided_inflate::Checkpoints`); other
//! entries read from a file or a caller's source are read in 16 KiB blocks, each checked
//! ([`BlockChecked`]). Bytes that changed since give an error, never other bytes.

#![forbid(unsafe_code)]

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use strided_inflate::{Checkpoints, ChunkedInflater, Format, SeekError};

use crate::error::Error;
use crate::read::entry::Entry;

/// A checkpoint's share of the budget: its window and its bookkeeping.
const PER_CHECKPOINT: u64 = 33 << 10;

/// The deflated entries' checkpoints an archive holds, within its budget.
pub(crate) struct CheckpointStore {
    span: AtomicU64,
    budget: AtomicU64,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    by_entry: HashMap<usize, Arc<Checkpoints>>,
    /// Entries in the order their checkpoints were last used, oldest first.
    order: VecDeque<usize>,
    bytes: u64,
}

std::thread_local! {
    /// Each thread's decoder for slices: its window and tables are allocated once.
    static INFLATER: std::cell::RefCell<Option<ChunkedInflater<'static>>> = const { std::cell::RefCell::new(None) };
}

/// Output per chunk of the slice decoder: small, since a slice is usually small.
const CHUNK: usize = 64 << 10;

impl CheckpointStore {
    /// One checkpoint per this many output bytes unless set.
    pub(crate) const DEFAULT_SPAN: u64 = Checkpoints::DEFAULT_SPAN;
    /// Memory an archive's checkpoints may take unless set.
    pub(crate) const DEFAULT_BUDGET: u64 = 64 << 20;

    pub(crate) fn new() -> CheckpointStore {
        CheckpointStore {
            span: AtomicU64::new(Self::DEFAULT_SPAN),
            budget: AtomicU64::new(Self::DEFAULT_BUDGET),
            held: Mutex::new(Held::default()),
        }
    }

    /// Sets the span (at least 32 KiB) and the budget for checkpoints built from now on; the
    /// budget also applies at once to those held.
    pub(crate) fn set_limits(&self, span: u64, budget: u64) {
        self.span.store(span.max(32 << 10), Ordering::Relaxed);
        self.budget.store(budget, Ordering::Relaxed);
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.evict_to(budget);
    }

    /// The span and budget in force.
    pub(crate) fn limits(&self) -> (u64, u64) {
        (self.span.load(Ordering::Relaxed), self.budget.load(Ordering::Relaxed))
    }

    /// The span for an entry of `len` bytes: the one set, or longer where its checkpoints would
    /// not fit in the budget.
    fn span_for(&self, len: u64) -> u64 {
        let (span, budget) = self.limits();
        let fit = budget / PER_CHECKPOINT;
        if fit == 0 { u64::MAX } else { span.max(len.div_ceil(fit)) }
    }

    /// The span a full read of an entry of `len` bytes should record checkpoints at, as a
    /// by-product, or `None` when it should not: too small to need them (a read of it costs less
    /// than two spans), or no budget.
    pub(crate) fn span_to_record(&self, len: u64) -> Option<u64> {
        let (span, budget) = self.limits();
        (budget >= PER_CHECKPOINT && len >= 2 * span).then(|| self.span_for(len))
    }

    /// Entry `index`'s checkpoints, if held (and then the most recently used).
    pub(crate) fn get(&self, index: usize) -> Option<Arc<Checkpoints>> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let found = held.by_entry.get(&index).cloned()?;
        held.touch(index);
        Some(found)
    }

    /// Keeps `points` for entry `index`, dropping the least recently used others to stay within
    /// the budget (and not keeping these if they alone exceed it).
    pub(crate) fn insert(&self, index: usize, points: Checkpoints) -> Arc<Checkpoints> {
        let points = Arc::new(points);
        let size = points.memory() as u64;
        let budget = self.budget.load(Ordering::Relaxed);
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = held.by_entry.remove(&index) {
            held.bytes -= old.memory() as u64;
            held.order.retain(|&i| i != index);
        }
        if size <= budget {
            held.evict_to(budget - size);
            held.bytes += size;
            held.by_entry.insert(index, Arc::clone(&points));
            held.order.push_back(index);
        }
        points
    }

    /// Drops entry `index`'s checkpoints if they are still `points` (imported ones a read found
    /// not to describe the entry: the next read builds its own).
    fn forget(&self, index: usize, points: &Arc<Checkpoints>) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.by_entry.get(&index).is_some_and(|p| Arc::ptr_eq(p, points)) {
            held.by_entry.remove(&index);
            held.bytes -= points.memory() as u64;
            held.order.retain(|&i| i != index);
        }
    }

    /// Bytes the held checkpoints take.
    pub(crate) fn memory(&self) -> u64 {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).bytes
    }
}

impl Held {
    fn touch(&mut self, index: usize) {
        if let Some(at) = self.order.iter().position(|&i| i == index) {
            self.order.remove(at);
            self.order.push_back(index);
        }
    }

    fn evict_to(&mut self, budget: u64) {
        while self.bytes > budget {
            let Some(oldest) = self.order.pop_front() else { break };
            if let Some(points) = self.by_entry.remove(&oldest) {
                self.bytes -= points.memory() as u64;
            }
        }
    }
}

/// Runs `f` with this thread's slice decoder.
fn with_inflater<T>(f: impl FnOnce(&mut ChunkedInflater<'static>) -> T) -> T {
    INFLATER.with(|slot| {
        let mut slot = slot.borrow_mut();
        let inflater = slot.get_or_insert_with(|| ChunkedInflater::with_chunk_size(Format::Raw, CHUNK));
        f(inflater)
    })
}

/// An entry's compressed bytes, as the checkpoint code reads them: from memory or from the file.
pub(crate) type Source<'s> = &'s mut dyn FnMut(u64, &mut [u8]) -> std::io::Result<usize>;

pub(crate) fn seek_error(e: &Entry, err: SeekError<std::io::Error>) -> Error {
    match err {
        SeekError::Source(source) => Error::Io { action: "reading", path: e.path.clone(), source },
        SeekError::Stream(source) => Error::Data { entry: e.path.clone(), source },
        // Compressed bytes other than those the checkpoints were made from: the entry's data
        // no longer matches what its CRC-32 was checked over.
        SeekError::Crc { .. } | SeekError::Changed { .. } => Error::Crc { entry: e.path.clone() },
        SeekError::Length { expected, actual } => Error::Data {
            entry: e.path.clone(),
            source: strided_inflate::Error::SizeMismatch {
                offset: 0,
                expected: usize::try_from(expected).unwrap_or(usize::MAX),
                actual: actual.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            },
        },
        trailing @ SeekError::Trailing { .. } => Error::malformed_entry(trailing.to_string(), &e.path),
        SeekError::OutOfRange { offset, len } => Error::OutOfRange { entry: e.path.clone(), offset, size: len },
        unbound @ SeekError::Unbound { .. } => {
            Error::CheckpointsRefused { entry: e.path.clone(), reason: unbound.to_string() }
        }
    }
}

impl CheckpointStore {
    /// Entry `e`'s (at `index`) checkpoints: held, or built now in one pass over its data, which
    /// checks its CRC-32 and sizes.
    pub(crate) fn for_entry(&self, index: usize, e: &Entry, source: Source<'_>) -> Result<Arc<Checkpoints>, Error> {
        if let Some(points) = self.get(index) {
            return Ok(points);
        }
        let span = self.span_for(e.size);
        let built =
            with_inflater(|inflater| Checkpoints::build(e.compressed_size, e.size, e.crc32, span, inflater, source))
                .map_err(|err| seek_error(e, err))?;
        Ok(self.insert(index, built))
    }

    /// Reads up to `out.len()` bytes of deflated entry `e` from `offset` through its checkpoints.
    pub(crate) fn read_at(
        &self,
        index: usize,
        e: &Entry,
        offset: u64,
        out: &mut [u8],
        source: Source<'_>,
    ) -> Result<usize, Error> {
        let points = self.for_entry(index, e, &mut *source)?;
        with_inflater(|inflater| points.read_at(offset, out, inflater, source)).map_err(|err| {
            if matches!(err, SeekError::Unbound { .. }) {
                self.forget(index, &points);
            }
            seek_error(e, err)
        })
    }

    /// Checkpoints exported earlier for entry `e` (at `index`): kept if they are that entry's.
    pub(crate) fn import(&self, index: usize, e: &Entry, bytes: &[u8]) -> Result<(), Error> {
        let points = Checkpoints::import(bytes, e.compressed_size, e.size, e.crc32)
            .map_err(|err| Error::CheckpointsRefused { entry: e.path.clone(), reason: err.0 })?;
        self.insert(index, points);
        Ok(())
    }
}

/// Bytes per block of a checked slice: a slice of an entry read from a file or a caller's source
/// reads and checks the whole blocks it touches.
const BLOCK: u64 = 16 << 10;

/// The CRC-32 of each block of one entry's compressed bytes, noted when the block was first read:
/// by the pass over the whole entry that checked its CRC-32, for every block that pass needed.
/// 8 bytes per 16 KiB.
pub(crate) struct BlockCrcs {
    noted: Mutex<Vec<Option<u32>>>,
    /// A pass over the whole entry through [`BlockChecked`] checked its CRC-32.
    pub(crate) checked: std::sync::atomic::AtomicBool,
}

impl BlockCrcs {
    pub(crate) fn new(compressed_len: u64) -> BlockCrcs {
        BlockCrcs {
            noted: Mutex::new(vec![None; compressed_len.div_ceil(BLOCK) as usize]),
            checked: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

/// One entry's compressed bytes, `len` of them from `base` in `source`, read by whole blocks, each
/// checked against the CRC-32 noted when it was first read. What slices of stored, bzip2 and LZMA
/// entries read through, so that a source whose bytes changed since the entry's CRC-32 was
/// checked gives an error, never other bytes. (Deflated entries' slices are checked through their
/// checkpoints.)
pub(crate) struct BlockChecked<'a> {
    source: &'a dyn crate::Source,
    base: u64,
    len: u64,
    crcs: &'a BlockCrcs,
    /// The block read last, and its bytes.
    held: Mutex<(u64, Vec<u8>)>,
}

/// What a checked read found.
pub(crate) enum BlockError {
    /// The block's bytes are not those first read.
    Changed,
    /// The source failed, or ended before the entry's bytes.
    Io(std::io::Error),
}

impl<'a> BlockChecked<'a> {
    pub(crate) fn new(source: &'a dyn crate::Source, base: u64, len: u64, crcs: &'a BlockCrcs) -> BlockChecked<'a> {
        BlockChecked { source, base, len, crcs, held: Mutex::new((u64::MAX, Vec::new())) }
    }

    /// Up to `buf.len()` bytes from `offset` of the entry's compressed bytes, from one block.
    fn read_checked(&self, offset: u64, buf: &mut [u8]) -> Result<usize, BlockError> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let block = offset / BLOCK;
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.0 != block {
            let start = block * BLOCK;
            held.1.resize((self.len - start).min(BLOCK) as usize, 0);
            let mut done = 0;
            while done < held.1.len() {
                match self.source.read_at(self.base + start + done as u64, &mut held.1[done..]) {
                    Ok(0) => return Err(BlockError::Io(std::io::ErrorKind::UnexpectedEof.into())),
                    Ok(n) => done += n.min(held.1.len() - done),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(BlockError::Io(e)),
                }
            }
            let crc = strided_inflate::crc32(&held.1);
            let mut crcs = self.crcs.noted.lock().unwrap_or_else(|e| e.into_inner());
            match &mut crcs[block as usize] {
                Some(noted) if *noted != crc => {
                    held.0 = u64::MAX;
                    return Err(BlockError::Changed);
                }
                Some(_) => {}
                unseen => *unseen = Some(crc),
            }
            held.0 = block;
        }
        let within = (offset - block * BLOCK) as usize;
        let n = buf.len().min(held.1.len() - within);
        buf[..n].copy_from_slice(&held.1[within..within + n]);
        Ok(n)
    }

    /// Fills `out` from `offset` of the entry's compressed bytes (a stored entry's data), each
    /// block checked: [`Error::Crc`] where one changed since it was first read.
    pub(crate) fn read_exact(&self, mut offset: u64, mut out: &mut [u8], e: &Entry) -> Result<(), Error> {
        while !out.is_empty() {
            match self.read_checked(offset, out) {
                Ok(0) => return Err(Error::malformed_entry("the archive shrank since it was opened", &e.path)),
                Ok(n) => {
                    offset += n as u64;
                    out = &mut out[n..];
                }
                Err(BlockError::Changed) => return Err(Error::Crc { entry: e.path.clone() }),
                Err(BlockError::Io(err)) => {
                    return Err(Error::Io { action: "reading", path: e.path.clone(), source: err });
                }
            }
        }
        Ok(())
    }
}

impl crate::Source for BlockChecked<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        self.read_checked(offset, buf).map_err(|err| match err {
            BlockError::Changed => std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the archive's bytes changed since this entry's CRC-32 was checked",
            ),
            BlockError::Io(err) => err,
        })
    }
}
