//! `bk_archive`: an archive opened once and validated once, its entries read in place by name.

use bufkit_ffi_macros::export;
use std::ffi::c_char;
use std::mem::MaybeUninit;
use std::path::Path;
use std::sync::Arc;

use asset_extract::{AssetArchive, EntryReader, Holding, Kind, LocalHeaders, ParallelReader};

use crate::extract::{bk_parallel_inflate, status_of};
use crate::macros::{checked_bytes, handle_free, handle_new};
use crate::pool::{bk_lease, bk_pool};
use crate::source::{CallbackSource, bk_source};
use crate::status::bk_status;

/// An archive (zip, APK, JAR) opened with `bk_archive_open`: validated once, with an index from
/// name to entry. Thread-safe: any number of threads may find and read at once. Freed by
/// `bk_archive_free` (the caller owns it); names and views it hands out live until then. Readers
/// from `bk_archive_reader_open` keep what they read alive on their own: they may outlive it.
///
/// Methods: (listed in include/bufkit.h)
pub struct bk_archive {
    inner: Arc<AssetArchive>,
}

/// How `bk_archive_open` holds the archive's bytes.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum bk_archive_holding {
    /// Read with `pread` (the default): at open the end records and the central directory; an
    /// entry's local header and data when it is read, its CRC-32 checked on every read. The file
    /// may change or vanish meanwhile: reads then fail with a status, nothing can crash the host.
    /// No views (`bk_archive_view` says `BK_STATUS_INVALID_ARGUMENT`).
    BK_ARCHIVE_READ = 0,
    /// Memory-mapped: stored entries are views of the mapping. The file must not be truncated or
    /// rewritten while the archive is open (as for an installed APK), or reads may fault (SIGBUS).
    BK_ARCHIVE_MAP = 1,
}

/// When `bk_archive_open` checks each entry's local header against its central directory record.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum bk_archive_local_headers {
    /// At open (the default): every entry's local header is checked, as `bk_extract` of the
    /// whole archive checks them, and an archive it refuses for its layout or headers is refused
    /// at open, with the same status. Symlink entries are the one difference, on purpose: an
    /// archive is opened to read its files, and a link is not one, so links are left out of the
    /// entries (their local headers still checked), where `bk_extract` refuses the archive unless
    /// told to skip them (`bk_extract_options.skip_symlinks`). Costs a look at every entry's
    /// local header.
    BK_LOCAL_HEADERS_AT_OPEN = 0,
    /// When each entry is first read: opening reads only the end records and the central
    /// directory (still all checked); an entry whose local header disagrees fails its reads with
    /// `BK_STATUS_ARCHIVE_MALFORMED`. For archives a program trusts to be whole, such as its own
    /// installed APK, opened at every start.
    BK_LOCAL_HEADERS_ON_FIRST_READ = 1,
}

/// Options for `bk_archive_open`. Fill with `bk_archive_options_default`; NULL means the defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bk_archive_options {
    /// A `bk_archive_holding` value (default `BK_ARCHIVE_READ`).
    pub holding: u32,
    /// A `bk_archive_local_headers` value (default `BK_LOCAL_HEADERS_AT_OPEN`).
    pub local_headers: u32,
}

/// One entry's metadata, filled by `bk_archive_entry_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct bk_archive_entry {
    /// Bytes once read (0 for a directory).
    pub size: u64,
    /// Bytes in the archive.
    pub compressed_size: u64,
    /// CRC-32 of the data, from the archive.
    pub crc32: u32,
    /// Compression method, its number in the zip headers: 0 stored, 8 deflate, 9 Deflate64,
    /// 12 bzip2, 14 LZMA, 93 Zstandard, 95 XZ.
    pub method: u32,
    /// Non-zero for a directory.
    pub is_directory: u32,
}

/// Fills `*options_out` with the defaults.
///
/// # Safety
/// `options_out` is NULL (an error) or valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_options_default(#[out] options_out: *mut bk_archive_options) -> bk_status {
    options_out.write(bk_archive_options {
        holding: bk_archive_holding::BK_ARCHIVE_READ as u32,
        local_headers: bk_archive_local_headers::BK_LOCAL_HEADERS_AT_OPEN as u32,
    });
    Ok(())
}

/// Opens the archive at `path` (NUL-terminated UTF-8), validates its end records and central
/// directory with the extraction's strict rules, and stores the handle in `*archive_out` (NULL on
/// failure). Every entry's local header is checked too: at open by default
/// (`BK_LOCAL_HEADERS_AT_OPEN`, so the archives `bk_extract` refuses are refused here), or, with
/// `BK_LOCAL_HEADERS_ON_FIRST_READ`, the first time the entry is read, a disagreement then being
/// `BK_STATUS_ARCHIVE_MALFORMED` for that entry alone. Errors are those of `bk_extract`
/// (`BK_STATUS_ARCHIVE_MALFORMED`, `BK_STATUS_ARCHIVE_AMBIGUOUS`, `BK_STATUS_UNSAFE_NAME`,
/// `BK_STATUS_IO_ERROR`...). `options` may be NULL for the defaults.
///
/// # Safety
/// `path` is NUL-terminated; `options` is NULL or readable; `archive_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_open(
    #[c_str] path: *const c_char,
    #[nullable] options: *const bk_archive_options,
    #[out = std::ptr::null_mut()] archive_out: *mut *mut bk_archive,
) -> bk_status {
    let path = path.to_str().map_err(|_| bk_status::BK_STATUS_INVALID_ARGUMENT)?;
    let (holding, local_headers) = options.map_or((0, 0), |o| (o.holding, o.local_headers));
    let holding = match holding {
        h if h == bk_archive_holding::BK_ARCHIVE_READ as u32 => Holding::Read,
        h if h == bk_archive_holding::BK_ARCHIVE_MAP as u32 => Holding::Map,
        _ => return Err(bk_status::BK_STATUS_INVALID_ARGUMENT),
    };
    let local_headers = local_headers_of(local_headers)?;
    let inner = AssetArchive::open_with(Path::new(path), holding, local_headers).map_err(|e| status_of(&e))?;
    handle_new(archive_out, bk_archive { inner: Arc::new(inner) })
}

/// Opens the archive whose bytes the caller serves through `source` (see `bk_source`), as
/// `bk_archive_open` opens a file: the same checks and refusals, the same statuses, and only what
/// a request needs is read, through `source->read_at`, from any thread. `options` may be NULL for
/// the defaults; its `holding` must be `BK_ARCHIVE_READ` (nothing is mapped). `source->release`
/// is called once the archive and every reader from it are freed, or before this returns if it
/// fails. A source that fails, answers short, or changes its answers makes the reads concerned
/// fail with a status.
///
/// # Safety
/// `source` is readable and its `read_at` and `release` are as `bk_source` says; `options` is NULL
/// or readable; `archive_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_open_source(
    #[live] source: *const bk_source,
    #[nullable] options: *const bk_archive_options,
    #[out = std::ptr::null_mut()] archive_out: *mut *mut bk_archive,
) -> bk_status {
    let source = CallbackSource::new(source)?;
    let (holding, local_headers) = options.map_or((0, 0), |o| (o.holding, o.local_headers));
    if holding != bk_archive_holding::BK_ARCHIVE_READ as u32 {
        return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
    }
    let local_headers = local_headers_of(local_headers)?;
    let inner = AssetArchive::open_source_with(source, local_headers).map_err(|e| status_of(&e))?;
    handle_new(archive_out, bk_archive { inner: Arc::new(inner) })
}

/// A `bk_archive_local_headers` value, checked.
fn local_headers_of(value: u32) -> Result<LocalHeaders, bk_status> {
    match value {
        l if l == bk_archive_local_headers::BK_LOCAL_HEADERS_AT_OPEN as u32 => Ok(LocalHeaders::AtOpen),
        l if l == bk_archive_local_headers::BK_LOCAL_HEADERS_ON_FIRST_READ as u32 => Ok(LocalHeaders::OnFirstRead),
        _ => Err(bk_status::BK_STATUS_INVALID_ARGUMENT),
    }
}

/// Frees an archive. NULL does nothing. Names from `bk_archive_entry_name` die with it.
///
/// # Safety
/// `archive` is NULL or came from `bk_archive_open` and is not used again.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_free(#[raw] archive: *mut bk_archive) {
    // SAFETY: NULL, or from bk_archive_open (handle_new), freed once per the contract.
    unsafe { handle_free(archive) }
}

/// Stores the number of entries (files and directories) in `*count_out`.
///
/// # Safety
/// `archive` is live; `count_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_entry_count(
    #[live] archive: *const bk_archive,
    #[out] count_out: *mut usize,
) -> bk_status {
    count_out.write(archive.inner.len());
    Ok(())
}

/// Verifies the archive without writing anything, as `unzip -t` does: every entry's local header
/// against its central record, and every file inflated in bounded pieces with its size and CRC-32
/// checked, on up to `threads` threads (0: one per core). Every entry is checked, failing or not.
/// Stores how many failed in `*failed_out` and the index of the first that failed in
/// `*first_failed_out` (`SIZE_MAX` when none; `bk_archive_entry_name` names it), and returns
/// `BK_STATUS_OK` when every entry verified, else the first failure's status
/// (`BK_STATUS_CRC_MISMATCH`, `BK_STATUS_ARCHIVE_MALFORMED`, `BK_STATUS_CORRUPT`,
/// `BK_STATUS_IO_ERROR`...). Thread-safe, like reads. Its central directory was verified when it
/// was opened.
///
/// # Safety
/// `archive` is live; `failed_out` and `first_failed_out` are valid for one write each.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_verify(
    #[live] archive: *const bk_archive,
    threads: u32,
    #[out = 0] failed_out: *mut usize,
    #[out = usize::MAX] first_failed_out: *mut usize,
) -> bk_status {
    let verified = archive.inner.verify(threads as usize);
    *failed_out = verified.failures.len();
    match verified.failures.first() {
        None => Ok(()),
        Some((index, e)) => {
            *first_failed_out = *index;
            Err(status_of(e))
        }
    }
}

/// Finds the entry named `name[0..name_len)` (UTF-8, as extraction would write it: `/`-separated,
/// a directory without its trailing `/`) and stores its index in `*index_out`;
/// `BK_STATUS_NOT_FOUND` if there is none. O(1).
///
/// # Safety
/// `archive` is live; `name` is readable for `name_len` bytes; `index_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_find(
    #[live] archive: *const bk_archive,
    #[bytes(name_len)] name: *const c_char,
    name_len: usize,
    #[out] index_out: *mut usize,
) -> bk_status {
    let name = std::str::from_utf8(name).map_err(|_| bk_status::BK_STATUS_NOT_FOUND)?;
    index_out.write(archive.inner.find(name).ok_or(bk_status::BK_STATUS_NOT_FOUND)?);
    Ok(())
}

/// Lists the entries whose names match `pattern[0..pattern_len)` (UTF-8; `*` any run of
/// characters, `/` included; `?` one character; a pattern ending in `/` a directory and everything
/// under it; the patterns of extraction's "only"), or every entry when `pattern` is NULL. Stores
/// the first `capacity` of their indexes, in archive order, in `indexes_out` (NULL only with
/// capacity 0) and how many match in all in `*count_out`: call again with room for that many.
///
/// # Safety
/// `archive` is live; `pattern` is NULL or readable for `pattern_len` bytes; `indexes_out` is
/// writable for `capacity` elements; `count_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_list(
    #[live] archive: *const bk_archive,
    #[raw] pattern: *const c_char,
    pattern_len: usize,
    #[out_slice(capacity)] indexes_out: *mut usize,
    capacity: usize,
    #[out = 0] count_out: *mut usize,
) -> bk_status {
    let matching: Vec<usize> = if pattern.is_null() {
        (0..archive.inner.len()).collect()
    } else {
        // SAFETY: non-null, so readable for `pattern_len` bytes per the `# Safety` section.
        let pattern = unsafe { checked_bytes(pattern, pattern_len) }?;
        let pattern = std::str::from_utf8(pattern).map_err(|_| bk_status::BK_STATUS_INVALID_ARGUMENT)?;
        archive.inner.list_matching(pattern)
    };
    for (slot, &index) in indexes_out.iter_mut().zip(&matching) {
        slot.write(index);
    }
    *count_out = matching.len();
    Ok(())
}

/// Fills `*entry_out` with entry `index`'s metadata (`BK_STATUS_OUT_OF_RANGE` past the last).
///
/// # Safety
/// `archive` is live; `entry_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_entry_info(
    #[live] archive: *const bk_archive,
    index: usize,
    #[out] entry_out: *mut bk_archive_entry,
) -> bk_status {
    let e = archive.inner.entry(index).ok_or(bk_status::BK_STATUS_OUT_OF_RANGE)?;
    let info = bk_archive_entry {
        size: e.size,
        compressed_size: e.compressed_size,
        crc32: e.crc32,
        method: u32::from(e.method.code()),
        is_directory: u32::from(e.kind == Kind::Directory),
    };
    entry_out.write(info);
    Ok(())
}

/// Stores a pointer to entry `index`'s name (UTF-8, not NUL-terminated) and its length. The name
/// belongs to the archive and lives until `bk_archive_free`.
///
/// # Safety
/// `archive` is live; `name_out` and `name_len_out` are valid for one write each.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_entry_name(
    #[live] archive: *const bk_archive,
    index: usize,
    #[out] name_out: *mut *const c_char,
    #[out] name_len_out: *mut usize,
) -> bk_status {
    let e = archive.inner.entry(index).ok_or(bk_status::BK_STATUS_OUT_OF_RANGE)?;
    name_out.write(e.path.as_ptr().cast());
    name_len_out.write(e.path.len());
    Ok(())
}

/// Stores entry `index`'s size (bytes once read; 0 for a directory) in `*size_out`.
///
/// # Safety
/// `archive` is live; `size_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_entry_size(
    #[live] archive: *const bk_archive,
    index: usize,
    #[out] size_out: *mut u64,
) -> bk_status {
    size_out.write(archive.inner.entry(index).ok_or(bk_status::BK_STATUS_OUT_OF_RANGE)?.size);
    Ok(())
}

/// Reads the whole of entry `index` into `dst`, which must hold at least its size (else
/// `BK_STATUS_SIZE_MISMATCH`, nothing written), and stores the entry's size in `*written_out`
/// (0 on failure). Inflates a deflated entry; checks the CRC-32 the first time the entry is read,
/// and on every read in the `BK_ARCHIVE_READ` holding (`BK_STATUS_CRC_MISMATCH`, and then those
/// bytes of `dst` are zeroed). A local header not yet checked is checked first. `dst` may be
/// uninitialised memory; bytes past the entry's size are not touched. A directory is
/// `BK_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `archive` is live; `dst` is writable for `dst_len` bytes (NULL only with 0); `written_out` is
/// valid for one write.
#[export(short, calls_back)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_read(
    #[live] archive: *const bk_archive,
    index: usize,
    #[out_bytes(dst_len)] dst: *mut u8,
    dst_len: usize,
    #[out = 0] written_out: *mut usize,
) -> bk_status {
    *written_out = read_entry(&archive.inner, index, dst)?;
    Ok(())
}

/// Reads file entry `index` whole into the front of `dst` and returns its size:
/// `BK_STATUS_SIZE_MISMATCH` (nothing written) when `dst` is shorter.
fn read_entry(archive: &AssetArchive, index: usize, dst: &mut [MaybeUninit<u8>]) -> Result<usize, bk_status> {
    let size = file_size(archive, index)?;
    let dst = dst.get_mut(..size).ok_or(bk_status::BK_STATUS_SIZE_MISMATCH)?;
    archive.read_into_uninit(index, dst).map_err(|e| status_of(&e))?;
    Ok(size)
}

/// Reads up to `dst_len` bytes of entry `index`'s uncompressed data starting at `offset` into
/// `dst`, and stores how many in `*written_out`: fewer than `dst_len` only where the entry ends
/// (not an error; an `offset` equal to the entry's size writes nothing); an `offset` beyond the
/// end is `BK_STATUS_OUT_OF_RANGE`. Thread-safe. The cost follows the slice:
/// - a stored entry is read in place (its CRC-32 checked over the whole entry on its first
///   read);
/// - a deflated entry inflates from the last checkpoint before `offset`: at most about one span
///   (1 MiB unless `bk_archive_set_checkpoint_limits` says otherwise). The entry's first slice
///   builds its checkpoints in one full pass that checks its CRC-32 (`BK_STATUS_CRC_MISMATCH`,
///   or an inflate status, if it fails), unless they were imported
///   (`bk_archive_checkpoints_import`);
/// - other methods decode from the entry's start; the entry's first slice decodes it whole once
///   and checks its CRC-32, as a deflated entry's first slice does.
///
/// A CRC-32 covers a whole entry, never a slice, so each slice is checked against that pass: the
/// compressed bytes it decodes (and those up to the next 64 KiB mark, or a stored entry's 16 KiB
/// blocks) must be the bytes the pass read, by a CRC-32 of each part noted then. A file (in the
/// `BK_ARCHIVE_READ` holding) or a caller's source whose bytes changed since gives a status
/// (`BK_STATUS_CRC_MISMATCH`, an inflate status, or `BK_STATUS_IO_ERROR` for bzip2, LZMA,
/// Zstandard and XZ entries), never other bytes with `BK_STATUS_OK`; a mapped file must not
/// change (see `BK_ARCHIVE_MAP`). A damaged or cut entry gives the status `bk_archive_read` gives
/// for it (never `BK_STATUS_IO_ERROR`, which says a system call failed). On failure
/// `*written_out` is 0 and the bytes of `dst` are unspecified. A directory is
/// `BK_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `archive` is live; `dst` is writable for `dst_len` bytes (NULL only with 0); `written_out` is
/// valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_read_at(
    #[live] archive: *const bk_archive,
    index: usize,
    offset: u64,
    #[out_bytes(dst_len)] dst: *mut u8,
    dst_len: usize,
    #[out = 0] written_out: *mut usize,
) -> bk_status {
    file_size(&archive.inner, index)?;
    // The caller's buffer may be uninitialised: give read_at zeroed bytes to write over.
    let dst = init_zeroed(dst);
    *written_out = archive.inner.read_at(index, offset, dst).map_err(|e| status_of(&e))?;
    Ok(())
}

/// Zeroes `dst` and returns it as initialised bytes.
fn init_zeroed(dst: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    dst.fill(MaybeUninit::new(0));
    // SAFETY: every byte was just written.
    unsafe { &mut *(std::ptr::from_mut(dst) as *mut [u8]) }
}

/// Sets how far apart deflated entries' checkpoints are (`span` bytes of output, at least 32
/// KiB; default 1 MiB) and how much memory the archive's checkpoints may take in all (`budget`
/// bytes; default 64 MiB), for `bk_archive_read_at`. Each checkpoint holds 32 KiB, so an entry of
/// `n` bytes takes about `n / span × 32 KiB`; an entry whose checkpoints would not fit the budget
/// gets a longer span, and the checkpoints of the entries read longest ago are dropped to make
/// room (a budget of 0 keeps none: every slice then inflates from the entry's start). A read
/// inflates at most about one span. Thread-safe.
///
/// # Safety
/// `archive` is live.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_set_checkpoint_limits(
    #[live] archive: *const bk_archive,
    span: u64,
    budget: u64,
) -> bk_status {
    archive.inner.set_checkpoint_limits(span, budget);
    Ok(())
}

/// Stores in `*bytes_out` the memory the archive's checkpoints take now (at most the budget of
/// `bk_archive_set_checkpoint_limits`). Thread-safe.
///
/// # Safety
/// `archive` is live; `bytes_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_checkpoint_memory(
    #[live] archive: *const bk_archive,
    #[out = 0] bytes_out: *mut u64,
) -> bk_status {
    *bytes_out = archive.inner.checkpoint_memory();
    Ok(())
}

/// Appends deflated entry `index`'s checkpoints to `out`, as bytes to keep beside the archive
/// (a file an app writes on its first start) for `bk_archive_checkpoints_import` in a later run;
/// builds them first if the archive does not hold them (one full pass, checking the CRC-32). A
/// stored or directory entry is `BK_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `archive` and `out` are live.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_checkpoints_export(
    #[live] archive: *const bk_archive,
    index: usize,
    #[live] out: *mut crate::buffer::bk_buffer,
) -> bk_status {
    let entry = archive.inner.entry(index).ok_or(bk_status::BK_STATUS_OUT_OF_RANGE)?;
    if entry.method != asset_extract::Method::Deflate {
        return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
    }
    let bytes = archive.inner.export_checkpoints(index).map_err(|e| status_of(&e))?;
    Ok(out.inner.append(&bytes)?)
}

/// Gives entry `index` the checkpoints `bytes` (from `bk_archive_checkpoints_export` in an
/// earlier run): kept only if they were made for this entry's data (its sizes and CRC-32) and are
/// whole and unaltered, else `BK_STATUS_CHECKPOINTS_REFUSED` and nothing changes. Each checkpoint
/// is bound to the compressed bytes it describes: the first `bk_archive_read_at` through one
/// checks its digest against the entry's compressed bytes up to the next checkpoint (reading
/// them once), and checkpoints made for another archive (the same data compressed otherwise) or
/// damaged fail that read with `BK_STATUS_CHECKPOINTS_REFUSED` and are dropped, so that later
/// reads build the entry's own. A digest is no signature: whoever can write that file and
/// recompute its digests can still make slices read through it wrong, as whoever can write the
/// archive can. Keep it where the archive is kept.
///
/// # Safety
/// `archive` is live; `bytes` is readable for `len` bytes.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_checkpoints_import(
    #[live] archive: *const bk_archive,
    index: usize,
    #[bytes(len)] bytes: *const u8,
    len: usize,
) -> bk_status {
    file_size(&archive.inner, index)?;
    archive.inner.import_checkpoints(index, bytes).map_err(|e| status_of(&e))
}

/// Reads the whole of entry `index`, as `bk_archive_read` does, into a buffer lent by `pool`:
/// on success `*lease_out` holds it (the entry is its first `*written_out` bytes; the lease may be
/// longer) and goes back with `bk_pool_release`. On failure nothing is lent and `*written_out`
/// is 0.
///
/// # Safety
/// `archive` and `pool` are live; `lease_out` and `written_out` are valid for one write each.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_read_pooled(
    #[live] archive: *const bk_archive,
    index: usize,
    #[live] pool: *const bk_pool,
    #[out] lease_out: *mut bk_lease,
    #[out = 0] written_out: *mut usize,
) -> bk_status {
    let size = file_size(&archive.inner, index)?;
    let (lease, written) = pool.lend_filled(size, |buffer| read_entry(&archive.inner, index, buffer))?;
    *written_out = written;
    lease_out.write(lease);
    Ok(())
}

/// For a stored entry, its bytes where they lie in the archive, no copy: `*data_out` and
/// `*len_out`, valid until `bk_archive_free` (the CRC-32 is checked on the first view). Only
/// in the `BK_ARCHIVE_MAP` holding: otherwise, and for a deflated entry or a directory,
/// `BK_STATUS_INVALID_ARGUMENT`: read it with `bk_archive_read`.
///
/// # Safety
/// `archive` is live; `data_out` and `len_out` are valid for one write each.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_view(
    #[live] archive: *const bk_archive,
    index: usize,
    #[out] data_out: *mut *const u8,
    #[out] len_out: *mut usize,
) -> bk_status {
    file_size(&archive.inner, index)?;
    let bytes = archive.inner.view(index).map_err(|e| status_of(&e))?.ok_or(bk_status::BK_STATUS_INVALID_ARGUMENT)?;
    data_out.write(bytes.as_ptr());
    len_out.write(bytes.len());
    Ok(())
}

/// One entry read as a stream in bounded memory, whatever its size, from
/// `bk_archive_reader_open`. What a reader holds depends on the entry's method: stored and
/// deflate about 100 KiB (a 64 KiB buffer and deflate's 32 KiB window); Deflate64 about 200 KiB;
/// bzip2 up to about 3.6 MiB (the block size the archive was written with: 900 kB at level 9);
/// LZMA and XZ up to their dictionary size and Zstandard up to its window size (each at most
/// 128 MiB: larger ones are refused at open), of which a reader touches no more than it has
/// decoded. A deflated entry inflated on several cores (`bk_archive_set_parallel_inflate`) is
/// decoded by threads of the reader's own, at most a few chunks of 4 MiB per core ahead of the
/// reads. It keeps what it reads alive: its archive may be freed first. Not thread-safe: one
/// thread at a time. Freed by `bk_archive_reader_free`.
///
/// Methods: (listed in include/bufkit.h)
pub struct bk_archive_reader {
    decoding: Decoding,
}

/// Where a reader's bytes are inflated: by its reads, on the caller's thread, or ahead of them
/// on several cores.
enum Decoding {
    OneCore(ReaderCell),
    Cores(ParallelReader),
}

self_cell::self_cell!(
    /// An entry's reader together with the archive it borrows from (the handle keeps the archive
    /// alive, so the caller may free its `bk_archive` first).
    struct ReaderCell {
        owner: Arc<AssetArchive>,
        #[not_covariant]
        dependent: EntryReader,
    }
);

/// Sets when `archive` inflates a large deflated entry on several cores, for its readers and
/// whole reads: `mode` is a `bk_parallel_inflate` (the default `BK_PARALLEL_INFLATE_AUTO`, by the
/// rule: an entry of 20 MiB or more with 4 cores or more), another value
/// `BK_STATUS_INVALID_ARGUMENT`. The bytes and every check are the same either way. Readers
/// already open keep how they were opened.
///
/// # Safety
/// `archive` is live.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_set_parallel_inflate(#[live] archive: *const bk_archive, mode: u32) -> bk_status {
    let mode = bk_parallel_inflate::from_code(u64::from(mode)).ok_or(bk_status::BK_STATUS_INVALID_ARGUMENT)?;
    archive.inner.set_parallel_inflate(mode);
    Ok(())
}

/// Opens entry `index` (a file) for reading in pieces with `bk_archive_reader_read`, and stores
/// the reader in `*reader_out` (NULL on failure). A deflated entry is inflated on several cores
/// when `bk_archive_set_parallel_inflate`'s rule says so (`bk_archive_reader_cores` tells).
///
/// # Safety
/// `archive` is live; `reader_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_reader_open(
    #[live] archive: *const bk_archive,
    index: usize,
    #[out = std::ptr::null_mut()] reader_out: *mut *mut bk_archive_reader,
) -> bk_status {
    file_size(&archive.inner, index)?;
    let decoding = match archive.inner.parallel_reader(index).map_err(|e| status_of(&e))? {
        Some(parallel) => Decoding::Cores(parallel),
        None => Decoding::OneCore(
            ReaderCell::try_new(Arc::clone(&archive.inner), |archive| archive.reader(index))
                .map_err(|e| status_of(&e))?,
        ),
    };
    handle_new(reader_out, bk_archive_reader { decoding })
}

/// Stores in `*cores_out` how many cores the reader's entry is inflated on: 1 when its reads
/// inflate it, more when threads of the reader's own do, ahead of the reads.
///
/// # Safety
/// `reader` is live; `cores_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_reader_cores(
    #[live] reader: *const bk_archive_reader,
    #[out = 0] cores_out: *mut usize,
) -> bk_status {
    *cores_out = match &reader.decoding {
        Decoding::OneCore(_) => 1,
        Decoding::Cores(parallel) => parallel.cores(),
    };
    Ok(())
}

/// Waits until the next `bk_archive_reader_read` can return without waiting for other threads:
/// at once for a reader on one core (its reads inflate as they go), until the next decoded
/// bytes, the entry's end or its failure for a reader on several cores. Returns the status of a
/// failure the reader has met, as its next read would. `bk_archive_reader_read` waits by itself; a caller that reads where waiting
/// is costly (a JVM critical region, an Erlang scheduler) waits here first, outside it.
///
/// # Safety
/// `reader` is live.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_reader_wait(#[live] reader: *mut bk_archive_reader) -> bk_status {
    match &mut reader.decoding {
        Decoding::OneCore(cell) => {
            cell.with_dependent(|_, entry| entry.failure()).map_or(Ok(()), |e| Err(status_of(&e)))
        }
        Decoding::Cores(parallel) => parallel.wait().map_err(|e| status_of(&e)),
    }
}

/// Copies the entry's next bytes into `dst` and stores how many in `*read_out`: at most
/// `dst_len`, and 0 only at the end, once the whole entry has been checked (its stream ends at
/// its compressed size, its size and CRC-32 match). A `dst_len` of 0 is
/// `BK_STATUS_INVALID_ARGUMENT` (and reads nothing), so that 0 bytes read always means the end.
/// Bytes come out before those checks can run; when one fails, the call that would have
/// returned 0 returns its status instead (`BK_STATUS_CRC_MISMATCH`, `BK_STATUS_ARCHIVE_MALFORMED`,
/// `BK_STATUS_CORRUPT`...), and so does every later call. A caller that must not act on unchecked
/// bytes reads the entry whole. On a reader on several cores, a read with no decoded bytes at
/// hand waits for them (after `bk_archive_reader_wait` it does not).
///
/// # Safety
/// `reader` is live; `dst` is writable for `dst_len` bytes (NULL only with 0); `read_out` is
/// valid for one write.
#[export(short, calls_back)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_reader_read(
    #[live] reader: *mut bk_archive_reader,
    #[out_bytes(dst_len)] dst: *mut u8,
    dst_len: usize,
    #[out = 0] read_out: *mut usize,
) -> bk_status {
    if dst.is_empty() {
        return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
    }
    // The reader copies into initialised bytes only: zero what it may write first.
    dst.fill(std::mem::MaybeUninit::new(0));
    // SAFETY: every byte was just initialised.
    let dst = unsafe { &mut *(std::ptr::from_mut(dst) as *mut [u8]) };
    *read_out = match &mut reader.decoding {
        Decoding::OneCore(cell) => cell.with_dependent_mut(|_, entry| entry.read_checked(dst)),
        Decoding::Cores(parallel) => parallel.read_checked(dst),
    }
    .map_err(|e| status_of(&e))?;
    Ok(())
}

/// Frees a reader. NULL does nothing.
///
/// # Safety
/// `reader` is NULL or came from `bk_archive_reader_open` and is not used again.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_archive_reader_free(#[raw] reader: *mut bk_archive_reader) {
    // SAFETY: NULL, or from bk_archive_reader_open (handle_new), freed once per the contract.
    unsafe { handle_free(reader) }
}

/// The size of entry `index` once read, for every read of an entry (whole, pooled, viewed,
/// streamed): `BK_STATUS_OUT_OF_RANGE` past the last entry, `BK_STATUS_INVALID_ARGUMENT` for a
/// directory, `BK_STATUS_LENGTH_OVERFLOW` for a size beyond memory.
fn file_size(archive: &AssetArchive, index: usize) -> Result<usize, bk_status> {
    let e = archive.entry(index).ok_or(bk_status::BK_STATUS_OUT_OF_RANGE)?;
    if e.kind != Kind::File {
        return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
    }
    usize::try_from(e.size).map_err(|_| bk_status::BK_STATUS_LENGTH_OVERFLOW)
}
