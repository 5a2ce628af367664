//! Write-behind for large entries: while another worker is waiting for work, the worker inflating
//! a large entry queues each inflated chunk with its offset, and the idle worker writes it
//! (`pwrite` at that offset), so one large entry keeps two cores busy, one inflating and one
//! writing; when nobody waits, the producer writes its chunks itself, without the copy. The queue
//! is bounded: a producer that finds it full writes a chunk itself before inflating the next, so
//! memory stays at a few chunks whatever the entry's size.

#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use buffer_pool::Lease;

use crate::Error;

/// A file being written by chunks, and its path for messages.
pub(crate) struct Target {
    pub(crate) file: File,
    pub(crate) path: PathBuf,
}

/// Inflated bytes waiting to be written at `offset` of `target`.
pub(crate) struct Chunk<'pool> {
    pub(crate) target: Arc<Target>,
    pub(crate) offset: u64,
    pub(crate) data: Lease<'pool>,
    pub(crate) len: usize,
}

struct State<'pool> {
    chunks: VecDeque<Chunk<'pool>>,
    /// Large entries still being inflated: while any is, idle workers wait for chunks.
    producers: usize,
    /// Workers waiting for a chunk to write.
    waiting: usize,
}

/// The queue of chunks, shared by the workers of one extraction.
pub(crate) struct WriteBehind<'pool> {
    state: Mutex<State<'pool>>,
    changed: Condvar,
    capacity: usize,
}

impl Chunk<'_> {
    fn write(self) -> Result<(), Error> {
        self.target
            .file
            .write_all_at(&self.data[..self.len], self.offset)
            .map_err(|e| Error::io("writing", &self.target.path, e))
    }
}

/// Marks one producer as finished when dropped, whether it finished or failed.
pub(crate) struct Producing<'a, 'pool>(&'a WriteBehind<'pool>);

impl Drop for Producing<'_, '_> {
    fn drop(&mut self) {
        self.0.lock().producers -= 1;
        self.0.changed.notify_all();
    }
}

impl<'pool> WriteBehind<'pool> {
    /// A queue holding at most `capacity` chunks.
    pub(crate) fn new(capacity: usize) -> WriteBehind<'pool> {
        WriteBehind {
            state: Mutex::new(State { chunks: VecDeque::new(), producers: 0, waiting: 0 }),
            changed: Condvar::new(),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<'pool>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a producer until the guard is dropped.
    pub(crate) fn producing(&self) -> Producing<'_, 'pool> {
        self.lock().producers += 1;
        Producing(self)
    }

    /// Whether a worker is waiting for chunks: only then is handing one over (a copy into a pooled
    /// buffer, written from another core) worth more than writing it at once.
    pub(crate) fn has_idle_writer(&self) -> bool {
        self.lock().waiting > 0
    }

    /// Queues `chunk`; if the queue is full, writes the oldest chunk here first.
    pub(crate) fn push(&self, chunk: Chunk<'pool>) -> Result<(), Error> {
        let mut state = self.lock();
        let oldest = if state.chunks.len() >= self.capacity { state.chunks.pop_front() } else { None };
        state.chunks.push_back(chunk);
        drop(state);
        self.changed.notify_one();
        oldest.map_or(Ok(()), Chunk::write)
    }

    /// Writes one queued chunk, if there is one.
    pub(crate) fn write_one(&self) -> Option<Result<(), Error>> {
        let chunk = self.lock().chunks.pop_front()?;
        Some(chunk.write())
    }

    /// Writes queued chunks until none is queued and no producer is left; `keep_going` is asked
    /// before each wait so a failed extraction stops helping.
    pub(crate) fn help_until_done(&self, keep_going: impl Fn() -> bool) -> Result<(), Error> {
        let mut state = self.lock();
        loop {
            if let Some(chunk) = state.chunks.pop_front() {
                drop(state);
                chunk.write()?;
                state = self.lock();
            } else if state.producers == 0 || !keep_going() {
                return Ok(());
            } else {
                state.waiting += 1;
                state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                state.waiting -= 1;
            }
        }
    }
}
