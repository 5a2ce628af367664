//! Writing one entry: inflated whole into a pooled buffer of its exact size, or, when large,
//! inflated in chunks that are written behind by whichever worker is idle; CRC-32 always checked.

use std::fs::File;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use buffer_pool::{BufferPool, Lease};
use flate2::{Decompress, FlushDecompress, Status};
use strided_inflate::Decoder;

use crate::Error;
use crate::archive::{Entry, Method};
use crate::behind::{Chunk, Target, WriteBehind};
use crate::tree::Tree;

/// Entries inflating to more than this are streamed to disk in chunks of this size, so memory
/// stays bounded whatever the archive holds.
pub(crate) const WHOLE_ENTRY_MAX: u64 = 4 << 20;

/// Inflates (or copies) one entry, verifies its CRC-32, and writes it as a new file.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_file<'pool>(
    data: &[u8],
    e: &Entry,
    tree: &Tree<'_>,
    pool: &'pool BufferPool,
    behind: &WriteBehind<'pool>,
    stop: &AtomicBool,
    decoder: &mut Decoder,
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
            let consumed =
                decoder.inflate_at(src, 0, out).map_err(|source| Error::Data { entry: e.path.clone(), source })?;
            if consumed != src.len() {
                return Err(Error::malformed_entry("the deflate stream ends before its compressed size", &e.path));
            }
            if crc32fast::hash(out) != e.crc32 {
                return Err(Error::Crc { entry: e.path.clone() });
            }
            write(&mut file, out)?;
        }
        Method::Deflate => {
            // Large: inflate in bounded chunks, hashing as it goes; written here when durable
            // (so the file can be synced below), else handed to whichever worker is idle.
            if durable {
                stream_entry(src, e, pool, stop, |_, chunk, len| write(&mut file, &chunk[..len]))?;
            } else {
                let target = Arc::new(Target { file, path: tree.full_path(&e.path) });
                let _producing = behind.producing();
                return stream_entry(src, e, pool, stop, |offset, data, len| {
                    behind.push(Chunk { target: Arc::clone(&target), offset, data, len })
                });
            }
        }
    }
    if durable {
        file.sync_all().map_err(|err| Error::io("syncing", &tree.full_path(&e.path), err))?;
    }
    Ok(())
}

/// Inflates a large entry in 1 MiB chunks, checking its size and CRC-32; each chunk goes to
/// `sink(offset in the file, buffer, bytes in it)`. Stops early when `stop` is set.
fn stream_entry<'pool>(
    src: &[u8],
    e: &Entry,
    pool: &'pool BufferPool,
    stop: &AtomicBool,
    mut sink: impl FnMut(u64, Lease<'pool>, usize) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut d = Decompress::new(false);
    let mut crc = crc32fast::Hasher::new();
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let mut lease = pool
            .acquire(1 << 20)
            .map_err(|_| Error::Limit { entry: e.path.clone(), reason: "out of memory".into() })?;
        let (in_before, out_before) = (d.total_in() as usize, d.total_out());
        let status = d
            .decompress(&src[in_before..], &mut lease, FlushDecompress::None)
            .map_err(|_| Error::malformed_entry("invalid deflate data", &e.path))?;
        let produced = (d.total_out() - out_before) as usize;
        if d.total_out() > e.size {
            return Err(Error::malformed_entry("inflates past its declared size", &e.path));
        }
        crc.update(&lease[..produced]);
        if produced > 0 {
            sink(out_before, lease, produced)?;
        }
        if status == Status::StreamEnd {
            break;
        }
        if produced == 0 && d.total_in() as usize == in_before {
            return Err(Error::malformed_entry("deflate data is truncated", &e.path));
        }
    }
    if d.total_out() != e.size || d.total_in() as usize != src.len() {
        return Err(Error::malformed_entry("inflates to a size other than declared", &e.path));
    }
    if crc.finalize() != e.crc32 {
        return Err(Error::Crc { entry: e.path.clone() });
    }
    Ok(())
}
