//! Zip/APK/JAR extraction that is fast and safe on hostile archives.
//!
//! The archive is read with `pread`, only where it must be: its end records and central directory,
//! every local header, and the data of the entries selected, in file order (so a file changed
//! underneath is a clean error, never a SIGBUS; [`Options::map_archive`] maps it instead). Memory
//! stays bounded whatever the archive's size: the index of its central directory, plus a fixed
//! budget per worker (see [`extract`]). Its whole structure is checked before anything is
//! written: one
//! unambiguous end record, ZIP64 records where sizes need them, a central directory whose every
//! entry agrees with its local header (name, method, sizes, data descriptor), entries whose data
//! lies inside the archive and overlaps no other entry's (the smallest zip bombs share data), safe
//! relative names, no duplicates (nor names that differ only in case, where the destination's
//! file system folds case), regular files and directories only, no encryption. Entries are then inflated in parallel, each into a pooled
//! buffer of its exact declared size (so a size lie is an error, never an allocation), their
//! CRC-32s verified, and written into a temporary directory, which is put in place only when
//! everything verified: on any failure nothing is left behind. What may happen to an existing
//! destination is the caller's explicit choice ([`Mode`]): by default nothing existing is touched.
//!
//! Data prepended to an archive (a self-extractor's stub, a `.jmod` header, a script before an
//! executable jar) is accepted only when every offset reads consistently shifted by its length
//! (the central directory just before the end records, every local header where the shifted
//! offset says), reported in [`Report::prepended`]; data appended after the end record is read
//! past when exactly one end record fits ([`Report::appended`]); [`Options::strict`] refuses both.
//!
//! One reading or none: where the bytes admit two readings, every reader must agree, or the
//! archive is refused ([`Error::Ambiguous`], naming the end record, both offsets and both sizes).
//! A directory may sit where an end record says or right before the end records (where unzip and
//! Python look first); a ZIP64 end record where its locator says or right before the locator
//! (where Python reads it). Where both places hold a complete one (its records walk, each with
//! its signature) and they differ, the archive is refused, whatever this library would find wrong
//! with either later: before an archive or after it, the same. Where only one is complete, it is
//! read, and a shift is reported as bytes prepended. The same holds from a file, memory, a
//! stream, a caller's [`Source`] and, in the CLI, a URL.
//!
//! ```no_run
//! let report = asset_extract::extract(
//!     std::path::Path::new("app.apk"),
//!     std::path::Path::new("/data/app/assets"),
//!     &asset_extract::Options::default(),
//! )?;
//! println!("{} files, {} bytes", report.files, report.bytes);
//! # Ok::<(), asset_extract::Error>(())
//! ```
#![deny(missing_docs)]

// The crate by role, each folder's opening comment saying more:
// - read/: the archive's structure (end records, central directory, local headers) and names;
// - entry/: where an archive's bytes are, and an entry's decoder over them;
// - in_place/: `AssetArchive`, an archive opened once and read entry by entry;
// - extract/: extraction: options, destination, staging, writing, merging, removing;
// - stream/: extraction from a stream, through its spool and the entries staged as they arrive;
// - sys/: the one OS layer.
mod entry;
mod error;
mod extract;
mod in_place;
mod read;
#[cfg(any(test, fuzzing))]
mod readings_agree;
mod stream;
mod sys;

pub use entry::parallel::{
    PARALLEL_MIN_CORES, PARALLEL_MIN_ENTRY, ParallelInflate, available_cores, inflate_in_parallel,
};
pub use entry::source::{FileSource, Source};
pub use error::Error;
pub use extract::destination::Mode;
pub use extract::options::{MAX_THREADS, Options, Progress, Report, matches as matches_pattern};
pub use extract::{extract, extract_bytes, extract_source, extract_to_memory};
pub use in_place::entry_reader::EntryReader;
pub use in_place::parallel_reader::ParallelReader;
pub use in_place::verify::Verification;
pub use in_place::{AssetArchive, Holding, LocalHeaders};
pub use read::archive::{Layout, read_archive, read_entries};
pub use read::end_records::{MAX_CENTRAL_DIRECTORY, MAX_ENTRIES};
pub use read::entry::{Entry, Method, Mtime, method_name};
pub use read::names::Kind;
/// For the fuzz target `parse` (built by cargo-fuzz only): see `readings_agree.rs`.
#[cfg(fuzzing)]
#[doc(hidden)]
pub use readings_agree::deferred_checks_agree;
pub use stream::{StreamedArchive, extract_pipe, extract_stream};
pub use sys::BorrowedPipe;

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
