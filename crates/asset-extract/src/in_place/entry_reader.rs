//! One entry of an [`AssetArchive`](crate::AssetArchive) as a stream, in bounded memory, through
//! the decoder [`decoding`](crate::entry::decode::decoding) chooses for it.

#![forbid(unsafe_code)]

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::Error;
use crate::entry::stream_decoder::EntryDecoder;
use crate::read::entry::Entry;

/// An entry's bytes as an [`io::Read`], from
/// [`AssetArchive::reader`](crate::AssetArchive::reader). Holds about 100 KiB (a 64 KiB chunk and
/// deflate's 32 KiB window, plus up to 256 KiB of compressed input for an archive not in memory)
/// whatever the entry's size. A reader moving forward keeps its decoder: a pass through the
/// entry costs one inflate of it, however it is read.
///
/// Bytes go out as they are inflated, before the stream's end and its CRC-32 can be checked. The
/// checks run when the entry's last byte has been handed out: a stream that ends early or late,
/// runs past the entry's size or fails its CRC makes the next `read` (the one that would return 0)
/// fail with [`io::ErrorKind::InvalidData`], whose source is the [`Error`]. A caller that must not
/// act on unchecked bytes reads the entry whole ([`AssetArchive::read`](crate::AssetArchive::read)).
///
/// ```
/// use std::io::Read;
/// # let zip = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/examples.zip")).unwrap();
/// let archive = asset_extract::AssetArchive::from_bytes(zip)?;
/// let mut text = String::new();
/// archive.reader(archive.find("notes.txt").unwrap())?.read_to_string(&mut text)?;
/// assert_eq!(text, "hello");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct EntryReader<'a> {
    decoder: EntryDecoder<'a, 'a>,
    /// Set once the end has been checked: every later read returns 0.
    verified: bool,
    /// The error the first failed read gave: every later read fails with it too.
    failed: Option<Error>,
    /// The archive's "CRC checked" flag for this entry, set once it has matched.
    crc_checked: &'a AtomicBool,
    /// Where to keep the checkpoints this read records as a by-product, once it has checked the
    /// entry: the archive's store, the entry's index, and the span recorded at.
    keep: Option<(&'a crate::entry::random_access::CheckpointStore, usize, u64)>,
}

impl std::fmt::Debug for EntryReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryReader")
            .field("entry", &self.decoder.entry().path)
            .field("verified", &self.verified)
            .finish_non_exhaustive()
    }
}

impl<'a> EntryReader<'a> {
    /// A reader through `decoder`, which sets `crc_checked` once the entry has checked.
    pub(crate) fn new(decoder: EntryDecoder<'a, 'a>, crc_checked: &'a AtomicBool) -> Self {
        EntryReader { decoder, verified: false, failed: None, crc_checked, keep: None }
    }

    /// Records checkpoints while reading (a deflated entry in memory or mapped, large enough to
    /// want them, within the store's budget) and gives them to `store` for entry `index` once
    /// the whole entry has checked: a later [`AssetArchive::read_at`](crate::AssetArchive::read_at)
    /// then needs no pass of its own.
    pub(crate) fn keeping_checkpoints(
        mut self,
        store: &'a crate::entry::random_access::CheckpointStore,
        index: usize,
    ) -> Self {
        let size = self.decoder.entry().size;
        if let (Some(inflater), Some(span)) = (self.decoder.inflater(), store.span_to_record(size)) {
            inflater.set_checkpoint_span(span);
            self.keep = Some((store, index, span));
        }
        self
    }

    /// The entry being read.
    pub fn entry(&self) -> &'a Entry {
        self.decoder.entry()
    }

    /// The error a read failed with, if one did: every later read fails with it too.
    pub fn failure(&self) -> Option<Error> {
        self.failed.as_ref().map(Error::again)
    }

    /// Copies the entry's next bytes into `buf` and returns how many; `Ok(0)` at the end, once
    /// the checks have passed. The same as [`io::Read::read`], with the error as an [`Error`].
    pub fn read_checked(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        if let Some(first) = &self.failed {
            return Err(first.again());
        }
        if self.verified || buf.is_empty() {
            return Ok(0);
        }
        match self.decoder.read(buf) {
            Ok(0) => {
                self.verified = true;
                self.crc_checked.store(true, Ordering::Release);
                self.keep_checkpoints();
                Ok(0)
            }
            Ok(n) => Ok(n),
            Err(e) => {
                self.failed = Some(e.again());
                Err(e)
            }
        }
    }

    /// Once the entry has checked: gives the checkpoints recorded on the way to the store.
    fn keep_checkpoints(&mut self) {
        let Some((store, index, span)) = self.keep.take() else { return };
        let e = self.decoder.entry();
        if let Some(points) = self.decoder.inflater().and_then(|inflater| {
            strided_inflate::Checkpoints::from_checked_pass(e.compressed_size, e.size, e.crc32, span, inflater)
        }) {
            store.insert(index, points);
        }
    }
}

impl io::Read for EntryReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read_checked(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}
