//! Write-behind for large entries: while another worker has nothing left but to write, the worker
//! inflating a large entry queues each inflated chunk with its offset, and that worker writes it
//! (`pwrite` at that offset), so one large entry keeps two cores busy, one inflating and one
//! writing. A chunk is handed over in the decoder's own window, swapped for a written one (only
//! the 32 KiB of history is copied); when nobody writes behind, the producer writes its chunks
//! itself. The queue is bounded: a producer that finds it full writes a chunk itself before
//! inflating the next, so memory stays at a few chunks whatever the entry's size.

#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::fs::File;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::Error;

/// A file being written by chunks, and its path for messages.
pub(crate) struct Target {
    pub(crate) file: File,
    pub(crate) path: PathBuf,
}

/// Inflated bytes waiting to be written at `offset` of `target`: `window[range]`, in the decoder's
/// own window, handed over whole ([`strided_inflate::ChunkedInflater::swap_window`]). Once
/// written, the window goes back to [`WriteBehind::spare_window`] for the next chunk.
pub(crate) struct Chunk {
    pub(crate) target: Arc<Target>,
    pub(crate) offset: u64,
    pub(crate) window: Box<[u8]>,
    pub(crate) range: std::ops::Range<usize>,
}

struct State {
    chunks: VecDeque<Chunk>,
    /// Decoder windows written and free for the next hand-over (fresh ones cost page faults).
    spare_windows: Vec<Box<[u8]>>,
    /// Workers that may still inflate a large entry (each until it has no entry left to start):
    /// while any is, a worker with nothing left to inflate waits for chunks.
    inflating: usize,
    /// Workers with nothing left to inflate, writing queued chunks or waiting for one.
    helpers: usize,
}

/// The queue of chunks, shared by the workers of one extraction.
pub(crate) struct WriteBehind {
    state: Mutex<State>,
    changed: Condvar,
    capacity: usize,
}

impl Chunk {
    /// Writes the chunk; gives back the window that held it.
    fn write(self) -> Result<Box<[u8]>, Error> {
        let bytes = &self.window[self.range.clone()];
        crate::sys::write_all_at(&self.target.file, bytes, self.offset)
            .map_err(|e| Error::io("writing", &self.target.path, e))?;
        Ok(self.window)
    }
}

/// See [`WriteBehind::inflating`].
pub(crate) struct Inflating<'a>(&'a WriteBehind);

impl Drop for Inflating<'_> {
    fn drop(&mut self) {
        self.0.lock().inflating -= 1;
        self.0.changed.notify_all();
    }
}

impl WriteBehind {
    /// A queue holding at most `capacity` chunks, for `workers` workers. Each counts as inflating
    /// from the start (so that none leaves before another has even started its first entry) until
    /// its [`inflating`](Self::inflating) guard is dropped.
    pub(crate) fn new(capacity: usize, workers: usize) -> WriteBehind {
        WriteBehind {
            state: Mutex::new(State {
                chunks: VecDeque::new(),
                spare_windows: Vec::new(),
                inflating: workers,
                helpers: 0,
            }),
            changed: Condvar::new(),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A guard for one of the `workers` counted as inflating: dropped once the worker has no
    /// entry left to inflate (it finished, the extraction stopped, or it panicked).
    pub(crate) fn inflating(&self) -> Inflating<'_> {
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
    pub(crate) fn push(&self, chunk: Chunk) -> Result<(), Error> {
        let mut state = self.lock();
        let oldest = if state.chunks.len() >= self.capacity { state.chunks.pop_front() } else { None };
        state.chunks.push_back(chunk);
        drop(state);
        self.changed.notify_one();
        oldest.map_or(Ok(()), |chunk| self.write(chunk))
    }

    /// Writes `chunk`, keeping the window that held it for the next hand-over.
    fn write(&self, chunk: Chunk) -> Result<(), Error> {
        let window = chunk.write()?;
        let mut state = self.lock();
        // As many as can be in flight: the queue's and one being filled.
        if state.spare_windows.len() <= self.capacity {
            state.spare_windows.push(window);
        }
        Ok(())
    }

    /// A written decoder window of `len` bytes to decode the next chunk into, if one is free.
    pub(crate) fn spare_window(&self, len: usize) -> Option<Box<[u8]>> {
        let mut state = self.lock();
        let i = state.spare_windows.iter().position(|w| w.len() == len)?;
        Some(state.spare_windows.swap_remove(i))
    }

    /// Writes one queued chunk, if there is one.
    pub(crate) fn write_one(&self) -> Option<Result<(), Error>> {
        let chunk = self.lock().chunks.pop_front()?;
        Some(self.write(chunk))
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
                let written = self.write(chunk);
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

    #[test]
    fn a_helper_that_starts_before_the_only_large_entry_waits_for_its_chunks() {
        // One large entry, two workers: the second finds no entry to start and helps before the
        // first has even opened its file. It must stay, or the chunks would be left unwritten.
        let dir = tempfile::Builder::new().prefix("bufkit-behind-").tempdir().unwrap();
        let path = dir.path().join("large");
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
                    let window = vec![b'a' + i; 1100].into_boxed_slice();
                    let chunk =
                        Chunk { target: Arc::clone(&target), offset: u64::from(i) * 1000, window, range: 50..1050 };
                    behind.push(chunk).unwrap();
                }
                drop(inflating);
                behind.help_until_done(|| true).unwrap();
            });
        });
        let written = std::fs::read(&path).unwrap();
        assert_eq!(written.len(), 4000);
        assert!(written.chunks(1000).zip(b'a'..).all(|(c, b)| c.iter().all(|&x| x == b)));
    }
}
