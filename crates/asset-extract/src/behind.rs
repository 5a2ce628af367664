//! Write-behind for large entries: while another worker has nothing left but to write, the worker inflating
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
    /// Workers that may still inflate a large entry (each until it has no entry left to start):
    /// while any is, a worker with nothing left to inflate waits for chunks.
    inflating: usize,
    /// Workers with nothing left to inflate, writing queued chunks or waiting for one.
    helpers: usize,
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

/// See [`WriteBehind::inflating`].
pub(crate) struct Inflating<'a, 'pool>(&'a WriteBehind<'pool>);

impl Drop for Inflating<'_, '_> {
    fn drop(&mut self) {
        self.0.lock().inflating -= 1;
        self.0.changed.notify_all();
    }
}

impl<'pool> WriteBehind<'pool> {
    /// A queue holding at most `capacity` chunks, for `workers` workers. Each counts as inflating
    /// from the start (so that none leaves before another has even started its first entry) until
    /// its [`inflating`](Self::inflating) guard is dropped.
    pub(crate) fn new(capacity: usize, workers: usize) -> WriteBehind<'pool> {
        WriteBehind {
            state: Mutex::new(State { chunks: VecDeque::new(), inflating: workers, helpers: 0 }),
            changed: Condvar::new(),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<'pool>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A guard for one of the `workers` counted as inflating: dropped once the worker has no
    /// entry left to inflate (it finished, the extraction stopped, or it panicked).
    pub(crate) fn inflating(&self) -> Inflating<'_, 'pool> {
        Inflating(self)
    }

    /// Whether a worker has nothing left but to write chunks: only then is handing one over (a
    /// copy into a pooled buffer, written from another core) worth more than writing it at once.
    /// A helper busy writing the previous chunk counts: writing this one here meanwhile would
    /// take the core from inflating, and the two `pwrite`s would contend for the file's lock.
    pub(crate) fn has_writer(&self) -> bool {
        self.lock().helpers > 0
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

    /// Writes queued chunks until none is queued and no worker is inflating; `keep_going` is asked
    /// before each wait so a failed extraction stops helping. Called once the worker's
    /// [`inflating`](Self::inflating) guard is dropped.
    pub(crate) fn help_until_done(&self, keep_going: impl Fn() -> bool) -> Result<(), Error> {
        let mut state = self.lock();
        state.helpers += 1;
        let result = loop {
            if let Some(chunk) = state.chunks.pop_front() {
                drop(state);
                let written = chunk.write();
                state = self.lock();
                if written.is_err() {
                    break written;
                }
            } else if state.inflating == 0 || !keep_going() {
                break Ok(());
            } else {
                state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
            }
        };
        state.helpers -= 1;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use buffer_pool::{BufferPool, PoolConfig};

    #[test]
    fn a_helper_that_starts_before_the_only_large_entry_waits_for_its_chunks() {
        // One large entry, two workers: the second finds no entry to start and helps before the
        // first has even opened its file. It must stay, or the chunks would be left unwritten.
        let dir = std::env::temp_dir().join(format!("bufkit-behind-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("large");
        let pool = BufferPool::new(PoolConfig::default()).unwrap();
        let behind = WriteBehind::new(8, 2);
        std::thread::scope(|s| {
            s.spawn(|| {
                drop(behind.inflating());
                behind.help_until_done(|| true).unwrap();
            });
            s.spawn(|| {
                let inflating = behind.inflating();
                std::thread::sleep(std::time::Duration::from_millis(50));
                assert!(behind.has_writer(), "the helper left before the large entry started");
                let target = Arc::new(Target { file: File::create(&path).unwrap(), path: path.clone() });
                for i in 0..4u8 {
                    let mut data = pool.acquire(1000).unwrap();
                    data[..1000].fill(b'a' + i);
                    let chunk = Chunk { target: Arc::clone(&target), offset: u64::from(i) * 1000, data, len: 1000 };
                    behind.push(chunk).unwrap();
                }
                drop(inflating);
                behind.help_until_done(|| true).unwrap();
            });
        });
        let written = std::fs::read(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(written.len(), 4000);
        assert!(written.chunks(1000).zip(b'a'..).all(|(c, b)| c.iter().all(|&x| x == b)));
    }
}
