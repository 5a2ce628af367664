//! The reusable decoder: libdeflate's whole-buffer decompressor, called with the input from the
//! stream's offset to the end of the buffer (never copied) and an output of the known size. Its
//! `_ex` entry points report exactly how many input bytes the stream occupied.

use std::mem::MaybeUninit;
use std::ptr::NonNull;

use libdeflate_sys as ld;

use crate::diagnose::diagnose;
use crate::{Error, Format};

/// Where one stream of a batch starts and how large it inflates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)] // the C ABI's bk_inflate_request has this layout, so a caller's array is used in place
pub struct Request {
    /// Offset of the stream in the input.
    pub offset: usize,
    /// Exact inflated size.
    pub expected_len: usize,
}

/// A reusable inflater. Setting up a stream allocates nothing; the decoder's tables live in it.
///
/// Not shareable between threads at once (it is `Send`, not `Sync`): use one per thread.
///
/// ```
/// use strided_inflate::{Decoder, Format};
///
/// // Two zlib streams back to back, as in a git pack: "hello" then "world!".
/// let mut input = vec![0x78, 0xda, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x06, 0x2c, 0x02, 0x15];
/// input.extend_from_slice(&[0x78, 0xda, 0x2b, 0xcf, 0x2f, 0xca, 0x49, 0x51, 0x04, 0x00, 0x08, 0xf0, 0x02, 0x4a]);
/// let mut decoder = Decoder::new(Format::Zlib)?;
/// let mut out = [0u8; 5];
/// let consumed = decoder.inflate_at(&input, 0, &mut out)?;
/// assert_eq!((&out, consumed), (b"hello", 13));
/// let mut out = [0u8; 6];
/// decoder.inflate_at(&input, consumed, &mut out)?; // the next stream starts where this one ended
/// assert_eq!(&out, b"world!");
/// # Ok::<(), strided_inflate::Error>(())
/// ```
pub struct Decoder {
    raw: NonNull<ld::libdeflate_decompressor>,
    format: Format,
    /// Where streams of at most [`STAGED_MAX`] bytes are inflated before being copied out.
    staging: Box<[u8]>,
}

/// Streams inflating to at most this many bytes are inflated into the decoder's own, roomier
/// buffer and copied out. libdeflate runs its fast loop only while [`STAGED_SLACK`] bytes of room
/// remain past what it writes, so into an output of the exact size a small stream ran wholly in
/// its slower, careful loop. Staged, a git history pack's 156,182 objects took 33% fewer
/// instructions in the decoder (callgrind) for 1% more in copying them out.
const STAGED_MAX: usize = 4096;

/// Room the fast loop needs past its output: its worst case is 299 bytes on 64-bit targets
/// (`FASTLOOP_MAX_BYTES_WRITTEN`: a literal pair, a 258-byte match, five words of overrun).
const STAGED_SLACK: usize = 512;

// SAFETY: the decompressor is plain heap state with no thread affinity; &mut self serialises use.
unsafe impl Send for Decoder {}

impl Drop for Decoder {
    fn drop(&mut self) {
        // SAFETY: allocated by libdeflate_alloc_decompressor in `new`, freed once.
        unsafe { ld::libdeflate_free_decompressor(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder").field("format", &self.format).finish_non_exhaustive()
    }
}

impl Decoder {
    /// A decoder for `format`.
    pub fn new(format: Format) -> Result<Decoder, Error> {
        // SAFETY: no arguments; returns NULL on allocation failure.
        let raw = NonNull::new(unsafe { ld::libdeflate_alloc_decompressor() }).ok_or(Error::AllocFailed)?;
        Ok(Decoder { raw, format, staging: vec![0u8; STAGED_MAX + STAGED_SLACK].into_boxed_slice() })
    }

    /// The stream format this decoder reads.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Inflates the stream starting at `input[offset]` into `out`, whose length is the stream's
    /// exact inflated size, and returns the number of input bytes the stream occupied (header and
    /// checksum included): the next stream starts at `offset + consumed`. Bytes after the stream
    /// are never read as part of it. On error `out` is zeroed.
    #[inline]
    pub fn inflate_at(&mut self, input: &[u8], offset: usize, out: &mut [u8]) -> Result<usize, Error> {
        self.inflate_at_uninit(input, offset, as_uninit(out))
    }

    /// Like [`inflate_at`](Self::inflate_at), into memory that may be uninitialised (a C caller's
    /// `malloc`, a fresh Erlang binary): on return `out` is initialised, with the stream's bytes
    /// or, on error, zeros.
    #[inline]
    pub fn inflate_at_uninit(
        &mut self,
        input: &[u8],
        offset: usize,
        out: &mut [MaybeUninit<u8>],
    ) -> Result<usize, Error> {
        let Some(src) = input.get(offset..) else {
            out.fill(MaybeUninit::new(0));
            return Err(Error::OutOfRange { offset, len: input.len() });
        };
        let (mut consumed, mut produced) = (0usize, 0usize);
        let entry = match self.format {
            Format::Zlib => ld::libdeflate_zlib_decompress_ex,
            Format::Raw => ld::libdeflate_deflate_decompress_ex,
        };
        if out.len() <= STAGED_MAX {
            // SAFETY: as below, the output being the staging buffer, which `&mut self` makes ours.
            let result = unsafe {
                entry(
                    self.raw.as_ptr(),
                    src.as_ptr().cast(),
                    src.len(),
                    self.staging.as_mut_ptr().cast(),
                    self.staging.len(),
                    &mut consumed,
                    &mut produced,
                )
            };
            if result == ld::libdeflate_result_LIBDEFLATE_SUCCESS && produced == out.len() {
                // SAFETY: `produced` bytes of the staging buffer are the stream's, and `out` holds
                // exactly `produced`; the two are distinct allocations.
                unsafe { std::ptr::copy_nonoverlapping(self.staging.as_ptr(), out.as_mut_ptr().cast(), produced) };
                return Ok(consumed);
            }
            // Anything else (a size lie, a corrupt stream) goes through the exact-sized call
            // below, so the error is the one it has always been.
        }
        // SAFETY: src and out are valid for their lengths and do not overlap (one is shared, one
        // exclusive; libdeflate only writes `out`); the decompressor is ours; the out-pointers are
        // valid locals.
        let result = unsafe {
            entry(
                self.raw.as_ptr(),
                src.as_ptr().cast(),
                src.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut consumed,
                &mut produced,
            )
        };
        if result == ld::libdeflate_result_LIBDEFLATE_SUCCESS && produced == out.len() {
            return Ok(consumed);
        }
        out.fill(MaybeUninit::new(0));
        Err(self.fail(input, offset, out.len(), result, produced))
    }

    /// When the input after `offset` cannot inflate to `expected_len` bytes (see
    /// [`max_inflated_len`](crate::max_inflated_len)), the error [`inflate_at`](Self::inflate_at)
    /// would return for it, found without allocating the output; `None` when the size is
    /// reachable. Lets a caller refuse a lying size before allocating, with the same answer. An
    /// offset past the end of the input is refused too ([`Error::OutOfRange`]).
    ///
    /// ```
    /// use strided_inflate::{Decoder, Error, Format};
    ///
    /// let decoder = Decoder::new(Format::Zlib)?;
    /// let prefix = [0x78, 0xda, 0xcb, 0x48]; // the first 4 bytes of a stream
    /// assert!(matches!(decoder.refuse_unreachable(&prefix, 0, 100_000), Some(Error::Truncated { offset: 0 })));
    /// assert_eq!(decoder.refuse_unreachable(&prefix, 0, 4000), None); // reachable: decode to find out
    /// # Ok::<(), strided_inflate::Error>(())
    /// ```
    pub fn refuse_unreachable(&self, input: &[u8], offset: usize, expected_len: usize) -> Option<Error> {
        let Some(available) = input.len().checked_sub(offset) else {
            return Some(Error::OutOfRange { offset, len: input.len() });
        };
        (expected_len > crate::max_inflated_len(available)).then(|| diagnose(self.format, input, offset, expected_len))
    }

    #[cold]
    #[inline(never)]
    fn fail(
        &self,
        input: &[u8],
        offset: usize,
        expected: usize,
        result: ld::libdeflate_result,
        produced: usize,
    ) -> Error {
        match result {
            ld::libdeflate_result_LIBDEFLATE_SUCCESS | ld::libdeflate_result_LIBDEFLATE_SHORT_OUTPUT => {
                Error::SizeMismatch { offset, expected, actual: Some(produced) }
            }
            // "Insufficient space" can also mean a truncated stream read as zeros past its end:
            // let the streaming decoder say which.
            _ => diagnose(self.format, input, offset, expected),
        }
    }

    /// Inflates many streams in one call: request `i`'s output goes to the next
    /// `requests[i].expected_len` bytes of `out` (in order), and `results[i]` gets its consumed
    /// count or its error. Returns how many succeeded. `out` must hold the sum of the expected
    /// lengths and `results` one slot per request, else every result is an error.
    pub fn inflate_batch(
        &mut self,
        input: &[u8],
        requests: &[Request],
        out: &mut [u8],
        results: &mut [Result<usize, Error>],
    ) -> usize {
        let total = requests.iter().try_fold(0usize, |sum, r| sum.checked_add(r.expected_len));
        if results.len() < requests.len() || total.is_none_or(|t| t > out.len()) {
            let err = Error::SizeMismatch { offset: 0, expected: total.unwrap_or(usize::MAX), actual: Some(out.len()) };
            results.iter_mut().for_each(|r| *r = Err(err.clone()));
            return 0;
        }
        self.inflate_each(input, requests.iter().copied(), out, |i, outcome| results[i] = outcome)
    }

    /// Like [`inflate_batch`](Self::inflate_batch), handing each stream's outcome to
    /// `each(index, outcome)` instead of storing it (for callers with their own result layout,
    /// such as the C ABI: nothing is allocated). The outputs go back to back into `out`; a stream
    /// whose output would pass the end of `out` fails with a size mismatch, and so do the rest.
    pub fn inflate_each(
        &mut self,
        input: &[u8],
        requests: impl IntoIterator<Item = Request>,
        out: &mut [u8],
        each: impl FnMut(usize, Result<usize, Error>),
    ) -> usize {
        self.inflate_each_uninit(input, requests, as_uninit(out), each)
    }

    /// Like [`inflate_each`](Self::inflate_each), into memory that may be uninitialised: each
    /// stream's share of `out` is initialised once its outcome is reported.
    pub fn inflate_each_uninit(
        &mut self,
        input: &[u8],
        requests: impl IntoIterator<Item = Request>,
        out: &mut [MaybeUninit<u8>],
        mut each: impl FnMut(usize, Result<usize, Error>),
    ) -> usize {
        let (mut at, mut ok) = (0usize, 0usize);
        for (i, request) in requests.into_iter().enumerate() {
            let outcome = match at.checked_add(request.expected_len).filter(|&end| end <= out.len()) {
                Some(end) => self.inflate_at_uninit(input, request.offset, &mut out[at..end]),
                None => {
                    Err(Error::SizeMismatch { offset: request.offset, expected: request.expected_len, actual: None })
                }
            };
            ok += usize::from(outcome.is_ok());
            at = at.saturating_add(request.expected_len);
            each(i, outcome);
        }
        ok
    }
}

/// Initialised bytes seen as possibly-uninitialised ones, for the `_uninit` entry points.
pub(crate) fn as_uninit(out: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: same layout; every u8 is a valid MaybeUninit<u8>, and what the `_uninit` functions
    // write through it is always initialised bytes, so `out` stays a valid [u8].
    unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) }
}
