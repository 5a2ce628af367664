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

/// Maps keyed by names and offsets of our own parsing: a fast hasher.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use strided_inflate::{ChunkedInflater, Decoder, Format};

use crate::Error;
use crate::entry::data::{EntryDecoder, Input, Trailing, read_whole};
use crate::entry::opened::Opened;
use crate::extract::destination::Mode;
use crate::extract::options::{Options, matches};
use crate::extract::staging::{self, Staging};
use crate::extract::write::{CHUNK, WHOLE_ENTRY_MAX};
use crate::read::archive::{Entry, LocalRef, Method, Mtime};
use crate::read::bytes::{CENTRAL_SIG, DESCRIPTOR_SIG, LOCAL_SIG, Shown};
use crate::read::local::LocalFixed;
use crate::read::names::Kind;
use crate::sys::{self, Dir};

/// Entries are held whole for a worker up to this compressed size: a larger one is inflated as
/// it arrives, read from the spool's file (once the stream is spooled to one).
const STAGE_MAX: u64 = 4 << 20;

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

/// The mode files are created with ahead (before the central directory gives theirs): what most
/// are, so that only executables are changed afterwards.
const AHEAD_MODE: u32 = 0o644;

/// Bytes of an entry's data kept, while its descriptor is looked for, when the data is not: a
/// descriptor and the next signature fit.
const DESCRIPTOR_TAIL: usize = 32;

/// What the caller asked for, as far as it decides what is worth staging ahead.
#[derive(Default, Clone)]
pub(crate) struct Wanted {
    only: Vec<String>,
    quota: Option<u64>,
    max_ratio: Option<f64>,
    /// Leave files with the time they are written (else each gets the one its header records).
    no_mtime: bool,
    /// When a large deflated entry is inflated on several cores: such an entry is left to the
    /// extraction, which does that.
    parallel: crate::ParallelInflate,
}

impl Wanted {
    /// What `options` select, or `None` where nothing can be staged ahead: a merge (which stages
    /// inside the destination) and an incremental extraction (which keeps files of the last).
    pub(crate) fn of(options: &Options<'_>) -> Option<Wanted> {
        (options.mode != Mode::Merge && !options.incremental).then(|| Wanted {
            only: options.only.clone(),
            quota: options.quota,
            max_ratio: options.max_ratio,
            no_mtime: options.no_mtime,
            parallel: options.parallel_inflate,
        })
    }

    fn selects(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|p| matches(p, name))
    }
}

/// An entry's data to inflate ahead: where its header and data start in the stream, what its
/// local header names and declares, and its compressed bytes.
struct Job {
    header_at: u64,
    data_at: u64,
    path: String,
    method: Method,
    crc32: u32,
    size: u64,
    /// The time to give the file (the one its local header records), unless none.
    mtime: Option<(i64, u32)>,
    compressed_size: u64,
    data: Data,
}

/// Where a job's compressed bytes are.
enum Data {
    /// Held for it (a small entry, queued once it has arrived).
    Held(Vec<u8>),
    /// In the spool's file as the stream brings them (a large entry, queued as it begins): read
    /// as they arrive, so that it is inflated while it is downloaded, not after.
    Arriving,
}

/// A file staged ahead, and what it was inflated from.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Staged {
    header_at: u64,
    data_at: u64,
    method: Method,
    compressed_size: u64,
    size: u64,
    crc32: u32,
    /// The time it was given, if one.
    mtime: Option<(i64, u32)>,
}

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
                self.follower.state = State::Done; // nothing more to follow
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
    let Ok(mut decoder) = Decoder::new(Format::Raw) else { return };
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
fn stage(shared: &Shared, job: Job, decoder: &mut Decoder, scratch: &mut Vec<u8>, out: &mut Vec<u8>) {
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
        if read_whole(input, &entry, decoder, scratch, room, true, Trailing::Refuse).is_err() {
            return;
        }
        // SAFETY: read_whole succeeded, so it initialised all `size` bytes of the spare capacity.
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
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, CHUNK);
    let lent = (entry.method == Method::Deflate).then_some(&mut inflater);
    let Ok(decoder) = EntryDecoder::new(input, entry, lent) else { return Ok(false) };
    let mut decoder = decoder.with_trailing(Trailing::Refuse);
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

/// What a stream staged as it arrived: its staging directory, with the files and directories
/// made in it ahead.
pub(crate) struct Prestaged {
    files: HashMap<String, Staged>,
    dirs: HashSet<String>,
    root: Option<Dir>,
    umask: Option<u32>,
    staging: Option<Staging>,
    /// The files kept, by where their local headers start: set by [`keep`](Self::keep).
    claimed: HashMap<u64, Staged>,
}

impl Prestaged {
    /// Takes the staging directory, for an extraction that keeps what was staged in it.
    pub(crate) fn take_staging(&mut self) -> Option<Staging> {
        self.staging.take()
    }

    /// Keeps the staged files that `entries` (the selected entries, each with its local header,
    /// of the archive `opened`) describe as they were staged, their local headers checked now,
    /// and removes every other file and directory staged ahead, so that the staging directory
    /// holds nothing the archive does not. Where a kept file's local header fails its check,
    /// nothing is kept: the extraction then meets every fault where a file's would.
    pub(crate) fn keep(&mut self, opened: &Opened<'_>, entries: &[Entry], locals: &[LocalRef]) -> Result<(), Error> {
        let can_place = self.umask.is_some() && self.root.is_some();
        let mut needed_dirs: HashSet<&str> = HashSet::default();
        let mut checks: Vec<(&LocalRef, &Entry)> = Vec::new();
        for (e, local) in entries.iter().zip(locals) {
            let dir = match e.kind {
                Kind::Directory => Some(e.path.as_str()),
                Kind::File => e.path.rsplit_once('/').map(|(d, _)| d),
            };
            let mut at = dir;
            while let Some(d) = at {
                if !needed_dirs.insert(d) {
                    break;
                }
                at = d.rsplit_once('/').map(|(up, _)| up);
            }
            if e.kind == Kind::File
                && can_place
                && let Some(staged) = self.files.get(&e.path)
                && (staged.header_at, staged.method, staged.compressed_size, staged.size, staged.crc32)
                    == (local.header_offset(), e.method, e.compressed_size, e.size, e.crc32)
            {
                checks.push((local, e));
            }
        }
        // Each kept file's local header, checked as the one reading path checks it, in few reads.
        if let Ok(offsets) = opened.check_locals(&checks) {
            for ((local, e), data_offset) in checks.iter().zip(offsets) {
                let staged = self.files[&e.path];
                if staged.data_at == data_offset {
                    self.claimed.insert(local.header_offset(), staged);
                }
            }
        }
        let path_of = |p: &str| self.staging.as_ref().map_or_else(|| Path::new(p).to_path_buf(), |s| s.path().join(p));
        for (path, staged) in &self.files {
            if self.claimed.get(&staged.header_at) != Some(staged) {
                remove_at(self.root.as_ref(), path, |d, p| d.remove_file(p))
                    .map_err(|e| Error::io("removing", &path_of(path), e))?;
            }
        }
        let mut unneeded: Vec<&String> = self.dirs.iter().filter(|d| !needed_dirs.contains(d.as_str())).collect();
        unneeded.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
        for dir in unneeded {
            remove_at(self.root.as_ref(), dir, |d, p| d.remove_dir(p))
                .map_err(|e| Error::io("removing", &path_of(dir), e))?;
        }
        Ok(())
    }

    /// Whether the file whose local header starts at `header_offset` was kept: it is finished
    /// ([`place`](Self::place)), not read.
    pub(crate) fn has_header(&self, header_offset: u64) -> bool {
        self.claimed.contains_key(&header_offset)
    }

    /// Finishes entry `e` if it was kept by [`keep`](Self::keep) (its local header, at
    /// `header_offset`, checked): its mode, its time `mtime` (if given), synced with `durable`.
    /// False where it was not kept: it is to be written as usual.
    pub(crate) fn place(
        &self,
        e: &Entry,
        header_offset: u64,
        tree: &crate::extract::tree::Tree<'_>,
        mtime: Option<(i64, u32)>,
        durable: bool,
    ) -> Result<bool, Error> {
        let (Some(staged), Some(umask)) = (self.claimed.get(&header_offset), self.umask) else { return Ok(false) };
        let mode = (e.mode & 0o7777 & !umask != AHEAD_MODE & !umask).then_some(e.mode & 0o7777 & !umask);
        // The time the central directory gives it, if not the one it was given; the time of the
        // extraction if it is to have none but was given one.
        let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok();
        let time = match (mtime, staged.mtime) {
            (wanted, given) if wanted == given => None,
            (Some(wanted), _) => Some(wanted),
            (None, Some(_)) => now().map(|d| (d.as_secs() as i64, d.subsec_nanos())),
            (None, None) => None,
        };
        tree.finish_file(&e.path, mode, time, durable)?;
        Ok(true)
    }
}

/// Removes `path` under `root` with `remove` (a file's or a directory's); gone already is fine.
fn remove_at(root: Option<&Dir>, path: &str, remove: fn(&Dir, &str) -> std::io::Result<()>) -> std::io::Result<()> {
    let Some(root) = root else { return Err(std::io::Error::other("the staging directory is not open")) };
    match remove(root, path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// What the follower knows of the entry whose data it is in.
struct Local {
    header_at: u64,
    data_at: u64,
    /// Its name, if it could be staged under it.
    path: Option<String>,
    /// The time its local header records.
    mtime: Mtime,
    method: Option<Method>,
    crc32: u32,
    compressed_size: u64,
    size: u64,
    /// Whether it could be staged: a file with a name of its own, deflated or stored, not
    /// encrypted.
    stageable: bool,
    /// Whether its data is kept, to be staged.
    keep: bool,
    /// Whether it is being staged as it arrives.
    followed: bool,
}

/// Where the follower is in the stream.
enum State {
    /// In a local header, `held` holding it so far.
    Header,
    /// In an entry's data of known size, `left` bytes of it to come (held if kept).
    Data { local: Local, left: u64 },
    /// In an entry's data followed by a data descriptor: `held` holds the data so far, searched
    /// for the descriptor up to `searched`.
    Descriptor { local: Local, searched: usize, dropped: u64 },
    /// Past the last local header, or lost: nothing more is staged.
    Done,
}

/// Follows local headers through a stream, one piece at a time.
struct Follower {
    wanted: Wanted,
    state: State,
    /// Where the stream is: the offset of the next byte fed.
    at: u64,
    held: Vec<u8>,
    /// Bytes the entries queued so far inflate to.
    queued: u64,
    /// Whether the stream is spooled to a file, from which entries too large to hold are read.
    spooled: bool,
    /// The cores a large entry could be inflated on.
    cores: usize,
    /// Whether entries starting now may be staged (the workers have room).
    accepting: bool,
}

impl Follower {
    fn new(wanted: Wanted) -> Follower {
        Follower {
            wanted,
            state: State::Header,
            at: 0,
            held: Vec::new(),
            queued: 0,
            spooled: false,
            cores: crate::available_cores(),
            accepting: true,
        }
    }

    /// Follows `piece`; `dispatch` takes each entry to stage. At most `ahead` bytes are queued
    /// to inflate in all.
    fn feed(&mut self, mut piece: &[u8], ahead: u64, dispatch: &mut dyn FnMut(Job)) {
        while !piece.is_empty() {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return,
                State::Header => {
                    // The fixed part first, then the name and extra field it announces.
                    let need = LocalFixed::parse(&self.held).map_or(LocalFixed::LEN, |fixed| fixed.len());
                    let take = (need - self.held.len()).min(piece.len());
                    self.held.extend_from_slice(&piece[..take]);
                    piece = &piece[take..];
                    self.at += take as u64;
                    if self.held.len() < need {
                        self.state = State::Header;
                    } else {
                        match LocalFixed::parse(&self.held) {
                            Some(fixed) if fixed.len() > self.held.len() => self.state = State::Header,
                            Some(fixed) => self.state = self.begin_data(fixed, ahead, dispatch),
                            // Anything else (the central directory, other data) ends the following.
                            None => {}
                        }
                    }
                }
                State::Data { mut local, left } => {
                    // A large entry is inflated as it arrives once the spool is a file (its data
                    // then reads from there from its start, wherever the stream is).
                    if !local.followed
                        && local.stageable
                        && local.compressed_size > STAGE_MAX
                        && self.spooled
                        && self.accepting
                        && self.worth_staging(&local, ahead)
                    {
                        local.followed = true;
                        self.queue(&local, Data::Arriving, dispatch);
                    }
                    let take = left.min(piece.len() as u64) as usize;
                    if local.keep && local.compressed_size <= STAGE_MAX {
                        self.held.extend_from_slice(&piece[..take]);
                    }
                    piece = &piece[take..];
                    self.at += take as u64;
                    if left > take as u64 {
                        self.state = State::Data { local, left: left - take as u64 };
                    } else {
                        if local.keep && local.compressed_size <= STAGE_MAX {
                            let data = std::mem::take(&mut self.held);
                            self.queue(&local, Data::Held(data), dispatch);
                        }
                        self.held.clear();
                        self.state = State::Header;
                    }
                }
                State::Descriptor { mut local, searched, dropped } => {
                    match find_descriptor(&self.held, piece, searched, dropped) {
                        DescriptorSearch::Found { end, crc32, compressed_size, size } => {
                            // `end`, where the next header starts, and the data's length are
                            // indexes into held ++ piece.
                            let held_len = self.held.len();
                            let mut data = std::mem::take(&mut self.held);
                            self.held = if end < held_len { data[end..].to_vec() } else { Vec::new() };
                            (local.crc32, local.compressed_size, local.size) = (crc32, compressed_size, size);
                            local.keep &= self.worth_staging(&local, ahead);
                            if local.keep {
                                let len = compressed_size as usize;
                                if len > data.len() {
                                    data.extend_from_slice(&piece[..len - data.len()]);
                                }
                                data.truncate(len);
                                self.queue(&local, Data::Held(data), dispatch);
                            }
                            let skip = end.saturating_sub(held_len);
                            piece = &piece[skip..];
                            self.at += skip as u64;
                            self.state = State::Header;
                        }
                        DescriptorSearch::NotYet { mut searched } => {
                            // Too long to hold: followed, not staged.
                            local.keep &= (self.held.len() + piece.len()) as u64 <= STAGE_MAX + 32;
                            let mut dropped = dropped;
                            if local.keep || self.held.len() + piece.len() <= 2 * DESCRIPTOR_TAIL {
                                self.held.extend_from_slice(piece);
                            } else {
                                // Only the tail a descriptor may begin in is kept.
                                let total = self.held.len() + piece.len();
                                let cut = total - DESCRIPTOR_TAIL;
                                if piece.len() >= DESCRIPTOR_TAIL {
                                    self.held.clear();
                                    self.held.extend_from_slice(&piece[piece.len() - DESCRIPTOR_TAIL..]);
                                } else {
                                    self.held.extend_from_slice(piece);
                                    self.held.drain(..cut);
                                }
                                dropped += cut as u64;
                                searched = searched.saturating_sub(cut);
                            }
                            self.at += piece.len() as u64;
                            piece = &[];
                            self.state = State::Descriptor { local, searched, dropped };
                        }
                    }
                }
            }
        }
    }

    /// Whether `local` (its sizes known) is to be staged ahead: within the quota, the ratio and
    /// the bound on inflating ahead, and not an entry the extraction would inflate on several
    /// cores. (One too large to hold is staged only once the spool is a file: it is read there.)
    fn worth_staging(&self, local: &Local, ahead: u64) -> bool {
        let total = self.queued.saturating_add(local.size);
        let parallel = local.method == Some(Method::Deflate)
            && crate::inflate_in_parallel(self.wanted.parallel, local.size, self.cores);
        // (A stored entry whose sizes differ is refused by the one reading path.)
        let stored_lies = local.method == Some(Method::Stored) && local.size != local.compressed_size;
        !parallel
            && !stored_lies
            && total <= ahead
            && self.wanted.quota.is_none_or(|q| total <= q)
            && self.wanted.max_ratio.is_none_or(|r| local.size as f64 <= r * local.compressed_size.max(1) as f64)
    }

    fn queue(&mut self, local: &Local, data: Data, dispatch: &mut dyn FnMut(Job)) {
        let (Some(method), Some(path)) = (local.method, local.path.clone()) else { return };
        self.queued = self.queued.saturating_add(local.size);
        let (header_at, data_at, crc32, size) = (local.header_at, local.data_at, local.crc32, local.size);
        let mtime = if self.wanted.no_mtime { None } else { local.mtime.unix() };
        let compressed_size = local.compressed_size;
        dispatch(Job { header_at, data_at, path, method, crc32, size, mtime, compressed_size, data });
    }

    /// The state after the local header in `held` (whole): its entry's data, or done where the
    /// header cannot be followed. An empty entry is queued at once.
    fn begin_data(&mut self, fixed: LocalFixed, ahead: u64, dispatch: &mut dyn FnMut(Job)) -> State {
        let h = std::mem::take(&mut self.held);
        let (flags, code) = (fixed.flags, fixed.method);
        let name = &h[LocalFixed::LEN..LocalFixed::LEN + fixed.name_len];
        let extra = &h[LocalFixed::LEN + fixed.name_len..fixed.len()];
        // Sizes as the one reading path takes them; where it would refuse them, the 32-bit values
        // (a ZIP64 size without its extra field is then not followed, below).
        let (size, compressed_size) =
            fixed.sizes(extra, Shown(name)).unwrap_or((u64::from(fixed.size), u64::from(fixed.csize)));
        let method = Method::from_code(code).filter(|m| matches!(m, Method::Stored | Method::Deflate));
        // A name staged ahead is one the name rules accept as a file's, unchanged, and selected;
        // looked at only for an entry that can be staged now, or later as it arrives.
        let path = std::str::from_utf8(name).ok().filter(|n| {
            (self.accepting || compressed_size > STAGE_MAX)
                && matches!(crate::read::names::check(name, flags & 0x800 != 0, 3, None), Ok((p, Kind::File, _)) if p == *n)
                && self.wanted.selects(n)
        });
        let encrypted = flags & 1 != 0;
        let stageable = method.is_some() && path.is_some() && !encrypted;
        let mut local = Local {
            header_at: self.at - h.len() as u64,
            data_at: self.at,
            stageable,
            keep: stageable && self.accepting,
            followed: false,
            path: path.map(str::to_owned),
            mtime: crate::read::archive::mtime_of(extra, fixed.dos),
            method,
            crc32: fixed.crc,
            compressed_size,
            size,
        };
        if flags & 8 != 0 {
            return State::Descriptor { local, searched: 0, dropped: 0 };
        }
        if compressed_size == 0xFFFF_FFFF {
            return State::Done; // a ZIP64 size without its extra field: not followed
        }
        local.keep &= self.worth_staging(&local, ahead);
        if compressed_size == 0 {
            if local.keep {
                self.queue(&local, Data::Held(Vec::new()), dispatch);
            }
            return State::Header;
        }
        State::Data { local, left: compressed_size }
    }
}

/// What a search for an entry's data descriptor found.
#[derive(Debug, PartialEq, Eq)]
enum DescriptorSearch {
    /// A descriptor whose compressed size is the data's length, followed by the next header (or
    /// the central directory), which starts at `end` (an index into the bytes searched).
    Found { end: usize, crc32: u32, compressed_size: u64, size: u64 },
    /// None yet: searched up to `searched`.
    NotYet { searched: usize },
}

/// Looks for the data descriptor ending an entry's data in `held ++ piece` (the data from its
/// start, less the `dropped` bytes before `held`), from index `from`: the first local or central header signature preceded by a
/// descriptor (with or without its signature, with 4- or 8-byte sizes) whose compressed size is
/// exactly the length of the data before it.
fn find_descriptor(held: &[u8], piece: &[u8], from: usize, dropped: u64) -> DescriptorSearch {
    let total = held.len() + piece.len();
    let byte = |i: usize| if i < held.len() { held[i] } else { piece[i - held.len()] };
    let u32_at = |i: usize| u32::from_le_bytes([byte(i), byte(i + 1), byte(i + 2), byte(i + 3)]);
    let u64_at = |i: usize| u64::from(u32_at(i)) | (u64::from(u32_at(i + 4)) << 32);
    let signature = |i: usize| {
        let s = [byte(i), byte(i + 1), byte(i + 2), byte(i + 3)];
        s == LOCAL_SIG.to_le_bytes() || s == CENTRAL_SIG.to_le_bytes()
    };
    // Candidates: every 'P' from `from`, searched with memchr in each part.
    let mut at = from;
    while at + 4 <= total {
        let next = if at < held.len() {
            memchr::memchr(b'P', &held[at..])
                .map(|k| at + k)
                .or_else(|| memchr::memchr(b'P', piece).map(|k| held.len() + k))
        } else {
            memchr::memchr(b'P', &piece[at - held.len()..]).map(|k| at + k)
        };
        let Some(p) = next else { break };
        if p + 4 > total {
            return DescriptorSearch::NotYet { searched: p };
        }
        if signature(p) {
            // (length, has its signature, 8-byte sizes), in the order writers use them.
            for (len, signed, wide) in [(16, true, false), (24, true, true), (12, false, false), (20, false, true)] {
                let Some(start) = p.checked_sub(len) else { continue };
                if signed && u32_at(start) != DESCRIPTOR_SIG {
                    continue;
                }
                let fields = if signed { start + 4 } else { start };
                let (compressed_size, size) = if wide {
                    (u64_at(fields + 4), u64_at(fields + 12))
                } else {
                    (u64::from(u32_at(fields + 4)), u64::from(u32_at(fields + 8)))
                };
                if compressed_size == dropped + start as u64 {
                    return DescriptorSearch::Found { end: p, crc32: u32_at(fields), compressed_size, size };
                }
            }
        }
        at = p + 1;
    }
    DescriptorSearch::NotYet { searched: total.saturating_sub(3).max(from) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::{Spec, build};

    /// `data` followed by its data descriptor (with its signature) and the next local header's
    /// signature.
    fn descriptor(data: &[u8], crc: u32, size: u32) -> Vec<u8> {
        let mut v = data.to_vec();
        v.extend_from_slice(&DESCRIPTOR_SIG.to_le_bytes());
        v.extend_from_slice(&crc.to_le_bytes());
        v.extend_from_slice(&(data.len() as u32).to_le_bytes());
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(&LOCAL_SIG.to_le_bytes());
        v
    }

    fn spec(name: &str, data: &[u8], deflate: bool, descriptor: bool) -> Spec {
        Spec { name: name.into(), data: data.to_vec(), deflate, descriptor, unix_mode: 0o100644, packed: None }
    }

    /// A new directory of this test's own under the system's temporary directory, removed when
    /// dropped.
    fn workdir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("bufkit-arrivals-{name}-")).tempdir().unwrap()
    }

    /// Follows `zip` fed in pieces of `piece` bytes for an extraction into `dest`.
    fn follow(zip: &[u8], piece: usize, dest: &Path, options: &Options<'_>) -> Prestaged {
        let wanted = Wanted::of(options).expect("stageable");
        let mut arrivals = Arrivals::beside(dest, wanted);
        arrivals.stage_everything();
        for p in zip.chunks(piece) {
            arrivals.feed(p);
        }
        arrivals.finish().expect("a staging directory")
    }

    /// The files staged following `zip`, and those of them its central directory keeps.
    fn staged_and_kept(zip: &[u8], piece: usize, dest: &Path, options: &Options<'_>) -> (usize, usize) {
        let mut prestaged = follow(zip, piece, dest, options);
        let (opened, layout, locals) = crate::entry::opened::Opened::open(Box::new(zip), Path::new("zip")).unwrap();
        prestaged.keep(&opened, &layout.entries, &locals.entries).unwrap();
        (prestaged.files.len(), prestaged.claimed.len())
    }

    #[test]
    fn entries_are_staged_as_they_arrive_and_kept_where_the_archive_agrees() {
        let base = workdir("staged");
        let base = base.path();
        let text = b"staged ahead, then kept; ".repeat(300);
        for descriptor in [false, true] {
            let specs = vec![
                spec("a.txt", &text, true, descriptor),
                spec("dir/b.bin", &text[..1000], false, false),
                spec("dir/sub/c.txt", &text[5..], true, descriptor),
                spec("d.txt", b"PK\x03\x04PK\x01\x02 inside the data", true, descriptor),
            ];
            let zip = build(&specs, b"");
            for piece in [1, 7, 4096, zip.len()] {
                let dest = base.join(format!("out-{descriptor}-{piece}"));
                assert_eq!(staged_and_kept(&zip, piece, &dest, &Options::default()), (4, 4), "{descriptor} {piece}");
                let prestaged = follow(&zip, piece, &dest, &Options::default());
                crate::extract::extract_spool(&zip, &dest, &Options::default(), Some(prestaged)).unwrap();
                for s in &specs {
                    let path = dest.join(std::str::from_utf8(&s.name).unwrap());
                    assert_eq!(std::fs::read(&path).unwrap(), s.data, "{path:?}");
                }
                // Nothing left beside the destination.
                assert_eq!(std::fs::read_dir(base).unwrap().filter(|e| e.as_ref().unwrap().path() == dest).count(), 1);
            }
            // Only what `only` selects is staged.
            let dest = base.join(format!("only-{descriptor}"));
            let options = Options { only: vec!["dir/".into()], ..Options::default() };
            assert_eq!(staged_and_kept(&zip, 1000, &dest, &options).0, 2);
            // Data before the first header: nothing is followed, everything comes from the spool.
            let dest = base.join(format!("prefixed-{descriptor}"));
            let prefixed = build(&specs, b"#!/bin/sh\nexit 0\n");
            assert_eq!(staged_and_kept(&prefixed, 1000, &dest, &Options::default()), (0, 0));
        }
        assert_eq!(std::fs::read_dir(base).unwrap().count(), 8, "only the destinations");
    }

    #[cfg(unix)]
    #[test]
    fn a_file_staged_ahead_ends_with_the_mode_and_time_of_a_file_written_from_the_spool() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let base = workdir("finished");
        let base = base.path();
        let text = b"staged with 0644 and the local header's time; ".repeat(40);
        let mut run = spec("bin/run.sh", &text, true, false);
        run.unix_mode = 0o100755;
        let mut private = spec("etc/private.txt", &text[3..], false, true);
        private.unix_mode = 0o100600;
        let specs = vec![run, private, spec("plain.txt", &text[9..], true, true)];
        let zip = build(&specs, b"");
        let finished = |dest: &Path| -> Vec<(u32, i64)> {
            specs
                .iter()
                .map(|s| {
                    let meta = std::fs::metadata(dest.join(std::str::from_utf8(&s.name).unwrap())).unwrap();
                    (meta.permissions().mode() & 0o7777, meta.mtime())
                })
                .collect()
        };
        let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 - 1;
        for no_mtime in [false, true] {
            let options = Options { no_mtime, ..Options::default() };
            let plain = base.join(format!("plain-{no_mtime}"));
            crate::extract::extract_spool(&zip, &plain, &options, None).unwrap();
            let expected = finished(&plain);
            assert_eq!(expected.iter().map(|f| f.0 & 0o111 != 0).collect::<Vec<_>>(), [true, false, false]);
            for piece in [7, zip.len()] {
                let dest = base.join(format!("staged-{no_mtime}-{piece}"));
                assert_eq!(staged_and_kept(&zip, piece, &dest, &options), (3, 3));
                let prestaged = follow(&zip, piece, &dest, &options);
                crate::extract::extract_spool(&zip, &dest, &options, Some(prestaged)).unwrap();
                let got = finished(&dest);
                for (g, e) in got.iter().zip(&expected) {
                    assert_eq!(g.0, e.0, "mode, piece {piece}");
                    // The archive's time (1980), or, without it, the extraction's.
                    assert!(g.1 == e.1 || (no_mtime && g.1 >= started && e.1 >= started), "time, piece {piece}");
                }
            }
        }
    }

    /// `n` bytes no compressor shrinks (xorshift).
    fn noise(n: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    /// The files under the staging directory made beside `dest`, with their lengths.
    fn staged_beside(dest: &Path) -> Vec<(String, u64)> {
        let prefix = format!(".{}.bufkit-tmp-", dest.file_name().unwrap().to_string_lossy());
        let mut found = Vec::new();
        for dir in std::fs::read_dir(dest.parent().unwrap()).unwrap().flatten() {
            if dir.file_name().to_string_lossy().starts_with(&prefix) && dir.path().is_dir() {
                for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
                    found.push((file.file_name().to_string_lossy().into_owned(), file.metadata().unwrap().len()));
                }
            }
        }
        found
    }

    /// A stream of a large entry (10 MiB, past the 8 MiB held in memory), then a small one; and
    /// the large entry's data.
    fn large_then_small() -> (Vec<u8>, Vec<u8>) {
        let large = noise(10 << 20);
        let zip = build(&[spec("large.bin", &large, true, false), spec("small.txt", b"small", true, false)], b"");
        (zip, large)
    }

    #[test]
    fn a_large_entry_is_inflated_while_it_arrives() {
        use std::io::Write;
        let base = workdir("arriving");
        let dest = base.path().join("out");
        let (zip, large) = large_then_small();
        let mut incoming = crate::StreamedArchive::beside(&dest).unwrap();
        incoming.stage_everything();
        // All but the last MiB of the large entry.
        let (arrived, rest) = zip.split_at(9 << 20);
        for piece in arrived.chunks(64 << 10) {
            incoming.write_all(piece).unwrap();
        }
        // What has arrived is inflated before the rest comes: at least 8 MiB of it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !staged_beside(&dest).iter().any(|(name, len)| name == "large.bin" && *len >= 8 << 20) {
            assert!(std::time::Instant::now() < deadline, "not inflated as it arrived: {:?}", staged_beside(&dest));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for piece in rest.chunks(64 << 10) {
            incoming.write_all(piece).unwrap();
        }
        let report = incoming.extract(&dest, &Options::default()).unwrap();
        assert_eq!(report.files, 2);
        assert_eq!(std::fs::read(dest.join("large.bin")).unwrap(), large);
        assert_eq!(std::fs::read(dest.join("small.txt")).unwrap(), b"small");
        assert_eq!(std::fs::read_dir(base.path()).unwrap().count(), 1, "only the destination");
    }

    #[test]
    fn a_stream_that_stops_inside_a_large_entry_leaves_nothing_and_never_waits() {
        use std::io::Write;
        let base = workdir("stopped");
        let root = base.path().to_path_buf();
        // On a thread of its own: a worker left waiting for bytes that will not come would hang
        // the test, where this fails it.
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (zip, _) = large_then_small();
            // Abandoned while a worker waits for the rest of the large entry.
            let dest = root.join("dropped");
            let mut incoming = crate::StreamedArchive::beside(&dest).unwrap();
            incoming.stage_everything();
            incoming.write_all(&zip[..9 << 20]).unwrap();
            drop(incoming);
            // Ended there: refused as the file cut there is.
            let dest = root.join("cut");
            let mut incoming = crate::StreamedArchive::beside(&dest).unwrap();
            incoming.stage_everything();
            incoming.write_all(&zip[..9 << 20]).unwrap();
            let refused = incoming.extract(&dest, &Options::default()).is_err();
            done.send(refused).unwrap();
        });
        let refused = finished.recv_timeout(std::time::Duration::from_secs(60)).expect("a worker waited for ever");
        assert!(refused, "a cut stream was extracted");
        assert_eq!(std::fs::read_dir(base.path()).unwrap().count(), 0, "nothing left");
    }

    #[test]
    fn an_entry_too_long_to_hold_is_followed_past() {
        let base = workdir("long");
        let base = base.path();
        let long: Vec<u8> = (0..(5u32 << 20)).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let specs = vec![spec("long.bin", &long, true, true), spec("after.txt", b"after", true, true)];
        let zip = build(&specs, b"");
        let dest = base.join("out");
        // The long entry's descriptor is found past 4 MiB though its data is not held; the
        // entry after it is staged (the spool is in memory here, so the long one is not).
        assert_eq!(staged_and_kept(&zip, 65_536, &dest, &Options::default()), (1, 1));
    }

    #[test]
    fn limits_hold_while_staging_and_a_refusal_leaves_nothing() {
        let base = workdir("limits");
        let base = base.path();
        let specs: Vec<Spec> =
            (0..10).map(|i| spec(&format!("f{i}.bin"), &[i as u8; 10_000], true, i % 2 == 0)).collect();
        let zip = build(&specs, b"");
        // A quota of three files' bytes: no more than three staged, and the archive refused.
        let options = Options { quota: Some(30_000), ..Options::default() };
        let dest = base.join("quota");
        let (staged, _) = staged_and_kept(&zip, 777, &dest, &options);
        assert!(staged <= 3, "{staged} staged past the quota");
        let prestaged = follow(&zip, 777, &dest, &options);
        let refused = crate::extract::extract_spool(&zip, &dest, &options, Some(prestaged));
        assert!(matches!(refused, Err(Error::Limit { .. })), "{refused:?}");
        // A ratio limit every entry passes (their deflate streams are stored blocks): none staged.
        let options = Options { max_ratio: Some(0.5), ..Options::default() };
        assert_eq!(staged_and_kept(&zip, 777, &base.join("ratio"), &options).0, 0);
        assert_eq!(std::fs::read_dir(base).unwrap().count(), 0, "nothing left behind");
    }

    #[test]
    fn a_file_the_central_directory_does_not_describe_is_removed_with_its_directories() {
        let base = workdir("hidden");
        let base = base.path();
        let zip = build(
            &[spec("hidden/deep/x.txt", b"not listed", false, false), spec("y.txt", b"listed", false, false)],
            b"",
        );
        // The central directory lists only its second entry: the first is a hidden local entry.
        let central = zip.windows(4).position(|w| w == CENTRAL_SIG.to_le_bytes()).unwrap();
        let second = central + zip[central + 1..].windows(4).position(|w| w == CENTRAL_SIG.to_le_bytes()).unwrap() + 1;
        let end = zip.windows(4).rposition(|w| w == *b"PK\x05\x06").unwrap();
        let mut hidden = zip[..central].to_vec();
        hidden.extend_from_slice(&zip[second..end]);
        let mut eocd = zip[end..].to_vec();
        let cd_len = (end - second) as u32;
        eocd[8..10].copy_from_slice(&1u16.to_le_bytes());
        eocd[10..12].copy_from_slice(&1u16.to_le_bytes());
        eocd[12..16].copy_from_slice(&cd_len.to_le_bytes());
        hidden.extend_from_slice(&eocd);
        let dest = base.join("out");
        let from_file = crate::extract::extract_bytes(&hidden, &base.join("file"), &Options::default());
        let prestaged = follow(&hidden, 5, &dest, &Options::default());
        assert_eq!(prestaged.files.len(), 2, "both staged");
        let from_stream = crate::extract::extract_spool(&hidden, &dest, &Options::default(), Some(prestaged));
        match (from_file, from_stream) {
            (Ok(_), Ok(_)) => {
                let names: Vec<_> = std::fs::read_dir(&dest).unwrap().map(|e| e.unwrap().file_name()).collect();
                assert_eq!(names, ["y.txt"], "the hidden entry and its directories removed");
            }
            // A gap between entries is read past, as unzip does: the case this test is for.
            (a, b) => panic!("from a file {a:?}, from a stream {b:?}"),
        }
    }

    #[test]
    fn a_descriptor_is_found_wherever_the_pieces_split_it() {
        // Data holding signatures that are not preceded by a matching descriptor.
        let mut data = b"PK\x03\x04 not a header PK\x01\x02 nor this".to_vec();
        data.extend(std::iter::repeat_n(b'P', 40));
        let whole = descriptor(&data, 0xdead_beef, 99);
        let end = data.len() + 16;
        for split in 0..whole.len() {
            let (held, piece) = whole.split_at(split);
            let found = find_descriptor(held, piece, 0, 0);
            if split <= end {
                assert_eq!(
                    found,
                    DescriptorSearch::Found { end, crc32: 0xdead_beef, compressed_size: data.len() as u64, size: 99 },
                    "split at {split}"
                );
            }
        }
        // Searching again from where a first search stopped finds it too.
        let (held, piece) = whole.split_at(20);
        let DescriptorSearch::NotYet { searched } = find_descriptor(&held[..10], &held[10..], 0, 0) else { panic!() };
        assert!(matches!(find_descriptor(held, piece, searched, 0), DescriptorSearch::Found { .. }));
    }

    #[test]
    fn without_a_matching_descriptor_nothing_is_found() {
        let whole = b"PK\x07\x08\x01\x02\x03\x04\x09\x00\x00\x00\x05\x00\x00\x00PK\x03\x04".to_vec();
        assert!(matches!(find_descriptor(&whole, &[], 0, 0), DescriptorSearch::NotYet { .. }));
    }
}
