//! Streaming mode: for a source that is not all in memory (a pack arriving over a socket, read
//! from a file), input is fed in bounded strides; memory stays bounded (the decoder's 32 KiB
//! window and the caller's output), and the result is the same exact consumed count.

#![forbid(unsafe_code)]

use flate2::{Decompress, FlushDecompress, Status};
use std::mem::MaybeUninit;

use crate::{Error, Format};

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
    d: Decompress,
    format: Format,
    /// Offset to report in errors (where the stream started in the caller's source).
    origin: usize,
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
        f.debug_struct("StreamInflater").field("format", &self.format).field("consumed", &self.d.total_in()).finish()
    }
}

impl StreamInflater {
    /// Decodes `input` into the unfilled part of `out`; once `out` is full, goes on into a
    /// one-byte spill, so a stream longer than `out` shows itself within this stride (the caller
    /// sees more output than expected) instead of stopping for want of room.
    fn decode(&mut self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<Status, Error> {
        let offset = self.origin;
        let start = self.d.total_in();
        let mut spill = [MaybeUninit::new(0u8); 1];
        loop {
            let (fed, produced) = ((self.d.total_in() - start) as usize, self.d.total_out() as usize);
            let dst: &mut [MaybeUninit<u8>] = if produced < out.len() { &mut out[produced..] } else { &mut spill };
            let status = self.d.decompress_uninit(&input[fed..], dst, FlushDecompress::None).map_err(|e| {
                let reason = e.message().unwrap_or("invalid deflate data").to_string();
                if reason.contains("data check") {
                    Error::Checksum { offset }
                } else {
                    Error::Corrupt { offset, reason }
                }
            })?;
            let (fed_now, produced_now) = ((self.d.total_in() - start) as usize, self.d.total_out() as usize);
            let full = produced_now >= out.len();
            let progressed = fed_now > fed || produced_now > produced;
            // Go round again while the output is full and the decoder moves: it may hold output
            // it had no room for, even with no input left.
            if status == Status::StreamEnd || produced_now > out.len() || !full || !progressed {
                return Ok(status);
            }
        }
    }

    /// A fresh stream.
    pub fn new(format: Format) -> StreamInflater {
        StreamInflater { d: Decompress::new(format == Format::Zlib), format, origin: 0, failed: None }
    }

    /// Sets the offset reported in errors (where this stream starts in the caller's source).
    pub fn at_offset(mut self, origin: usize) -> StreamInflater {
        self.origin = origin;
        self
    }

    /// Starts over for another stream at `origin`, keeping the allocation. The one way on
    /// after a failed feed.
    pub fn reset(&mut self, origin: usize) {
        self.d.reset(self.format == Format::Zlib);
        self.origin = origin;
        self.failed = None;
    }

    /// Feeds the next stride of input. `out` is the whole output (the stream's exact inflated
    /// size), passed again on every call. An empty stride means the source has ended: if the
    /// stream has not, that is [`Error::Truncated`]. [`Step::used`] is less than the stride only
    /// when the stream ended inside it: a stream that outgrows `out` is
    /// [`Error::SizeMismatch`] as soon as the stride shows it, never a request for more input.
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
        let result = self.feed_fresh(input, out);
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    /// [`feed_uninit`](Self::feed_uninit) on a stream that has not failed.
    fn feed_fresh(&mut self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<Step, Error> {
        let offset = self.origin;
        let in_before = self.d.total_in() as usize;
        if input.is_empty() {
            return Err(Error::Truncated { offset });
        }
        let expected = out.len();
        let status = self.decode(input, out);
        let (in_now, out_now) = (self.d.total_in() as usize, self.d.total_out() as usize);
        let status = match status {
            Ok(status) => status,
            Err(e) => {
                out.fill(MaybeUninit::new(0));
                return Err(e);
            }
        };
        if out_now > expected {
            out.fill(MaybeUninit::new(0));
            return Err(Error::SizeMismatch { offset, expected, actual: None });
        }
        match status {
            Status::StreamEnd if out_now == expected => Ok(Step { used: in_now - in_before, finished: Some(in_now) }),
            Status::StreamEnd => {
                out.fill(MaybeUninit::new(0));
                Err(Error::SizeMismatch { offset, expected, actual: Some(out_now) })
            }
            _ => Ok(Step { used: in_now - in_before, finished: None }),
        }
    }
}
