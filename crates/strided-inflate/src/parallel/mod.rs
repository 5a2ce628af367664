//! One raw deflate stream inflated on several cores, with output identical to serial decoding.
//!
//! The method is rapidgzip's (Knespel and Brunst, HPDC 2023). The compressed stream is cut into
//! chunks at arbitrary bits. A worker takes a chunk and looks, from its first bit on, for a place
//! where a block could start (a dynamic block header whose codes are all complete, or a stored
//! block whose length matches its complement). It decodes from there without knowing the 32 KiB
//! of output before it, with [`marked`](crate::marked)'s loop: 16-bit symbols, after 32 KiB of
//! markers that name the unknown window's bytes, at close to the byte decoder's speed. Once 32 KiB
//! go by without a marker, no later byte can need the window, and the worker goes on with the
//! byte decoder ([`ChunkedInflater`]) to the first block boundary past the next chunk's first bit.
//!
//! Then, in order, the writer checks each chunk against the exact decoding before it: it is used
//! only if it started exactly where the previous one stopped, at a block boundary. The writer
//! then computes the 32 KiB window after it (from its last symbols: the one sequential step of
//! using a chunk), and a worker replaces the chunk's markers from the window before it, while the
//! writer goes on to the next; resolved chunks are handed to the sink in order. Anything that does
//! not line up (a false start, a chunk whose blocks are all fixed-code ones, which give nothing to
//! find, a worker that failed) is decoded serially from the last exact place: the output is
//! always the serial decoder's, and a corrupt stream fails exactly as it fails serially, wherever
//! a worker first met the damage.
//!
//! When to wait: the writer waits for a chunk whose worker has decoded a megabyte from a block
//! start it found, and decodes on serially past one whose worker has not. When to stop: where the
//! markers never die out (log lines, each copying its prefix from the line before, carry a marker
//! from the chunk's start to its end), every byte must be decoded marked and then resolved, about
//! twice the work of serial decoding; unless [`Parallel::keep_speculating`] (worth it from about 4
//! cores), after two such chunks in a row the rest is decoded serially
//! ([`ParallelReport::stopped_speculating`]). The rules and their measurements:
//! `bench-reports/strided-inflate.md`, "One stream on many cores".
//!
//! Memory: at most `threads + threads / 2 + 1` chunks are decoded ahead of the writer, each about
//! [`Parallel::chunk_out`] symbols of two bytes (4 Mi symbols unless set) and, once resolved, as
//! many bytes, plus its compressed bytes and 1 MiB; their buffers are reused from chunk to chunk
//! (about 16 MiB a chunk ahead with the default chunk). A chunk that would decode to more than twice
//! `chunk_out` (a stretch that compresses far better than the rest of the stream) is left to
//! serial decoding, so the bound holds whatever the stream (`tests/parallel_memory.rs`).
//!
//! Here: the writer, the queue and the serial fallbacks; `speculate.rs`: a worker's search for a
//! block start and its decoding from there.

#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use crate::checkpoint::{Checkpoint, Inside, feed};
use crate::chunked::HISTORY;
use crate::chunked::tables::{
    COUNT_MASK, DIST_BITS, DIST_TABLE, KIND_INVALID, KIND_MASK, LITLEN_BITS, LITLEN_TABLE, PRECODE_BITS, PRECODE_ORDER,
    build_table, dist_entry, fixed_tables, litlen_entry, precode_entry, table,
};
use crate::marked::{self, Marked};
use crate::{ChunkedInflater, Format, SeekError};

mod speculate;
use speculate::{Reuse, speculate};

/// The byte decoder's chunk (its window is this plus 32 KiB).
const SERIAL_CHUNK: usize = 1 << 20;
/// Chunks in a row decoded mostly marked, after which the writer stops speculating.
const GIVE_UP_AFTER: usize = 2;

/// The stream's bytes: `source(offset, buf)` fills the front of `buf` from `offset` and says how
/// many (0 at the end), from any thread.
pub type Source<'a, E> = dyn Fn(u64, &mut [u8]) -> Result<usize, E> + Sync + 'a;

/// How one stream is cut and decoded in parallel.
#[derive(Debug, Clone, Copy)]
pub struct Parallel {
    /// Worker threads (at least 2 for any parallelism).
    pub threads: usize,
    /// Output a chunk aims at, in bytes: chunks are cut by compressed size, from the stream's
    /// overall ratio. A chunk decoding to more than twice this is decoded serially instead, which
    /// bounds the memory a worker holds.
    pub chunk_out: u64,
    /// Wait for each chunk's speculation rather than decode past a chunk whose speculation is
    /// not done yet. Off by default, so that the worst case is serial decoding; on for tests that
    /// must exercise the speculative path.
    pub patient: bool,
    /// Go on speculating where markers persist through whole chunks (log lines, each copying its
    /// prefix from the line before): every byte is then decoded marked and resolved, more work
    /// in all than serial decoding, which pays from enough cores. Off by default: after two such
    /// chunks in a row the rest is decoded serially.
    pub keep_speculating: bool,
}

/// The parts of a parallel inflate, told to an [`Observer`] as each begins and ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// A worker decoding chunk `k` without the output before it: finding where a block starts,
    /// decoding marked symbols until the markers die out, then bytes to the chunk's end.
    Speculate(usize),
    /// The writer decoding exactly, serially, from within chunk `k` to a block boundary in the
    /// next (chunk 0, and whatever did not line up), handing the bytes to the sink as it goes.
    Serial(usize),
    /// The writer finding the 32 KiB of output after chunk `k` (the next chunk's window) from
    /// the chunk's last symbols: all that is sequential in using a chunk.
    Window(usize),
    /// A worker replacing chunk `k`'s markers with the bytes of the output before it.
    Resolve(usize),
    /// The writer handing chunk `k`'s bytes to the sink.
    Emit(usize),
}

/// Told when each [`Task`] of a parallel inflate begins and ends, on the thread that runs it (so
/// it can read that thread's CPU clock): how a benchmark sees where the time goes, and the
/// dependency graph it goes along. The library itself measures nothing.
pub trait Observer: Sync {
    /// `task` begins on this thread.
    fn began(&self, task: Task);
    /// `task` ends on this thread.
    fn ended(&self, task: Task);
}

/// The observer that observes nothing.
struct Unobserved;

impl Observer for Unobserved {
    fn began(&self, _: Task) {}
    fn ended(&self, _: Task) {}
}

/// Runs `f` as `task`, telling `observer`.
fn observed<T>(observer: &dyn Observer, task: Task, f: impl FnOnce() -> T) -> T {
    observer.began(task);
    let out = f();
    observer.ended(task);
    out
}

impl Default for Parallel {
    fn default() -> Self {
        Parallel {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            chunk_out: 4 << 20,
            patient: false,
            keep_speculating: false,
        }
    }
}

/// What a parallel inflate did, beyond its output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParallelReport {
    /// Output bytes.
    pub total_out: u64,
    /// Compressed bytes the stream took (it ends there).
    pub consumed: u64,
    /// Chunks the stream was cut into.
    pub chunks: usize,
    /// Chunks whose speculative decoding was used.
    pub chunks_used: usize,
    /// Output bytes decoded serially (the first chunk, and whatever did not line up).
    pub serial_out: u64,
    /// Whether speculation stopped because markers persisted through whole chunks, where
    /// decoding in parallel costs more than it wins (the rest was decoded serially).
    pub stopped_speculating: bool,
}

/// Output of a chunk a worker decoded: marked symbols first (values of 256 and up name a byte of
/// the 32 KiB before the chunk: `window[value - 256]`), then plain bytes.
struct ChunkOut {
    start_bit: u64,
    marked: Marked,
    bytes: Vec<u8>,
    /// Where it stopped: a block boundary, or the stream's end (then `ended`).
    end_bit: u64,
    ended: bool,
}

/// Inflates the raw deflate stream of `compressed_len` bytes read through `source` (as for
/// [`Checkpoints::build`](crate::Checkpoints::build)), handing the output to `sink` in order, on
/// `how.threads` threads. `expected_len`, if known, sizes the chunks. The output, the bytes
/// consumed and any error are those of serial decoding.
pub fn inflate_parallel<E: Send>(
    compressed_len: u64,
    expected_len: Option<u64>,
    how: Parallel,
    source: &Source<'_, E>,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<ParallelReport, SeekError<E>> {
    inflate_parallel_observed(compressed_len, expected_len, how, source, sink, &Unobserved)
}

/// [`inflate_parallel`], telling `observer` when each task begins and ends.
pub fn inflate_parallel_observed<E: Send>(
    compressed_len: u64,
    expected_len: Option<u64>,
    how: Parallel,
    source: &Source<'_, E>,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    observer: &dyn Observer,
) -> Result<ParallelReport, SeekError<E>> {
    let ratio = expected_len.map_or(4.0, |n| (n as f64 / compressed_len.max(1) as f64).clamp(1.0, 64.0));
    let chunk_in = ((how.chunk_out as f64 / ratio) as u64).clamp(16 << 10, 64 << 20);
    let chunks = compressed_len.div_ceil(chunk_in).max(1) as usize;
    let expected_out = (chunk_in as f64 * ratio * 1.1) as usize;
    // A chunk decoding to more than this (a run of far better compression than the stream's) is
    // left to serial decoding: the memory a worker holds stays bounded whatever the input.
    let out_limit = usize::try_from(how.chunk_out.max(1 << 20)).unwrap_or(usize::MAX / 4).saturating_mul(2);
    let threads = how.threads.clamp(1, 64);
    let mut report = ParallelReport { chunks, ..ParallelReport::default() };
    if threads == 1 || chunks == 1 {
        let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, SERIAL_CHUNK);
        return observed(observer, Task::Serial(0), || {
            serial_from(compressed_len, 0, &[], 0, u64::MAX, &mut inflater, source, sink, &mut report)
        })
        .map(|_| report);
    }
    // Chunk k covers compressed bits [k * chunk_in * 8, (k + 1) * chunk_in * 8); chunk 0 is
    // decoded by the writer itself, exactly, so workers take chunks 1 and up.
    let ahead = chunks_ahead(threads);
    let shared = Shared {
        state: Mutex::new(Queue {
            next: 1,
            written: 1,
            done: Vec::new(),
            resolve: VecDeque::new(),
            resolved: Vec::new(),
            closing: false,
        }),
        changed: Condvar::new(),
        passed: AtomicUsize::new(0),
        found: (0..chunks).map(|_| AtomicBool::new(false)).collect(),
        spare: Mutex::new(Vec::new()),
        spare_bytes: Mutex::new(Vec::new()),
    };
    let bit = |k: usize| (k as u64 * chunk_in * 8).min(compressed_len * 8);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                // Kept from chunk to chunk: fresh buffers cost their page faults.
                let mut input = Vec::new();
                let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, SERIAL_CHUNK);
                loop {
                    let job = {
                        let mut q = shared.state.lock().unwrap_or_else(|e| e.into_inner());
                        loop {
                            // Resolving first: it is what the writer waits for to go on writing.
                            if let Some(job) = q.resolve.pop_front() {
                                break Job::Resolve(job);
                            }
                            if q.next < chunks && q.next < q.written + ahead {
                                q.next += 1;
                                break Job::Speculate(q.next - 1);
                            }
                            if q.closing {
                                return;
                            }
                            q = shared.changed.wait(q).unwrap_or_else(|e| e.into_inner());
                        }
                    };
                    match job {
                        Job::Resolve(ResolveJob { k, chunk, window }) => {
                            let mut resolved = shared.take_bytes();
                            let symbols = chunk.marked.decoded();
                            resolved.resize(symbols.len(), 0);
                            observed(observer, Task::Resolve(k), || marked::resolve(symbols, &window, &mut resolved))
                                .expect("a full window resolves every marker");
                            let mut q = shared.state.lock().unwrap_or_else(|e| e.into_inner());
                            q.resolved.push((k, chunk, resolved));
                            shared.changed.notify_all();
                        }
                        Job::Speculate(k) => {
                            // Given up once the writer has gone past the chunk without it.
                            let stale = || shared.passed.load(Ordering::Relaxed) > k;
                            let found = || shared.found[k].store(true, Ordering::Relaxed);
                            let spare = shared.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
                            let mut marked = spare.unwrap_or_else(|| Marked::new(expected_out, out_limit));
                            let mut bytes = shared.take_bytes();
                            let mut reuse = Reuse { marked: &mut marked, bytes: &mut bytes, inflater: &mut inflater };
                            let (from, to) = (bit(k), bit(k + 1));
                            let out = observed(observer, Task::Speculate(k), || {
                                speculate(compressed_len, from, to, &mut input, &mut reuse, source, &stale, &found)
                            });
                            let mut q = shared.state.lock().unwrap_or_else(|e| e.into_inner());
                            q.done.push((k, out));
                            shared.changed.notify_all();
                            drop(q);
                            if !marked.symbols.is_empty() {
                                shared.spare.lock().unwrap_or_else(|e| e.into_inner()).push(marked);
                            }
                            shared.give_bytes(bytes);
                        }
                    }
                }
            });
        }
        let result = write_in_order(compressed_len, chunks, how, &bit, &shared, source, sink, &mut report, observer);
        // Let the workers finish (they stop once nothing is left to resolve).
        let mut q = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        q.written = chunks;
        q.next = chunks;
        q.closing = true;
        shared.changed.notify_all();
        drop(q);
        result
    })?;
    Ok(report)
}

/// How many chunks past the first one not yet written workers may speculate: the bound on the
/// memory held. Half as many again as the threads, so that one slow chunk (a long block search,
/// markers that die late) does not idle the others: with only `threads + 1` the model of 8 cores
/// projected 2.93× serial decoding on log lines, with this 3.59× (the floor there is 3.83×).
fn chunks_ahead(threads: usize) -> usize {
    threads + threads / 2 + 1
}

/// What a worker does next.
enum Job {
    /// Decode chunk `k` without its window.
    Speculate(usize),
    /// Replace a lined-up chunk's markers, its window now known.
    Resolve(ResolveJob),
}

/// A chunk that lines up, and the 32 KiB of output before it.
struct ResolveJob {
    k: usize,
    chunk: ChunkOut,
    window: Vec<u8>,
}

struct Queue {
    /// The next chunk a worker takes.
    next: usize,
    /// Chunks before this one are written (or passed over).
    written: usize,
    /// Speculations done, taken by the writer in order.
    done: Vec<(usize, Option<ChunkOut>)>,
    /// Chunks the writer has lined up, to resolve, in order.
    resolve: VecDeque<ResolveJob>,
    /// Chunks resolved: the chunk, and its marked symbols as bytes.
    resolved: Vec<(usize, ChunkOut, Vec<u8>)>,
    /// The writer is done: workers stop once nothing is left to resolve.
    closing: bool,
}

struct Shared {
    state: Mutex<Queue>,
    changed: Condvar,
    /// Chunks before this one the writer no longer needs: their speculation stops.
    passed: AtomicUsize,
    /// Chunks whose worker has found where a block starts and is decoding from it: the writer
    /// waits for these rather than decode them itself.
    found: Vec<AtomicBool>,
    /// Marked outputs the writer is done with, for workers to decode into again (their pages
    /// stay mapped: a fresh 32 MiB output costs thousands of page faults).
    spare: Mutex<Vec<Marked>>,
    /// Byte outputs the writer is done with, likewise.
    spare_bytes: Mutex<Vec<Vec<u8>>>,
}

impl Shared {
    /// A byte buffer from the spares, or a new one.
    fn take_bytes(&self) -> Vec<u8> {
        self.spare_bytes.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default()
    }

    /// Gives a byte buffer back to the spares (emptied).
    fn give_bytes(&self, mut bytes: Vec<u8>) {
        if bytes.capacity() > 0 {
            bytes.clear();
            self.spare_bytes.lock().unwrap_or_else(|e| e.into_inner()).push(bytes);
        }
    }

    /// Gives a chunk's buffers back to the spares.
    fn recycle(&self, chunk: ChunkOut) {
        let mut marked = chunk.marked;
        if !marked.symbols.is_empty() {
            marked.restart();
            self.spare.lock().unwrap_or_else(|e| e.into_inner()).push(marked);
        }
        self.give_bytes(chunk.bytes);
    }
}

/// The chunks the writer has lined up and handed to be resolved, written in order as they are.
struct Pending {
    chunks: VecDeque<usize>,
}

impl Pending {
    /// Writes the chunks whose resolving is done, in order; with `wait`, waits for the first.
    /// Returns whether any was written.
    fn write_ready<E>(
        &mut self,
        shared: &Shared,
        wait: bool,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
        observer: &dyn Observer,
    ) -> Result<bool, SeekError<E>> {
        let mut wrote = false;
        while let Some(&k) = self.chunks.front() {
            let (chunk, resolved) = {
                let mut q = shared.state.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    if let Some(i) = q.resolved.iter().position(|(j, _, _)| *j == k) {
                        let (_, chunk, resolved) = q.resolved.swap_remove(i);
                        break (chunk, resolved);
                    }
                    if !wait || wrote {
                        return Ok(wrote);
                    }
                    q = shared.changed.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            observed(observer, Task::Emit(k), || {
                sink(&resolved)?;
                sink(&chunk.bytes)
            })
            .map_err(SeekError::Source)?;
            self.chunks.pop_front();
            wrote = true;
            shared.give_bytes(resolved);
            shared.recycle(chunk);
            let mut q = shared.state.lock().unwrap_or_else(|e| e.into_inner());
            q.written = self.chunks.front().copied().unwrap_or(k + 1);
            shared.changed.notify_all();
        }
        Ok(wrote)
    }

    /// Writes every chunk still pending, waiting for each.
    fn drain<E>(
        &mut self,
        shared: &Shared,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
        observer: &dyn Observer,
    ) -> Result<(), SeekError<E>> {
        while !self.chunks.is_empty() {
            self.write_ready(shared, true, sink, observer)?;
        }
        Ok(())
    }
}

/// The writer: chunk 0 serially, then each chunk's speculation used where it lines up, and the
/// rest serially. A chunk that lines up is resolved by a worker: the writer only finds the 32 KiB
/// after it (the next chunk's window) and writes the chunks in order as their resolving ends, so
/// that the one sequential chain is short.
#[allow(clippy::too_many_arguments)]
fn write_in_order<E>(
    compressed_len: u64,
    chunks: usize,
    how: Parallel,
    bit: &dyn Fn(usize) -> u64,
    shared: &Shared,
    source: &Source<'_, E>,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    report: &mut ParallelReport,
    observer: &dyn Observer,
) -> Result<(), SeekError<E>> {
    let patient = how.patient;
    let ahead = chunks_ahead(how.threads.clamp(1, 64));
    // The 32 KiB of output before the exact place decoding has reached (written or pending).
    let mut window: Vec<u8> = Vec::with_capacity(HISTORY);
    let mut pending = Pending { chunks: VecDeque::new() };
    // The writer's decoder, kept from chunk to chunk (a fresh one is a megabyte of fresh pages).
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, SERIAL_CHUNK);
    let inflater = &mut inflater;
    // Exact decoding has reached `at` (a block boundary), with `window` the output before it.
    let mut at = observed(observer, Task::Serial(0), || {
        serial_after(compressed_len, 0, bit(1), &mut window, inflater, source, sink, report)
    })?;
    let mut persisting = 0;
    for k in 1..chunks {
        let Some(exact) = at else { break }; // the stream ended
        if persisting >= GIVE_UP_AFTER && !patient && !how.keep_speculating {
            report.stopped_speculating = true;
            shared.passed.store(chunks, Ordering::Relaxed);
            break;
        }
        // Room for this chunk's speculation within the bound ahead of what is written.
        // Workers speculate no further than `ahead` past the first chunk pending: one that ran far
        // past its own end (a block spanning chunks) can leave this chunk beyond that bound, and
        // the writer waiting on a speculation no worker may start.
        while pending.chunks.len() + 1 >= ahead || pending.chunks.front().is_some_and(|&f| f + ahead <= k) {
            pending.write_ready(shared, true, sink, observer)?;
        }
        pending.write_ready(shared, false, sink, observer)?;
        // The chunk's speculation if it is done, or being decoded from a block start its worker
        // found; if not, the writer decodes this chunk itself.
        let out = {
            let mut q = shared.state.lock().unwrap_or_else(|e| e.into_inner());
            // Chunks before the first pending one (or this one) are written: workers may
            // speculate up to `ahead` past it.
            q.written = pending.chunks.front().copied().unwrap_or(k);
            shared.changed.notify_all();
            while (patient || shared.found[k].load(Ordering::Relaxed)) && !q.done.iter().any(|(j, _)| *j == k) {
                q = shared.changed.wait(q).unwrap_or_else(|e| e.into_inner());
            }
            let out = q.done.iter().position(|(j, _)| *j == k).and_then(|i| q.done.swap_remove(i).1);
            shared.passed.store(k + 1, Ordering::Relaxed);
            shared.changed.notify_all();
            out
        };
        // A stored block's header may be read a bit or two early or late (its three bits, all
        // zero, then padding to the same byte): the same block, decoded the same.
        let out = out.map(|mut c| {
            if c.start_bit != exact && stored_twins(source, exact, c.start_bit) {
                c.start_bit = exact;
            }
            c
        });
        let chunk = match out {
            Some(c) if c.start_bit >= exact => c,
            other => {
                if let Some(c) = other {
                    shared.recycle(c);
                }
                // Nothing found (yet), or a false start behind the exact place: serially through
                // this chunk, to the first block boundary in the next one.
                if exact < bit(k + 1) {
                    pending.drain(shared, sink, observer)?;
                    at = observed(observer, Task::Serial(k), || {
                        serial_after(compressed_len, exact, bit(k + 1), &mut window, inflater, source, sink, report)
                    })?;
                }
                continue;
            }
        };
        // Serially up to the chunk's start: it must be a block boundary the exact decoding meets.
        let reached = if chunk.start_bit == exact {
            Some(exact)
        } else {
            pending.drain(shared, sink, observer)?;
            observed(observer, Task::Serial(k), || {
                serial_after(compressed_len, exact, chunk.start_bit, &mut window, inflater, source, sink, report)
            })?
        };
        if reached != Some(chunk.start_bit) {
            at = reached;
            shared.recycle(chunk);
            continue;
        }
        // The chunk lines up: the 32 KiB after it, from its last symbols resolved with the window.
        let symbols = chunk.marked.decoded();
        let next_window = observed(observer, Task::Window(k), || next_window(&window, symbols, &chunk.bytes));
        let Some(next_window) = next_window else {
            // A reference before the stream's start: a real error, which serial decoding reports.
            at = Some(exact);
            shared.recycle(chunk);
            continue;
        };
        if window.len() < HISTORY && marked::resolve(symbols, &window, &mut vec![0; symbols.len()]).is_none() {
            // Near the stream's start a marker may name a byte before it: the same error.
            at = Some(exact);
            shared.recycle(chunk);
            continue;
        }
        // Markers that never die out (each line of a log copying its prefix from the line before)
        // leave the whole chunk to decode marked and resolve: more work in all than two cores
        // win back. Two such chunks in a row, and the rest is decoded serially.
        let persisted = symbols.len() > chunk.bytes.len();
        persisting = if persisted { persisting + 1 } else { 0 };
        report.total_out += (symbols.len() + chunk.bytes.len()) as u64;
        report.chunks_used += 1;
        at = if chunk.ended {
            report.consumed = chunk.end_bit / 8;
            None
        } else {
            Some(chunk.end_bit)
        };
        let job = ResolveJob { k, chunk, window: std::mem::replace(&mut window, next_window) };
        let mut q = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        q.resolve.push_back(job);
        shared.changed.notify_all();
        drop(q);
        pending.chunks.push_back(k);
    }
    pending.drain(shared, sink, observer)?;
    if let Some(exact) = at {
        observed(observer, Task::Serial(chunks), || {
            serial_after(compressed_len, exact, u64::MAX, &mut window, inflater, source, sink, report)
        })?;
    }
    Ok(())
}

/// Whether a non-final stored block's header at stream bit `a` and one at `b` are the same
/// block: three zero bits at each, and the same byte after their padding (so the same length
/// and bytes follow).
fn stored_twins<E>(source: &Source<'_, E>, a: u64, b: u64) -> bool {
    let (from, to) = (a.min(b), a.max(b));
    if (a + 3).div_ceil(8) != (b + 3).div_ceil(8) {
        return false;
    }
    let mut bytes = [0u8; 2];
    let first = from / 8;
    let Ok(n) = source(first, &mut bytes) else { return false };
    let word = u16::from_le_bytes(bytes);
    // Every bit from `from` to `to + 3` is zero (within the two bytes: `to + 3` <= the padded
    // byte boundary, at most 16 bits past `first`).
    (from..to + 3).all(|bit| {
        let at = bit - first * 8;
        (at as usize) < n * 8 && word >> at & 1 == 0
    })
}

/// The 32 KiB of output after a chunk of marked `symbols` then plain `bytes`, whose window (the
/// output before it) is `window`: only the chunk's last symbols are resolved. `None` if one
/// names a byte before the stream's start.
fn next_window(window: &[u8], symbols: &[u16], bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.len() >= HISTORY {
        return Some(bytes[bytes.len() - HISTORY..].to_vec());
    }
    let from_symbols = (HISTORY - bytes.len()).min(symbols.len());
    let mut tail = vec![0u8; from_symbols];
    marked::resolve(&symbols[symbols.len() - from_symbols..], window, &mut tail)?;
    let from_window = (HISTORY - bytes.len() - from_symbols).min(window.len());
    let mut out = Vec::with_capacity(HISTORY);
    out.extend_from_slice(&window[window.len() - from_window..]);
    out.extend_from_slice(&tail);
    out.extend_from_slice(bytes);
    Some(out)
}

/// [`serial_from`] at `start_bit` of the output so far, whose last 32 KiB are `window`, to the
/// first block boundary at or past `stop_bit`; `window` follows what it writes.
#[allow(clippy::too_many_arguments)]
fn serial_after<E>(
    compressed_len: u64,
    start_bit: u64,
    stop_bit: u64,
    window: &mut Vec<u8>,
    inflater: &mut ChunkedInflater<'_>,
    source: &Source<'_, E>,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    report: &mut ParallelReport,
) -> Result<Option<u64>, SeekError<E>> {
    let before = window.clone();
    let out_at = report.total_out;
    serial_from(
        compressed_len,
        start_bit,
        &before,
        out_at,
        stop_bit,
        inflater,
        source,
        sink_window(sink, window),
        report,
    )
}

/// A sink that also keeps the last 32 KiB written in `window`.
fn sink_window<'s, E>(
    sink: &'s mut dyn FnMut(&[u8]) -> Result<(), E>,
    window: &'s mut Vec<u8>,
) -> impl FnMut(&[u8]) -> Result<(), E> + 's {
    move |bytes: &[u8]| {
        if bytes.len() >= HISTORY {
            window.clear();
            window.extend_from_slice(&bytes[bytes.len() - HISTORY..]);
        } else {
            let drop = (window.len() + bytes.len()).saturating_sub(HISTORY);
            window.drain(..drop);
            window.extend_from_slice(bytes);
        }
        sink(bytes)
    }
}

/// Decodes exactly from block boundary `start_bit` (with `window`, the output before it; `out_at`
/// bytes of output so far) to the first block boundary at or past `stop_bit`, or to the stream's
/// end: returns the boundary, or `None` at the end (then `report.consumed` is set).
#[allow(clippy::too_many_arguments)]
fn serial_from<E>(
    compressed_len: u64,
    start_bit: u64,
    window: &[u8],
    out_at: u64,
    stop_bit: u64,
    inflater: &mut ChunkedInflater<'_>,
    source: &Source<'_, E>,
    mut sink: impl FnMut(&[u8]) -> Result<(), E>,
    report: &mut ParallelReport,
) -> Result<Option<u64>, SeekError<E>> {
    let mut next = if start_bit == 0 {
        inflater.start_fed();
        0
    } else {
        let point = Checkpoint {
            bit_offset: start_bit,
            out_offset: out_at,
            window: window.into(),
            inside: Inside::Nothing,
            stream_crc: None,
        };
        inflater.resume_fed(&point).map_err(SeekError::Stream)?
    };
    inflater.set_stop_at_bit(stop_bit);
    let mut read = |offset: u64, buf: &mut [u8]| source(offset, buf);
    loop {
        feed(inflater, &mut next, compressed_len, &mut read)?;
        match inflater.next_chunk().map_err(SeekError::Stream)? {
            Some(chunk) => {
                report.total_out += chunk.len() as u64;
                report.serial_out += chunk.len() as u64;
                sink(chunk).map_err(SeekError::Source)?;
            }
            None => break,
        }
    }
    if let Some(stopped) = inflater.stopped_at() {
        return Ok(Some(stopped));
    }
    report.consumed = inflater.consumed() as u64;
    if report.consumed != compressed_len {
        return Err(SeekError::Trailing { consumed: report.consumed, compressed_len });
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_chunk_decoded_from_a_block_start_without_its_window_resolves_to_the_bytes() {
        // Log lines, so that markers persist; block starts at every bit position within a byte
        // (taken from serial decoding's checkpoints between blocks).
        let mut data = Vec::new();
        let mut state = 5u64;
        while data.len() < 3 << 20 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            data.extend_from_slice(format!("2026-12-02 {} GET /items/{}\n", state % 89, state % 50_000).as_bytes());
        }
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(&data).unwrap();
        let stream = e.finish().unwrap();
        let mut serial = ChunkedInflater::new(Format::Raw);
        serial.set_checkpoint_span(64 << 10);
        serial.start(&stream);
        while serial.next_chunk().unwrap().is_some() {}
        let starts: Vec<Checkpoint> =
            serial.take_checkpoints().into_iter().filter(|c| matches!(c.inside, Inside::Nothing)).collect();
        assert!(starts.len() > 10 && starts.iter().any(|c| c.bit_offset % 8 != 0));
        let source = |offset: u64, buf: &mut [u8]| -> Result<usize, ()> {
            let rest = stream.get(offset as usize..).unwrap_or(&[]);
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            Ok(n)
        };
        let (mut input, mut inflater) = (Vec::new(), ChunkedInflater::with_chunk_size(Format::Raw, SERIAL_CHUNK));
        let mut marked = Marked::new(1 << 20, 8 << 20);
        let end_bit = stream.len() as u64 * 8;
        let is_final = |bit: u64| stream[(bit / 8) as usize] >> (bit % 8) & 1 == 1;
        // (Not the last block: a block start is looked for among non-final blocks only.)
        for start in starts.iter().filter(|c| c.out_offset > 0 && !is_final(c.bit_offset)) {
            let mut bytes = Vec::new();
            let mut reuse = Reuse { marked: &mut marked, bytes: &mut bytes, inflater: &mut inflater };
            let (len, from) = (stream.len() as u64, start.bit_offset);
            let chunk = speculate(len, from, end_bit, &mut input, &mut reuse, &source, &|| false, &|| {})
                .unwrap_or_else(|| panic!("nothing decoded from bit {from}"));
            assert_eq!(chunk.start_bit, from);
            let symbols = chunk.marked.decoded();
            let mut bytes = vec![0; symbols.len()];
            marked::resolve(symbols, &start.window, &mut bytes).unwrap();
            bytes.extend_from_slice(&chunk.bytes);
            let at = start.out_offset as usize;
            assert!(bytes == data[at..at + bytes.len()], "from bit {from}: bytes differ");
            assert!(chunk.ended && at + bytes.len() == data.len(), "from bit {from}: decoded to the end");
            marked = chunk.marked;
        }
    }
}
