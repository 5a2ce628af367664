//! One entry of an [`AssetArchive`](crate::AssetArchive) as a stream, in bounded memory: stored
//! bytes straight from the archive, deflated ones through strided-inflate's chunked decoder.

#![forbid(unsafe_code)]

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::Path;

use std::sync::atomic::{AtomicBool, Ordering};

use strided_inflate::{ChunkedInflater, Format};

use crate::Error;
use crate::archive::{Entry, Method};
use crate::methods;

/// Output the decoder hands out at a time: its memory is this plus 32 KiB of history.
const CHUNK: usize = 64 << 10;

/// Compressed bytes read from the file at a time, for an entry read from the file.
const FEED: usize = 32 << 10;

/// An entry's bytes as an [`io::Read`], from
/// [`AssetArchive::reader`](crate::AssetArchive::reader). Holds about 100 KiB (a 64 KiB chunk and
/// deflate's 32 KiB window) whatever the entry's size.
///
/// Bytes go out as they are inflated, before the stream's end and its CRC-32 can be checked. The
/// checks run when the entry's last byte has been handed out: a stream that ends early or late,
/// runs past the entry's size or fails its CRC makes the next `read` (the one that would return 0)
/// fail with [`io::ErrorKind::InvalidData`], whose source is the [`Error`]. A caller that must not
/// act on unchecked bytes reads the entry whole ([`AssetArchive::read`](crate::AssetArchive::read)).
///
/// ```
/// use std::io::Read;
/// # let zip = asset_extract::fuzzing::stored_zip(&[("notes.txt".to_string(), b"hello".to_vec())]);
/// let archive = asset_extract::AssetArchive::from_bytes(zip)?;
/// let mut text = String::new();
/// archive.reader(archive.find("notes.txt").unwrap())?.read_to_string(&mut text)?;
/// assert_eq!(text, "hello");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct EntryReader<'a> {
    entry: &'a Entry,
    source: Source<'a>,
    crc: strided_inflate::Crc32,
    produced: u64,
    /// Set once the end has been checked: every later read returns 0.
    verified: bool,
    /// The error the first failed read gave: every later read fails with it too.
    failed: Option<Error>,
    /// The archive's "CRC checked" flag for this entry, set once it has matched.
    crc_checked: &'a AtomicBool,
    /// What bytes after the entry's stream, inside its compressed size, make of the read.
    trailing: crate::entry_data::Trailing,
    /// Where to keep the checkpoints this read records as a by-product, once it has checked the
    /// entry: the archive's store and the entry's index.
    keep: Option<(&'a crate::random_access::CheckpointStore, usize, u64)>,
}

enum Source<'a> {
    Stored {
        rest: &'a [u8],
    },
    Deflate {
        inflater: Box<ChunkedInflater<'a>>,
        compressed: usize,
        handed: usize,
        ended: bool,
    },
    /// Read from the file as the caller reads: `pos..end` of it are still to come.
    FileStored {
        file: &'a File,
        pos: u64,
        end: u64,
    },
    /// Read from the file `FEED` bytes at a time, as the decoder asks, and inflated by the same
    /// chunked decoder as an entry in memory: `pos..end` of the file are still to be fed.
    FileDeflate {
        file: &'a File,
        pos: u64,
        end: u64,
        inflater: Box<ChunkedInflater<'a>>,
        handed: usize,
        ended: bool,
    },
    /// Deflate64, bzip2, LZMA, Zstandard or XZ, decoded from memory or from the file, and the
    /// compressed bytes the decoder has taken.
    Decoded(crate::methods::Decoded<'a>, methods::Taken),
}

impl std::fmt::Debug for EntryReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryReader")
            .field("entry", &self.entry.path)
            .field("produced", &self.produced)
            .field("verified", &self.verified)
            .finish_non_exhaustive()
    }
}

impl<'a> EntryReader<'a> {
    /// A reader of `entry`, whose data as stored is `span`.
    pub(crate) fn new(span: &'a [u8], entry: &'a Entry, crc_checked: &'a AtomicBool) -> Result<Self, Error> {
        let source = match entry.method {
            Method::Stored => Source::Stored { rest: span },
            Method::Deflate => {
                let mut inflater = Box::new(ChunkedInflater::with_chunk_size(Format::Raw, CHUNK));
                inflater.start(span);
                Source::Deflate { inflater, compressed: span.len(), handed: 0, ended: false }
            }
            _ => {
                let (decoder, taken) = methods::decoder(entry, Box::new(span))?;
                Source::Decoded(decoder, taken)
            }
        };
        Ok(EntryReader::over(source, entry, crc_checked))
    }

    /// A reader of `entry` whose data starts at `offset` of `file`: memory stays at one chunk of
    /// input and the decoder's window, however large the entry.
    pub(crate) fn from_file(
        file: &'a File,
        offset: u64,
        entry: &'a Entry,
        crc_checked: &'a AtomicBool,
    ) -> Result<Self, Error> {
        let end = offset + entry.compressed_size;
        let source = match entry.method {
            Method::Stored => Source::FileStored { file, pos: offset, end },
            Method::Deflate => {
                let mut inflater = Box::new(ChunkedInflater::with_chunk_size(Format::Raw, CHUNK));
                inflater.start_fed();
                Source::FileDeflate { file, pos: offset, end, inflater, handed: 0, ended: false }
            }
            _ => {
                let path = &entry.path;
                let range = methods::Range::new(offset, entry.compressed_size, move |pos, buf: &mut [u8]| {
                    read_some(file, buf, pos, path)
                });
                let input = io::BufReader::with_capacity(methods::INPUT_BUFFER, range);
                let (decoder, taken) = methods::decoder(entry, Box::new(input))?;
                Source::Decoded(decoder, taken)
            }
        };
        Ok(EntryReader::over(source, entry, crc_checked))
    }

    fn over(source: Source<'a>, entry: &'a Entry, crc_checked: &'a AtomicBool) -> Self {
        EntryReader {
            entry,
            source,
            crc: strided_inflate::Crc32::new(),
            produced: 0,
            verified: false,
            failed: None,
            crc_checked,
            trailing: crate::entry_data::Trailing::Read,
            keep: None,
        }
    }

    /// Reads with `rule` for bytes after the entry's stream (by default they are read past).
    pub(crate) fn with_trailing(mut self, rule: crate::entry_data::Trailing) -> Self {
        self.trailing = rule;
        self
    }

    /// The compressed bytes the entry's stream has taken so far: where it ended, once it has.
    fn consumed(&self) -> u64 {
        match &self.source {
            Source::Stored { .. } | Source::FileStored { .. } => self.entry.compressed_size,
            Source::Deflate { inflater, .. } | Source::FileDeflate { inflater, .. } => inflater.consumed() as u64,
            Source::Decoded(_, taken) => taken.get(),
        }
    }

    /// Records checkpoints while reading (a deflated entry in memory or mapped, large enough to
    /// want them, within the store's budget) and gives them to `store` for entry `index` once
    /// the whole entry has checked: a later [`AssetArchive::read_at`](crate::AssetArchive::read_at)
    /// then needs no pass of its own.
    pub(crate) fn keeping_checkpoints(
        mut self,
        store: &'a crate::random_access::CheckpointStore,
        index: usize,
    ) -> Self {
        if let Source::Deflate { inflater, .. } = &mut self.source
            && let Some(span) = store.span_to_record(self.entry.size)
        {
            inflater.set_checkpoint_span(span);
            self.keep = Some((store, index, span));
        }
        self
    }

    /// The entry being read.
    pub fn entry(&self) -> &'a Entry {
        self.entry
    }

    /// Copies the next bytes into `buf`; `Ok(0)` once nothing is left to hand out.
    fn next_bytes(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        let path = &self.entry.path;
        match &mut self.source {
            Source::Stored { rest } => {
                let n = buf.len().min(rest.len());
                buf[..n].copy_from_slice(&rest[..n]);
                *rest = &rest[n..];
                Ok(n)
            }
            Source::Deflate { inflater, handed, ended, .. } => loop {
                let chunk = inflater.last_chunk();
                if *handed < chunk.len() {
                    let n = buf.len().min(chunk.len() - *handed);
                    buf[..n].copy_from_slice(&chunk[*handed..*handed + n]);
                    *handed += n;
                    return Ok(n);
                }
                if *ended {
                    return Ok(0);
                }
                match inflater.next_chunk() {
                    Ok(Some(_)) => *handed = 0,
                    Ok(None) => *ended = true,
                    Err(source) => return Err(Error::Data { entry: path.clone(), source }),
                }
            },
            Source::FileStored { file, pos, end } => {
                let n = buf.len().min((*end - *pos) as usize);
                let got = read_some(file, &mut buf[..n], *pos, path)?;
                *pos += got as u64;
                Ok(got)
            }
            Source::FileDeflate { file, pos, end, inflater, handed, ended } => loop {
                let chunk = inflater.last_chunk();
                if *handed < chunk.len() {
                    let n = buf.len().min(chunk.len() - *handed);
                    buf[..n].copy_from_slice(&chunk[*handed..*handed + n]);
                    *handed += n;
                    return Ok(n);
                }
                if *ended {
                    return Ok(0);
                }
                while inflater.wants_input() {
                    if *pos == *end {
                        inflater.end_input();
                        break;
                    }
                    let piece = (*end - *pos).min(FEED as u64) as usize;
                    let at = *pos;
                    *pos += inflater.feed_with(piece, |room| read_exact(file, room, at, path).map(|()| piece))? as u64;
                }
                match inflater.next_chunk() {
                    Ok(Some(_)) => *handed = 0,
                    Ok(None) => *ended = true,
                    Err(source) => return Err(Error::Data { entry: path.clone(), source }),
                }
            },
            Source::Decoded(decoder, _) => loop {
                match decoder.read(buf) {
                    Ok(n) => return Ok(n),
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(err) => return Err(methods::read_error(self.entry, err)),
                }
            },
        }
    }

    /// Checks the whole entry once its last byte is out.
    fn verify(&mut self) -> Result<(), Error> {
        let e = self.entry;
        if self.produced != e.size {
            return Err(Error::malformed_entry(
                format!("{} bytes, not the {} its header says", self.produced, e.size),
                &e.path,
            ));
        }
        if self.crc.finalize() != e.crc32 {
            return Err(Error::Crc { entry: e.path.clone() });
        }
        crate::entry_data::check_stream_end(e, self.consumed(), self.trailing)?;
        self.verified = true;
        self.crc_checked.store(true, Ordering::Release);
        if let (Some((store, index, span)), Source::Deflate { inflater, compressed, .. }) =
            (self.keep.take(), &mut self.source)
        {
            let points = inflater.take_checkpoints();
            store.insert(
                index,
                strided_inflate::Checkpoints::from_checked_pass(*compressed as u64, e.size, e.crc32, span, points),
            );
        }
        Ok(())
    }
}

impl EntryReader<'_> {
    /// Fills `out`, exactly the entry's size, with the whole entry, and checks its end (size,
    /// CRC-32).
    pub(crate) fn fill_exactly(&mut self, out: &mut [u8]) -> Result<(), Error> {
        let mut filled = 0;
        while filled < out.len() {
            match self.read_checked(&mut out[filled..])? {
                0 => break, // ended early: read_checked has refused it
                n => filled += n,
            }
        }
        // One more read: past the size it fails, at the end it runs the checks.
        self.read_checked(&mut [0u8; 1]).map(|_| ())
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
        let outcome = self.step(buf);
        if let Err(e) = &outcome {
            self.failed = Some(e.again());
        }
        outcome
    }

    fn step(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        let n = self.next_bytes(buf)?;
        self.produced += n as u64;
        if self.produced > self.entry.size {
            return Err(Error::malformed_entry(
                format!("inflates past its size of {} bytes", self.entry.size),
                &self.entry.path,
            ));
        }
        self.crc.update(&buf[..n]);
        if n == 0 {
            self.verify()?;
        }
        Ok(n)
    }
}

impl io::Read for EntryReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read_checked(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

/// Some bytes of `file` at `pos` into `buf` (not empty); the file ending first means it changed.
/// Fills `buf` from `file` at `pos`; the file ending first means it changed.
fn read_exact(file: &File, buf: &mut [u8], pos: u64, entry: &str) -> Result<(), Error> {
    let mut done = 0;
    while done < buf.len() {
        done += read_some(file, &mut buf[done..], pos + done as u64, entry)?;
    }
    Ok(())
}

fn read_some(file: &File, buf: &mut [u8], pos: u64, entry: &str) -> Result<usize, Error> {
    loop {
        match file.read_at(buf, pos) {
            Ok(0) if !buf.is_empty() => {
                return Err(Error::malformed_entry("the archive shrank since it was opened", entry));
            }
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("reading", Path::new(entry), e)),
        }
    }
}
