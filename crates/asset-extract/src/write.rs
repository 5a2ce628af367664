//! Writing one entry: inflated whole into a pooled buffer of its exact size, or, when large,
//! inflated in chunks that are written behind by whichever worker is idle; CRC-32 always checked.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use buffer_pool::BufferPool;
use strided_inflate::{ChunkedInflater, Decoder, Format};

use crate::Error;
use crate::archive::{Entry, Method};
use crate::behind::{Chunk, Target, WriteBehind};
use crate::tree::Tree;

/// Entries inflating to more than this are streamed to disk in chunks, so memory stays bounded
/// whatever the archive holds.
pub(crate) const WHOLE_ENTRY_MAX: u64 = 4 << 20;

/// The pooled buffer a streamed entry's chunk is copied into when it is handed to another worker.
const CHUNK_BUFFER: usize = 1 << 20;
/// A streamed entry's chunks: each fits a chunk buffer, overrun included.
const CHUNK: usize = CHUNK_BUFFER - ChunkedInflater::MAX_OVERRUN;

/// What a worker keeps between entries: the whole-stream decoder for entries inflated at once,
/// and the chunked one (made on first use) for large entries.
pub(crate) struct Inflaters<'a> {
    pub(crate) whole: Decoder,
    pub(crate) chunked: Option<ChunkedInflater<'a>>,
}

/// Inflates (or copies) one entry, verifies its CRC-32, and writes it as a new file.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_file<'a, 'pool>(
    data: &'a [u8],
    e: &Entry,
    tree: &Tree<'_>,
    pool: &'pool BufferPool,
    behind: &WriteBehind<'pool>,
    stop: &Halt<'_>,
    inflaters: &mut Inflaters<'a>,
    durable: bool,
) -> Result<(), Error> {
    let start = e.data_offset as usize;
    let src = &data[start..start + e.compressed_size as usize];
    let mut file = tree.create_file(&e.path, e.mode)?;
    let write = |file: &mut File, bytes: &[u8]| {
        file.write_all(bytes).map_err(|err| Error::io("writing", &tree.full_path(&e.path), err))
    };
    match e.method {
        Method::Stored => {
            if crc32fast::hash(src) != e.crc32 {
                return Err(Error::Crc { entry: e.path.clone() });
            }
            write(&mut file, src)?;
        }
        Method::Deflate if e.size <= WHOLE_ENTRY_MAX => {
            let size = e.size as usize;
            let mut lease = pool
                .acquire(size.max(1))
                .map_err(|_| Error::Limit { entry: e.path.clone(), reason: "out of memory".into() })?;
            let out = &mut lease[..size];
            crate::entry_data::read_entry(crate::entry_data::stored_span(data, e), e, &mut inflaters.whole, out, true)?;
            write(&mut file, out)?;
        }
        Method::Deflate => {
            // Large: inflate in bounded chunks, hashing as it goes. Each chunk is written at once
            // (always when durable, so the file can be synced below), or, while another worker
            // waits for work, copied into a pooled buffer and handed to it.
            let inflater =
                inflaters.chunked.get_or_insert_with(|| ChunkedInflater::with_chunk_size(Format::Raw, CHUNK));
            if durable {
                stream_entry(src, e, inflater, stop, |_, chunk| write(&mut file, chunk))?;
            } else {
                let target = Arc::new(Target { file, path: tree.full_path(&e.path) });
                let _producing = behind.producing();
                return stream_entry(src, e, inflater, stop, |offset, chunk| {
                    if !behind.has_idle_writer() {
                        return target
                            .file
                            .write_all_at(chunk, offset)
                            .map_err(|err| Error::io("writing", &target.path, err));
                    }
                    let mut data = pool
                        .acquire(CHUNK_BUFFER)
                        .map_err(|_| Error::Limit { entry: e.path.clone(), reason: "out of memory".into() })?;
                    data[..chunk.len()].copy_from_slice(chunk);
                    behind.push(Chunk { target: Arc::clone(&target), offset, data, len: chunk.len() })
                });
            }
        }
    }
    if durable {
        file.sync_all().map_err(|err| Error::io("syncing", &tree.full_path(&e.path), err))?;
    }
    Ok(())
}

/// Why workers stop early: another worker failed, or the caller cancelled.
pub(crate) struct Halt<'a> {
    /// Set when a worker failed.
    pub(crate) failed: &'a AtomicBool,
    /// The caller's cancel flag.
    pub(crate) cancel: Option<&'a AtomicBool>,
}

impl Halt<'_> {
    pub(crate) fn is_set(&self) -> bool {
        self.failed.load(Ordering::Relaxed) || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// Inflates a large entry in chunks, checking its size and CRC-32; each chunk goes to
/// `sink(offset in the file, bytes)`. Stops early when `stop` is set.
fn stream_entry<'a>(
    src: &'a [u8],
    e: &Entry,
    inflater: &mut ChunkedInflater<'a>,
    stop: &Halt<'_>,
    mut sink: impl FnMut(u64, &[u8]) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut crc = crc32fast::Hasher::new();
    inflater.start(src);
    loop {
        if stop.is_set() {
            return Err(Error::Cancelled);
        }
        let offset = inflater.total_out();
        let Some(chunk) = inflater.next_chunk().map_err(|source| Error::Data { entry: e.path.clone(), source })? else {
            break;
        };
        if offset + chunk.len() as u64 > e.size {
            return Err(Error::malformed_entry("inflates past its declared size", &e.path));
        }
        crc.update(chunk);
        sink(offset, chunk)?;
    }
    if inflater.total_out() != e.size {
        return Err(Error::malformed_entry("inflates to a size other than declared", &e.path));
    }
    if inflater.consumed() != src.len() {
        return Err(Error::malformed_entry("the deflate stream ends before its compressed size", &e.path));
    }
    if crc.finalize() != e.crc32 {
        return Err(Error::Crc { entry: e.path.clone() });
    }
    Ok(())
}
