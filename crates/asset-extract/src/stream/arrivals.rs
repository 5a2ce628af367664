//! Entries staged as they arrive. While a stream is spooled, its local headers are followed and
//! the entries they describe are inflated by worker threads, each straight into its file in the
//! extraction's staging directory, so that extraction does not wait for the stream's end. A small
//! entry is held and inflated once it has arrived; a large one is inflated while it arrives, read
//! from the spool's file as far as the stream has come.
//!
//! Nothing here decides what is extracted. Once the stream has ended, the spool is read on the
//! one reading path (end records, central directory, every local header checked against it), and
//! a file staged ahead is kept only where the archive has a selected file entry of that name
//! whose local header is the one the file was staged from, with the same method, compressed size,
//! size and CRC-32: its bytes are then the inflation of exactly the bytes the entry's data is, all
//! consumed, which is what inflating them again would write. Every other file staged ahead is
//! removed (and the directories made only for them) before the rest is written from the spool,
//! as from a file. After a point where the headers cannot be followed (data before the first
//! header, a data descriptor not found within 4 MiB, a ZIP64 size without its field), every entry
//! comes from the spool. Following is a guess that saves time when right and costs nothing in
//! correctness when wrong.
//!
//! Here: the workers, and what they write into the staging directory. `follower.rs` reads the
//! local headers as they arrive; `prestaged.rs` holds what was staged against the archive.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use strided_inflate::Decoder;

use super::follower::{Data, Follower, Job, Wanted};
use super::prestaged::{AHEAD_MODE, HashMap, HashSet, Prestaged, Staged};
use crate::entry::checks::Trailing;
use crate::entry::decode::{Ask, Output, WholeTools, decoding};
use crate::entry::source::Input;
use crate::extract::staging::{self, Staging};
use crate::extract::write::{CHUNK, WHOLE_ENTRY_MAX};
use crate::read::entry::{Entry, Method, Mtime};
use crate::read::names::Kind;
use crate::sys::{self, Dir};

/// Compressed bytes queued for the workers at most: beyond, the stream outruns them.
const QUEUE_BYTES: usize = 8 << 20;

/// Entries that arrive this soon after the stream starts are not staged ahead: a stream that ends
/// by then is extracted from its spool as quickly, without the workers' start and bookkeeping.
const STAGE_AFTER: std::time::Duration = std::time::Duration::from_millis(10);

/// Bytes a second above which a stream is not staged as it arrives (see [`Arrivals::feed`]): a
/// local archive through a pipe comes at 0.7 GB/s and more, even on 2 cores.
const FAST_STREAM: f64 = 4e8;

/// Bytes inflated ahead at most, beyond the first 64 MiB, per byte received: a stream of small
/// bombs is not inflated ahead without bound before its limits are checked.
const AHEAD_RATIO: u64 = 32;
const AHEAD_FREE: u64 = 64 << 20;

/// Jobs handed to the workers at once: fewer wake-ups than one entry at a time.
const BATCH_BYTES: usize = 256 << 10;
const BATCH_JOBS: usize = 64;

/// The entries of a stream staged as it arrives: [`feed`](Self::feed) each piece, then
/// [`finish`](Self::finish) once it has ended.
pub(crate) struct Arrivals {
    follower: Follower,
    /// Where the extraction goes: its staging directory is made beside it.
    dest: std::path::PathBuf,
    /// The workers and what they share, once started (when the first entry is worth staging).
    shared: Option<Arc<Shared>>,
    started: bool,
    workers: Vec<JoinHandle<()>>,
    /// The spool's file, once there is one.
    spool: Option<File>,
    /// The staging directory (taken by [`finish`](Self::finish)).
    staging: Option<Staging>,
    received: u64,
    /// Jobs not handed over yet, and their bytes.
    batch: Vec<Job>,
    batch_bytes: usize,
    /// When the stream's first piece came, and how long after it entries start to be staged.
    first: Option<std::time::Instant>,
    stage_after: std::time::Duration,
    /// Whether [`finish`](Self::finish) lets the workers stage everything queued first.
    settle_first: bool,
    /// Whether the stream's pace has been judged, and found slow enough to stage.
    decided: bool,
    wanted_now: bool,
}

/// What the stream's thread and the workers share.
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued or the queue closes.
    ready: Condvar,
    /// The files staged, by path, and the directories made for them.
    staged: Mutex<(HashMap<String, Staged>, HashSet<String>)>,
    /// Set when staging ahead stops: a file could not be written.
    stopped: AtomicBool,
    /// Set when the stream has ended: the workers stop.
    ending: AtomicBool,
    /// The staging directory, open.
    root: Dir,
    /// The spool's file, once the stream is spooled to one: large entries are read from it.
    spool: std::sync::OnceLock<File>,
    /// How much of the stream is in the spool's file, and whether that is all of it.
    arrived: Mutex<Arrived>,
    /// Signalled when more of the stream is in the spool's file, or no more will come.
    grown: Condvar,
    /// Set when the stream is abandoned (an error, a cancellation): entries being inflated as
    /// they arrive stop too, where the stream's end lets them finish.
    aborted: AtomicBool,
}

/// How much of the stream is in the spool's file.
#[derive(Default)]
struct Arrived {
    in_file: u64,
    /// No more will come: the stream has ended, or was abandoned.
    ended: bool,
}

#[derive(Default)]
struct Queue {
    batches: std::collections::VecDeque<(Vec<Job>, usize)>,
    bytes: usize,
    closed: bool,
    /// Workers waiting for a batch.
    idle: usize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Arrivals {
    /// Prepares to stage ahead for an extraction into `dest`. Nothing is made, and no thread
    /// started, until an entry is worth staging: a stream that has all arrived by then is
    /// extracted from its spool alone.
    pub(crate) fn beside(dest: &Path, wanted: Wanted) -> Arrivals {
        Arrivals {
            follower: Follower::new(wanted),
            dest: dest.to_path_buf(),
            shared: None,
            started: false,
            workers: Vec::new(),
            spool: None,
            staging: None,
            received: 0,
            batch: Vec::new(),
            batch_bytes: 0,
            first: None,
            stage_after: STAGE_AFTER,
            settle_first: false,
            decided: false,
            wanted_now: false,
        }
    }

    /// Whether the stream's bytes are still followed: until its pace is judged, and after if it
    /// is slow enough to stage.
    pub(crate) fn follows(&self) -> bool {
        !self.decided || self.wanted_now
    }

    /// Makes the staging directory beside the destination and starts one worker per core, once:
    /// whether they run. Where no directory can be made there (the destination's parent does not
    /// exist yet), nothing is staged ahead.
    fn start(&mut self) -> bool {
        if self.started {
            return self.shared.is_some();
        }
        self.started = true;
        staging::sweep_beside(&self.dest);
        let Ok(staging) = Staging::beside(&self.dest) else { return false };
        let Ok(root) = Dir::open(staging.path()) else { return false };
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
            staged: Mutex::new((HashMap::default(), HashSet::default())),
            stopped: AtomicBool::new(false),
            ending: AtomicBool::new(false),
            root,
            spool: std::sync::OnceLock::new(),
            arrived: Mutex::new(Arrived::default()),
            grown: Condvar::new(),
            aborted: AtomicBool::new(false),
        });
        if let Some(file) = self.spool.as_ref().and_then(|f| f.try_clone().ok()) {
            let _ = shared.spool.set(file);
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for _ in 0..cores {
            let shared = Arc::clone(&shared);
            match std::thread::Builder::new().name("bufkit-arrivals".into()).spawn(move || work(&shared)) {
                Ok(handle) => self.workers.push(handle),
                Err(_) => break,
            }
        }
        if self.workers.is_empty() {
            return false;
        }
        self.shared = Some(shared);
        self.staging = Some(staging);
        true
    }

    /// Follows `piece`, the stream's next bytes, queueing each complete entry worth staging.
    /// Never waits: entries the workers have no room for are left to the extraction, and so are
    /// those of the stream's first [`STAGE_AFTER`] and those that come while the stream has
    /// came faster than [`FAST_STREAM`] (a local file through a pipe, which is as quickly
    /// extracted from its spool once it ends).
    pub(crate) fn feed(&mut self, piece: &[u8]) {
        self.received += piece.len() as u64;
        let elapsed = self.first.get_or_insert_with(std::time::Instant::now).elapsed();
        // Whether to stage is decided once, from how fast the stream came in its first
        // [`STAGE_AFTER`]: a local file through a pipe comes faster than [`FAST_STREAM`] and is
        // extracted as quickly from its spool once it ends; a download is slower, and staging
        // hides its extraction behind it. (Later rates would measure the staging as much as the
        // stream: both share the cores.)
        if elapsed >= self.stage_after && !self.decided {
            self.decided = true;
            let fast = self.received as f64 > FAST_STREAM * elapsed.as_secs_f64();
            self.wanted_now = !fast || self.settle_first;
            if !self.wanted_now {
                self.follower.stop();
            }
        }
        let running = self.wanted_now && self.start();
        // Entries that start while the workers have no room are not even held.
        self.follower.accepting = self.shared.as_ref().is_some_and(|shared| {
            running && !shared.stopped.load(Ordering::Relaxed) && lock(&shared.queue).bytes < QUEUE_BYTES
        });
        // Everything received is in the spool's file once there is one: entries inflated as they
        // arrive may read it.
        if let Some(shared) = self.shared.as_ref().filter(|_| self.follower.spooled) {
            lock(&shared.arrived).in_file = self.received;
            shared.grown.notify_all();
        }
        let ahead = AHEAD_FREE.saturating_add(self.received.saturating_mul(AHEAD_RATIO));
        let (shared, batch, batch_bytes) = (&self.shared, &mut self.batch, &mut self.batch_bytes);
        self.follower.feed(piece, ahead, &mut |job| {
            let Some(shared) = shared else { return };
            if matches!(job.data, Data::Arriving) {
                // Alone, and not counted as queued: it keeps its worker until its entry has
                // arrived, and goes at the stream's pace.
                hand_over(shared, std::mem::take(batch), std::mem::take(batch_bytes));
                hand_over(shared, vec![job], 0);
                return;
            }
            *batch_bytes += job.compressed_size as usize;
            batch.push(job);
            if *batch_bytes >= BATCH_BYTES || batch.len() >= BATCH_JOBS {
                hand_over(shared, std::mem::take(batch), std::mem::take(batch_bytes));
            }
        });
        // What this piece completed goes now: the next piece may be long in coming.
        if let Some(shared) = &self.shared
            && !self.batch.is_empty()
        {
            hand_over(shared, std::mem::take(&mut self.batch), std::mem::take(&mut self.batch_bytes));
        }
    }

    /// The stream is now spooled to `file` (holding it all from its start): large entries are
    /// read back from it to be staged, not held.
    pub(crate) fn spooled_to(&mut self, file: &File) {
        let (Ok(mine), Ok(theirs)) = (file.try_clone(), file.try_clone()) else { return };
        if let Some(shared) = &self.shared {
            let _ = shared.spool.set(theirs);
        }
        self.spool = Some(mine);
        self.follower.spooled = true;
    }

    /// Waits for the workers to stage what was queued: the staging directory and what is in it,
    /// for the extraction to keep what the archive describes and remove the rest.
    pub(crate) fn finish(mut self) -> Option<Prestaged> {
        // All of the stream is in: entries being inflated as they arrived finish (they have what
        // remains of them), where the queued ones are dropped by `close`.
        self.end_of_stream(false);
        if self.settle_first {
            self.settle();
        }
        self.close();
        let shared = self.shared.take()?;
        let (files, dirs) = std::mem::take(&mut *lock(&shared.staged));
        let staging = self.staging.take()?;
        let root = shared.root.try_clone().ok();
        let umask = sys::umask_in(staging.path());
        Some(Prestaged { files, dirs, root, umask, staging: Some(staging), claimed: HashMap::default() })
    }

    /// Stages every entry it can, from the stream's start, and lets the workers finish all of it
    /// before the extraction: for the tests and fuzz harnesses that check this path against a
    /// file's (an extraction stages only what a slow stream leaves time for).
    pub(crate) fn stage_everything(&mut self) {
        self.stage_after = std::time::Duration::ZERO;
        self.settle_first = true;
    }

    /// Waits until the workers have staged everything queued.
    fn settle(&self) {
        let Some(shared) = &self.shared else { return };
        loop {
            let queue = lock(&shared.queue);
            let stopped = shared.stopped.load(Ordering::Relaxed);
            if stopped || (queue.batches.is_empty() && queue.idle == self.workers.len()) {
                return;
            }
            drop(queue);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Tells the workers reading entries as they arrive that no more will come, and with
    /// `abandoned` that they are to stop.
    fn end_of_stream(&self, abandoned: bool) {
        let Some(shared) = &self.shared else { return };
        if abandoned {
            shared.aborted.store(true, Ordering::Relaxed);
        }
        lock(&shared.arrived).ended = true;
        shared.grown.notify_all();
    }

    /// Stops the workers: what is queued is left to the extraction, which starts at once and
    /// spreads it over its own workers. An entry inflated as it arrived is finished (all of it has
    /// arrived), unless the stream was abandoned.
    fn close(&mut self) {
        let Some(shared) = &self.shared else { return };
        {
            let mut queue = lock(&shared.queue);
            queue.batches.clear();
            queue.bytes = 0;
            queue.closed = true;
        }
        shared.ending.store(true, Ordering::Relaxed);
        shared.ready.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// Queues `batch` (of `bytes` compressed bytes) for the workers, unless they are more than
/// [`QUEUE_BYTES`] behind: the stream then arrives faster than they inflate, and its entries are
/// left to the extraction, which reads them from the spool at its own pace, the stream never
/// waiting for the workers.
fn hand_over(shared: &Shared, batch: Vec<Job>, bytes: usize) {
    if batch.is_empty() {
        return;
    }
    let mut queue = lock(&shared.queue);
    if queue.bytes > 0 && queue.bytes + bytes > QUEUE_BYTES {
        return;
    }
    queue.bytes += bytes;
    queue.batches.push_back((batch, bytes));
    if queue.idle > 0 {
        shared.ready.notify_one();
    }
}

impl Drop for Arrivals {
    fn drop(&mut self) {
        // Abandoned (an error, a cancellation): the workers end, and the staging directory is
        // removed.
        self.end_of_stream(true);
        self.close();
    }
}

/// A worker: inflates queued entries into their files until the queue closes and empties.
fn work(shared: &Shared) {
    let mut decoder = None;
    let mut scratch = Vec::new();
    let mut out = Vec::new();
    loop {
        let batch = {
            let mut queue = lock(&shared.queue);
            loop {
                if let Some((batch, bytes)) = queue.batches.pop_front() {
                    queue.bytes -= bytes;
                    break batch;
                }
                if queue.closed {
                    return;
                }
                queue.idle += 1;
                queue = shared.ready.wait(queue).unwrap_or_else(|p| p.into_inner());
                queue.idle -= 1;
            }
        };
        for job in batch {
            if shared.stopped.load(Ordering::Relaxed) || shared.ending.load(Ordering::Relaxed) {
                break;
            }
            // A fault here must not stop the extraction, which reads everything from the spool
            // anyway: staging ahead just stops.
            let staged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                stage(shared, job, &mut decoder, &mut scratch, &mut out);
            }));
            if staged.is_err() {
                shared.stopped.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// Inflates `job`'s entry into its file, if all its data is consumed and it has the size and
/// CRC-32 its headers declared: anything else is left to the extraction to find, from the spool.
fn stage(shared: &Shared, job: Job, decoder: &mut Option<Decoder>, scratch: &mut Vec<u8>, out: &mut Vec<u8>) {
    let entry = Entry {
        path: job.path,
        kind: Kind::File,
        mode: AHEAD_MODE,
        method: job.method,
        crc32: job.crc32,
        compressed_size: job.compressed_size,
        size: job.size,
        data_offset: job.data_at,
        mtime: Mtime::Dos(0),
    };
    let arriving = shared.spool.get().map(|file| ArrivingRead { file, shared });
    let input = match (&job.data, &arriving) {
        (Data::Held(bytes), _) => Input::Slice(bytes),
        (Data::Arriving, Some(arriving)) => Input::of(arriving, job.data_at, &entry),
        (Data::Arriving, None) => return,
    };
    // An entry read as it arrives stops only if the stream is abandoned: at its end, all of it
    // is there. A held one stops when the stream ends (the extraction takes it over).
    let stop = if matches!(job.data, Data::Arriving) { &shared.aborted } else { &shared.ending };
    let whole = entry.size <= WHOLE_ENTRY_MAX && matches!(job.data, Data::Held(_));
    if whole {
        out.clear();
        out.reserve(job.size as usize);
        let room = &mut out.spare_capacity_mut()[..job.size as usize];
        let ask = Ask::new(Output::Whole).trailing(Trailing::Refuse);
        let tools = WholeTools { decoder, scratch };
        if decoding(input, &entry, ask).and_then(|d| d.into_buffer(room, tools, true)).is_err() {
            return;
        }
        // SAFETY: into_buffer succeeded, so it initialised all `size` bytes of the spare capacity.
        unsafe { out.set_len(job.size as usize) };
    }
    let root = &shared.root;
    let written = make_parents(shared, &entry.path).and_then(|()| {
        let mut file = root.create_file(&entry.path, AHEAD_MODE)?;
        let written =
            if whole { file.write_all(out).map(|()| true) } else { stream_into(&entry, input, &mut file, out, stop) };
        let written = written.and_then(|verified| {
            if let (true, Some(time)) = (verified, job.mtime.and_then(crate::sys::unix_system_time)) {
                file.set_times(std::fs::FileTimes::new().set_modified(time))?;
            }
            Ok(verified)
        });
        if !matches!(written, Ok(true)) {
            let _ = root.remove_file(&entry.path);
        }
        written
    });
    match written {
        Ok(true) => {
            let staged = Staged {
                header_at: job.header_at,
                data_at: job.data_at,
                method: job.method,
                compressed_size: job.compressed_size,
                size: job.size,
                crc32: job.crc32,
                mtime: job.mtime,
            };
            lock(&shared.staged).0.insert(entry.path, staged);
        }
        // Data that does not verify, or a name taken (twice, or twice but for case where the file
        // system folds it): left to the extraction.
        Ok(false) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        // Anything else (a full file system, most likely) stops staging: the extraction will say
        // what it is, from the spool.
        Err(_) => shared.stopped.store(true, Ordering::Relaxed),
    }
}

/// The spool's file read where the stream has reached: a read waits until the bytes it asks for
/// have arrived, and comes back short (then empty) if the stream ends or is abandoned first.
struct ArrivingRead<'f> {
    file: &'f File,
    shared: &'f Shared,
}

impl crate::Source for ArrivingRead<'_> {
    /// Not known while the stream arrives: every read waits for its bytes instead.
    fn len(&self) -> u64 {
        u64::MAX
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let wanted = offset.saturating_add(buf.len() as u64);
        let mut arrived = lock(&self.shared.arrived);
        while arrived.in_file < wanted && !arrived.ended {
            arrived = self.shared.grown.wait(arrived).unwrap_or_else(|p| p.into_inner());
        }
        let in_file = arrived.in_file;
        drop(arrived);
        if self.shared.aborted.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("the stream was abandoned"));
        }
        let room = usize::try_from(in_file.saturating_sub(offset)).unwrap_or(usize::MAX).min(buf.len());
        sys::read_at(self.file, &mut buf[..room], offset)
    }
}

/// Inflates a large entry from `input` into `file` in pieces (`piece` as buffer for methods
/// other than deflate, which is written from its decoder's chunks): true if it verified (size,
/// CRC-32, every byte consumed), false if not or if `ending` stopped it.
fn stream_into(
    entry: &Entry,
    input: Input<'_>,
    file: &mut File,
    piece: &mut Vec<u8>,
    ending: &AtomicBool,
) -> std::io::Result<bool> {
    let mut inflater = None;
    let ask = Ask::new(Output::Stream).trailing(Trailing::Refuse).inflater(&mut inflater, CHUNK);
    let Ok(mut decoder) = crate::entry::decode::stream(input, entry, ask) else { return Ok(false) };
    if entry.method == Method::Deflate {
        loop {
            if ending.load(Ordering::Relaxed) {
                return Ok(false);
            }
            match decoder.next_chunk() {
                Ok(None) => return Ok(true),
                Ok(Some(_)) => file.write_all(decoder.inflater().expect("a deflated entry").last_chunk())?,
                Err(_) => return Ok(false),
            }
        }
    }
    piece.resize(1 << 20, 0);
    loop {
        if ending.load(Ordering::Relaxed) {
            return Ok(false);
        }
        match decoder.read(piece) {
            Ok(0) => return Ok(true),
            Ok(n) => file.write_all(&piece[..n])?,
            Err(_) => return Ok(false),
        }
    }
}

/// Makes the directories above `path` in the staging directory that are not there yet, each
/// recorded as made ahead.
fn make_parents(shared: &Shared, path: &str) -> std::io::Result<()> {
    let Some((parent, _)) = path.rsplit_once('/') else { return Ok(()) };
    if lock(&shared.staged).1.contains(parent) {
        return Ok(());
    }
    let mut at = 0;
    while at <= parent.len() {
        let end = parent[at..].find('/').map_or(parent.len(), |k| at + k);
        let dir = &parent[..end];
        if !lock(&shared.staged).1.contains(dir) {
            match shared.root.make_dir(dir) {
                Ok(()) => {}
                // Another worker's, or one that exists as something else, which the next step
                // finds.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
            lock(&shared.staged).1.insert(dir.to_owned());
        }
        at = end + 1;
    }
    Ok(())
}
