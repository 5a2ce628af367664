//! `bk_extract`: safe, parallel, all-or-nothing zip extraction, with options, progress and cancellation.

use bufkit_ffi_macros::{Boundary, export};
use std::ffi::{CStr, c_char, c_void};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use asset_extract::{Error, Mode, Options, Progress};

use crate::macros::{checked_c_str, handle_free, handle_new, set_c_string};
use crate::source::{CallbackSource, bk_source};
use crate::status::bk_status;

/// Called with progress from the worker thread that finished an entry: possibly several threads
/// at once, never after `bk_extract` returns. It must not call back into the same extraction.
pub type bk_progress_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        entries_done: u64,
        entries_total: u64,
        bytes_done: u64,
        bytes_total: u64,
    ),
>;

/// What may happen to an existing destination, as values of `bk_extract_options.mode`. A
/// refusal is `BK_STATUS_DESTINATION_REFUSED`, with nothing touched.
///
/// | mode | absent | empty directory | non-empty directory | anything else |
/// |---|---|---|---|---|
/// | CREATE (default) | created | filled | refused | refused |
/// | REPLACE | created | replaced | replaced as a whole, atomically | refused |
/// | MERGE | created | filled | files added, same-named files replaced | refused |
///
/// "Anything else" includes a symlink, never followed. REPLACE also refuses `/`, a mount point,
/// `.`/`..` in any spelling, and the current or home directory or any directory holding them.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum bk_extract_mode {
    /// The destination must not exist, or be an empty directory.
    BK_EXTRACT_CREATE = 0,
    /// An existing directory is replaced as a whole once every entry has verified.
    BK_EXTRACT_REPLACE = 1,
    /// Files are added into an existing directory, unzip-style: each written and verified under a
    /// temporary name inside it, then renamed into place. Symlinks in it are never followed. A
    /// conflict (a path needed as a directory that is something else) is refused before any file
    /// moves; an I/O error after that leaves the files already moved (complete and verified) in
    /// place and says how many in the detail text.
    BK_EXTRACT_MERGE = 2,
}

/// When a large deflated entry is inflated on several cores, as values of
/// `bk_extract_options.parallel_inflate` and `bk_archive_set_parallel_inflate`'s `mode`. The bytes
/// and every check are the same either way; only the time and the cores used differ.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum bk_parallel_inflate {
    /// By the rule (the default): an entry inflating to 20 MiB or more, when the process may run
    /// on 4 cores or more (its CPU affinity and cgroup quota). Below either, the work of cutting
    /// the stream into chunks decoded without their window costs more than it wins back.
    BK_PARALLEL_INFLATE_AUTO = 0,
    /// Every deflated entry, whatever its size and the cores (an entry of one 4 MiB chunk or less
    /// is decoded by one thread).
    BK_PARALLEL_INFLATE_ALWAYS = 1,
    /// Never: each entry on one core.
    BK_PARALLEL_INFLATE_NEVER = 2,
}

impl bk_parallel_inflate {
    /// The mode for a C value, `None` for an unknown one.
    pub(crate) fn from_code(code: u64) -> Option<asset_extract::ParallelInflate> {
        use asset_extract::ParallelInflate;
        [ParallelInflate::Auto, ParallelInflate::Always, ParallelInflate::Never]
            .get(usize::try_from(code).ok()?)
            .copied()
    }
}

/// Extraction options, size-first so that the struct can grow: declare it as
/// `bk_extract_options options = {.size = sizeof options};` and set the fields you need. Every
/// field's zero is its default (create mode, one thread per core, every entry, no quota or ratio
/// limit, not durable, modification times restored, no progress, no cancellation), so a caller
/// sets only what it changes, and a program built against an older header works with a newer
/// library. The library reads the fields that fit in `size`: those past it keep their defaults;
/// bytes past the fields this library knows (a newer program) must be zero, else the call is
/// `BK_STATUS_INVALID_ARGUMENT` (an option asked for is never silently ignored), as Linux's
/// `openat2` and `clone3` treat their size-first structs. Read once at the start of `bk_extract`;
/// one struct may serve many extractions, and the library keeps no pointer into it (only the
/// `only` strings, the callback and the cancellation flag it points to, for the call).
///
/// This struct is the one description of the options: the Java record, both Java fronts' and the
/// Erlang NIF's marshalling are generated from it (`cargo xtask bindings`). Every
/// field of Rust's `asset_extract::Options` is here but one, `map_archive`: through the ABI the
/// archive is always read, never mapped, so a file changed while it is extracted is an error,
/// never a `SIGBUS` in the host process (`bk_archive_open` offers mapping, where the caller
/// promises the file will not change).
#[repr(C)]
#[derive(Debug, Clone, Copy, Boundary)]
pub struct bk_extract_options {
    /// `sizeof(bk_extract_options)` as the caller was compiled. Less than
    /// `BK_EXTRACT_OPTIONS_MIN_SIZE` is `BK_STATUS_INVALID_ARGUMENT`.
    #[binding(size)]
    pub size: u64,
    /// What may happen to an existing destination: a `bk_extract_mode` (default
    /// `BK_EXTRACT_CREATE`); another value is `BK_STATUS_INVALID_ARGUMENT`.
    #[binding(enumeration(c = "bk_extract_mode", java = "ExtractMode"))]
    pub mode: u32,
    /// Worker threads; 0 (the default) means one per core. At most 256 are started, and no more
    /// than there are files to write (or, replacing a tree, directories to remove).
    pub threads: u32,
    /// Refuse archives that would write more than this many bytes in all; 0 (the default) for no
    /// quota.
    pub quota: u64,
    /// Refuse entries inflating to more than this many times their compressed size; 0 (the
    /// default) for no limit. Negative or not finite is `BK_STATUS_INVALID_ARGUMENT`.
    pub max_ratio: f64,
    /// Refuse entry names that differ only in case even where the destination's file system keeps
    /// them apart (they are always refused where it folds case, which is detected).
    #[binding(flag)]
    pub fold_case: u32,
    /// Refuse archives with other data prepended to the zip part (by default accepted when every
    /// offset reads consistently shifted by it, as for a `.jmod` or a self-extractor), data
    /// appended after it, an end record's comment cut short by the end of the file, or an entry
    /// whose compressed data goes on after its stream ends (by default read past, in every method,
    /// as unzip and Python read it; the readers `bk_archive_*` always read past it).
    #[binding(flag)]
    pub strict: u32,
    /// Skip symlink entries instead of refusing the archive (the default). A link is never
    /// created either way.
    #[binding(flag)]
    pub skip_symlinks: u32,
    /// Sync every file and directory to disk before the destination is replaced.
    #[binding(flag)]
    pub durable: u32,
    /// Leave files and directories with the time of the extraction. By default they get the
    /// modification time the archive records: its extended-timestamp (0x5455) or NTFS (0x000a)
    /// extra field, else its DOS date and time read as local time, as `unzip` does (a directory
    /// gets its own only when the archive has an entry for it).
    #[binding(flag)]
    pub no_mtime: u32,
    /// Incremental mode. The destination keeps a manifest (`.bufkit-manifest`); on the next
    /// incremental extraction unchanged files (same size, CRC-32 and mode, and the modification
    /// time the archive now records, unless `no_mtime`) are hard-linked from the existing
    /// destination instead of written, and files gone from the archive disappear. With
    /// `no_mtime` a kept file keeps the time of the extraction that wrote it. A
    /// merge (`BK_EXTRACT_MERGE`) into the destination removes the manifest, so the incremental
    /// run after it writes every file afresh instead of keeping files the merge replaced.
    #[binding(flag)]
    pub incremental: u32,
    /// Report progress at most once every this many milliseconds, plus always the last report
    /// (every entry done), which is then the last one; reports then never overlap. 0 (the
    /// default) reports every entry as it is done, from any worker thread, possibly at once.
    /// Bindings that pay per report (a message to a BEAM process, a JVM upcall) set an interval.
    pub progress_interval_ms: u32,
    /// Patterns (`*`, `?`, or `dir/`; UTF-8, NUL-terminated) of the entries to extract: `only_len`
    /// of them. With none (the default), every entry is extracted; matching nothing is
    /// `BK_STATUS_NOTHING_SELECTED`.
    #[binding(hand(
        java = "java.util.List<String>",
        java_default = "java.util.List.of()",
        erlang = "only",
        erlang_type = "[unicode:chardata()]",
        why = "a list of strings: each front copies its own"
    ))]
    pub only: *const *const c_char,
    /// How many `only` patterns there are.
    #[binding(hand(why = "the length of the list the bindings pass as `only`"))]
    pub only_len: usize,
    /// Called with progress (NULL for none), from the extraction's worker threads, never after
    /// `bk_extract` returns; it must not call back into the same extraction. In Erlang, a pid that
    /// receives `{bufkit_extract_progress, EntriesDone, EntriesTotal, BytesDone, BytesTotal}`
    /// messages (with `progress_interval_ms` 50 unless given).
    #[binding(hand(
        java = "ProgressListener",
        java_default = "null",
        erlang = "progress",
        erlang_type = "pid()",
        why = "a callback: an upcall stub in Panama, a global reference in JNI, a pid in Erlang"
    ))]
    pub progress: bk_progress_fn,
    /// Passed to `progress`.
    #[binding(hand(why = "the context of the callback each front makes for `progress`"))]
    pub progress_user_data: *mut c_void,
    /// A cancellation flag to watch (NULL for none); it must outlive the extraction.
    #[binding(hand(
        java = "ExtractCancel",
        java_default = "null",
        why = "an Erlang caller cancels by dying: the NIF watches it (killing_the_caller_cancels_the_extraction)"
    ))]
    pub cancel: *const bk_cancel,
    /// When a large deflated entry is inflated on several cores (using `threads` decoding
    /// threads): a `bk_parallel_inflate` (default `BK_PARALLEL_INFLATE_AUTO`); another value is
    /// `BK_STATUS_INVALID_ARGUMENT`. The files written, and every error, are the same either way.
    #[binding(enumeration(c = "bk_parallel_inflate", java = "ParallelInflate"))]
    pub parallel_inflate: u64,
    /// Refuse, with `BK_STATUS_UNSAFE_NAME` naming the entry, every name that Windows reads
    /// otherwise than it is stored, on every system: reserved device names with any extension
    /// (`CON`, `NUL`, `COM1`, `LPT1.txt`), trailing dots and spaces, alternate data streams
    /// (`a:b`), characters Windows does not allow, 8.3 short names (`GIT~1`), and names that
    /// differ only in case. For archives bound for Windows and other systems alike. On Windows
    /// these are refused whatever this says; backslashes, drive letters and UNC prefixes are
    /// refused everywhere always.
    #[binding(flag)]
    pub portable_names: u64,
}

/// The smallest `bk_extract_options.size` accepted: the options of ABI version 3, the first with
/// a size (up to and including `cancel`). Fields are only ever added after it, each of 8 bytes
/// (`uint64_t`, `double` or a pointer), so the struct has no padding past it for the library to
/// misread (`cargo xtask bindings` checks both).
pub const BK_EXTRACT_OPTIONS_MIN_SIZE: u64 = 104;

const _: () = assert!(size_of::<bk_extract_options>() as u64 >= BK_EXTRACT_OPTIONS_MIN_SIZE);

/// A cancellation flag: `bk_cancel_request` from any thread makes the extractions that use it stop
/// with `BK_STATUS_CANCELLED`, leaving nothing behind. Thread-safe. Created by `bk_cancel_new`,
/// freed by `bk_cancel_free`; must outlive every extraction that uses it.
///
/// Methods: (listed in include/bufkit.h)
pub struct bk_cancel {
    flag: AtomicBool,
}

/// What an extraction did, filled by `bk_extract`. Its first field says how large the caller's
/// struct is, so that the struct can grow: declare it as `bk_extract_report report = {.size =
/// sizeof report};`. The library fills the fields that fit in `size` and leaves the rest as they were, so
/// a program built against an older header works with a newer library, and a newer program with
/// an older library (whatever that library does not know stays as the program set it). Like
/// `bk_extract_options`, it is the one description the bindings' reports are generated from.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Boundary)]
pub struct bk_extract_report {
    /// `sizeof(bk_extract_report)` as the caller was compiled: set by the caller before the call,
    /// never written by the library. Less than `BK_EXTRACT_REPORT_MIN_SIZE` is
    /// `BK_STATUS_INVALID_ARGUMENT`.
    #[binding(size)]
    pub size: u64,
    /// Regular files written.
    pub files: u64,
    /// Directories created.
    pub directories: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Entries left out by the `only` patterns.
    pub skipped: u64,
    /// Files kept from the previous extraction (incremental mode) rather than written.
    pub reused: u64,
    /// Bytes of other data before the zip part (a `.jmod` header, a self-extractor's stub), read
    /// past (refused with `bk_extract_options.strict`).
    pub prepended: u64,
    /// Bytes of other data after the archive's end record and comment, ignored (refused with
    /// `bk_extract_options.strict`).
    pub appended: u64,
    /// Symlink entries skipped (with `bk_extract_options.skip_symlinks`).
    pub symlinks_skipped: u64,
}

/// The smallest `bk_extract_report.size` accepted: the report of ABI version 2, the first with a
/// size (every field above).
pub const BK_EXTRACT_REPORT_MIN_SIZE: u64 = 72;

const _: () = assert!(size_of::<bk_extract_report>() as u64 == BK_EXTRACT_REPORT_MIN_SIZE);

/// The caller's report: its `size` read (the one field the caller sets), the rest written.
struct ReportOut {
    /// NULL when the caller wants no report.
    ptr: *mut bk_extract_report,
    size: u64,
}

impl ReportOut {
    /// Checks `ptr` and reads its `size`; NULL asks for no report.
    ///
    /// # Safety
    /// `ptr` is NULL, or its `size` field is readable and initialised and `size` bytes from it
    /// are writable and not otherwise accessed during the call.
    unsafe fn new(ptr: *mut bk_extract_report) -> Result<ReportOut, bk_status> {
        if ptr.is_null() {
            return Ok(ReportOut { ptr, size: 0 });
        }
        if !ptr.is_aligned() {
            return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
        }
        // SAFETY: non-null and aligned; the caller set `size`, per the contract.
        let size = unsafe { std::ptr::addr_of!((*ptr).size).read() };
        if size < BK_EXTRACT_REPORT_MIN_SIZE {
            return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
        }
        Ok(ReportOut { ptr, size })
    }

    /// Writes the fields of `report` that fit in the caller's `size`, `size` itself excepted.
    fn write(&mut self, report: &bk_extract_report) {
        if self.ptr.is_null() {
            return;
        }
        let first = size_of::<u64>();
        let end = (self.size.min(size_of::<bk_extract_report>() as u64)) as usize;
        // SAFETY: `report` is a whole struct of u64s (no padding), so its bytes are initialised;
        // the caller's `size` >= `end` bytes are writable (ReportOut::new's contract); the two
        // cannot overlap (one is a local).
        unsafe {
            std::ptr::copy_nonoverlapping(
                std::ptr::from_ref(report).cast::<u8>().add(first),
                self.ptr.cast::<u8>().add(first),
                end - first,
            );
        }
    }
}

/// Why an extraction failed, filled by `bk_extract_detailed`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bk_extract_failure {
    /// The `errno` of the system call that failed (`ENOENT`, `ENOSPC`, `EACCES`...) for
    /// `BK_STATUS_IO_ERROR`; 0 otherwise. On Windows, the C runtime's errno value for what the
    /// Win32 error was (`ENOENT` for a file not found).
    pub os_error: i32,
    /// The entry at fault, or for `BK_STATUS_IO_ERROR` and `BK_STATUS_DESTINATION_REFUSED` the
    /// path concerned; empty if none. NUL-terminated, truncated to fit.
    pub path: [c_char; 4096],
    /// One line saying what went wrong. NUL-terminated, truncated to fit.
    pub detail: [c_char; 1024],
}

/// Creates a cancellation flag, not yet set.
///
/// # Safety
/// `cancel_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_cancel_new(#[out = std::ptr::null_mut()] cancel_out: *mut *mut bk_cancel) -> bk_status {
    handle_new(cancel_out, bk_cancel { flag: AtomicBool::new(false) })
}

/// Sets the flag: extractions watching it stop. Thread-safe.
///
/// # Safety
/// `cancel` is live.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_cancel_request(#[live] cancel: *const bk_cancel) -> bk_status {
    cancel.flag.store(true, Ordering::Relaxed);
    Ok(())
}

/// Frees a cancellation flag. NULL does nothing.
///
/// # Safety
/// `cancel` is NULL or came from `bk_cancel_new`, is not freed yet, and no extraction uses it.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_cancel_free(#[raw] cancel: *mut bk_cancel) {
    // SAFETY: NULL, or from bk_cancel_new (handle_new), freed once per the contract.
    unsafe { handle_free(cancel) }
}

pub(crate) fn status_of(e: &Error) -> bk_status {
    match e {
        Error::Malformed { .. } => bk_status::BK_STATUS_ARCHIVE_MALFORMED,
        Error::UnsafeName { .. } => bk_status::BK_STATUS_UNSAFE_NAME,
        Error::UnsupportedKind { .. } | Error::UnsupportedMethod { .. } => bk_status::BK_STATUS_UNSUPPORTED_ENTRY,
        Error::Encrypted { .. } => bk_status::BK_STATUS_ENCRYPTED,
        Error::Data { source, .. } => source.clone().into(),
        Error::Crc { .. } => bk_status::BK_STATUS_CRC_MISMATCH,
        Error::Limit { .. } => bk_status::BK_STATUS_LIMIT_EXCEEDED,
        Error::Cancelled => bk_status::BK_STATUS_CANCELLED,
        Error::Destination { .. } => bk_status::BK_STATUS_DESTINATION_REFUSED,
        Error::NothingSelected { .. } => bk_status::BK_STATUS_NOTHING_SELECTED,
        Error::Ambiguous { .. } => bk_status::BK_STATUS_ARCHIVE_AMBIGUOUS,
        Error::OutOfRange { .. } => bk_status::BK_STATUS_OUT_OF_RANGE,
        Error::CheckpointsRefused { .. } => bk_status::BK_STATUS_CHECKPOINTS_REFUSED,
        Error::Io { .. } => bk_status::BK_STATUS_IO_ERROR,
        _ => bk_status::BK_STATUS_ARCHIVE_MALFORMED,
    }
}

/// Extracts the archive at `archive_path` into `dest_path` (both UTF-8, NUL-terminated), as the
/// options' `bk_extract_mode` allows (by default the destination must not exist or be an empty
/// directory); nothing at the destination changes unless every entry has verified, and on any
/// failure nothing is left behind. A cancellation flag already set when the call starts is
/// honoured at once, whatever the archive holds. Files are created with mode 0644, or 0755 where
/// the archive marks them executable; directories 0755 (never setuid, setgid or sticky).
/// `options` may be NULL for the defaults (see `bk_extract_options`).
/// On success `*report_out` is filled (as far as its `size` says: see `bk_extract_report`; NULL
/// for no report). On
/// failure, if given, `entry_buf` receives the name of the
/// entry at fault (empty if none) and `detail_buf` a one-line description, both NUL-terminated and
/// truncated to fit. Failures: `BK_STATUS_ARCHIVE_MALFORMED`, `BK_STATUS_UNSAFE_NAME`,
/// `BK_STATUS_UNSUPPORTED_ENTRY`, `BK_STATUS_ENCRYPTED`, `BK_STATUS_CRC_MISMATCH`,
/// `BK_STATUS_LIMIT_EXCEEDED`, `BK_STATUS_CANCELLED`, `BK_STATUS_DESTINATION_REFUSED`,
/// `BK_STATUS_NOTHING_SELECTED`, `BK_STATUS_ARCHIVE_AMBIGUOUS` (the bytes admit two readings:
/// two end records describing different central directories), `BK_STATUS_IO_ERROR`, and the inflate
/// statuses for bad entry data. The archive is read with `pread`, only where it must be: its end
/// records and central directory, then the selected entries' local headers and data (entries left
/// out are not read), so memory stays bounded whatever the archive's size (the central
/// directory's index plus a few MiB per thread: under 32 MiB of peak RSS with 2 threads on 36,674
/// entries). One truncated or
/// rewritten while it is extracted gives `BK_STATUS_IO_ERROR` or `BK_STATUS_ARCHIVE_MALFORMED`,
/// never a signal in the host process; a path that is not a regular file (a FIFO, a device) is
/// `BK_STATUS_IO_ERROR` at once, never a wait.
///
/// # Safety
/// `archive_path` and `dest_path` are NUL-terminated strings; `options` is NULL, or its `size` is
/// set and `size` bytes from it are readable, and its pointers are as its fields' docs say;
/// `report_out` is NULL, or its `size` is set and `size` bytes from it are writable; `entry_buf`
/// and `detail_buf` are NULL or writable for `entry_buf_len` and `detail_buf_len` bytes.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_extract(
    #[c_str] archive_path: *const c_char,
    #[c_str] dest_path: *const c_char,
    #[raw] options: *const bk_extract_options,
    #[raw] report_out: *mut bk_extract_report,
    #[text_out(entry_buf_len)] entry_buf: *mut c_char,
    entry_buf_len: usize,
    #[text_out(detail_buf_len)] detail_buf: *mut c_char,
    detail_buf_len: usize,
) -> bk_status {
    // SAFETY: NULL or a report whose `size` is set, per the `# Safety` section.
    let report_out = unsafe { ReportOut::new(report_out) }?;
    // SAFETY: NULL or options whose `size` is set and readable for `size` bytes, per the section.
    let options = unsafe { OptionsIn::read(options) }?;
    if let Some((status, e)) = run_extract(Archive::Path(archive_path), dest_path, &options, report_out)? {
        entry_buf.set(e.entry().unwrap_or(""));
        detail_buf.set(&e.to_string());
        return Err(status);
    }
    Ok(())
}

/// Like `bk_extract`, with the failure described in `*failure_out` (NULL allowed): the OS error
/// of a failed system call, and the path concerned, as language bindings need to raise
/// `{error, {enoent, Path}}` or `NoSuchFileException`. On success `*failure_out` is zeroed.
///
/// # Safety
/// `archive_path` and `dest_path` are NUL-terminated strings; `options` is NULL, or its `size` is
/// set and `size` bytes from it are readable, and its pointers are as its fields' docs say;
/// `report_out` is NULL, or its `size` is set and `size` bytes from it are writable;
/// `failure_out` is NULL or valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_extract_detailed(
    #[raw] archive_path: *const c_char,
    #[raw] dest_path: *const c_char,
    #[raw] options: *const bk_extract_options,
    #[raw] report_out: *mut bk_extract_report,
    #[raw] failure_out: *mut bk_extract_failure,
) -> bk_status {
    // SAFETY: archive_path is NULL or NUL-terminated, per the `# Safety` section; NULL is refused
    // (as `#[c_str]` would), in the body so that `*failure_out` is written whatever fails.
    let archive = unsafe { checked_c_str(archive_path) }.map(Archive::Path);
    // SAFETY: as the `# Safety` section says of each.
    unsafe { extract_described(archive, dest_path, options, report_out, failure_out) }
}

/// Like `bk_extract_detailed`, the archive's bytes served by the caller through `source` (see
/// `bk_source`): the same checks, refusals and statuses as for a file, only what is selected read,
/// through `source->read_at` from the extraction's threads. Before anything is put in place, the
/// entries written must have verified; a source that fails, answers short or changes its answers
/// gives a status and leaves nothing at `dest_path`. `source->release` is called before this
/// returns, whatever the status (unless `source` is NULL).
///
/// # Safety
/// `source` is NULL or readable, its `read_at` and `release` as `bk_source` says; `dest_path` is a
/// NUL-terminated string; `options` is NULL, or its `size` is set and `size` bytes from it are
/// readable, and its pointers are as its fields' docs say; `report_out` is NULL, or its `size` is
/// set and `size` bytes from it are writable; `failure_out` is NULL or valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_extract_source(
    #[raw] source: *const bk_source,
    #[raw] dest_path: *const c_char,
    #[raw] options: *const bk_extract_options,
    #[raw] report_out: *mut bk_extract_report,
    #[raw] failure_out: *mut bk_extract_failure,
) -> bk_status {
    // SAFETY: NULL or readable, per the `# Safety` section; taken over (released on drop) first,
    // so that it is released whatever fails next.
    let source = unsafe { source.as_ref() }.map(CallbackSource::new);
    let archive = match &source {
        Some(Ok(source)) => Ok(Archive::Source(source)),
        Some(Err(status)) => Err(*status),
        None => Err(bk_status::BK_STATUS_NULL_POINTER),
    };
    // SAFETY: as the `# Safety` section says of each.
    unsafe { extract_described(archive, dest_path, options, report_out, failure_out) }
}

/// Extracts `archive` (or fails with its status) into `dest_path` with `options`, the report in
/// `*report_out` and the failure described in `*failure_out`, as `bk_extract_detailed` says.
///
/// # Safety
/// `dest_path` is NULL or NUL-terminated; `options` is NULL, or its `size` is set and `size` bytes
/// from it are readable; `report_out` is NULL, or its `size` is set and `size` bytes from it are
/// writable; `failure_out` is NULL or valid for one write.
pub(crate) unsafe fn extract_described(
    archive: Result<Archive<'_>, bk_status>,
    dest_path: *const c_char,
    options: *const bk_extract_options,
    report_out: *mut bk_extract_report,
    failure_out: *mut bk_extract_failure,
) -> Result<(), bk_status> {
    // SAFETY: per this function's contract; NULL is refused here, as `#[c_str]` would.
    let checked = unsafe { (checked_c_str(dest_path), ReportOut::new(report_out), OptionsIn::read(options)) };
    let failed = match (archive, checked) {
        (Ok(archive), (Ok(dest), Ok(report), Ok(options))) => run_extract(archive, dest, &options, report),
        (_, (_, Err(status), _)) | (_, (_, _, Err(status))) | (Err(status), _) => Err(status),
        _ => Err(bk_status::BK_STATUS_NULL_POINTER),
    };
    // SAFETY: NULL or valid for one write, per this function's contract.
    unsafe { described(failed, failure_out) }
}

/// The status of an extraction, its failure described in `*failure_out` (zeroed on success).
///
/// # Safety
/// `failure_out` is NULL or valid for one write.
unsafe fn described(
    failed: Result<Option<(bk_status, Error)>, bk_status>,
    failure_out: *mut bk_extract_failure,
) -> Result<(), bk_status> {
    let mut failure = bk_extract_failure { os_error: 0, path: [0; 4096], detail: [0; 1024] };
    let outcome = match failed {
        Ok(None) => Ok(()),
        Ok(Some((status, e))) => {
            failure.os_error = match &e {
                Error::Io { source, .. } => crate::sys::errno_of(source).unwrap_or(0),
                _ => 0,
            };
            set_c_string(e.entry().or(e.path()).unwrap_or(""), &mut failure.path);
            set_c_string(&e.to_string(), &mut failure.detail);
            Err(status)
        }
        Err(status) => Err(status),
    };
    if !failure_out.is_null() {
        // SAFETY: non-null, so valid for one write per this function's contract.
        unsafe { failure_out.write(failure) };
    }
    outcome
}

/// The caller's options, read once: the fields that fit in its `size`, the defaults (zeros) for
/// the rest, and its `only` patterns copied.
struct OptionsIn {
    fields: bk_extract_options,
    only: Vec<String>,
}

impl OptionsIn {
    /// Reads `ptr` (NULL: the defaults) as `bk_extract_options` says.
    ///
    /// # Safety
    /// `ptr` is NULL, or its `size` field is readable and initialised, `size` bytes from it are
    /// readable, and its `only` is NULL or points to `only_len` readable pointers, each NULL or
    /// a NUL-terminated string.
    unsafe fn read(ptr: *const bk_extract_options) -> Result<OptionsIn, bk_status> {
        // SAFETY: every field of bk_extract_options accepts all-zero bytes (integers, a float,
        // raw pointers, an Option of a function pointer); zero is each field's default.
        let mut fields: bk_extract_options = unsafe { std::mem::zeroed() };
        fields.size = BK_EXTRACT_OPTIONS_MIN_SIZE;
        if ptr.is_null() {
            return Ok(OptionsIn { fields, only: Vec::new() });
        }
        if !ptr.is_aligned() {
            return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
        }
        // SAFETY: non-null and aligned; the caller set `size`, per the contract.
        let size = unsafe { std::ptr::addr_of!((*ptr).size).read() };
        if size < BK_EXTRACT_OPTIONS_MIN_SIZE || size > isize::MAX as u64 {
            return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
        }
        let size = size as usize;
        // The fields that fit whole in the caller's struct: those of the minimum size, then whole
        // 8-byte fields (past the minimum every field is 8 bytes, unpadded: `cargo xtask
        // bindings` refuses a description where it is not).
        const MIN: usize = BK_EXTRACT_OPTIONS_MIN_SIZE as usize;
        let known = MIN + (size.min(size_of::<bk_extract_options>()) - MIN) / 8 * 8;
        // SAFETY: `size` >= `known` bytes from ptr are readable (contract); `fields` is a local
        // of `SIZE` >= `known` bytes, so the two do not overlap; every bit pattern is valid for
        // the integer, float and pointer fields, and the one function pointer is an Option that
        // the caller set to a function or NULL (its doc's contract).
        unsafe { std::ptr::copy_nonoverlapping(ptr.cast::<u8>(), std::ptr::from_mut(&mut fields).cast::<u8>(), known) };
        if size > size_of::<bk_extract_options>() {
            // A newer program's struct: what this library does not know must be left at zero.
            // SAFETY: `size` bytes from ptr are readable (contract); the caller's newer fields
            // are initialised (bk_extract_options adds fields in whole 8-byte groups, so there is
            // no padding to read).
            let tail = unsafe {
                std::slice::from_raw_parts(
                    ptr.cast::<u8>().add(size_of::<bk_extract_options>()),
                    size - size_of::<bk_extract_options>(),
                )
            };
            if tail.iter().any(|&b| b != 0) {
                return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
            }
        }
        let only = match fields.only_len {
            0 => Vec::new(),
            n if n > isize::MAX as usize / size_of::<*const c_char>() => {
                return Err(bk_status::BK_STATUS_LENGTH_OVERFLOW);
            }
            _ if fields.only.is_null() => return Err(bk_status::BK_STATUS_NULL_POINTER),
            n => {
                // SAFETY: non-null, and `only_len` pointers are readable (contract; overflow refused above).
                let patterns = unsafe { std::slice::from_raw_parts(fields.only, n) };
                let mut only = Vec::with_capacity(n);
                for &pattern in patterns {
                    // SAFETY: each is NULL or a NUL-terminated string (contract); NULL is refused.
                    let pattern = unsafe { checked_c_str(pattern) }?;
                    only.push(pattern.to_str().map_err(|_| bk_status::BK_STATUS_INVALID_ARGUMENT)?.to_string());
                }
                only
            }
        };
        Ok(OptionsIn { fields, only })
    }

    /// The extraction's mode, or `BK_STATUS_INVALID_ARGUMENT` for an unknown one.
    fn mode(&self) -> Result<Mode, bk_status> {
        match self.fields.mode {
            m if m == bk_extract_mode::BK_EXTRACT_CREATE as u32 => Ok(Mode::Create),
            m if m == bk_extract_mode::BK_EXTRACT_REPLACE as u32 => Ok(Mode::Replace),
            m if m == bk_extract_mode::BK_EXTRACT_MERGE as u32 => Ok(Mode::Merge),
            _ => Err(bk_status::BK_STATUS_INVALID_ARGUMENT),
        }
    }

    /// The parallel inflation mode, or `BK_STATUS_INVALID_ARGUMENT` for an unknown one.
    fn parallel_inflate(&self) -> Result<asset_extract::ParallelInflate, bk_status> {
        bk_parallel_inflate::from_code(self.fields.parallel_inflate).ok_or(bk_status::BK_STATUS_INVALID_ARGUMENT)
    }

    /// The ratio limit, or `BK_STATUS_INVALID_ARGUMENT` if negative or not finite.
    fn max_ratio(&self) -> Result<Option<f64>, bk_status> {
        match self.fields.max_ratio {
            r if !(r >= 0.0 && r.is_finite()) => Err(bk_status::BK_STATUS_INVALID_ARGUMENT),
            r => Ok((r > 0.0).then_some(r)),
        }
    }
}

/// The extraction both exports run: `Ok(None)` on success (the report written), `Ok(Some(..))`
/// for a failed extraction, `Err` for bad arguments.
/// Where `run_extract` reads the archive.
pub(crate) enum Archive<'a> {
    /// A file, by its path.
    Path(&'a CStr),
    /// Bytes the caller serves.
    Source(&'a CallbackSource),
    /// An archive fed in pieces, spooled.
    Stream(asset_extract::StreamedArchive),
    /// A stream to read to its end.
    Reader(&'a mut dyn std::io::Read),
}

fn run_extract(
    archive: Archive<'_>,
    dest: &CStr,
    opts: &OptionsIn,
    mut report_out: ReportOut,
) -> Result<Option<(bk_status, Error)>, bk_status> {
    let dest = dest.to_str().map_err(|_| bk_status::BK_STATUS_INVALID_ARGUMENT)?;
    let o = &opts.fields;
    let callback = o.progress;
    let user_data = o.progress_user_data as usize; // passed across threads as an address
    let throttle = crate::progress::Throttle::new(std::time::Duration::from_millis(u64::from(o.progress_interval_ms)));
    let progress = move |p: Progress| {
        if let Some(f) = callback {
            throttle.report(p, |p| {
                // SAFETY: the caller promised the callback is safe to call from any thread with user_data.
                unsafe { f(user_data as *mut c_void, p.entries_done, p.entries_total, p.bytes_done, p.bytes_total) }
            });
        }
    };
    // SAFETY: NULL or a live bk_cancel per the options' contract.
    let cancel = unsafe { o.cancel.as_ref() }.map(|c| &c.flag);
    let options = Options {
        mode: opts.mode()?,
        fold_case: o.fold_case != 0,
        portable_names: o.portable_names != 0,
        strict: o.strict != 0,
        skip_symlinks: o.skip_symlinks != 0,
        map_archive: false, // read, so a changed archive is an error, never a SIGBUS in the host
        threads: o.threads as usize,
        parallel_inflate: opts.parallel_inflate()?,
        only: opts.only.clone(),
        quota: (o.quota > 0).then_some(o.quota),
        max_ratio: opts.max_ratio()?,
        durable: o.durable != 0,
        no_mtime: o.no_mtime != 0,
        incremental: o.incremental != 0,
        progress: callback.is_some().then_some(&progress as &(dyn Fn(Progress) + Sync)),
        cancel,
    };
    let extracted = match archive {
        Archive::Path(path) => {
            let path = path.to_str().map_err(|_| bk_status::BK_STATUS_INVALID_ARGUMENT)?;
            asset_extract::extract(Path::new(path), Path::new(dest), &options)
        }
        Archive::Source(source) => asset_extract::extract_source(source, Path::new(dest), &options),
        Archive::Stream(incoming) => incoming.extract(Path::new(dest), &options),
        Archive::Reader(reader) => asset_extract::extract_stream(reader, Path::new(dest), &options),
    };
    match extracted {
        Ok(r) => {
            // Every field of the report, by name: a field added to asset-extract's report does
            // not compile here until the C report carries it too.
            let asset_extract::Report {
                files,
                directories,
                bytes,
                skipped,
                reused,
                prepended,
                appended,
                symlinks_skipped,
            } = r;
            let report = bk_extract_report {
                size: BK_EXTRACT_REPORT_MIN_SIZE,
                files,
                directories,
                bytes,
                skipped,
                reused,
                prepended,
                appended,
                symlinks_skipped,
            };
            report_out.write(&report);
            Ok(None)
        }
        Err(e) => Ok(Some((status_of(&e), e))),
    }
}
