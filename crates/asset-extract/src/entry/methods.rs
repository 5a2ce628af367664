//! The compression methods beside stored and deflate: Deflate64, bzip2, LZMA, Zstandard and XZ,
//! each as an [`io::Read`] of the entry's bytes over its compressed bytes, so that every reader
//! of entries ([`EntryReader`](crate::EntryReader), whole reads, extraction) streams them in
//! bounded memory and checks their size and CRC-32 the one way it checks deflate's.
//!
//! Memory per decoder, whatever the entry's size: Deflate64 its 64 KiB window; bzip2 up to
//! about 3.6 MiB (a 900 kB block); LZMA and XZ their dictionary, refused above
//! [`DICTIONARY_MAX`]; Zstandard its window, refused above 2^[`ZSTD_WINDOW_LOG_MAX`] bytes
//! (zstd's own default limit). The compressed input goes through a 64 KiB buffer.
//!
//! Each decoder stops where the entry's data does: at the end of the stream (bzip2, XZ and
//! Zstandard: of the stream or frame that completes the entry's size) and reads nothing after it,
//! so that bytes after a stream follow one rule for every method
//! ([`Trailing`](crate::entry::checks::Trailing)).

use std::io::{self, BufRead, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Error;
use crate::read::entry::{Entry, Method};

/// The largest LZMA or XZ dictionary a decoder may allocate: 128 MiB (`xz -9` and 7-Zip's
/// ultra level use 64 MiB).
pub const DICTIONARY_MAX: u64 = 128 << 20;

/// The largest Zstandard window accepted, as a power of two: 27 (128 MiB), zstd's own default
/// limit for decoding; levels up to 19 use at most 2^23.
pub const ZSTD_WINDOW_LOG_MAX: u32 = 27;

/// A decoder of one of the methods this module handles, reading compressed bytes from
/// `compressed` (exactly the entry's compressed data).
pub(crate) type Decoded<'a> = Box<dyn Read + Send + 'a>;

/// How many compressed bytes a decoder has taken from its input: where its stream ended, once
/// it has. Shared between the decoder's input and the reader that checks the end.
#[derive(Debug, Clone, Default)]
pub(crate) struct Taken(Arc<AtomicU64>);

impl Taken {
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn add(&self, n: usize) {
        self.0.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// A decoder's input, counting what the decoder takes.
struct Counted<R> {
    inner: R,
    taken: Taken,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.taken.add(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.taken.add(n);
    }
}

/// A reader of entry `e`'s bytes over its compressed data `compressed`, and the count of the
/// compressed bytes it takes.
pub(crate) fn decoder<'a>(e: &Entry, compressed: Box<dyn BufRead + Send + 'a>) -> Result<(Decoded<'a>, Taken), Error> {
    let taken = Taken::default();
    let compressed = Counted { inner: compressed, taken: taken.clone() };
    Ok((decoder_over(e, compressed)?, taken))
}

fn decoder_over<'a>(e: &Entry, mut compressed: impl BufRead + Send + 'a) -> Result<Decoded<'a>, Error> {
    let corrupt = |what: &str| Error::malformed_entry(format!("corrupt {} data: {what}", e.method.name()), &e.path);
    Ok(match e.method {
        Method::Deflate64 => Box::new(deflate64::Deflate64Decoder::with_buffer(compressed)),
        Method::Bzip2 | Method::Xz => {
            Box::new(Streams::new(e.method, e.size, compressed).map_err(|err| corrupt(&err.to_string()))?)
        }
        Method::Zstd => Box::new(ZstdReader::new(compressed, e.size).map_err(|err| corrupt(&err))?),
        Method::Lzma => {
            // APPNOTE 5.8.8: a version (2 bytes), the properties' size (2 bytes, 5), the
            // properties (lc/lp/pb and the dictionary size), then the raw stream, ended by its
            // size or by an end marker (flag bit 1). liblzma reads the same properties in a
            // `.lzma` header followed by the size: one is made here, with the entry's size (an
            // end marker after it is accepted).
            let mut head = [0u8; 9];
            compressed.read_exact(&mut head).map_err(|_| corrupt("shorter than its LZMA header"))?;
            if u16::from_le_bytes([head[2], head[3]]) != 5 {
                return Err(corrupt("LZMA properties are not 5 bytes long"));
            }
            let dictionary = u32::from_le_bytes([head[5], head[6], head[7], head[8]]);
            if u64::from(dictionary) > DICTIONARY_MAX {
                return Err(Error::Limit {
                    entry: e.path.clone(),
                    reason: format!("an LZMA dictionary of {dictionary} bytes (more than {DICTIONARY_MAX})"),
                });
            }
            let mut alone = [0u8; 13];
            alone[..5].copy_from_slice(&head[4..9]);
            alone[5..].copy_from_slice(&e.size.to_le_bytes());
            let stream =
                liblzma::stream::Stream::new_lzma_decoder(DICTIONARY_MAX).map_err(|err| corrupt(&err.to_string()))?;
            Box::new(liblzma::bufread::XzDecoder::new_stream(io::Cursor::new(alone).chain(compressed), stream))
        }
        Method::Stored | Method::Deflate => unreachable!("stored and deflate entries are read by their own paths"),
    })
}

/// The error a decoder's failed `read` stands for: the archive's own error when reading the
/// compressed bytes failed (the file changed, an I/O error), else the data's corruption.
pub(crate) fn read_error(e: &Entry, err: io::Error) -> Error {
    match err.get_ref().and_then(|inner| inner.downcast_ref::<Error>()) {
        Some(_) => *err.into_inner().expect("checked above").downcast::<Error>().expect("checked above"),
        None => Error::malformed_entry(format!("corrupt {} data: {err}", e.method.name()), &e.path),
    }
}

/// Input buffered for a decoder: a 64 KiB buffer, as deflate's streaming readers use.
pub(crate) const INPUT_BUFFER: usize = 64 << 10;

/// `len` bytes of an archive from `pos` on, as an [`io::Read`] that fetches them with `read_at`
/// (a `pread`, or a copy from memory) as the decoder asks. Its errors carry the archive's
/// [`Error`] for [`read_error`] to unwrap.
pub(crate) struct Range<F> {
    read_at: F,
    pos: u64,
    end: u64,
}

impl<F: FnMut(u64, &mut [u8]) -> Result<usize, Error>> Range<F> {
    pub(crate) fn new(pos: u64, len: u64, read_at: F) -> Self {
        Range { read_at, pos, end: pos.saturating_add(len) }
    }
}

impl<F: FnMut(u64, &mut [u8]) -> Result<usize, Error>> Read for Range<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(usize::try_from(self.end - self.pos).unwrap_or(usize::MAX));
        if n == 0 {
            return Ok(0);
        }
        let got = (self.read_at)(self.pos, &mut buf[..n]).map_err(io::Error::other)?;
        self.pos += got as u64;
        Ok(got)
    }
}

/// One bzip2 or XZ stream.
enum Stream<R> {
    Bzip2(bzip2::bufread::BzDecoder<R>),
    Xz(liblzma::bufread::XzDecoder<R>),
}

impl<R: BufRead> Stream<R> {
    fn new(method: Method, input: R) -> io::Result<Self> {
        Ok(match method {
            Method::Bzip2 => Stream::Bzip2(bzip2::bufread::BzDecoder::new(input)),
            _ => {
                let stream =
                    liblzma::stream::Stream::new_stream_decoder(DICTIONARY_MAX, 0).map_err(io::Error::other)?;
                Stream::Xz(liblzma::bufread::XzDecoder::new_stream(input, stream))
            }
        })
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Bzip2(d) => d.read(buf),
            Stream::Xz(d) => d.read(buf),
        }
    }

    fn into_inner(self) -> R {
        match self {
            Stream::Bzip2(d) => d.into_inner(),
            Stream::Xz(d) => d.into_inner(),
        }
    }
}

/// bzip2 or XZ streams one after another (as `pbzip2` and `xz -T` write them), until the one that
/// completes the entry's `size`: nothing after it is read. Between XZ streams, zero bytes of
/// stream padding are skipped.
struct Streams<R> {
    method: Method,
    size: u64,
    produced: u64,
    /// The stream being decoded; `None` once the data has ended.
    current: Option<Stream<R>>,
}

impl<R: BufRead> Streams<R> {
    fn new(method: Method, size: u64, input: R) -> io::Result<Self> {
        Ok(Streams { method, size, produced: 0, current: Some(Stream::new(method, input)?) })
    }
}

impl<R: BufRead> Read for Streams<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(stream) = self.current.as_mut() else { return Ok(0) };
            let n = stream.read(buf)?;
            if n > 0 || buf.is_empty() {
                self.produced += n as u64;
                return Ok(n);
            }
            // The stream ended: the data too, unless it is shorter than the entry and more follows.
            // Zero bytes after an XZ stream are its format's stream padding, part of the data.
            let mut input = self.current.take().expect("checked above").into_inner();
            if self.method == Method::Xz {
                loop {
                    let zeros = input.fill_buf()?.iter().take_while(|&&b| b == 0).count();
                    if zeros == 0 {
                        break;
                    }
                    input.consume(zeros);
                }
            }
            if self.produced >= self.size || input.fill_buf()?.is_empty() {
                return Ok(0);
            }
            self.current = Some(Stream::new(self.method, input)?);
        }
    }
}

/// Zstandard decompression contexts this thread has finished with, kept for the next entry:
/// making one costs about as much as decoding a small file (it allocates ~100 KiB of tables).
const ZSTD_CONTEXTS_KEPT: usize = 4;

thread_local! {
    static ZSTD_CONTEXTS: std::cell::RefCell<Vec<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A Zstandard stream (one frame or several, one after the other, up to the frame that completes
/// the entry's `size`: nothing after it is read) as an [`io::Read`], on a decompression context
/// taken from this thread's spares and given back when done.
struct ZstdReader<R> {
    input: R,
    context: Option<zstd::zstd_safe::DCtx<'static>>,
    /// Inside a frame: input must go on until it ends.
    in_frame: bool,
    /// Frames ended so far.
    frames: u64,
    size: u64,
    produced: u64,
}

impl<R: BufRead> ZstdReader<R> {
    fn new(input: R, size: u64) -> Result<Self, String> {
        let mut context = ZSTD_CONTEXTS
            .with(|spare| spare.borrow_mut().pop())
            .or_else(zstd::zstd_safe::DCtx::try_create)
            .ok_or("no memory for a decompression context")?;
        context
            .set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(ZSTD_WINDOW_LOG_MAX))
            .map_err(|code| zstd::zstd_safe::get_error_name(code).to_string())?;
        Ok(ZstdReader { input, context: Some(context), in_frame: false, frames: 0, size, produced: 0 })
    }
}

impl<R: BufRead> Read for ZstdReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let context = self.context.as_mut().expect("present until dropped");
        loop {
            if !self.in_frame && self.frames > 0 && self.produced >= self.size {
                return Ok(0);
            }
            let data = self.input.fill_buf()?;
            if data.is_empty() {
                return if self.in_frame {
                    Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the zstd frame is cut short"))
                } else {
                    Ok(0)
                };
            }
            let mut input = zstd::zstd_safe::InBuffer::around(data);
            let mut output = zstd::zstd_safe::OutBuffer::around(&mut *buf);
            let hint = context
                .decompress_stream(&mut output, &mut input)
                .map_err(|code| io::Error::new(io::ErrorKind::InvalidData, zstd::zstd_safe::get_error_name(code)))?;
            let (consumed, made) = (input.pos(), output.pos());
            self.input.consume(consumed);
            self.produced += made as u64;
            if self.in_frame || consumed > 0 {
                self.in_frame = hint != 0;
                self.frames += u64::from(hint == 0);
            }
            if made > 0 || buf.is_empty() {
                return Ok(made);
            }
            if consumed == 0 {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "the zstd stream stopped making progress"));
            }
        }
    }
}

impl<R> Drop for ZstdReader<R> {
    fn drop(&mut self) {
        if let Some(mut context) = self.context.take()
            && context.reset(zstd::zstd_safe::ResetDirective::SessionOnly).is_ok()
        {
            ZSTD_CONTEXTS.with(|spare| {
                let mut spare = spare.borrow_mut();
                if spare.len() < ZSTD_CONTEXTS_KEPT {
                    spare.push(context);
                }
            });
        }
    }
}
