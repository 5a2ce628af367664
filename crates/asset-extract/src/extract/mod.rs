//! Extraction: every entry validated first, then inflated in parallel into a temporary directory
//! beside the destination, which replaces the destination only when every CRC has verified.

pub(crate) mod behind;
pub(crate) mod destination;
pub(crate) mod manifest;
pub(crate) mod merge;
pub(crate) mod options;
pub(crate) mod remove;
pub(crate) mod staging;
pub(crate) mod tree;
pub(crate) mod write;

use std::fs::File;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crate::Error;
use crate::entry::checks::Trailing;
use crate::entry::decode::{Ask, Output, WholeTools, decoding};
use crate::entry::opened::{Opened, check_end};
use crate::entry::parallel::Share;
use crate::entry::source::{FileSource, Source};
use crate::read::archive::{Layout, Locals, read_archive};
use crate::read::entry::{Entry, Method};
use crate::read::local::LocalRef;
use crate::read::names::{Kind, check_collisions};
use crate::read::windows_names;
use crate::stream::prestaged::Prestaged;
use behind::WriteBehind;
use buffer_pool::{BufferPool, PoolConfig};
use destination::{Found, Mode};
use options::{Options, Progress, Report, matches, worker_threads};
use staging::Staging;
use tree::Tree;
use write::{Halt, Inflaters, Job, Prefetch, Scratch, WHOLE_ENTRY_MAX, write_file};

/// Extracts the archive at `archive` into `dest`, as `options.mode` allows (by default `dest` must
/// not exist or be an empty directory; see [`Mode`]).
///
/// What it reads and holds follows what is asked, not the archive's size. It reads the end
/// records and the central directory, and then the selected entries, in file order, each one's
/// local header checked from the same read as its data, neighbouring small entries in one read.
/// Entries left out are not read (as `unzip` and `AssetArchive` do not). It holds the central directory's index, plus per worker at most: one entry's
/// compressed data and its output (entries up to 4 MiB; a batch of neighbouring small entries up
/// to 1 MiB in one read), each in a buffer the worker keeps from entry to entry, or, for a larger
/// entry, a 256 KiB input piece and the decoder's 1 MiB chunk and 32 KiB window; plus two 1 MiB
/// chunks per worker queued for writing. With 2 workers that is under 32 MiB of peak RSS on an
/// archive of 36,674 entries (most of it the index), whatever the entries' sizes
/// (`bench-reports/asset-extract.md`, "Reading only what is asked"). Entries in the other methods
/// stream through their decoder, whose memory the method sets: under 4 MiB for Deflate64 and
/// bzip2; the dictionary or window the entry asks for with LZMA, XZ and Zstandard, refused above
/// 128 MiB ([`Method`](crate::Method)).
///
/// The file is checked at the end to be the one opened, unchanged (identity, size, modification
/// and change time); content rewritten in place under a read fails the CRC. Either way nothing is
/// put at `dest`.
///
/// ```no_run
/// let report = asset_extract::extract(
///     std::path::Path::new("app.apk"),
///     std::path::Path::new("assets-out"),
///     &asset_extract::Options { only: vec!["assets/".into()], ..Default::default() },
/// )?;
/// println!("{} files, {} bytes", report.files, report.bytes);
/// # Ok::<(), asset_extract::Error>(())
/// ```
pub fn extract(archive: &Path, dest: &Path, options: &Options<'_>) -> Result<Report, Error> {
    refuse_early(dest, options)?;
    let file = FileSource::open(archive)?;
    if options.map_archive {
        // SAFETY: read-only and private; the caller chose mapping and its contract (documented on
        // `map_archive`): the file is not truncated or rewritten while it is extracted.
        let map = unsafe { memmap2::Mmap::map(file.file()) }.map_err(|e| Error::io("mapping", archive, e))?;
        return extract_bytes(&map, dest, options);
    }
    extract_opened(Box::new(file), archive, dest, options, None)
}

/// Extracts the archive in `source` (a [`Source`] of the caller's: its bytes wherever the host
/// keeps them) into `dest`, exactly as [`extract`] extracts a file: the same checks, the same
/// reads of only what is selected, and nothing at `dest` changes unless every selected entry
/// verified and the source still answers as it did ([`Source::check_unchanged`]).
pub fn extract_source(source: &dyn Source, dest: &Path, options: &Options<'_>) -> Result<Report, Error> {
    match source.bytes() {
        Some(bytes) => extract_bytes(bytes, dest, options),
        None => {
            refuse_early(dest, options)?;
            extract_opened(Box::new(source), Path::new("(source)"), dest, options, None)
        }
    }
}

/// Extracts a stream's spool as [`extract_source`] does, putting in place the entries staged as
/// it arrived that the archive, read on the one path, describes exactly as they were staged.
pub(crate) fn extract_spool(
    source: &dyn Source,
    dest: &Path,
    options: &Options<'_>,
    prestaged: Option<Prestaged>,
) -> Result<Report, Error> {
    refuse_early(dest, options)?;
    extract_opened(Box::new(source), Path::new("(stream)"), dest, options, prestaged)
}

/// Extraction from a source read only where it must be (`archive` names it in errors).
fn extract_opened(
    source: Box<dyn Source + '_>,
    archive: &Path,
    dest: &Path,
    options: &Options<'_>,
    prestaged: Option<Prestaged>,
) -> Result<Report, Error> {
    let (opened, layout, mut locals) = Opened::open(source, archive)?;
    // The local headers extraction does not read on its way are checked first, as every reading
    // of the archive checks them: those of symlinks and of the entries `only` leaves out.
    let unread: Vec<(&LocalRef, &Entry)> = locals
        .symlinks
        .iter()
        .map(|(local, e)| (local, e))
        .chain(locals.entries.iter().zip(&layout.entries).filter(|(_, e)| !selected(options, e)))
        .collect();
    if !unread.is_empty() {
        opened.check_locals(&unread)?;
    }
    locals.symlinks = Vec::new();
    extract_from(&opened, layout, Some(locals), archive, dest, options, prestaged)
}

/// Extracts an archive held in memory into `dest`, as `options.mode` allows. Nothing at `dest`
/// changes unless every selected entry verified; see [`Mode`] for what changes then.
pub fn extract_bytes(data: &[u8], dest: &Path, options: &Options<'_>) -> Result<Report, Error> {
    refuse_early(dest, options)?;
    extract_from(&Opened::borrowed(data), read_archive(data)?, None, Path::new("(memory)"), dest, options, None)
}

/// Whether the `only` patterns select `e` (every entry when there are none).
fn selected(options: &Options<'_>, e: &Entry) -> bool {
    options.only.is_empty() || options.only.iter().any(|p| matches(p, &e.path))
}

/// What is refused before the archive is looked at: a cancelled run, an incremental merge.
fn refuse_early(dest: &Path, options: &Options<'_>) -> Result<(), Error> {
    if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(Error::Cancelled);
    }
    if options.incremental && options.mode == Mode::Merge {
        return Err(Error::Destination {
            path: dest.display().to_string(),
            reason: "incremental extraction replaces the destination; it cannot merge".into(),
        });
    }
    Ok(())
}

/// Extraction proper, over the archive's bytes wherever they are and its parsed layout. From a
/// source read as needed, `locals` are the local headers still to check: those of the selected directories are
/// checked here, in file order; each file's by the worker that writes it, from the read that
/// brings its data (one read for both). Entries left out are not read at all: what they hold
/// does not change what is extracted (where each entry may lie was checked against all the
/// others from the central directory). Entries staged ahead from a stream (`prestaged`) are put
/// in place where they match.
#[allow(clippy::too_many_arguments)]
fn extract_from(
    bytes: &Opened<'_>,
    layout: Layout,
    locals: Option<Locals>,
    archive: &Path,
    dest: &Path,
    options: &Options<'_>,
    prestaged: Option<Prestaged>,
) -> Result<Report, Error> {
    let Selection { mut entries, mut locals, skipped, bytes: bytes_total, prepended, appended, symlinks } =
        select(layout, locals, options)?;
    let previous = if options.incremental { manifest::previous(dest) } else { None };
    if let Some(file_locals) = locals.as_ref() {
        // A file kept from the last extraction is never read: check every header now.
        let now_or_later = |e: &Entry| previous.is_some() || e.kind != Kind::File;
        let checks: Vec<(&LocalRef, &Entry)> =
            file_locals.iter().zip(&entries).filter(|(_, e)| now_or_later(e)).collect();
        bytes.check_locals(&checks)?;
        if previous.is_some() {
            let all: Vec<(&LocalRef, &Entry)> = file_locals.iter().zip(&entries).collect();
            let offsets = bytes.check_locals(&all)?;
            for (e, offset) in entries.iter_mut().zip(offsets) {
                e.data_offset = offset;
            }
            locals = None;
        }
    }
    if prestaged.is_none() {
        staging::sweep_beside(dest); // (a stream's staging ahead swept first)
    }
    let found = destination::inspect(dest, options.mode)?;
    let merging = options.mode == Mode::Merge && found == Found::Directory;

    // Files staged from a stream as it arrived: kept where the archive describes them as they
    // were staged, in their staging directory; every other one removed first.
    let mut prestaged = prestaged.filter(|_| !merging && previous.is_none() && locals.is_some());
    let staging = match prestaged.as_mut().and_then(Prestaged::take_staging) {
        Some(staging) => staging,
        None if merging => Staging::inside(dest)?,
        None => Staging::beside(dest)?,
    };
    if let (Some(staged), Some(locals)) = (prestaged.as_mut(), locals.as_deref()) {
        staged.keep(bytes, &entries, locals)?;
    }
    if options.fold_case || folds_case(staging.path()) {
        check_collisions(entries.iter().map(|e| (e.path.as_str(), e.kind)), true)?;
    }
    let reuse = Reuse { previous: previous.as_ref(), prestaged: prestaged.as_ref() };
    let written = write_all(bytes, &entries, locals.as_deref(), staging.path(), options, bytes_total, reuse);
    // Nothing goes in place from an archive that changed while it was read; and a change explains
    // a failure better than what it caused (a read racing a truncation can copy the zeros the
    // kernel writes over the cut page, which then fail the CRC).
    bytes.source().check_unchanged().map_err(|e| Error::io("reading", archive, e))?;
    let mut report = written?;
    report.skipped = skipped;
    report.prepended = prepended;
    report.appended = appended;
    report.symlinks_skipped = symlinks;
    if merging {
        merge::move_into(staging.path(), dest, &entries, !options.no_mtime)?;
    } else {
        staging.commit(dest, found, options.durable, worker_threads(options.threads))?;
    }
    Ok(report)
}

/// Whether the file system holding `dir` (an empty directory of ours) folds case: a file made
/// under an upper-case name is found under the lower-case one.
fn folds_case(dir: &Path) -> bool {
    let upper = dir.join(".BUFKIT-CASE-PROBE");
    if File::create_new(&upper).is_err() {
        return false;
    }
    let folds = std::fs::symlink_metadata(dir.join(".bufkit-case-probe")).is_ok();
    let _ = std::fs::remove_file(&upper);
    folds
}

/// Parses and validates the archive, keeps the entries the `only` patterns select, and checks
/// their names and limits: the one selection both extraction paths start from. Returns the
/// selected entries, how many the archive holds, and the bytes they will write; with `locals`
/// (headers not checked yet), the selected entries'. Patterns that select nothing are refused:
/// the caller surely meant something.
fn select(layout: Layout, locals: Option<Locals>, options: &Options<'_>) -> Result<Selection, Error> {
    if options.strict && layout.prepended > 0 {
        return Err(Error::malformed(format!("{} bytes of other data precede the archive (strict)", layout.prepended)));
    }
    if options.strict && layout.comment_truncated {
        return Err(Error::malformed("the end record's comment runs past the end of the file (strict)"));
    }
    if options.strict && layout.appended > 0 {
        return Err(Error::malformed(format!("{} bytes of other data follow the archive (strict)", layout.appended)));
    }
    if let Some(link) = layout.symlinks.first().filter(|_| !options.skip_symlinks) {
        return Err(Error::UnsupportedKind { entry: link.clone(), kind: "symlink" });
    }
    let total = layout.entries.len();
    let wanted = |e: &Entry| selected(options, e);
    // The index is most of what extraction holds: kept as it is when everything is selected,
    // else split into vectors of the exact sizes.
    let selected: Vec<bool> = layout.entries.iter().map(wanted).collect();
    let count = selected.iter().filter(|&&s| s).count();
    let (entries, locals) = match locals {
        None if count == total => (layout.entries, None),
        Some(Locals { entries: entry_locals, .. }) if count == total => (layout.entries, Some(entry_locals)),
        None => {
            let picked = layout.entries.into_iter().zip(&selected).filter(|&(_, &s)| s);
            (picked.map(|(e, _)| e).collect(), None)
        }
        Some(Locals { entries: entry_locals, .. }) => {
            let mut entries = Vec::with_capacity(count);
            let mut kept = Vec::with_capacity(count);
            for ((e, local), s) in layout.entries.into_iter().zip(entry_locals).zip(selected) {
                if s {
                    entries.push(e);
                    kept.push(local);
                }
            }
            (entries, Some(kept))
        }
    };
    if entries.is_empty() && !options.only.is_empty() {
        return Err(Error::NothingSelected { patterns: options.only.clone() });
    }
    // Names Windows reads otherwise, where the tree is for Windows.
    let for_windows = options.portable_names || crate::sys::WINDOWS_NAMES;
    if for_windows && let Some((e, reason)) = entries.iter().find_map(|e| Some((e, windows_names::refusal(&e.path)?))) {
        return Err(Error::UnsafeName { entry: e.path.clone(), reason });
    }
    // Exact collisions were refused at open; names that differ only in case collide where asked.
    if options.fold_case || for_windows {
        check_collisions(entries.iter().map(|e| (e.path.as_str(), e.kind)), true)?;
    }
    let bytes = check_limits(&entries, options)?;
    Ok(Selection {
        skipped: (total - entries.len()) as u64,
        entries,
        locals,
        bytes,
        prepended: layout.prepended,
        appended: layout.appended,
        symlinks: layout.symlinks.len() as u64,
    })
}

/// What [`select`] keeps of an archive.
struct Selection {
    entries: Vec<Entry>,
    /// The selected entries' local headers, when still to check (parallel to `entries`).
    locals: Option<Vec<LocalRef>>,
    /// Entries left out by the patterns.
    skipped: u64,
    /// Bytes the selected entries will write.
    bytes: u64,
    /// Bytes before the zip part.
    prepended: u64,
    /// Bytes after the end record.
    appended: u64,
    /// Symlink entries left out.
    symlinks: u64,
}

/// Declared sizes are exact (each entry must inflate to exactly its size), so limits can be
/// checked before anything is written.
fn check_limits(entries: &[Entry], options: &Options<'_>) -> Result<u64, Error> {
    let mut total = 0u64;
    for e in entries {
        if let Some(ratio) = options.max_ratio
            && e.size as f64 > ratio * (e.compressed_size.max(1) as f64)
        {
            return Err(Error::Limit { entry: e.path.clone(), reason: format!("compression ratio above {ratio}") });
        }
        total = total.saturating_add(e.size);
        if options.quota.is_some_and(|q| total > q) {
            return Err(Error::Limit {
                entry: e.path.clone(),
                reason: format!("extraction would pass the {}-byte quota", options.quota.unwrap_or(0)),
            });
        }
    }
    Ok(total)
}

/// Files written already, that an extraction puts in place instead of writing them again.
#[derive(Clone, Copy)]
struct Reuse<'r> {
    /// The last extraction's, in incremental mode.
    previous: Option<&'r manifest::Previous>,
    /// A stream's entries, staged as it arrived.
    prestaged: Option<&'r Prestaged>,
}

#[allow(clippy::too_many_arguments)]
fn write_all(
    bytes: &Opened<'_>,
    entries: &[Entry],
    locals: Option<&[LocalRef]>,
    root: &Path,
    options: &Options<'_>,
    bytes_total: u64,
    reuse: Reuse<'_>,
) -> Result<Report, Error> {
    let previous = reuse.previous;
    let tree = Tree::plan(root, entries)?;
    let is_file = |&(_, e): &(usize, &Entry)| e.kind == Kind::File;
    let files: Vec<&Entry> = entries.iter().enumerate().filter(is_file).map(|(_, e)| e).collect();
    // Each file's local header, when the worker writing it checks it.
    let file_locals: Option<Vec<&LocalRef>> =
        locals.map(|l| entries.iter().enumerate().filter(is_file).map(|(i, _)| &l[i]).collect());
    // Read as needed: each file's local header still to check.
    let pread_file = file_locals.as_ref().map(|l| (bytes, l));
    // What a file's read must cover: its data, or its local header through its data.
    // An entry staged from a stream as it arrived, and kept (its local header checked), is not
    // read at all.
    let kept = |i: usize| {
        let header = pread_file.map(|(_, l)| l[i].header_offset());
        reuse.prestaged.zip(header).is_some_and(|(p, header)| p.has_header(header))
    };
    let extent = |i: usize| match pread_file {
        Some((_, l)) => (l[i].header_offset(), check_end(l[i], files[i], true)),
        None => (files[i].data_offset, files[i].data_offset + files[i].compressed_size),
    };
    let locate = |i: usize, prefetch: Option<&Prefetch<'_>>| match pread_file {
        Some((file, l)) => file.locate(l[i], files[i], prefetch.map(Prefetch::held)),
        None => Ok(files[i].data_offset),
    };
    // One worker per file at most, plus one per streamed entry to write behind it.
    let streamed = files.iter().filter(|e| e.method == Method::Deflate && e.size > WHOLE_ENTRY_MAX).count();
    let threads = worker_threads(options.threads).min(files.len() + streamed).max(1);
    // Workers keep their own buffers (see `Scratch`), taken from the pool without thread caches;
    // a large entry's chunks go to the worker writing them in the decoder's own window (see
    // `behind`), not through the pool.
    let config = PoolConfig { max_retained_bytes: 8 << 20, thread_cache_buffers: 0, ..PoolConfig::default() };
    let pool = BufferPool::new(config).expect("valid config");
    let batches = batches(&files, threads);
    let share =
        crate::entry::parallel::share(options.parallel_inflate, &files, threads, worker_threads(options.threads));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let (done, bytes_done, reused) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    // Two queued chunks per worker: enough to keep an idle worker writing, little memory.
    let behind = WriteBehind::new(2 * threads, threads);
    let fail = |e: Error| {
        stop.store(true, Ordering::Relaxed);
        failure.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
    };
    let work = || {
        let inflating = behind.inflating();
        let mut inflaters = Inflaters::new(&pool);
        let mut batch_bytes = Scratch::new(&pool);
        'batches: loop {
            // Queued chunks of large entries first: writing them frees their buffers.
            while let Some(written) = behind.write_one() {
                if let Err(e) = written {
                    fail(e);
                    break 'batches;
                }
            }
            let b = next.fetch_add(1, Ordering::Relaxed);
            let Some(batch) = batches.get(b) else { break };
            // Neighbouring small entries of a file-held archive: their data in one read, with
            // their local headers when those are still to check (then even for one entry).
            let extents: Vec<(u64, u64)> = batch.iter().filter(|&&i| !kept(i)).map(|&i| extent(i)).collect();
            let at_least = if pread_file.is_some() { 1 } else { 2 };
            let prefetch = match Prefetch::read(bytes.source(), &extents, at_least, files[batch[0]], &mut batch_bytes) {
                Ok(p) => p,
                Err(e) => {
                    fail(e);
                    break 'batches;
                }
            };
            for &i in batch {
                if stop.load(Ordering::Relaxed) {
                    break 'batches;
                }
                let cancelled = options.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
                let result = if cancelled {
                    Err(Error::Cancelled)
                } else {
                    tree.make_parent(&files[i].path).and_then(|()| {
                        let mtime = if options.no_mtime { None } else { files[i].mtime.unix() };
                        if previous.is_some_and(|p| manifest::reuse(p, files[i], mtime, &tree)) {
                            reused.fetch_add(1, Ordering::Relaxed);
                            Ok(())
                        } else {
                            let durable = options.durable;
                            let halt = Halt { failed: &stop, cancel: options.cancel };
                            if let (Some(staged), Some((_, l))) = (reuse.prestaged, pread_file)
                                && staged.place(files[i], l[i].header_offset(), &tree, mtime, durable)?
                            {
                                return Ok(());
                            }
                            let data_offset = locate(i, prefetch.as_ref())?;
                            let held = prefetch.as_ref().and_then(|p| p.span(files[i], data_offset));
                            let (tree, behind) = (&tree, &behind);
                            let restore_mtime = !options.no_mtime;
                            let job = Job {
                                archive: bytes,
                                data_offset,
                                held,
                                tree,
                                behind,
                                halt: &halt,
                                durable,
                                restore_mtime,
                                trailing: Trailing::strict(options.strict),
                                parallel: options.parallel_inflate,
                                share,
                            };
                            write_file(files[i], &job, &mut inflaters)
                        }
                    })
                };
                if let Err(e) = result {
                    fail(e);
                    break 'batches;
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                let b = bytes_done.fetch_add(files[i].size, Ordering::Relaxed) + files[i].size;
                if let Some(progress) = options.progress {
                    progress(Progress {
                        entries_done: d,
                        entries_total: files.len() as u64,
                        bytes_done: b,
                        bytes_total,
                    });
                }
            }
        }
        // Nothing left to inflate: write what the others inflate until they are done.
        drop(inflating);
        if let Err(e) = behind.help_until_done(|| !stop.load(Ordering::Relaxed)) {
            fail(e);
        }
    };
    // Workers only: the calling thread waits, so progress never runs on it (bindings rely on
    // that: it is a JVM or BEAM thread with its own rules).
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(work);
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    tree.make_all()?;
    if options.incremental {
        manifest::write(root, &files)?;
    }
    if !options.no_mtime {
        restore_late_mtimes(&tree, entries, options.durable)?;
    }
    if options.durable {
        for d in tree.paths().rev().chain(std::iter::once(root.to_path_buf())) {
            crate::sys::sync_dir(&d).map_err(|e| Error::io("syncing", &d, e))?;
        }
    }
    Ok(Report {
        files: files.len() as u64,
        directories: tree.len() as u64,
        bytes: bytes_total,
        skipped: 0,
        reused: reused.into_inner(),
        prepended: 0,
        appended: 0,
        symlinks_skipped: 0,
    })
}

/// Sets the modification times that could not be set as each file was written: those of files
/// written behind in chunks (by then every chunk is in), and those of directories, once nothing
/// more is created in them.
fn restore_late_mtimes(tree: &Tree<'_>, entries: &[Entry], durable: bool) -> Result<(), Error> {
    for e in entries {
        let late = match e.kind {
            Kind::Directory => true,
            Kind::File => crate::extract::write::written_behind(e, durable),
        };
        let Some(time) = late.then(|| e.mtime.unix()).flatten() else { continue };
        tree.set_mtime(&e.path, time)?;
    }
    Ok(())
}

/// Entries above this size are extracted first, largest first, so that no large entry is left
/// for last while the other workers stand idle.
const LARGE_FIRST: u64 = 1 << 20;

/// Most files a worker takes at once from one directory.
const BATCH_FILES: usize = 32;

/// What creating one file costs, in the bytes of inflating and writing that cost as much (tmpfs,
/// `bench-reports/asset-extract/phases.sh`: creating the 222 files of the APK-shaped archive took a
/// fifth of what inflating and writing their 5.2 MB did).
const FILE_COST: u64 = 8 << 10;

/// The order workers take files in, as batches claimed one at a time: large files first (largest
/// first), each alone; then the rest in archive order, in runs of files of one directory, so that
/// workers mostly create files in different directories (creating a file locks its directory).
/// Runs shrink as the work left does (guided scheduling): each costs at most what is left divided
/// by twice the workers, so the last batches are single files and no worker finishes a long batch
/// while the others stand idle.
fn batches(files: &[&Entry], threads: usize) -> Vec<Vec<usize>> {
    let mut large: Vec<usize> = (0..files.len()).filter(|&i| files[i].size > LARGE_FIRST).collect();
    large.sort_by_key(|&i| std::cmp::Reverse(files[i].size));
    let mut out: Vec<Vec<usize>> = large.into_iter().map(|i| vec![i]).collect();
    let small: Vec<usize> = (0..files.len()).filter(|&i| files[i].size <= LARGE_FIRST).collect();
    let cost = |i: usize| files[i].size + FILE_COST;
    let mut left: u64 = small.iter().map(|&i| cost(i)).sum();
    let share = 2 * threads.max(1) as u64;
    let parent = |i: usize| files[i].path.rsplit_once('/').map(|(p, _)| p);
    let mut run: Vec<usize> = Vec::new();
    let mut run_cost = 0u64;
    for i in small {
        let full = run.len() == BATCH_FILES || run_cost + cost(i) > (left / share).max(cost(i));
        if !run.is_empty() && (full || run.last().is_some_and(|&last| parent(last) != parent(i))) {
            left -= run_cost;
            run_cost = 0;
            out.push(std::mem::take(&mut run));
        }
        run.push(i);
        run_cost += cost(i);
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}

/// Extracts into memory instead of to disk: every selected file's path and bytes, in archive
/// order, returned only if every entry verified (the same checks, patterns and limits as
/// [`extract_bytes`]; `mode`, `threads`, `durable` and `incremental` do not apply, and names that
/// differ only in case are refused only with `fold_case`). Each file is held at
/// its declared size, which parsing bounds by what its compressed data can inflate to; set a
/// `quota` to bound the total.
///
/// ```
/// # let archive: Vec<u8> = Vec::new();
/// # if !archive.is_empty() {
/// for (path, bytes) in asset_extract::extract_to_memory(&archive, &Default::default())? {
///     println!("{path}: {} bytes", bytes.len());
/// }
/// # }
/// # Ok::<(), asset_extract::Error>(())
/// ```
pub fn extract_to_memory(data: &[u8], options: &Options<'_>) -> Result<Vec<(String, Vec<u8>)>, Error> {
    if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(Error::Cancelled);
    }
    let entries: Vec<Entry> =
        select(read_archive(data)?, None, options)?.entries.into_iter().filter(|e| e.kind == Kind::File).collect();
    let archive = Opened::borrowed(data);
    let mut decoder = None;
    let mut out = Vec::with_capacity(entries.len());
    for (done, e) in entries.iter().enumerate() {
        if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Error::Cancelled);
        }
        let size =
            usize::try_from(e.size).map_err(|_| Error::malformed_entry("size does not fit in memory", &e.path))?;
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(size)
            .map_err(|_| Error::Limit { entry: e.path.clone(), reason: "out of memory".into() })?;
        bytes.resize(size, 0);
        let threads = worker_threads(options.threads);
        let share =
            Share { cores: crate::entry::parallel::cores_for(options.parallel_inflate, e), decode_threads: threads };
        let ask = Ask::new(Output::Whole)
            .parallel(options.parallel_inflate, Some(share))
            .trailing(Trailing::strict(options.strict));
        let tools = WholeTools { decoder: &mut decoder, scratch: &mut Vec::new() };
        decoding(archive.input(e.data_offset, e), e, ask)?.into_slice(&mut bytes, tools, true)?;
        if let Some(progress) = options.progress {
            progress(Progress {
                entries_done: done as u64 + 1,
                entries_total: entries.len() as u64,
                bytes_done: 0,
                bytes_total: 0,
            });
        }
        out.push((e.path.clone(), bytes));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::matches;

    fn file(path: String, size: u64) -> crate::read::entry::Entry {
        crate::read::entry::Entry {
            path,
            kind: crate::read::names::Kind::File,
            mode: 0o644,
            method: crate::read::entry::Method::Deflate,
            crc32: 0,
            compressed_size: size / 4,
            size,
            data_offset: 0,
            mtime: crate::read::entry::Mtime::Dos(0),
        }
    }

    #[test]
    fn batches_hand_out_every_file_once_large_first_then_shrinking_runs_of_one_directory() {
        let mut entries: Vec<_> = (0..200).map(|i| file(format!("assets/{i}.js"), 20_000 + i * 300)).collect();
        entries.extend((0..22).map(|i| file(format!("res/{i}.png"), 3_000)));
        entries.insert(7, file("lib/big.so".into(), 5 << 20));
        entries.insert(50, file("lib/bigger.so".into(), 9 << 20));
        let files: Vec<_> = entries.iter().collect();
        for threads in [1, 2, 8] {
            let batches = super::batches(&files, threads);
            let mut seen: Vec<usize> = batches.iter().flatten().copied().collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..files.len()).collect::<Vec<_>>(), "every file exactly once");
            assert_eq!(batches[0], vec![50], "largest first");
            assert_eq!(batches[1], vec![7]);
            for batch in &batches[2..] {
                let dir = |i: usize| files[i].path.rsplit_once('/').unwrap().0;
                assert!(batch.iter().all(|&i| dir(i) == dir(batch[0])), "one directory per batch");
                assert!(batch.len() <= super::BATCH_FILES);
            }
            let assets: Vec<usize> =
                batches.iter().filter(|b| files[b[0]].path.starts_with("assets/")).map(Vec::len).collect();
            assert!(assets.windows(2).all(|w| w[0] >= w[1]), "runs only shrink: {assets:?}");
            assert_eq!(*batches.last().unwrap(), vec![files.len() - 1], "the last batch is one file");
            assert!(assets.len() < 200 / 2, "still batched, not one claim per file: {assets:?}");
        }
    }

    #[test]
    fn patterns_match_as_documented() {
        assert!(
            matches("assets/", "assets/app.js") && matches("assets/", "assets") && !matches("assets/", "assetsx/a")
        );
        assert!(matches("*.js", "a/b/c.js") && !matches("*.js", "a/b/c.jsx"));
        assert!(matches("a/*/c.?s", "a/bbb/c.js") && !matches("a/*/c.?s", "a/bbb/c.jss"));
        assert!(matches("*", "") && matches("**", "x") && !matches("?", ""));
        assert!(matches("r?sum?.txt", "résumé.txt"), "? is one character, not one byte");
        assert!(matches("*a*b*c*", "xxaxxbxxcxx") && !matches("*a*b*c*", "xxaxxcxxbxx"));
        assert!(matches("exact", "exact") && !matches("exact", "exactly"));
    }

    #[test]
    fn a_long_path_and_many_stars_take_neither_deep_stack_nor_exponential_time() {
        let path = format!("{}b", "a".repeat(4000));
        let pattern = "*a".repeat(30) + "*c";
        let start = std::time::Instant::now();
        let matched = std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || matches(&pattern, &path))
            .unwrap()
            .join()
            .unwrap();
        assert!(!matched);
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "backtracking blew up");
    }
}
