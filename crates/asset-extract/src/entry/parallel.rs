//! Deflated entries on several cores: the rule that says when ([`inflate_in_parallel`], and how
//! entries inflated at once share the machine), and the decoding itself, through
//! strided-inflate's parallel decoder, checked as every other way checks an entry.

use std::mem::MaybeUninit;

use crate::Error;
use crate::entry::checks::{Trailing, check_stream_end, size_mismatch};
use crate::entry::source::Input;
use crate::read::entry::{Entry, Method};

/// Whether deflated entries are inflated on several cores: when the rule says so (the default),
/// always, or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParallelInflate {
    /// By [`inflate_in_parallel`]'s rule: an entry of at least [`PARALLEL_MIN_ENTRY`] bytes, on
    /// a machine that gives this process at least [`PARALLEL_MIN_CORES`] cores.
    #[default]
    Auto,
    /// Every deflated entry, whatever its size and the cores (an entry of one chunk, 4 MiB of
    /// output or less, is decoded by one thread of the parallel decoder).
    ///
    /// An entry inflated on several cores holds about 16 MiB for each chunk decoded ahead of
    /// what is written, `threads + threads / 2 + 1` chunks for `threads` decoding threads,
    /// whatever its size.
    Always,
    /// Never: each entry on one core.
    Never,
}

/// Deflated entries inflating to fewer bytes than this stay on one core under
/// [`ParallelInflate::Auto`]: from here the model of the parallel decoder, fed with each task's
/// CPU time measured on log lines, source code and mixed data, projects at least 1.2× serial
/// decoding on 4 cores for log lines and mixed data; source code needs 31 MiB, and between the two
/// stays near serial speed (`bench-reports/strided-inflate.md`, "One stream on many cores").
pub const PARALLEL_MIN_ENTRY: u64 = 20 << 20;

/// Fewer cores than this keep every entry on one core under [`ParallelInflate::Auto`]: the
/// parallel decoder's work is 1.8–3.7× serial decoding's in all (the chunks decoded without their
/// window, then resolved), which 2 cores do not win back (0.52–0.95× measured), and 4 project
/// 1.22–2.11× (same section).
pub const PARALLEL_MIN_CORES: usize = 4;

/// The cores this process may run on: its CPU affinity and its cgroup's CPU quota, as
/// [`std::thread::available_parallelism`] reads them on Linux.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The rule: whether a deflated entry of `size` bytes is inflated on several cores, with `cores`
/// available (see [`available_cores`]), under `mode`.
///
/// ```
/// use asset_extract::{ParallelInflate, inflate_in_parallel};
///
/// assert!(!inflate_in_parallel(ParallelInflate::Auto, 256 << 20, 2)); // two cores: serial
/// assert!(inflate_in_parallel(ParallelInflate::Auto, 256 << 20, 8));
/// assert!(!inflate_in_parallel(ParallelInflate::Auto, 1 << 20, 8)); // too small to cut
/// assert!(inflate_in_parallel(ParallelInflate::Always, 256 << 20, 2));
/// assert!(!inflate_in_parallel(ParallelInflate::Never, 256 << 20, 64));
/// ```
pub fn inflate_in_parallel(mode: ParallelInflate, size: u64, cores: usize) -> bool {
    match mode {
        ParallelInflate::Auto => cores >= PARALLEL_MIN_CORES && size >= PARALLEL_MIN_ENTRY,
        ParallelInflate::Always => true,
        ParallelInflate::Never => false,
    }
}

/// Whether entry `e` could be inflated on several cores under `mode`, whatever the cores.
fn could_go_parallel(mode: ParallelInflate, e: &Entry) -> bool {
    e.method == Method::Deflate
        && match mode {
            ParallelInflate::Never => false,
            ParallelInflate::Auto => e.size >= PARALLEL_MIN_ENTRY,
            ParallelInflate::Always => true,
        }
}

/// The cores available to inflate entry `e` under `mode`: counted (it reads the process's
/// affinity and cgroup files) only when the rule could take the entry; 1 when it could not.
pub(crate) fn cores_for(mode: ParallelInflate, e: &Entry) -> usize {
    if could_go_parallel(mode, e) { available_cores() } else { 1 }
}

/// The cores entry `e` is inflated on under `mode`, or `None` for one decoder: a deflated entry
/// the rule ([`inflate_in_parallel`]) takes, with the cores available.
pub(crate) fn parallel_cores(mode: ParallelInflate, e: &Entry) -> Option<usize> {
    let cores = cores_for(mode, e);
    (e.method == Method::Deflate && inflate_in_parallel(mode, e.size, cores)).then_some(cores)
}

/// How entries written at once share the machine when they are inflated on several cores.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Share {
    /// The cores the rule sees for each entry: those available, less two for each other entry
    /// the rule could take that is inflated at once (at most one per worker). Cut into chunks, an
    /// entry costs about twice its serial CPU, so another entry inflated beside it on one core
    /// does the work of two cores of chunked decoding.
    pub(crate) cores: usize,
    /// The decoding threads each entry has: the threads asked for, shared among those entries
    /// (rounded up, two at least, to be parallel at all).
    pub(crate) decode_threads: usize,
}

/// The [`Share`] of each of `files`, written by `workers` workers, with `threads` asked for.
/// Three large entries on 4 cores see 0 cores each and are inflated side by side, one core each
/// (2.93× one core, against 2.15× cut into chunks, by the model); on 8 cores they see 4 and are
/// cut into chunks, 3 threads each (4.06× against 2.93×); on 16, 12 (7.19×).
pub(crate) fn share(mode: ParallelInflate, files: &[&Entry], workers: usize, threads: usize) -> Share {
    let candidates = files.iter().filter(|e| could_go_parallel(mode, e)).count();
    if candidates == 0 {
        return Share { cores: 1, decode_threads: 1 };
    }
    let at_once = candidates.clamp(1, workers.max(1));
    let others = 2 * (at_once - 1);
    Share { cores: available_cores().saturating_sub(others).max(1), decode_threads: threads.div_ceil(at_once).max(2) }
}

/// Output a chunk of an entry inflated in parallel aims at.
const PARALLEL_CHUNK_OUT: u64 = 4 << 20;

/// Inflates deflated entry `e` (its compressed bytes `input`) on `threads` threads with `cores`
/// available, handing its bytes in order to `sink`, and checks it as
/// [`EntryDecoder`](crate::entry::stream_decoder::EntryDecoder) does: its
/// size, its CRC-32, and what follows its stream (`trailing`). The bytes and every error are
/// serial decoding's.
pub(crate) fn inflate_parallel_to(
    input: Input<'_>,
    e: &Entry,
    threads: usize,
    cores: usize,
    trailing: Trailing,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), Error>,
) -> Result<(), Error> {
    use strided_inflate::SeekError;
    let path = &e.path;
    let source = |offset: u64, buf: &mut [u8]| -> Result<usize, Error> {
        let n = (input.len().saturating_sub(offset)).min(buf.len() as u64) as usize;
        match input {
            Input::Slice(bytes) => {
                buf[..n].copy_from_slice(&bytes[offset as usize..offset as usize + n]);
                Ok(n)
            }
            Input::Range { source, offset: at, .. } if n > 0 => {
                crate::entry::source::read_some(source, at + offset, &mut buf[..n], path)
            }
            Input::Range { .. } => Ok(0),
        }
    };
    let (mut crc, mut produced) = (strided_inflate::Crc32::new(), 0u64);
    let mut checked = |bytes: &[u8]| -> Result<(), Error> {
        produced += bytes.len() as u64;
        if produced > e.size {
            return Err(size_mismatch(e, None));
        }
        crc.update(bytes);
        sink(bytes)
    };
    // Where markers persist through whole chunks, speculating costs about twice serial decoding:
    // worth it from PARALLEL_MIN_CORES on (the model), not below.
    let how = strided_inflate::Parallel {
        threads: threads.max(1),
        chunk_out: PARALLEL_CHUNK_OUT,
        patient: false,
        keep_speculating: cores.min(threads) >= PARALLEL_MIN_CORES,
    };
    let consumed = match strided_inflate::inflate_parallel(input.len(), Some(e.size), how, &source, &mut checked) {
        Ok(report) => report.consumed,
        // Bytes after the stream, inside the entry: read past or refused below, by the one rule.
        Err(SeekError::Trailing { consumed, .. }) => consumed,
        Err(SeekError::Source(err)) => return Err(err),
        Err(SeekError::Stream(source)) => return Err(Error::Data { entry: path.clone(), source }),
        Err(other) => return Err(Error::malformed_entry(other.to_string(), path)),
    };
    if produced != e.size {
        return Err(size_mismatch(e, Some(produced)));
    }
    if crc.finalize() != e.crc32 {
        return Err(Error::Crc { entry: path.clone() });
    }
    check_stream_end(e, consumed, trailing)
}

/// Inflates deflated entry `e` on `threads` threads with `cores` available into `out` (its size,
/// checked by the caller), as [`inflate_parallel_to`] does, returning it initialised.
pub(crate) fn inflate_parallel_into<'o>(
    input: Input<'_>,
    e: &Entry,
    threads: usize,
    cores: usize,
    trailing: Trailing,
    out: &'o mut [MaybeUninit<u8>],
) -> Result<&'o mut [u8], Error> {
    let mut at = 0;
    inflate_parallel_to(input, e, threads, cores, trailing, &mut |bytes| {
        // Never past the end: the decoder is refused before it hands over more than the entry's
        // size, which is out's length.
        let to = &mut out[at..at + bytes.len()];
        // SAFETY: `to` and `bytes` have the same length, and cannot overlap (one is the caller's
        // buffer, the other the decoder's); u8 and MaybeUninit<u8> have the same layout.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), to.as_mut_ptr().cast::<u8>(), bytes.len()) };
        at += bytes.len();
        Ok(())
    })?;
    // inflate_parallel_to returns Ok only when exactly the entry's size came out.
    assert_eq!(at, out.len(), "the size was checked");
    // SAFETY: all `at` = out.len() bytes were written above.
    Ok(unsafe { &mut *(std::ptr::from_mut(out) as *mut [u8]) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, Mtime};

    fn deflated(size: u64) -> Entry {
        Entry {
            path: "e".into(),
            kind: Kind::File,
            mode: 0o644,
            method: Method::Deflate,
            crc32: 0,
            compressed_size: size / 4,
            size,
            data_offset: 0,
            mtime: Mtime::Dos(0),
        }
    }

    #[test]
    fn entries_inflated_at_once_share_the_cores_and_threads() {
        let big = deflated(PARALLEL_MIN_ENTRY);
        let small = deflated(PARALLEL_MIN_ENTRY - 1);
        let cores = available_cores();
        // Nothing the rule could take: one core, one thread, and no counting.
        let none = share(ParallelInflate::Auto, &[&small, &small], 8, 8);
        assert_eq!((none.cores, none.decode_threads), (1, 1));
        let never = share(ParallelInflate::Never, &[&big], 8, 8);
        assert_eq!((never.cores, never.decode_threads), (1, 1));
        // One large entry among small ones has the machine.
        let one = share(ParallelInflate::Auto, &[&small, &big, &small], 8, 8);
        assert_eq!((one.cores, one.decode_threads), (cores, 8));
        // Three, written by two workers: two at once, the other worth two cores.
        let three = share(ParallelInflate::Auto, &[&big, &big, &big], 2, 8);
        assert_eq!((three.cores, three.decode_threads), (cores.saturating_sub(2).max(1), 4));
        // Always counts every deflated entry, and keeps two threads each at least.
        let all = share(ParallelInflate::Always, &[&small, &small, &small], 3, 4);
        assert_eq!((all.cores, all.decode_threads), (cores.saturating_sub(4).max(1), 2));
        let eight = share(ParallelInflate::Always, &[&small, &small, &small], 3, 8);
        assert_eq!(eight.decode_threads, 3);
    }
}
