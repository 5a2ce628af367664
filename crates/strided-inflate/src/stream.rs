//! Streaming mode: for a source that is not all in memory (a pack arriving over a socket, read
//! from a file), input is fed in bounded strides; memory stays bounded (the decoder's window and
//! the caller's output), and the result is the same exact consumed count. The decoder is the
//! crate's chunked one, fed exactly ([`ChunkedInflater::start_fed_exact`]).

#![forbid(unsafe_code)]

use std::mem::MaybeUninit;

use crate::{ChunkedInflater, Error, Format};

/// Output the decoder makes at a time before it is copied into the caller's.
const CHUNK: usize = 64 << 10;

/// The first piece of a stride fed to a new stream, and the largest: pieces double from one to
/// the other, so a tiny stream at the front of a large stride costs a copy of about its own size,
/// and a long one pieces of 64 KiB.
const FIRST_PIECE: usize = 512;
const LARGEST_PIECE: usize = 64 << 10;

/// One stream inflated from input fed piece by piece.
///
/// ```
/// use strided_inflate::{Format, StreamInflater};
///
/// let stream = [0x78, 0xda, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x06, 0x2c, 0x02, 0x15];
/// let mut input = stream.to_vec();
/// input.extend_from_slice(b"next object...");
/// let mut out = [0u8; 5];
/// let mut s = StreamInflater::new(Format::Zlib);
/// let mut fed = 0;
/// let consumed = loop {
///     let stride = &input[fed..(fed + 4).min(input.len())]; // 4 bytes at a time
///     let step = s.feed(stride, &mut out)?;
///     fed += step.used;
///     if let Some(total) = step.finished { break total; }
/// };
/// assert_eq!((&out, consumed, fed), (b"hello", 13, 13)); // it stopped exactly at the stream's end
/// # Ok::<(), strided_inflate::Error>(())
/// ```
pub struct StreamInflater {
    inflater: ChunkedInflater<'static>,
    format: Format,
    /// Offset to report in errors (where the stream started in the caller's source).
    origin: usize,
    /// Input bytes fed to the decoder so far: every one of them the stream's, until it ends.
    fed: usize,
    /// Output bytes written to the caller's buffer so far.
    produced: usize,
    /// The next piece's size.
    piece: usize,
    /// `Some(consumed)` once the stream has ended and verified.
    finished: Option<usize>,
    /// Why the stream failed: every later feed fails the same way, until a reset.
    failed: Option<Error>,
}

/// What one call to [`StreamInflater::feed`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Bytes of this call's input that belong to the stream (feed the rest to whatever follows).
    pub used: usize,
    /// `Some(consumed)` once the stream has ended and verified: the total bytes it occupied.
    pub finished: Option<usize>,
}

impl std::fmt::Debug for StreamInflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamInflater").field("format", &self.format).field("fed", &self.fed).finish()
    }
}

impl StreamInflater {
    /// A fresh stream.
    pub fn new(format: Format) -> StreamInflater {
        let mut inflater = ChunkedInflater::with_chunk_size(format, CHUNK);
        inflater.start_fed_exact();
        StreamInflater {
            inflater,
            format,
            origin: 0,
            fed: 0,
            produced: 0,
            piece: FIRST_PIECE,
            finished: None,
            failed: None,
        }
    }

    /// Sets the offset reported in errors (where this stream starts in the caller's source).
    pub fn at_offset(mut self, origin: usize) -> StreamInflater {
        self.origin = origin;
        self
    }

    /// Starts over for another stream at `origin`, keeping the allocation. The one way on
    /// after a failed feed.
    pub fn reset(&mut self, origin: usize) {
        self.inflater.start_fed_exact();
        self.origin = origin;
        self.fed = 0;
        self.produced = 0;
        self.piece = FIRST_PIECE;
        self.finished = None;
        self.failed = None;
    }

    /// Feeds the next stride of input. `out` is the whole output (the stream's exact inflated
    /// size), passed again on every call. An empty stride means the source has ended: if the
    /// stream has not, that is [`Error::Truncated`] (or the error the last bytes fed show).
    /// [`Step::used`] is less than the stride only when the stream ended inside it: a stream
    /// that outgrows `out` is [`Error::SizeMismatch`] as soon as the stride shows it, never a
    /// request for more input. The cost follows the bytes the stream takes, not the stride's
    /// length: a stride is fed in pieces, and the rest of it is never copied.
    ///
    /// A failed feed fails the stream: every later feed returns the same error, using no input,
    /// until [`reset`](Self::reset) (the decoder's state after bad data is not one to go on from).
    pub fn feed(&mut self, input: &[u8], out: &mut [u8]) -> Result<Step, Error> {
        self.feed_uninit(input, crate::decoder::as_uninit(out))
    }

    /// Like [`feed`](Self::feed), into memory that may be uninitialised: the bytes produced so
    /// far are initialised (all of `out` once [`Step::finished`]); on error `out` is zeroed.
    pub fn feed_uninit(&mut self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<Step, Error> {
        if let Some(e) = &self.failed {
            out.fill(MaybeUninit::new(0));
            return Err(e.clone());
        }
        if let Some(total) = self.finished {
            return Ok(Step { used: 0, finished: Some(total) });
        }
        let result = self.feed_fresh(input, out);
        if let Err(e) = &result {
            out.fill(MaybeUninit::new(0));
            self.failed = Some(e.clone());
        }
        result
    }

    /// [`feed_uninit`](Self::feed_uninit) on a stream that has neither failed nor ended.
    fn feed_fresh(&mut self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<Step, Error> {
        let fed_before = self.fed;
        if input.is_empty() {
            self.inflater.end_input();
            return match self.drain(out)? {
                Some(total) => Ok(Step { used: 0, finished: Some(total) }),
                None => Err(Error::Truncated { offset: self.origin }),
            };
        }
        let mut used = 0;
        loop {
            if let Some(total) = self.drain(out)? {
                return Ok(Step { used: total - fed_before, finished: Some(total) });
            }
            if used == input.len() {
                return Ok(Step { used, finished: None });
            }
            let piece = self.piece.min(input.len() - used);
            let bytes = &input[used..used + piece];
            let fed = self.inflater.feed_with(piece, |room| {
                room.copy_from_slice(bytes);
                Ok::<usize, std::convert::Infallible>(piece)
            });
            let Ok(_) = fed;
            used += piece;
            self.fed += piece;
            self.piece = (self.piece * 2).min(LARGEST_PIECE);
        }
    }

    /// Copies into `out` whatever the decoder can make of the input fed so far; the total input
    /// the stream occupied once it has ended and its size matched.
    fn drain(&mut self, out: &mut [MaybeUninit<u8>]) -> Result<Option<usize>, Error> {
        let offset = self.origin;
        let expected = out.len();
        loop {
            let chunk = match self.inflater.next_chunk() {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => return Err(e.at(offset)),
            };
            if chunk.is_empty() {
                return Ok(None); // it wants more input
            }
            let room = &mut out[self.produced.min(expected)..];
            if chunk.len() > room.len() {
                return Err(Error::SizeMismatch { offset, expected, actual: None });
            }
            for (slot, &byte) in room.iter_mut().zip(chunk) {
                *slot = MaybeUninit::new(byte);
            }
            self.produced += chunk.len();
        }
        if self.produced != expected {
            return Err(Error::SizeMismatch { offset, expected, actual: Some(self.produced) });
        }
        let total = self.inflater.consumed();
        self.finished = Some(total);
        Ok(Some(total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small stream at the front of a large stride costs a copy of about its own size, not the
    /// stride's: the JGit bug this crate exists for, where the whole rest of a buffer was copied
    /// per object.
    #[test]
    fn a_small_stream_in_a_large_stride_copies_about_its_own_size() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8 ^ (i / 97) as u8).collect();
        let stream = miniz_oxide::deflate::compress_to_vec_zlib(&data, 6);
        let mut input = stream.clone();
        input.resize(4 << 20, 0xA5); // the next objects, 4 MiB of them
        let mut out = vec![0u8; data.len()];
        let mut s = StreamInflater::new(Format::Zlib);
        let step = s.feed(&input, &mut out).unwrap();
        assert_eq!((step.used, step.finished), (stream.len(), Some(stream.len())));
        assert_eq!(out, data);
        assert!(s.fed <= 2 * stream.len() + FIRST_PIECE, "copied {} bytes for a {}-byte stream", s.fed, stream.len());
    }

    /// Wherever the input is cut, the stream is found to end in the stride that ends it, and the
    /// bytes after it are never taken; a damaged stream fails at the latest when the input ends.
    #[test]
    fn every_cut_gives_the_exact_end_or_the_error() {
        let data: Vec<u8> =
            (0..20_000u32).map(|i| b"pack objects, one after another\n"[(i % 32) as usize] ^ (i / 700) as u8).collect();
        for level in [0u8, 1, 6, 9] {
            let stream = miniz_oxide::deflate::compress_to_vec(&data, level);
            let mut input = stream.clone();
            input.extend_from_slice(&[0u8; 100]);
            for stride in [1usize, 2, 3, 7, 64, 1000, 4095, 70_000] {
                let mut s = StreamInflater::new(Format::Raw);
                let mut out = vec![0u8; data.len()];
                let mut fed = 0;
                let total = loop {
                    let step = s.feed(&input[fed..(fed + stride).min(input.len())], &mut out).unwrap();
                    fed += step.used;
                    if let Some(total) = step.finished {
                        break total;
                    }
                };
                assert_eq!((total, fed), (stream.len(), stream.len()), "level {level}, stride {stride}");
                assert_eq!(out, data);
            }
            // zlib's Adler-32 catches what raw deflate cannot (a changed byte of a stored block).
            let mut bad = miniz_oxide::deflate::compress_to_vec_zlib(&data, level);
            let at = bad.len() * 2 / 3;
            bad[at] ^= 0x55;
            for stride in [1usize, 5, 4096] {
                let mut s = StreamInflater::new(Format::Zlib);
                let mut out = vec![0u8; data.len()];
                let mut fed = 0;
                let failed = loop {
                    match s.feed(&bad[fed..(fed + stride).min(bad.len())], &mut out) {
                        Err(e) => break e,
                        Ok(step) if step.finished.is_some() => panic!("a damaged stream inflated (level {level})"),
                        Ok(step) => fed += step.used,
                    }
                };
                assert!(!matches!(failed, Error::Truncated { .. }) || fed == bad.len(), "{failed:?}");
            }
        }
    }
}
