//! What an extraction is asked ([`Options`], the `only` patterns' [`matches`]) and what it tells
//! back ([`Progress`], [`Report`]): shared by extraction from a file, memory, a caller's source
//! and a stream.

use std::sync::atomic::AtomicBool;

use crate::extract::destination::Mode;

/// How to extract.
#[derive(Default)]
pub struct Options<'a> {
    /// What may happen to an existing destination: created only (the default), replaced as a
    /// whole, or merged into. See [`Mode`].
    pub mode: Mode,
    /// Refuse names that differ only in case even where the destination's file system keeps them
    /// apart (they are always refused where it folds case, which is detected).
    pub fold_case: bool,
    /// Refuse every name Windows reads otherwise than it is stored, as extraction on Windows
    /// always does: a colon (an alternate data stream), `< > " | ? *` and control characters, a
    /// trailing dot or space, a reserved device name with any extension (`CON`, `nul.txt`,
    /// `COM1`, `LPT1`), an 8.3 short name (`GIT~1`), and names that differ only in case. For
    /// archives bound for Windows as well: on Linux such names are legal and extracted as they are.
    pub portable_names: bool,
    /// Map the archive instead of reading it with `pread` ([`extract`](crate::extract()) only): the file must not
    /// be truncated or rewritten while it is extracted, or the process dies of SIGBUS, and a JVM
    /// or BEAM with it. Only for archives nothing else writes (an installed APK). By default the
    /// archive is read, only where it must be, so a change underneath is at worst a clean error.
    pub map_archive: bool,
    /// Skip symlink entries (counted in [`Report::symlinks_skipped`]) instead of refusing the
    /// archive, the default. A link is never created either way: extracted links are how archives
    /// write outside their destination.
    pub skip_symlinks: bool,
    /// Refuse archives with other data before or after the zip part, or whose end record's
    /// comment runs past the end of the file, and entries whose compressed data goes on after
    /// their stream ends (all accepted by default when every offset agrees with one reading, as
    /// `unzip`, Python's `zipfile` and the JDK read them; for every method). An archive the bytes
    /// admit two readings of is refused either way ([`Error::Ambiguous`](crate::Error::Ambiguous)).
    pub strict: bool,
    /// Worker threads; 0 means one per core. At most [`MAX_THREADS`] are started, and no more
    /// than there are files to write (or, replacing a tree, directories to remove). An entry
    /// inflated on several cores ([`parallel_inflate`](Self::parallel_inflate)) uses this many
    /// decoding threads.
    pub threads: usize,
    /// Whether a large deflated entry is inflated on several cores: by the rule of
    /// [`inflate_in_parallel`](crate::inflate_in_parallel) (the default), always, or never. The
    /// bytes written, and every error, are the same either way.
    pub parallel_inflate: crate::ParallelInflate,
    /// Extract only entries matching one of these patterns (`*` any run of characters, `?` one
    /// character, a pattern ending in `/` matches everything under it); empty means all.
    pub only: Vec<String>,
    /// Refuse archives that would write more than this many bytes in all.
    pub quota: Option<u64>,
    /// Refuse entries that inflate to more than this many times their compressed size.
    pub max_ratio: Option<f64>,
    /// fsync every file and directory before the destination is replaced.
    pub durable: bool,
    /// Leave files and directories with the time of the extraction. By default they get the
    /// modification time the archive records: its extended-timestamp (0x5455) or NTFS (0x000a)
    /// extra field, else its DOS date and time read as local time, as `unzip` does. (A directory
    /// gets its own only when the archive has an entry for it.)
    pub no_mtime: bool,
    /// Called after each entry with (entries done, entries total, bytes done, bytes total), from
    /// the worker thread that finished it (so possibly from several threads at once; never from the
    /// thread that called the extraction).
    pub progress: Option<&'a (dyn Fn(Progress) + Sync)>,
    /// Set to stop early: extraction fails with [`Error::Cancelled`](crate::Error::Cancelled) and leaves nothing behind.
    pub cancel: Option<&'a AtomicBool>,
    /// The app-upgrade case: keep a manifest (`.bufkit-manifest`) in the destination, and on the
    /// next incremental extraction hard-link every file whose size, CRC-32 and mode are unchanged
    /// (and its modification time is the one the archive now records, unless
    /// [`no_mtime`](Self::no_mtime): a kept file then keeps the time of the extraction that wrote
    /// it) from the existing destination instead of writing it again; files gone from the archive
    /// disappear. Still all or nothing. Kept files are trusted to be as the last extraction left
    /// them (their size and type are checked, not their bytes); they are reached without following any
    /// symlink, so nothing outside the destination is ever kept. A merge into the destination
    /// removes its manifest, so the run after it writes every file afresh. The destination rules
    /// of `mode` apply (replacing an earlier extraction needs [`Mode::Replace`]); merge is refused.
    pub incremental: bool,
}

/// Where an extraction stands, for a progress callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Entries inflated and verified so far (the last chunks of a large one may still be on their
    /// way to its file: the extraction returns only when everything is written).
    pub entries_done: u64,
    /// Entries to write.
    pub entries_total: u64,
    /// Bytes of those entries.
    pub bytes_done: u64,
    /// Bytes to write.
    pub bytes_total: u64,
}

/// What an extraction did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    /// Regular files written.
    pub files: u64,
    /// Directories created (explicit entries and implied parents).
    pub directories: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Entries left out by the `only` patterns.
    pub skipped: u64,
    /// Files kept from the previous extraction (incremental mode) rather than written.
    pub reused: u64,
    /// Bytes of other data before the zip part (a `.jmod` header, a self-extractor's stub).
    pub prepended: u64,
    /// Bytes of other data after the archive's end record and comment.
    pub appended: u64,
    /// Symlink entries skipped (with [`Options::skip_symlinks`]).
    pub symlinks_skipped: u64,
}

/// The most threads an extraction starts, whatever [`Options::threads`] asks: past a few per
/// core more threads only add their stacks and their contention.
pub const MAX_THREADS: usize = 256;

/// The number of threads `threads` asks for: itself, or one per core for 0; at most
/// [`MAX_THREADS`].
pub(crate) fn worker_threads(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(MAX_THREADS)
}

/// Whether `path` matches `pattern` as [`Options::only`] matches it (`*` any run of characters,
/// `?` one character, or a `dir/` prefix). A loop that backtracks only to the last `*`: linear
/// stack and O(pattern × path) time whatever the (archive-supplied, possibly 4 KiB) path.
///
/// ```
/// assert!(asset_extract::matches_pattern("assets/*.js", "assets/app.js"));
/// assert!(asset_extract::matches_pattern("assets/", "assets/js/app.js"));
/// assert!(!asset_extract::matches_pattern("assets/?.js", "assets/app.js"));
/// ```
pub fn matches(pattern: &str, path: &str) -> bool {
    if let Some(dir) = pattern.strip_suffix('/') {
        return path == dir || path.starts_with(pattern);
    }
    let (p, s) = (pattern.as_bytes(), path.as_bytes());
    // Bytes in the UTF-8 character starting at `s[i]` (paths are valid UTF-8).
    let char_len = |i: usize| path[i..].chars().next().map_or(1, char::len_utf8);
    let (mut pi, mut si) = (0, 0);
    // After the last `*` seen: where the pattern resumes, and where in `path` the `*` stopped.
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(b'*') => {
                star = Some((pi + 1, si));
                pi += 1;
            }
            Some(b'?') => {
                pi += 1;
                si += char_len(si);
            }
            Some(&c) if c == s[si] => {
                pi += 1;
                si += 1;
            }
            _ => match star {
                // Let the last `*` take one more character, and try again from there.
                Some((resume, taken)) => {
                    let next = taken + char_len(taken);
                    star = Some((resume, next));
                    (pi, si) = (resume, next);
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}
